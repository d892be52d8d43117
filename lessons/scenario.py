"""One speculative round on the real pair, frozen for the walkthrough.

The draft proposes gamma tokens, the target scores them in one pass, and the numpy rule
decides, all driven by one seeded Generator: the same (prompt, drafter, settings, seed) gives
the same round for everyone who opens the same link.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from specdec_core import quality
from specdec_core.catalog import drafter_label
from specdec_core.engine import encode, first_round
from specdec_core.sampling import RoundRecord
from specdec_core.warping import Sampling

from .style import visible
from .text import token_text

WALKTHROUGH_PROMPT = "Your export failed because your"
WALKTHROUGH_GAMMA = 4
TOP_N = 8  # alternatives kept per position for the charts
BONUS_TRIES = 200  # seeds searched for a round that keeps every draft


def token_name(labels: dict[int, str], token: int) -> str:
    """A token's text from `labels`, or its id as "#123" where it has none."""
    return labels.get(int(token), f"#{token}")


def under_offered(p_row: np.ndarray, q_row: np.ndarray, n: int) -> list[int]:
    """The n tokens with the most leftover max(0, p - q), the most first: where the draft
    under-offered the target, and so where a correction draws. Ties, such as the tokens with no
    leftover that fill the list where fewer than n have some, go by token id, so that the charts
    and the labels build_scenario fetches pick the same tokens."""
    leftover = np.maximum(0.0, p_row - q_row)
    return [int(t) for t in np.argsort(-leftover, kind="stable")[:n]]


@dataclass(frozen=True)
class Scenario:
    prompt: str
    prompt_ids: tuple[int, ...]
    drafter: str
    seed: int
    sampling: Sampling
    draft_tokens: tuple[int, ...]
    q_dists: np.ndarray  # (gamma, V) the draft's distribution at each drafted position
    p_dists: np.ndarray  # (gamma + 1, V) the target's, the last row for a bonus token
    record: RoundRecord
    labels: dict[int, str] = field(repr=False)  # token id -> its text
    verify_seconds: float  # the single target pass over all drafted positions
    single_pass_seconds: float  # one target pass for one position
    timed_on: str = "cpu"  # the device those passes ran on

    @property
    def gamma(self) -> int:
        return len(self.draft_tokens)

    @property
    def drafter_label(self) -> str:
        return drafter_label(self.drafter)

    def label(self, token: int) -> str:
        """The token's text with visible whitespace, for captions, tables and takeaways."""
        return visible(token_name(self.labels, token))

    def top_tokens(self, row: int, n: int = 6) -> list[int]:
        """The n tokens with the most mass under p or q at drafted position `row`."""
        p = self.p_dists[row]
        q = self.q_dists[row] if row < self.gamma else np.zeros_like(p)
        return [int(t) for t in np.argsort(-np.maximum(p, q), kind="stable")[:n]]

    def exactness_tokens(self, row: int, n: int = 6) -> list[int]:
        """Tokens that show both routes to p at `row`, by falling p: the target's favourites
        (mostly reached by keeping a draft) and the ones the draft under-offered most (where the
        correction adds mass, invisible among the favourites when the draft over-sells them)."""
        p = self.p_dists[row]
        q = self.q_dists[row] if row < self.gamma else np.zeros_like(p)
        under = [t for t in under_offered(p, q, n // 2) if p[t] > q[t]]
        favourites = [int(t) for t in np.argsort(-p, kind="stable")[:n] if t not in under]
        return sorted([*under, *favourites[:n - len(under)]], key=lambda t: -p[t])

    @property
    def decided_row(self) -> int:
        """The position whose last token closed the round (rejection, or the bonus row)."""
        return len(self.record.tokens) - 1


def _labels(tokenizer, ids) -> dict[int, str]:
    return {int(t): token_text(tokenizer, t) for t in set(int(i) for i in ids)}


# each turn times both passes; the first page of a fresh server waits for all of them (15 turns
# made it about 2 s slower than 5 on this machine)
TIMED_TURNS = 7


def pass_seconds(pair, prompt_ids: list[int], drafts: list[int]) -> tuple[float, float]:
    """(verify, single): the fastest of TIMED_TURNS passes that score the last prompt token and
    every draft, and of as many that score the last prompt token alone, after a cached prefix,
    in turn. The costs depend on the lengths, not on which tokens were drafted, so one timing
    can serve many rounds. The fastest turn, not the median: the timing runs once per server,
    often while other sessions load, and the medians of a busy machine came out in either
    order (a pass over five positions "faster" than one over one)."""
    return quality.pass_seconds(pair, [*prompt_ids, *drafts], len(drafts) + 1, TIMED_TURNS, np.min)


def first_bonus_seed(pair, prompt: str = WALKTHROUGH_PROMPT, gamma: int = WALKTHROUGH_GAMMA,
                     tries: int = BONUS_TRIES, sampling: Sampling = Sampling()) -> int | None:
    """The smallest seed below `tries` whose round keeps every draft, so that its checking pass
    adds a bonus token; None where no such seed is found. Nimbus-mini keeps all four of its
    guesses in about one round in eight here (26 of seeds 0 to 199; the first is 20), so a few
    dozen rounds (a second or two) find one; a poor drafter may find none."""
    prompt_ids = encode(pair, prompt)
    for seed in range(tries):
        if first_round(pair, prompt_ids, gamma, sampling, np.random.default_rng(seed)).record.bonus:
            return seed
    return None


def build_scenario(pair, prompt: str = WALKTHROUGH_PROMPT, gamma: int = WALKTHROUGH_GAMMA,
                   seed: int = 0, sampling: Sampling = Sampling(),
                   pass_costs: tuple[float, float] | None = None) -> Scenario:
    """One round, frozen: the first round `generate` would run with these settings. `pass_costs`:
    (verify, single) seconds from `pass_seconds` for this prompt and gamma, timed here when not
    given."""
    prompt_ids = encode(pair, prompt)
    rnd = first_round(pair, prompt_ids, gamma, sampling, np.random.default_rng(seed))
    drafts, q_dists, p_dists, record = rnd.drafts, rnd.q_dists, rnd.p_dists, rnd.record
    for array in (q_dists, p_dists):
        array.setflags(write=False)  # shared between sessions: never mutated
    shown = [*prompt_ids, *drafts, *record.tokens]
    for row in range(len(drafts) + 1):  # fewer than gamma when the draft wrote end-of-text
        top_by_p = np.argsort(-p_dists[row])[:TOP_N]
        top_by_q = np.argsort(-q_dists[row])[:TOP_N] if row < len(drafts) else []
        # the tokens the draft under-offered most: steps 4 and 5 show them by name, never
        # more than TOP_N of them
        under = under_offered(p_dists[row], q_dists[row], TOP_N) if row < len(drafts) else []
        shown.extend([*top_by_p, *top_by_q, *under])
    return Scenario(prompt, tuple(prompt_ids), pair.drafter_name, seed, sampling, tuple(drafts),
                    q_dists, p_dists, record, _labels(pair.tokenizer, shown),
                    *(pass_costs or pass_seconds(pair, prompt_ids, drafts)), timed_on=pair.device)
