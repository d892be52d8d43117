"""The speculative sampling rule, in plain numpy.

Notation of Leviathan et al. 2023 (Chen et al. 2023 swap the letters p and q):
    p      the target's (Nimbus-large) next-token distribution
    q      the draft's (Nimbus-mini) next-token distribution
    gamma  number of drafted tokens in one round
    beta   sum_x min(p(x), q(x)), the chance one drafted token is kept
    alpha  the acceptance rate, E[beta] over positions

One round: each drafted token x is kept with probability min(1, p(x)/q(x)); the first rejected
one is replaced by a sample from the residual max(0, p - q) / Z and the round ends. If all gamma
drafts are kept, one bonus token is sampled from the target's next distribution, so a round
emits between 1 and gamma + 1 tokens, and each emitted token, given the tokens before it, is
distributed exactly as p there: the kept drafts alone follow min(p, q) / beta, and the
corrections fill in the rest of p.

Nothing here imports torch; the engine hands numpy arrays in and gets dataclasses back.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GAMMAS = range(1, 9)  # the draft lengths the app's slider, tables and charts compare
SUM_TOLERANCE = 1e-3  # a row may miss 1.0 by this much (float32 softmax); it is renormalised


@dataclass(frozen=True)
class DraftCheck:
    """The verdict on one drafted token."""

    position: int  # 0-based index within the round
    token: int
    q: float  # q(token), the draft's probability
    p: float  # p(token), the target's probability
    accept_prob: float  # min(1, p / q)
    u: float  # the uniform draw in [0, 1); kept when u < accept_prob
    accepted: bool


@dataclass(frozen=True)
class RoundRecord:
    """What one speculative round did, in the order it happened."""

    draft_tokens: tuple[int, ...]
    checks: tuple[DraftCheck, ...]  # examined drafts; stops at the first rejection
    tokens: tuple[int, ...]  # emitted: kept drafts, then one correction or bonus token
    residual_mass: float | None  # Z of the residual the correction came from, on a rejection
    bonus: bool  # True when all drafts were kept and the last token came from p[gamma]

    @property
    def gamma(self) -> int:
        return len(self.draft_tokens)

    @property
    def n_accepted(self) -> int:
        return sum(c.accepted for c in self.checks)

    @property
    def last_token(self) -> int:
        """The correction or bonus token that closes the round."""
        return self.tokens[-1]


# --- checking inputs -----------------------------------------------------------------------

def as_distributions(dists, name: str, rows: int | None = None) -> np.ndarray:
    """A float64 copy of `dists` (rows of probabilities), each row renormalised to sum to 1.

    Raises ValueError for the wrong shape, negative or non-finite entries, or a row whose sum
    misses 1 by more than SUM_TOLERANCE.
    """
    arr = np.asarray(dists, dtype=np.float64)  # the caller's own array where it is float64
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D array (rows, vocab); got shape {np.shape(dists)}")
    if rows is not None and arr.shape[0] != rows:
        raise ValueError(f"{name} must have {rows} rows; got {arr.shape[0]}")
    # Two passes that make no array of the rows' size find every fault: a row's least entry is
    # NaN where it holds a NaN, and with no entry negative its sum is finite only where every
    # entry is. This runs on every round of decoding, where the rows are 49,152 wide.
    with np.errstate(over="ignore", invalid="ignore"):  # an inf or NaN sum is named below
        sums, least = arr.sum(axis=1), arr.min(axis=1)
    if not (np.all(least >= 0) and np.all(np.isfinite(sums))):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values")
        if np.any(arr < 0):
            raise ValueError(f"{name} contains negative probabilities")
        # else finite entries whose sum overflows: the sum check below names it
    bad = np.abs(sums - 1.0) > SUM_TOLERANCE
    if np.any(bad):
        row = int(np.argmax(bad))
        raise ValueError(f"{name} row {row} sums to {sums[row]:.6f}, not 1")
    return arr / sums[:, None]  # a new array: the caller's is never written into


# --- the rule, one idea per function ------------------------------------------------------

def acceptance_probability(p_x, q_x):
    """min(1, p(x) / q(x)); 1 where q(x) == 0 (such a token is never drafted)."""
    p_x = np.asarray(p_x, dtype=np.float64)
    q_x = np.asarray(q_x, dtype=np.float64)
    safe_q = np.where(q_x > 0, q_x, 1.0)
    ratio = np.where(q_x > 0, p_x / safe_q, 1.0)
    out = np.minimum(1.0, ratio)
    return float(out) if out.ndim == 0 else out


def overlap(p, q) -> np.ndarray | float:
    """beta = sum_x min(p(x), q(x)) along the last axis: the chance a draft from q is kept. At
    most 1: rows stored in float32 sum to 1 only within about 1e-7, which for a drafter equal
    to the target would otherwise give a chance above 1."""
    out = np.minimum(np.minimum(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)).sum(-1), 1.0)
    return float(out) if np.ndim(out) == 0 else out


def residual_distribution(p, q) -> tuple[np.ndarray, float]:
    """(max(0, p - q) / Z, Z) for one position.

    When Z == 0 (p <= q everywhere; both sum to 1, so p == q) a rejection cannot
    happen; the function then returns (p, 0.0) so that it is total and a caller that
    samples from it still draws from the target. Any Z > 0, however small, is divided
    by: the residual then holds only tokens with p > q, so a rejected draft (which has
    p < q) is never its own correction.
    """
    p = np.asarray(p, dtype=np.float64)
    leftover = np.maximum(0.0, p - np.asarray(q, dtype=np.float64))
    z = float(leftover.sum())
    if z == 0.0:
        return p / p.sum(), 0.0
    return leftover / z, z


def sample(dist, rng: np.random.Generator) -> int:
    """One index drawn from `dist` by inverting its CDF with a uniform from `rng`."""
    dist = np.asarray(dist, dtype=np.float64)
    cdf = np.cumsum(dist)
    if not (np.isfinite(cdf[-1]) and cdf[-1] > 0):
        raise ValueError(f"cannot sample from a distribution whose total is {cdf[-1]}")
    u = rng.random() * cdf[-1]  # in [0, total)
    idx = int(np.searchsorted(cdf, u, side="right"))  # first cdf > u: dist[idx] > 0
    if idx >= len(cdf):  # u rounded up to the total in floating point
        idx = int(np.flatnonzero(dist > 0)[-1])
    return idx


def check_draft(position: int, token: int, p_row, q_row, u: float) -> DraftCheck:
    """Accept `token` when u < min(1, p/q).
    u lies in [0, 1), so P(accept) = min(1, p/q)."""
    p_x, q_x = float(p_row[token]), float(q_row[token])
    a = acceptance_probability(p_x, q_x)
    return DraftCheck(position=position, token=int(token), q=q_x, p=p_x,
                      accept_prob=a, u=float(u), accepted=bool(u < a))


def round_inputs(draft_tokens, q_dists, p_dists) -> tuple[list[int], np.ndarray, np.ndarray]:
    """speculative_round's inputs, checked: the drafted ids as ints, q and p as float64 rows
    that sum to 1. Raises ValueError, naming the problem, for anything a round cannot use."""
    raw = np.asarray(draft_tokens).reshape(-1)
    if raw.size and not np.issubdtype(raw.dtype, np.integer):
        raise ValueError(f"draft_tokens must be integer token ids; got dtype {raw.dtype}")
    tokens = [int(t) for t in raw]
    gamma = len(tokens)
    if gamma == 0:
        raise ValueError("draft_tokens is empty; a round needs at least one drafted token")
    q = as_distributions(q_dists, "q_dists", rows=gamma)
    p = as_distributions(p_dists, "p_dists", rows=gamma + 1)
    if q.shape[1] != p.shape[1]:
        raise ValueError(f"q_dists has vocab {q.shape[1]} but p_dists has vocab {p.shape[1]}")
    if any(t < 0 or t >= q.shape[1] for t in tokens):
        raise ValueError(f"draft token ids must lie in [0, {q.shape[1]})")
    for i, t in enumerate(tokens):
        if q[i, t] <= 0:
            raise ValueError(f"draft token {t} at position {i} has q = 0, so it cannot have "
                             "been sampled from q_dists")
    return tokens, q, p


def speculative_round(draft_tokens, q_dists, p_dists, rng) -> RoundRecord:
    """One round of speculative sampling.

    draft_tokens: gamma token ids proposed by the draft.
    q_dists: (gamma, V) the draft's distributions they were sampled from.
    p_dists: (gamma + 1, V) the target's distributions at the same
             positions, plus one more for the bonus token, all from one
             target pass.
    rng: a numpy Generator; all randomness comes from it.
    """
    tokens_in, q, p = round_inputs(draft_tokens, q_dists, p_dists)
    gamma = len(tokens_in)
    checks, emitted = [], []
    for i, x in enumerate(tokens_in):
        # 1. coin flip against min(1, p/q)
        check = check_draft(i, x, p[i], q[i], rng.random())
        checks.append(check)
        if check.accepted:
            emitted.append(x)
            continue
        # 2. first rejection: resample from the residual and stop
        residual, z = residual_distribution(p[i], q[i])
        emitted.append(sample(residual, rng))
        return RoundRecord(tuple(tokens_in), tuple(checks), tuple(emitted),
                           z, False)
    # 3. every draft kept: one bonus token from the target's next distribution
    emitted.append(sample(p[gamma], rng))
    return RoundRecord(tuple(tokens_in), tuple(checks), tuple(emitted),
                       None, True)


# --- closed forms for lessons and tests ---------------------------------------------------

def output_parts(p, q) -> tuple[np.ndarray, np.ndarray]:
    """The two ways one position's token comes out under accept-or-correct: a draft x ~ q kept
    with probability min(1, p/q), which gives q(x) min(1, p(x)/q(x)) = min(p(x), q(x)); and a
    correction, the rejected mass 1 - beta spread as the residual, (1 - beta) r(x)."""
    p = as_distributions(p, "p")[0]
    q = as_distributions(q, "q")[0]
    kept = q * acceptance_probability(p, q)
    residual, _ = residual_distribution(p, q)
    return kept, (1.0 - kept.sum()) * residual


def output_distribution(p, q) -> np.ndarray:
    """The exact distribution of the token one position emits under accept-or-correct: the
    kept drafts and the corrections together. The sum equals p, which is the point."""
    kept, corrected = output_parts(p, q)
    return kept + corrected


def _check_alpha_gamma(alpha: float, gamma: int) -> None:
    if not 0.0 <= alpha <= 1.0:  # also rejects NaN
        raise ValueError(f"alpha must lie in [0, 1]; got {alpha}")
    if not (gamma >= 0 and float(gamma).is_integer()):  # also rejects NaN
        raise ValueError(f"gamma must be a whole number >= 0; got {gamma}")


def expected_tokens_per_round(alpha: float, gamma: int) -> float:
    """E[tokens per round] = (1 - alpha^(gamma+1)) / (1 - alpha) = sum_{k=0..gamma} alpha^k."""
    _check_alpha_gamma(alpha, gamma)
    return float(np.sum(float(alpha) ** np.arange(gamma + 1)))


def tokens_per_round_bound(alpha: float) -> float:
    """1 / (1 - alpha): what expected_tokens_per_round approaches as gamma grows, and stays below
    for every gamma when 0 < alpha < 1 (infinite at alpha = 1)."""
    _check_alpha_gamma(alpha, 0)
    return float("inf") if alpha == 1 else 1 / (1 - float(alpha))


def expected_tokens_given_drafts(accept_probs) -> float:
    """E[tokens a round emits] for fixed drafted tokens, over its coin flips alone:
    1 + sum_k prod_{i<=k} a_i, with a_i = min(1, p(x_i)/q(x_i)). The closed form above is the
    same sum when every a_i is replaced by one chance alpha."""
    a = np.asarray(accept_probs, dtype=np.float64)
    if a.ndim != 1 or not np.all((a >= 0) & (a <= 1)):  # also rejects NaN
        raise ValueError("accept_probs must be a list of probabilities in [0, 1]")
    return float(1.0 + np.cumprod(a).sum())


def expected_speedup(alpha: float, gamma: int, cost_ratio: float, verify_cost: float = 1.0) -> float:
    """Expected wall-clock speed-up when a draft step costs `cost_ratio` target steps and the
    target's pass over gamma + 1 positions costs `verify_cost` single steps (1 in the ideal
    case where the extra positions cost nothing, as for large models on a GPU)."""
    if not cost_ratio >= 0:
        raise ValueError(f"cost_ratio must be >= 0; got {cost_ratio}")
    if not verify_cost > 0:
        raise ValueError(f"verify_cost must be > 0; got {verify_cost}")
    return expected_tokens_per_round(alpha, gamma) / (gamma * cost_ratio + verify_cost)


def alpha_for_speedup(speedup: float, gamma: int, cost_ratio: float,
                      verify_cost: float = 1.0) -> float | None:
    """The smallest alpha whose expected_speedup at these costs reaches `speedup`, or None where
    even alpha = 1 (gamma + 1 tokens every round) falls short. The speed-up grows with alpha, so
    halving the interval 60 times pins it to within 2^-60."""
    if np.isnan(speedup):
        raise ValueError("speedup is NaN")
    if expected_speedup(1.0, gamma, cost_ratio, verify_cost) < speedup:
        return None
    low, high = 0.0, 1.0
    if expected_speedup(low, gamma, cost_ratio, verify_cost) >= speedup:
        return low
    for _ in range(60):
        middle = (low + high) / 2
        if expected_speedup(middle, gamma, cost_ratio, verify_cost) >= speedup:
            high = middle
        else:
            low = middle
    return high


def round_length_distribution(alpha: float, gamma: int) -> np.ndarray:
    """P(a round emits k tokens) for k = 1 .. gamma + 1, when each draft is kept w.p. alpha."""
    _check_alpha_gamma(alpha, gamma)
    k = np.arange(1, gamma + 2)
    probs = alpha ** (k - 1) * (1.0 - alpha)
    probs[-1] = alpha**gamma
    return probs
