"""Decoding on the real pair: target-only and speculative, with KV caches.

Both methods draw every random number from one numpy Generator seeded by `seed`, and both
turn logits into distributions with the same warping, so at temperature 0 they write the
same tokens and at any temperature their outputs follow the same distribution. Both up to
rounding: a pass over several positions multiplies in another order than a pass over one (on a
CPU the target's logits then differ by about 1e-5), which can tip a near-tie between two
tokens.

Cache invariant between steps: each model's cache holds a prefix of the context that is at
most len(context) - 1 long, so the next forward call always has at least one new token.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np
import torch
from transformers import DynamicCache

from .checks import EMPTY_PROMPT, check_prompt_text, check_settings
from .inputs import MAX_GAMMA
from .sampling import RoundRecord, sample, speculative_round
from .warping import Sampling, allowed, to_distributions


@dataclass(frozen=True)
class Chunk:
    """Tokens one step produced, with how each came about."""

    token_ids: tuple[int, ...]
    origins: tuple[str, ...]  # "accepted" | "correction" | "bonus" | "target"
    # the round as it ran, for speculative steps; where the text ends (an end-of-text token or
    # max_new_tokens) its last token can be one that `token_ids` leaves out
    record: RoundRecord | None


@dataclass
class Stats:
    new_tokens: int = 0
    target_passes: int = 0
    drafted: int = 0  # draft steps, over all rounds
    checked: int = 0  # drafts the target flipped a coin for (none after a rejection)
    accepted: int = 0  # drafts it kept
    wall_seconds: float = 0.0

    @property
    def alpha(self) -> float:
        """The measured acceptance rate: kept drafts over checked ones, at this run's sampling
        settings. A draft after a rejection is never checked, so it counts neither way. With an
        early stop the drafts after an unsure one are never made, so this need not match the
        drafter table's α (temperature 1, every position)."""
        return self.accepted / self.checked if self.checked else 0.0

    @property
    def tokens_per_target_pass(self) -> float:
        return self.new_tokens / self.target_passes if self.target_passes else 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.new_tokens / self.wall_seconds if self.wall_seconds else 0.0

    def count(self, chunk: Chunk) -> None:
        """Add the tokens and checks of one target pass."""
        self.new_tokens += len(chunk.token_ids)
        self.target_passes += 1
        if chunk.record is not None:
            self.drafted += chunk.record.gamma
            self.checked += len(chunk.record.checks)
            self.accepted += chunk.record.n_accepted

    def as_dict(self) -> dict:
        """The figures for a JSON report: α is null where no draft was checked."""
        return {**self.__dict__, "alpha": self.alpha if self.checked else None,
                "tokens_per_target_pass": self.tokens_per_target_pass,
                "tokens_per_second": self.tokens_per_second}


@dataclass
class Result:
    token_ids: list[int]
    text: str
    origins: list[str]
    rounds: list[RoundRecord] = field(default_factory=list)  # as they ran (see Chunk.record)
    stats: Stats = field(default_factory=Stats)


# --- small steps ---------------------------------------------------------------------------

