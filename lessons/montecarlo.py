"""Many rounds at one position, simulated in bulk with the rule's own pieces, next to two
shortcuts that look reasonable and are wrong."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specdec_core.sampling import acceptance_probability, output_distribution, overlap, residual_distribution

RULES = ("accept-or-correct", "accept every draft", "resample from p on reject")


def _as_rule_inputs(p, q, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """p and q in float64, each summing to 1; a ValueError for a rule that is not one of RULES."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    return np.asarray(p, np.float64) / np.sum(p), np.asarray(q, np.float64) / np.sum(q)


def simulate(p, q, rounds: int, rng: np.random.Generator, rule: str = RULES[0]) -> np.ndarray:
    """Output frequencies (V,) of `rounds` independent single-position rounds under `rule`."""
    p, q = _as_rule_inputs(p, q, rule)
    drafts = rng.choice(len(q), size=rounds, p=q)  # x ~ q
    if rule == "accept every draft":
        out = drafts
    else:
        keep = rng.random(rounds) < acceptance_probability(p[drafts], q[drafts])
        fallback = residual_distribution(p, q)[0] if rule == RULES[0] else p
        out = drafts.copy()
        out[~keep] = rng.choice(len(p), size=int((~keep).sum()), p=fallback)
    return np.bincount(out, minlength=len(p)) / rounds


def exact_output(p, q, rule: str = RULES[0]) -> np.ndarray:
    """The distribution `rule` would give with endlessly many rounds: what `simulate` tends to."""
    p, q = _as_rule_inputs(p, q, rule)
    if rule == "accept every draft":
        return q
    if rule == RULES[0]:
        return output_distribution(p, q)
    kept = q * acceptance_probability(p, q)  # min(p, q)
    return kept + (1.0 - kept.sum()) * p


def simulate_all(p, q, rounds: int, seed: int) -> dict[str, np.ndarray]:
    """Every rule from the same random numbers (a Generator made afresh from `seed` for each):
    the same drafts, the same coins and the same uniforms behind each second draw, so that the
    rules' distances differ by what the rules do, not by luck. Where the draft never agrees
    with the target, the exact rule and resampling from p then come out alike, where with
    numbers of their own one could land far from p by chance while the other did not."""
    return {rule: simulate(p, q, rounds, np.random.default_rng([seed, 0]), rule) for rule in RULES}


def total_variation(a, b) -> float:
    return 0.5 * float(np.abs(np.asarray(a) - np.asarray(b)).sum())


def grouped(dist, tokens) -> np.ndarray:
    """`dist` at the shown tokens, plus one bucket with everything else. Over 49,152 tokens,
    10,000 samples leave most tokens unseen and the raw distance mostly measures that; over a
    few buckets it measures the rule."""
    dist = np.asarray(dist, np.float64)
    shown = dist[list(tokens)]
    return np.append(shown, max(0.0, dist.sum() - shown.sum()))


def grouped_distance(freq, p, tokens) -> float:
    """Total variation between `freq` and p over the shown tokens and 'everything else'."""
    return total_variation(grouped(freq, tokens), grouped(p, tokens))


CHANCE_RUNS = 400  # simulated runs of perfect samples behind chance's range


@dataclass(frozen=True)
class ChanceRange:
    """How far `rounds` perfect samples of p land from p (grouped distance): on average, and
    the range that holds 9 runs in 10. Any single run, an exact rule's included, lands anywhere
    in it."""

    typical: float
    low: float  # 5th percentile
    high: float  # 95th percentile
    runs: int = CHANCE_RUNS  # how many runs were simulated


def chance_range(p, tokens, rounds: int, seed: int, runs: int = CHANCE_RUNS) -> ChanceRange:
    """The grouped distance of `runs` simulated runs of `rounds` draws straight from p."""
    rng = np.random.default_rng([seed, len(RULES)])
    buckets = grouped(np.asarray(p, np.float64) / np.sum(p), tokens)
    buckets /= buckets.sum()
    freqs = rng.multinomial(rounds, buckets, size=runs) / rounds
    distances = 0.5 * np.abs(freqs - buckets).sum(axis=1)
    low, high = np.percentile(distances, [5, 95])
    return ChanceRange(float(distances.mean()), float(low), float(high), runs)


def hidden_shortcuts(p, q, tokens, reach: float) -> dict[str, float]:
    """{shortcut: its exact grouped distance to p} for each shortcut whose error is within
    `reach`, the distance chance alone often gives at this many draws (ChanceRange.high), so
    that a simulation cannot tell it from the rule. Resampling from p is off by at most
    beta (1 - beta), accepting every draft by 1 - beta, so where the draft almost never (or
    almost always) agrees with the target one of them is nearly right."""
    exact = {rule: grouped_distance(exact_output(p, q, rule), p, tokens) for rule in RULES[1:]}
    return {rule: d for rule, d in exact.items() if d < reach}


@dataclass(frozen=True)
class ExactnessCheck:
    """Step 5's figures at one position: each rule simulated `rounds` times, how far each lands
    from p over the tokens shown and one bucket for the rest, the range chance alone gives,
    the shortcuts that range hides, and each rule's exact distance over the whole vocabulary."""

    rounds: int
    freqs: dict[str, np.ndarray]  # {rule: how often each token came out}
    distances: dict[str, float]  # {rule: its grouped distance to p}
    chance: ChanceRange
    hidden: dict[str, float]  # see `hidden_shortcuts`
    exact: dict[str, float]  # {rule: its exact distance to p, token by token}
    beta: float  # the overlap of p and q: what accepting every draft misses, as 1 - beta


def check_exactness(p, q, tokens, rounds: int, seed: int) -> ExactnessCheck:
    """Simulate every rule at this position and measure it as step 5 shows it."""
    freqs = simulate_all(p, q, rounds, seed)
    chance = chance_range(p, tokens, rounds, seed)
    return ExactnessCheck(
        rounds, freqs, {rule: grouped_distance(f, p, tokens) for rule, f in freqs.items()}, chance,
        hidden_shortcuts(p, q, tokens, chance.high),
        {rule: total_variation(exact_output(p, q, rule), p) for rule in RULES}, float(overlap(p, q)))
