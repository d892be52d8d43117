"""How good a drafter is: acceptance rate, greedy agreement and cost, measured on real text.

alpha = mean over positions of sum_x min(p(x), q(x)) at temperature 1: the chance a draft
token survives. Cost c = time of one draft step / time of one target step, timed side by
side. With both, the closed forms give the expected tokens per target pass and speed-up; the
speed-up also uses the measured cost of verifying gamma + 1 positions in one target pass.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from transformers import DynamicCache

from .catalog import ASSETS
from .checks import is_real
from .engine import add_noise, crop
from .inputs import SCORE_MAX_TOKENS
from .results import read_results, reading
from .sampling import GAMMAS, expected_speedup, overlap
from .timing import alternate_timings, wait_for
from .warping import Sampling, to_distributions

QUALITY_FILE = ASSETS / "benchmarks" / "drafters.json"
COST_CONTEXT = 64  # tokens of cached context before the timed steps and passes


@dataclass(frozen=True)
class DrafterQuality:
    drafter: str
    alpha: float  # mean sum_x min(p, q), temperature 1
    greedy_agreement: float  # P(argmax q == argmax p)
    cost_ratio: float  # one draft step / one target step
    best_gamma: int
    expected_speedup: float  # at best_gamma, from the closed form with measured verify costs
    verify_cost: float  # the target pass that checks best_gamma drafts, in single steps
    positions: int  # positions the figures were measured on

    def __post_init__(self):
        """Figures read back from a file are numbers in their range, or the row is not the
        table's: a chance outside [0, 1], a cost of 0 or less, a γ the sweep does not try."""
        if not isinstance(self.drafter, str):
            raise TypeError(f"drafter is {self.drafter!r}, not a name")
        for name in ("alpha", "greedy_agreement", "cost_ratio", "best_gamma", "expected_speedup",
                     "verify_cost", "positions"):
            value = getattr(self, name)
            if not is_real(value):
                raise TypeError(f"{name} is {value!r}, not a number")
        for name in ("alpha", "greedy_agreement"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} is {getattr(self, name)!r}, not a chance in [0, 1]")
        for name in ("cost_ratio", "expected_speedup", "verify_cost", "positions"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} is {getattr(self, name)!r}, not above 0")
        if self.best_gamma not in GAMMAS:
            raise ValueError(f"best_gamma is {self.best_gamma!r}, not one of {GAMMAS[0]} to {GAMMAS[-1]}")

    @property
    def flattered(self) -> bool:
        """The run timed the checking pass as cheaper than one step (v below 1, as when the
        product for one row is the slower one), which prices checking below a target step, so
        `expected_speedup` is on the high side."""
        return self.verify_cost < 1