def crop(cache: DynamicCache, length: int) -> None:
    """Roll a cache back to its first `length` positions with the cache's public
    API."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


def feed(logits_fn, cache: DynamicCache, context: list[int], device, rows: int) -> torch.Tensor:
    """Run the tokens of `context` the cache has not seen; (rows, V) logits for the last `rows`
    of them (a prompt's first pass reads a whole prompt, but only its last scores are used)."""
    new = context[cache.get_seq_length():]
    ids = torch.tensor([new], dtype=torch.long, device=device)  # (1, T_new)
    return logits_fn(ids, cache, rows)


def add_noise(q: np.ndarray, noise: float, banned: tuple[int, ...] = ()) -> np.ndarray:
    """Blend the draft's distribution with the uniform one over the tokens not `banned`: a knob
    that makes a draft worse without drafting a token neither model may write. The rule stays
    exact for any q, because q is what the draft really sampled from."""
    if noise == 0:
        return q
    uniform = np.ones(q.shape[-1])
    uniform[list(banned)] = 0.0
    return (1.0 - noise) * q + noise * uniform / uniform.sum()


def propose(pair, context, gamma, sampling, rng, cache, noise=0.0,
            stop_below=0.0) -> tuple[list[int], np.ndarray]:
    """The draft writes up to `gamma` tokens one after another:
    (tokens, q_dists (n, V)).

    It stops after an end-of-text token, which nothing follows. With `stop_below` > 0
    it also stops early after a token to which it gave less than that probability
    (see `draft_confidence`): where the draft is unsure the target often disagrees,
    and every token drafted after a rejection is wasted. The rule is still exact:
    where a round stops depends only on the draft's side, and each drafted token is
    checked as before."""
    tokens, dists = [], []
    for _ in range(gamma):
        logits = feed(pair.drafter_logits, cache, context + tokens, pair.device,
                      rows=1)
        warped = to_distributions(logits, sampling)[0]  # (V,)
        q = add_noise(warped, noise, sampling.banned)
        tokens.append(sample(q, rng))
        dists.append(q)
        if tokens[-1] == pair.tokenizer.eos_token_id:
            break
        if stop_below and draft_confidence(logits[0], warped, tokens[-1],
                                           sampling) < stop_below:
            break
    return tokens, np.stack(dists)


def draft_confidence(logits: torch.Tensor, warped: np.ndarray, token: int, sampling: Sampling) -> float:
    """How sure the drafter was of `token`: its probability in the distribution the drafter
    drew from, before any noise (transformers' assistant_confidence_threshold reads the same).
    At temperature 0 that distribution is one-hot and says nothing, so its plain softmax."""
    if sampling.greedy:
        return float(torch.softmax(allowed(logits, sampling), -1)[token])
    return float(warped[token])


def verify(pair, context, draft_tokens, sampling, cache) -> np.ndarray:
    """One target pass over the drafts: p_dists (gamma + 1, V), the last row for
    a bonus."""
    rows = len(draft_tokens) + 1  # each draft's position, and the one after the last
    logits = feed(pair.target_logits, cache, context + draft_tokens, pair.device, rows)
    return to_distributions(logits, sampling)


def origins_of(record: RoundRecord) -> list[str]:
    return ["accepted"] * record.n_accepted + ["bonus" if record.bonus else "correction"]


@dataclass(frozen=True)
class Round:
    """One round with the distributions it was decided on."""

    drafts: list[int]
    q_dists: np.ndarray  # (len(drafts), V)
    p_dists: np.ndarray  # (len(drafts) + 1, V), the last row for a bonus token
    record: RoundRecord


def run_round(pair, context, gamma, sampling, rng, target_cache, draft_cache,
              noise=0.0, stop_below=0.0) -> Round:
    """Steps 1 to 3 of a round after `context`. The target's cache is left holding
    the drafts, the draft's cache all but the last (it wrote that one, and never
    read it back)."""
    # 1. draft up to gamma tokens with the small model
    drafts, q_dists = propose(pair, context, gamma, sampling, rng, draft_cache,
                              noise, stop_below)
    # 2. score all of them (and one more position) in a single target pass
    p_dists = verify(pair, context, drafts, sampling, target_cache)
    # 3. accept or correct, in plain numpy
    record = speculative_round(drafts, q_dists, p_dists, rng)
    return Round(drafts, q_dists, p_dists, record)


@torch.inference_mode()
def first_round(pair, prompt_ids, gamma, sampling, rng) -> Round:
    """The round `iter_speculative` runs first after a prompt, on fresh caches."""
    return run_round(pair, list(prompt_ids), gamma, sampling, rng, DynamicCache(), DynamicCache())


# --- the two decoders ----------------------------------------------------------------------

@torch.inference_mode()
def iter_target(pair, prompt_ids, max_new_tokens, sampling, rng) -> Iterator[Chunk]:
    """Target-only sampling, one token per target pass."""
    context, cache = list(prompt_ids), DynamicCache()
    for _ in range(max_new_tokens):
        p = to_distributions(feed(pair.target_logits, cache, context, pair.device, rows=1), sampling)[0]
        token = sample(p, rng)
        context.append(token)
        yield Chunk((token,), ("target",), None)


@torch.inference_mode()
def iter_speculative(pair, prompt_ids, max_new_tokens, sampling, rng, gamma,
                     noise=0.0, stop_below=0.0) -> Iterator[Chunk]:
    """Speculative sampling: each round drafts up to `gamma` tokens, verifies them in
    one pass and yields every token it adds (`stream` cuts the last round at the token
    limit and stops at end-of-text). A round drafts fewer when the draft stops early
    (see `propose`), and at most one fewer than the tokens still to write, since a round
    that keeps every draft adds a bonus token; but always at least one, so with one token
    left a round may add two, and `stream` keeps the first."""
    context = list(prompt_ids)
    target_cache, draft_cache = DynamicCache(), DynamicCache()
    produced = 0
    while produced < max_new_tokens:
        # 1-3. draft, verify in one target pass, accept or correct
        n_draft = max(1, min(gamma, max_new_tokens - produced - 1))
        record = run_round(pair, context, n_draft, sampling, rng,
                           target_cache, draft_cache, noise, stop_below).record
        context.extend(record.tokens)
        produced += len(record.tokens)
        # 4. roll both caches back to the tokens that stand (all but the newest)
        crop(target_cache, len(context) - 1)
        crop(draft_cache, len(context) - 1)
        yield Chunk(record.tokens, tuple(origins_of(record)), record)


def check_request(pair, prompt_ids, max_new_tokens, method, gamma, noise=0.0, stop_below=0.0) -> None:
    check_settings(max_new_tokens, method, gamma, noise, stop_below)
    if not prompt_ids:
        raise ValueError(EMPTY_PROMPT)
    if any(not 0 <= t < pair.vocab_size for t in prompt_ids):
        raise ValueError(f"prompt token ids must lie in [0, {pair.vocab_size})")
    room = pair.context_length - MAX_GAMMA - 1
    if len(prompt_ids) + max_new_tokens > room:
        raise ValueError(f"prompt ({len(prompt_ids)} tokens) plus max_new_tokens "
                         f"({max_new_tokens}) is more than the {room} tokens a generation may use "
                         f"of the model's {pair.context_length}-token context")


def as_token_ids(prompt) -> list[int]:
    ids = np.asarray(prompt)
    if ids.size and (ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer)):
        raise ValueError("a prompt given as token ids must be a flat list of integers")
    return [int(t) for t in ids]


def encode(pair, prompt: str) -> list[int]:
    """A prompt's token ids, read as the characters it holds: "<|endoftext|>" in it is text,
    not the control token. A prompt in the chat format is given as token ids."""
    check_prompt_text(prompt)
    return pair.tokenizer(prompt, add_special_tokens=False, split_special_tokens=True)["input_ids"]


def prompt_ids(pair, prompt: str | list[int]) -> list[int]:
    """The token ids of a prompt given as text (see `encode`) or as token ids."""
    return encode(pair, prompt) if isinstance(prompt, str) else as_token_ids(prompt)


def check_seed(seed) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"seed must be a whole number >= 0 (or None); got {seed!r}")


def stream(pair, prompt, max_new_tokens=64, method="speculative", gamma=4, temperature=1.0,
           top_k=0, top_p=1.0, seed=0, draft_noise=0.0, stop_below=0.0,
           suppress_eos=False) -> Iterator[Chunk]:
    """Chunks as they are produced, stopping at EOS or max_new_tokens (a round is cut there).

    `prompt` is text, or a list of token ids (for chat-formatted prompts). `draft_noise`
    blends the draft's q with the uniform distribution (0 = the drafter as it is).
    `stop_below` > 0 lets a round end its draft early, after a token the draft itself gave
    less than that probability (0 = always draft `gamma` tokens, as in the lesson).
    `suppress_eos` bans end-of-text in both models, so exactly `max_new_tokens` are written
    (for timing: transformers' min_new_tokens does the same).
    """
    sampling = Sampling(temperature, top_k, top_p, (pair.tokenizer.eos_token_id,) if suppress_eos else ())
    start = prompt_ids(pair, prompt)
    check_request(pair, start, max_new_tokens, method, gamma, draft_noise, stop_below)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    if method == "target":
        chunks = iter_target(pair, start, max_new_tokens, sampling, rng)
    else:
        chunks = iter_speculative(pair, start, max_new_tokens, sampling, rng, gamma, draft_noise, stop_below)
    left, eos = max_new_tokens, pair.tokenizer.eos_token_id
    for chunk in chunks:
        ids = chunk.token_ids[:left]
        if eos in ids:
            ids = ids[: ids.index(eos) + 1]
        left -= len(ids)
        yield Chunk(ids, chunk.origins[: len(ids)], chunk.record)
        if left <= 0 or (ids and ids[-1] == eos):
            return


def generate(pair, prompt, max_new_tokens=64, method="speculative", gamma=4, temperature=1.0,
             top_k=0, top_p=1.0, seed=0, draft_noise=0.0, stop_below=0.0, suppress_eos=False,
             as_written: Callable[[list[int]], None] | None = None) -> Result:
    """Generate a continuation; see `stream` for the arguments. `as_written`, where given, is
    called after each target pass with the new token ids so far (to show the text as it grows;
    its time counts in the run's)."""
    begin = time.perf_counter()
    result = Result([], "", [])
    for chunk in stream(pair, prompt, max_new_tokens, method, gamma, temperature, top_k, top_p, seed,
                        draft_noise, stop_below, suppress_eos):
        result.token_ids.extend(chunk.token_ids)
        result.origins.extend(chunk.origins)
        result.stats.count(chunk)
        if chunk.record is not None:
            result.rounds.append(chunk.record)
        if as_written is not None:
            as_written(result.token_ids)
    result.stats.wall_seconds = time.perf_counter() - begin
    result.text = pair.tokenizer.decode(result.token_ids, skip_special_tokens=True)
    return result