def text_overlap(pair, token_ids: list[int], start: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Per-position beta and greedy agreement for the positions predicting token_ids[start:]
    (start >= 1: token 0 has no position before it)."""
    if start < 1:
        raise ValueError(f"start must be at least 1; got {start}")
    p, q = pair.distributions(token_ids[:-1])  # row i predicts token i + 1
    p, q = p[start - 1:], q[start - 1:]
    return overlap(p, q), (p.argmax(-1) == q.argmax(-1))


@torch.inference_mode()
def alpha_by_noise(pair, token_ids: list[int], start: int, sampling: Sampling,
                   noises) -> np.ndarray:
    """The drafter's alpha on one fixed text at each draft noise in `noises`: the mean over the
    positions predicting token_ids[start:] of sum_x min(p, q_noisy), with p and q warped alike
    by `sampling` and q blended with the uniform distribution as generation blends it. One text
    for every noise, so that the figures differ by the noise alone, not by the luck of a text."""
    if not 1 <= start < len(token_ids):
        raise ValueError(f"start must lie in 1..{len(token_ids) - 1}; got {start}")
    ids = torch.as_tensor(np.asarray(token_ids[:-1], dtype=np.int64), device=pair.device)[None]
    rows = len(token_ids) - start  # row i predicts token i + 1: the last rows, from start - 1 on
    # only those rows through the output layer: a long prompt's would take memory for nothing
    p = to_distributions(pair.target_logits(ids, DynamicCache(), rows), sampling)  # (N, V)
    q = to_distributions(pair.drafter_logits(ids, DynamicCache(), rows), sampling)  # (N, V)
    return np.array([float(overlap(p, add_noise(q, float(n), sampling.banned)).mean()) for n in noises])


@dataclass(frozen=True)
class TextScore:
    alpha: float  # mean sum_x min(p, q) at temperature 1 over the scored positions
    argmax_agreement: float  # share of scored positions where argmax q == argmax p
    positions: int
    tokens: int  # tokens of the text that were read (all of it, or the first max_tokens)
    more: bool  # the text holds more tokens than were read


# where no token can cross (the tokenizer's pre-split runs letters, numbers, other characters
# and whitespace apart): before a space, tab or line break after anything but whitespace, and
# before punctuation or a symbol after a letter or a number (CJK text and code often have no
# spaces); Python's \s holds every character the tokenizer's \s does, and a few more
_WORD_END = re.compile(r"(?<=\S)[ \t\n\r]|(?<=[^\W_])[^\w\s]")


def _cuts(text: str, start: int, end: int):
    """Where _WORD_END allows a cut in text[start:end], except next to a character Python's
    Unicode tables do not know: the tokenizer's newer tables may call it a letter."""
    for match in _WORD_END.finditer(text, start, end):
        i = match.start()
        if "Cn" not in (unicodedata.category(text[i - 1]), unicodedata.category(text[i])):
            yield i


def leading_ids(tokenizer, text: str, limit: int) -> tuple[list[int], bool]:
    """The ids of `text`'s first `limit` tokens, as reading all of it would give them, and
    whether it holds more; only as much of the text is split as those tokens need (all of a
    20 MB file took gigabytes). A part is cut only where a token ends whatever follows (see
    _WORD_END), so its tokens are the whole text's."""
    chars = 16 * limit
    while True:
        cut = len(text)
        if chars < len(text):
            before = [i for i in _cuts(text, 0, chars + 1) if i > 0][-1:]
            cut = before[0] if before else next(_cuts(text, chars, len(text)), len(text))
        # as written: "<|endoftext|>" in the text is its characters, not the control token
        ids = tokenizer(text[:cut], add_special_tokens=False, split_special_tokens=True)["input_ids"]
        if cut == len(text) or len(ids) > limit:
            return ids[:limit], len(ids) > limit or cut < len(text)
        chars *= 2


def score_text(pair, text: str, window: int = 512, max_tokens: int = SCORE_MAX_TOKENS) -> TextScore:
    """The drafter's alpha and argmax agreement with the target on any text, such as text the
    drafter was never trained on, at every token but the first. The text is read in windows of
    `window` tokens that overlap by half: the first scores its tokens from the second on, each
    later one its second half, so that every token is predicted from all the text before it or
    at least `window // 2` tokens of it, as in decoding, and long texts need no more memory than
    one window."""
    if window < 2 or max_tokens < 2:
        raise ValueError(f"window and max_tokens must be at least 2; got {window}, {max_tokens}")
    kept, more = leading_ids(pair.tokenizer, text, max_tokens)
    if len(kept) < 2:
        raise ValueError("the text needs at least two tokens to score a prediction")
    new, seen = window // 2, window - window // 2  # a later window's new tokens, and those before
    scored = [text_overlap(pair, kept[:window])]
    scored += [text_overlap(pair, kept[start - seen:start + new], start=seen)
               for start in range(window, len(kept), new)]
    beta = np.concatenate([b for b, _ in scored])
    agree = np.concatenate([a for _, a in scored])
    return TextScore(float(beta.mean()), float(agree.mean()), int(len(beta)), len(kept), more)


def _pass(fn, ids: torch.Tensor, cache: DynamicCache, length: int):
    """A call that runs one pass over `ids` after a cached context, then rolls the cache back to
    the context's `length` positions."""
    def call():
        wait_for(fn(ids, cache))
        crop(cache, length)
    return call


@torch.inference_mode()
def step_seconds(pair, context: list[int], repeats: int = 20) -> dict[str, float]:
    """Median seconds of one target step ("target") and one draft step ("draft"), each one new
    position after a cached context, timed in turn."""
    ids = torch.tensor([context[:-1]], device=pair.device)
    last = torch.tensor([context[-1:]], device=pair.device)
    calls = {}
    for key, fn in (("target", pair.target_logits), ("draft", pair.drafter_logits)):
        cache = DynamicCache()
        fn(ids, cache)
        calls[key] = _pass(fn, last, cache, len(context) - 1)
    return alternate_timings(calls, repeats)


def step_cost(pair, context: list[int], repeats: int = 20) -> float:
    """Time of one draft step over one target step, one new position after a cached context."""
    seconds = step_seconds(pair, context, repeats)
    return seconds["draft"] / seconds["target"]


@torch.inference_mode()
def pass_seconds(pair, context: list[int], positions: int, repeats: int = 15,
                 statistic=np.median) -> tuple[float, float]:
    """Seconds (the median, or another `statistic` of the turns) of one target pass over the
    last `positions` tokens of `context`, and of one over the first of them alone, after the
    same cached prefix, timed in turn."""
    if not 1 <= positions <= len(context):
        raise ValueError(f"positions must lie in [1, {len(context)}]; got {positions}")
    cache = DynamicCache()
    prefix = len(context) - positions
    if prefix:
        pair.target_logits(torch.tensor([context[:prefix]], device=pair.device), cache)
    calls = {n: _pass(pair.target_logits, torch.tensor([context[prefix:prefix + n]], device=pair.device),
                      cache, prefix) for n in (positions, 1)}
    seconds = alternate_timings(calls, repeats, statistic)
    return seconds[positions], seconds[1]


def verify_cost(pair, context: list[int], positions: int, repeats: int = 15) -> float:
    """Time of one target pass over `positions` new tokens over a pass over one, after the same
    cached context. 1.0 means verifying a whole draft is as cheap as one step; on a CPU the
    extra positions are not free."""
    if not 1 <= positions < len(context):
        raise ValueError(f"positions must lie in [1, {len(context) - 1}]; got {positions}")
    many, one = pass_seconds(pair, context, positions, repeats)
    return many / one


def cost_context(texts: list[tuple[list[int], int]]) -> list[int]:
    """The context every cost is timed after: the first COST_CONTEXT tokens of the first text
    that has them, else of the longest (a prompt the target ends at once, such as a question,
    gives a text of a few tokens). A pass that checks γ drafts reads γ + 1 new tokens after at
    least one: a context shorter than that cannot time the largest γ, and is refused here."""
    ids = next((ids for ids, _ in texts if len(ids) >= COST_CONTEXT), max((ids for ids, _ in texts), key=len))
    if len(ids) < max(GAMMAS) + 2:
        raise ValueError(f"every text is under {max(GAMMAS) + 2} tokens, too short to time a pass that "
                         f"checks {max(GAMMAS)} drafts: give a prompt the target continues")
    return ids[:COST_CONTEXT]


def verify_costs(pair, context: list[int], gammas=GAMMAS) -> dict[int, float]:
    """verify_cost for checking each gamma drafts (gamma + 1 positions), by gamma."""
    return {g: verify_cost(pair, context, g + 1) for g in gammas}


def best_gamma(alpha: float, cost: float, verify: dict[int, float] | None = None,
               gammas=GAMMAS) -> tuple[int, float]:
    """The gamma with the highest expected speed-up; `verify` maps gamma to the measured cost
    of verifying it (1 for every gamma when not given)."""
    speeds = {g: expected_speedup(alpha, g, cost, (verify or {}).get(g, 1.0)) for g in gammas}
    g = max(speeds, key=speeds.get)
    return g, speeds[g]


def measure(pair, texts: list[tuple[list[int], int]], greedy=None,
            verify: dict[int, float] | None = None) -> DrafterQuality:
    """texts: (token_ids, start) pairs; positions from `start` on are scored. Greedy agreement
    is measured on `greedy` (the target's own greedy continuations) when given, else on texts.
    `verify` (from verify_costs) is measured on the first text when not given."""
    scored = [text_overlap(pair, ids, start) for ids, start in texts]
    beta = np.concatenate([b for b, _ in scored])
    if greedy is not None:
        scored = [text_overlap(pair, ids, start) for ids, start in greedy]
    agreement = np.concatenate([a for _, a in scored])
    context = cost_context(texts)
    cost = step_cost(pair, context)
    verify = verify or verify_costs(pair, context)
    g, speed = best_gamma(float(beta.mean()), cost, verify)
    return DrafterQuality(pair.drafter_name, float(beta.mean()), float(agreement.mean()), cost, g,
                          speed, float(verify.get(g, 1.0)), int(len(beta)))


def save_table(rows: list[DrafterQuality], path: Path = QUALITY_FILE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(r) for r in rows], indent=2))


def drafter_table(path: Path | None = None) -> list[DrafterQuality]:
    """The measured quality of each shipped drafter, poorest first ([] if not measured); a
    damaged table is a ResultsFileError that names its fix."""
    path = Path(path or QUALITY_FILE)
    table = read_results(path) or []
    with reading(path):  # rows that are not the table's
        return sorted((DrafterQuality(**r) for r in table), key=lambda r: r.alpha)


def drafter_quality(drafter: str, path: Path | None = None) -> DrafterQuality | None:
    """The drafter table's row for `drafter`, or None where it was not measured."""
    return next((r for r in drafter_table(path) if r.drafter == drafter), None)
