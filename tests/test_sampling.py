"""Tests for specdec_core.sampling: the speculative sampling rule must emit tokens distributed as p."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from specdec_core import sampling
from specdec_core.sampling import (
    acceptance_probability, alpha_for_speedup, expected_speedup, expected_tokens_given_drafts,
    expected_tokens_per_round, output_distribution, overlap, residual_distribution, round_length_distribution,
    sample, speculative_round, tokens_per_round_bound,
)

ALPHA_P = 1e-3  # chi-square threshold; fixed seeds make each test deterministic
V = 6


def norm(w) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    return w / w.sum()


class FakeRng:
    """Stands in for np.random.Generator: .random() returns the scripted values in order."""

    def __init__(self, *values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


# --- 1. hand-forced rounds -----------------------------------------------------------------

def test_forced_accept_ignores_u():
    """p(x) >= q(x) gives accept_prob 1, so even u = 1 - 2^-53 keeps the draft."""
    q, p = norm([1, 2, 1]), norm([2, 2, 0])  # p(0) > q(0), p(1) = q(1) exactly
    for x in (0, 1):
        rec = speculative_round([x], [q], [p, [0, 0, 1.0]], FakeRng(1 - 2**-53, 0.5))
        assert rec.checks[0].accept_prob == 1.0 and rec.checks[0].accepted
        assert rec.tokens == (x, 2) and rec.bonus


# q = [4,1,1,1]/7, p = [0,1,2,3]/6: max(0, p - q) = [0, 1/42, 4/21, 5/14], Z = 4/7, and the
# residual is [0, 1/24, 1/3, 5/8] (token 1 too: p(1) = 1/6 > q(1) = 1/7)
Q_REJ, P_REJ = norm([4, 1, 1, 1]), norm([0, 1, 2, 3])
RESIDUAL_REJ = np.array([0, 1 / 24, 1 / 3, 5 / 8])


@pytest.mark.parametrize("u, token", [(0.0, 1), (0.04, 1), (0.05, 2), (0.37, 2), (0.38, 3),
                                      (1 - 2**-53, 3)])
def test_forced_reject_corrects_from_residual(u, token):
    """p(x) = 0 is rejected even at u = 0, and the correction inverts the residual's CDF
    [0, 1/24, 3/8, 1] with the next uniform: never the rejected draft, and token 1 below 1/24."""
    rec = speculative_round([0], [Q_REJ], [P_REJ, norm([1, 1, 1, 1])], FakeRng(0.0, u))
    assert rec.checks[0].accept_prob == 0.0 and not rec.checks[0].accepted
    assert rec.tokens == (token,) and not rec.bonus
    assert rec.residual_mass == pytest.approx(4 / 7, abs=1e-15)


def test_correction_is_distributed_as_the_residual():
    """20,000 forced rejections with a seeded Generator: the corrections never repeat the
    rejected token and follow [1/24, 1/3, 5/8] on tokens 1..3 (chi-square, smallest expected
    count 833). Drawing the correction from p instead, [1/6, 1/3, 1/2], gives p < 1e-100."""
    rng = np.random.default_rng(3)
    rows = [P_REJ, norm([1, 1, 1, 1])]
    tokens = [speculative_round([0], [Q_REJ], rows, rng).tokens[0] for _ in range(N)]
    assert 0 not in tokens
    assert chi2_p(tokens, RESIDUAL_REJ) > ALPHA_P


@pytest.mark.parametrize("seed", range(20))
def test_mixed_round_accept_accept_reject(seed):
    """Two forced accepts then a forced reject: tokens = [d0, d1, correction], round ends."""
    q = [norm([1, 1, 0, 0]), norm([0, 1, 1, 0]), norm([0, 0, 1, 1])]
    p = [norm([0, 2, 1, 1]), norm([1, 0, 2, 1]), norm([3, 1, 0, 1]), np.eye(4)[3]]
    rec = speculative_round([1, 2, 2], q, p, np.random.default_rng(seed))
    assert len(rec.checks) == 3 and rec.n_accepted == 2 and not rec.bonus
    assert rec.tokens[:2] == (1, 2) and len(rec.tokens) == 3
    assert rec.last_token in (0, 1)  # residual max(0, p2 - q2) lives on {0, 1} only
    assert rec.last_token != 3  # p[3] (unused bonus row) is one-hot on 3


def test_all_accept_emits_bonus_from_last_target_row():
    """Every draft kept -> gamma + 1 tokens, bonus True, last token from p_dists[gamma]."""
    q = [norm([1, 1, 1, 1, 1])] * 3
    p = [norm([1, 1, 1, 1, 1])] * 3 + [np.eye(5)[4]]
    rec = speculative_round([0, 3, 2], q, p, np.random.default_rng(7))
    assert rec.tokens == (0, 3, 2, 4) and rec.bonus and rec.n_accepted == 3 == rec.gamma
    assert rec.residual_mass is None


# --- 2. exact enumeration ------------------------------------------------------------------

weights = st.one_of(st.just(0.0), st.floats(1e-3, 1.0))


@st.composite
def pq_pair(draw):
    v = draw(st.integers(1, 6))
    w = st.lists(weights, min_size=v, max_size=v).filter(lambda ws: sum(ws) > 0)
    p = norm(draw(w))
    kind = draw(st.sampled_from(["random", "same", "onehot_p", "onehot_q"]))
    if kind == "same":
        return p, p.copy()
    if kind == "onehot_p":
        return np.eye(v)[draw(st.integers(0, v - 1))], p
    if kind == "onehot_q":
        return p, np.eye(v)[draw(st.integers(0, v - 1))]
    return p, norm(draw(w))


def brute_force_output(p, q) -> np.ndarray:
    """Enumerate draft x ~ q: keep w.p. min(1, p/q), else spread the mass over max(0,p-q)/Z."""
    leftover = np.maximum(0.0, p - q)
    z = leftover.sum()
    out = np.zeros_like(p)
    for x in range(len(q)):
        if q[x] == 0:
            continue
        a = min(1.0, p[x] / q[x])
        out[x] += q[x] * a
        if a < 1.0 and z > 0:  # z == 0 only when p, q differ by float noise: no mass to move
            out += q[x] * (1.0 - a) * leftover / z
    return out


@settings(max_examples=300, deadline=None)
@given(pq_pair())
@example((norm([1, 2, 3]), norm([1, 2, 3])))
@example((np.eye(3)[0], np.eye(3)[2]))
@example((norm([0, 1, 1]), norm([1, 0, 0])))
def test_output_distribution_is_p(pq):
    """output_distribution(p, q) == p and a hand enumeration of the rule also gives p."""
    p, q = pq
    assert np.allclose(output_distribution(p, q), p, atol=1e-12, rtol=0)
    assert np.allclose(brute_force_output(p, q), p, atol=1e-12, rtol=0)
    assert overlap(p, q) == pytest.approx(np.minimum(p, q).sum(), abs=1e-15)


@settings(max_examples=150, deadline=None)
@given(pq_pair())
def test_building_blocks_match_definitions(pq):
    """acceptance_probability and residual_distribution agree with min(1,p/q) and max(0,p-q)/Z."""
    p, q = pq
    a = acceptance_probability(p, q)
    expect = np.array([1.0 if qx == 0 else min(1.0, px / qx) for px, qx in zip(p, q)])
    assert np.allclose(a, expect, atol=1e-15, rtol=0)
    res, z = residual_distribution(p, q)
    leftover = np.maximum(0.0, p - q)
    assert z == pytest.approx(leftover.sum(), abs=1e-12)
    if z > 0:
        assert np.allclose(res, leftover / leftover.sum(), atol=1e-12, rtol=0)
    assert np.all(res >= 0) and res.sum() == pytest.approx(1.0)


# --- 3. chi-square over sampled rounds -------------------------------------------------------

P_ROWS = [norm([5, 1, 3, 0.5, 2, 4]), norm([1, 2, 3, 4, 5, 6]), norm([3, 3, 1, 1, 4, 2]),
          norm([2, 1, 2, 1, 2, 1])]
Q_ROWS = [norm([1, 4, 1, 3, 1, 1]), norm([6, 5, 4, 3, 2, 1]), norm([1, 1, 5, 1, 1, 1])]
N = 20_000  # rounds per simulation: expected bin counts >= ~500, so the chi-square is valid


def simulate(gamma, shared, seed, n=N):
    """n rounds; drafts ~ q with one Generator, verification uses another. shared: same p,q rows."""
    q = [Q_ROWS[0]] * gamma if shared else Q_ROWS[:gamma]
    p = [P_ROWS[0]] * (gamma + 1) if shared else P_ROWS[:gamma + 1]
    draft_rng, rng = np.random.default_rng(seed), np.random.default_rng(seed + 1000)
    drafts = np.stack([draft_rng.choice(V, size=n, p=q[i]) for i in range(gamma)], axis=1)
    return [speculative_round(d, q, p, rng) for d in drafts]


cached_simulate = lru_cache(maxsize=None)(simulate)


def chi2_p(samples, probs) -> float:
    """Chi-square p-value of integer samples against probs; bins of probability 0 must be empty
    and are left out (their expected count of 0 has no chi-square term)."""
    counts = np.bincount(np.asarray(samples), minlength=len(probs))
    live = np.asarray(probs) > 0
    assert not counts[~live].any(), "a sample fell where the distribution has no mass"
    return chisquare(counts[live], len(samples) * np.asarray(probs)[live]).pvalue


@pytest.mark.parametrize("gamma, k", [(1, 0), (1, 1), (3, 0), (3, 1), (3, 2), (3, 3)])
def test_each_token_is_distributed_as_its_own_p(gamma, k):
    """Given it exists (the drafts before it kept), the round's token k ~ p[k]: a kept draft or
    a correction at k < gamma, the bonus at k = gamma. The later positions hold 5,237 (k = 2) and
    2,862 (k = 3) of the 20,000 rounds, smallest expected counts about 374 and 318; a correction
    drawn from the row before, or a bonus from another row, gives p < 1e-100 there."""
    tokens = [r.tokens[k] for r in cached_simulate(gamma, False, 11) if len(r.tokens) > k]
    assert len(tokens) > {0: N - 1, 1: 5_000, 2: 5_000, 3: 2_500}[k]  # the sample each p-value rests on
    assert chi2_p(tokens, P_ROWS[k]) > ALPHA_P


@pytest.mark.parametrize("gamma", [1, 3])
def test_round_length_matches_closed_form(gamma):
    """With identical p, q at every position, len(tokens) - 1 ~ truncated geometric(alpha)."""
    rounds = cached_simulate(gamma, True, 23)
    alpha = overlap(P_ROWS[0], Q_ROWS[0])
    assert chi2_p([len(r.tokens) - 1 for r in rounds], round_length_distribution(alpha, gamma)) > ALPHA_P
    assert all(r.bonus == (len(r.tokens) == gamma + 1) for r in rounds)


@pytest.mark.parametrize("broken", ["accept_everything", "resample_from_p"])
def test_chi_square_detects_a_broken_rule(monkeypatch, broken):
    """Power check: plausible wrong rules make the same first-token test fail decisively."""
    if broken == "accept_everything":
        monkeypatch.setattr(sampling, "acceptance_probability", lambda p_x, q_x: 1.0)
    else:
        monkeypatch.setattr(sampling, "residual_distribution", lambda p, q: (np.asarray(p), 1.0))
    rounds = simulate(1, False, 11, n=N // 2)
    assert chi2_p([r.tokens[0] for r in rounds], P_ROWS[0]) < 1e-12


# --- 4. edge cases and input checking ----------------------------------------------------------

def test_residual_when_p_equals_q():
    """Z = 0: residual_distribution returns (p, 0.0) instead of dividing by zero."""
    p = norm([1, 2, 0, 3])
    res, z = residual_distribution(p, p.copy())
    assert z == 0.0 and np.array_equal(res, p)



def test_a_tiny_residual_still_excludes_the_rejected_draft():
    """Z of 1e-12: the residual is divided by it, not swapped for p, so a draft rejected at the
    very top of u's range is corrected to the one token with p > q, never to itself."""
    p = np.array([0.5, 0.5])
    q = np.array([0.5 + 5e-13, 0.5 - 5e-13])
    res, z = residual_distribution(p, q)
    assert z == pytest.approx(5e-13, rel=1e-3) and res.tolist() == [0.0, 1.0]

    class TopOfRange:  # u just below 1, so draft 0 (p/q a hair under 1) is rejected
        def random(self):
            return 1.0 - 2.0 ** -53

    record = speculative_round([0], q[None], np.stack([p, p]), TopOfRange())
    assert not record.checks[0].accepted and record.tokens == (1,) and record.residual_mass > 0

def test_acceptance_probability_with_zero_q():
    assert acceptance_probability(0.3, 0.0) == 1.0
    assert acceptance_probability(0.0, 0.0) == 1.0
    assert acceptance_probability(0.2, 0.8) == pytest.approx(0.25)


def test_u_exactly_zero():
    """u = 0 keeps any draft with accept_prob > 0 (even tiny) and rejects p(x) = 0."""
    q, p = norm([98, 1, 1]), norm([1e-9, 0.5, 0.5])
    rec = speculative_round([0], [q], [p, p], FakeRng(0.0, 0.0))
    assert 0 < rec.checks[0].accept_prob < 1e-8 and rec.checks[0].accepted
    p0 = norm([0, 1, 1])
    rec = speculative_round([0], [q], [p0, p0], FakeRng(0.0, 0.0))
    assert not rec.checks[0].accepted and rec.tokens == (1,)  # u = 0 picks the first nonzero


@settings(max_examples=200, deadline=None)
@given(st.lists(weights, min_size=1, max_size=8).filter(lambda ws: sum(ws) > 0),
       st.sampled_from([0.0, 1 - 2**-53, 0.5, 1e-300]))
@example([0.1] * 10 + [0.0, 0.0], 1 - 2**-53)
@example([0.0, 0.0, 1.0], 0.0)
@example([0.0, 5e-324, 5e-324, 0.0], 1 - 2**-53)  # subnormal total: u * total rounds up to total
def test_sample_never_returns_a_zero_probability_index(ws, u):
    """Inverse-CDF sampling stays on the support at u = 0 and u = 1 - 2^-53 (rounding to total)."""
    dist = np.asarray(ws, dtype=np.float64)  # deliberately not renormalised
    idx = sample(dist, FakeRng(u))
    assert 0 <= idx < len(dist) and dist[idx] > 0


@pytest.mark.parametrize("dist", [[0.0, 0.0], [np.nan, 0.5], [np.inf, 0.0]])
def test_sample_refuses_a_distribution_without_finite_mass(dist):
    with pytest.raises(ValueError, match="cannot sample from a distribution whose total is"):
        sample(dist, FakeRng(0.5))


@pytest.mark.parametrize("scale", [1 + 1e-4, 1 - 1e-4])
def test_slightly_off_rows_are_renormalised(scale):
    """Rows summing to 1 +- 1e-4 (float32 softmax) are accepted and used renormalised."""
    q, p = norm([1, 3]) * scale, norm([1, 1]) * scale
    rec = speculative_round([1], [q], [p, p], FakeRng(0.0, 0.0))
    assert rec.checks[0].q == pytest.approx(0.75, abs=1e-15)
    assert rec.checks[0].p == pytest.approx(0.5, abs=1e-15)


Q_OK = [norm([1, 1, 1])]
P_OK = [norm([1, 1, 1]), norm([1, 1, 1])]


@pytest.mark.parametrize("drafts, q, p, match", [
    ([0], [[0.75, 0.75, 0.0]], P_OK, r"q_dists row 0 sums to 1\.5"),
    ([0], Q_OK, [[1.2, -0.2, 0.0], P_OK[1]], "negative"),
    ([0], [[np.nan, 0.5, 0.5]], P_OK, "NaN"),
    ([0], Q_OK, [[0.5, np.inf, 0.5], P_OK[1]], "infinite"),
    ([0], Q_OK, [[1.5, -np.inf, 0.5], P_OK[1]], "infinite"),
    ([0], [[np.nan, -0.5, 1.5]], P_OK, "NaN"),
    ([0], [[1e308, 1e308, 0.0]], P_OK, r"q_dists row 0 sums to inf"),  # finite entries, sum overflows
    ([0], Q_OK, P_OK[:1], "p_dists must have 2 rows; got 1"),
    ([0, 1], Q_OK, P_OK, "q_dists must have 2 rows; got 1"),
    ([0], [norm([1, 1, 1, 1])], P_OK, "vocab 4 but p_dists has vocab 3"),
    ([], Q_OK, P_OK, "empty"),
    ([3], Q_OK, P_OK, r"\[0, 3\)"),
    ([-1], Q_OK, P_OK, r"\[0, 3\)"),
    ([0], np.ones((1, 1, 3)) / 3, P_OK, "2-D"),
])
def test_bad_inputs_raise(drafts, q, p, match):
    with pytest.raises(ValueError, match=match):
        speculative_round(drafts, q, p, np.random.default_rng(0))


def test_inputs_are_not_mutated():
    """The round works on copies: draft ids, q_dists and p_dists are untouched (even off-sum)."""
    drafts = np.array([2, 0, 1])
    q = np.array([norm([1, 2, 3]), norm([3, 2, 1]), norm([1, 1, 1])]) * (1 + 5e-4)
    p = np.array([norm([0, 1, 1]), norm([1, 0, 2]), norm([2, 2, 1]), norm([1, 2, 3])])
    before = [a.copy() for a in (drafts, q, p)]
    for seed in range(5):
        speculative_round(drafts, q, p, np.random.default_rng(seed))
        output_distribution(p[0], q[0])
        sample(p[3], np.random.default_rng(seed))
    assert all(np.array_equal(a, b) for a, b in zip((drafts, q, p), before))


# --- 5. closed forms ---------------------------------------------------------------------

@pytest.mark.parametrize("gamma", [0, 1, 4, 10])
def test_expected_tokens_endpoints(gamma):
    assert expected_tokens_per_round(0.0, gamma) == 1.0
    assert expected_tokens_per_round(1.0, gamma) == gamma + 1
    assert np.array_equal(round_length_distribution(1.0, gamma), np.eye(gamma + 1)[gamma])


def test_the_bound_on_tokens_per_round_is_the_limit_over_gamma():
    for alpha in (0.0, 0.428, 0.9):
        bound = tokens_per_round_bound(alpha)
        assert all(expected_tokens_per_round(alpha, g) < bound or alpha == 0 for g in range(20))
        assert expected_tokens_per_round(alpha, 400) == pytest.approx(bound)
    assert tokens_per_round_bound(1.0) == float("inf")
    with pytest.raises(ValueError):
        tokens_per_round_bound(1.5)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 1.0), st.integers(0, 20))
def test_expected_tokens_is_mean_of_length_distribution(alpha, gamma):
    """E[tokens] equals sum_k k P(k); P is a proper distribution on 1..gamma+1."""
    dist = round_length_distribution(alpha, gamma)
    assert len(dist) == gamma + 1 and np.all(dist >= 0) and dist.sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(np.dot(np.arange(1, gamma + 2), dist))
    # rtol 1e-7: the closed form loses digits to cancellation for alpha within ~1e-9 of 1
    assert expected_tokens_per_round(alpha, gamma) == pytest.approx(mean, rel=1e-7)
    assert expected_speedup(alpha, gamma, 0.0) == expected_tokens_per_round(alpha, gamma)


def test_expected_tokens_given_drafts_matches_the_coin_flips():
    """Fixed drafts, fresh coin flips: the mean round length over 20,000 rounds lies within
    0.04 of 1 + sum_k prod a_i. The keeps are 2/3, 9/32 and 7/16, so every length from 1 to 4
    occurs; the length's standard deviation is 0.87 here, a standard error of 0.0062, and 0.04
    is 6.5 of them (a length in 1..4 has a standard deviation of at most 1.5: 3.8 of them)."""
    q_rows = [norm([3, 1, 1, 1, 1, 1]), norm([1, 4, 1, 1, 1, 1]), norm([1, 1, 2, 1, 1, 1])]
    p_rows = [norm([2, 2, 1, 1, 1, 1]), norm([1, 1, 3, 1, 1, 1]), norm([2, 2, 1, 1, 1, 1]), norm([1] * V)]
    drafts = [0, 1, 2]
    keeps = [acceptance_probability(p[x], q[x]) for x, p, q in zip(drafts, p_rows, q_rows)]
    assert keeps == pytest.approx([2 / 3, 9 / 32, 7 / 16], abs=1e-15)
    rng = np.random.default_rng(5)
    lengths = [len(speculative_round(drafts, q_rows, p_rows, rng).tokens) for _ in range(20_000)]
    assert abs(np.mean(lengths) - expected_tokens_given_drafts(keeps)) < 0.04
    # with one chance alpha everywhere it is the closed form; certain keeps give gamma + 1
    assert expected_tokens_given_drafts([0.6] * 4) == pytest.approx(expected_tokens_per_round(0.6, 4))
    assert expected_tokens_given_drafts([1.0, 1.0]) == 3.0
    with pytest.raises(ValueError, match="probabilities"):
        expected_tokens_given_drafts([0.5, float("nan")])


def test_expected_speedup_known_value():
    """alpha 0.8, gamma 4, draft cost 0.05: (1 - 0.8^5) / 0.2 / 1.2 = 2.801333..."""
    assert expected_speedup(0.8, 4, 0.05) == pytest.approx(3.3616 / 1.2, rel=1e-12)
    # a checking pass that costs 1.5 single steps: 3.3616 / (4 · 0.05 + 1.5)
    assert expected_speedup(0.8, 4, 0.05, verify_cost=1.5) == pytest.approx(3.3616 / 1.7, rel=1e-12)


@pytest.mark.parametrize("goal, gamma, cost, verify", [(2.0, 4, 0.1, 1.0), (1.5, 4, 0.1, 1.2),
                                                      (1.3, 2, 0.093, 1.14), (3.0, 8, 0.02, 1.0)])
def test_alpha_for_speedup_inverts_the_closed_form(goal, gamma, cost, verify):
    """The α it returns reaches the speed-up, and one a millionth smaller falls short."""
    alpha = alpha_for_speedup(goal, gamma, cost, verify)
    assert 0 < alpha < 1
    assert expected_speedup(alpha, gamma, cost, verify) == pytest.approx(goal, rel=1e-12)
    assert expected_speedup(alpha - 1e-6, gamma, cost, verify) < goal


def test_alpha_for_speedup_at_its_ends():
    """γ = 4 at c 0.1 and a one-step check: 5 tokens for 1.4 steps at most, 1/1.4 at least."""
    assert alpha_for_speedup(5 / 1.4 * 1.001, 4, 0.1) is None  # beyond even α = 1
    assert alpha_for_speedup(5 / 1.4 * 0.999, 4, 0.1) == pytest.approx(1.0, abs=1e-3)
    assert alpha_for_speedup(1 / 1.4, 4, 0.1) == 0.0  # every α reaches it
    assert alpha_for_speedup(2.0, 4, 0.1) < alpha_for_speedup(2.0, 4, 0.1, verify_cost=1.2)


@pytest.mark.parametrize("alpha", [-0.1, 1.0000001, float("nan")])
def test_invalid_alpha_raises(alpha):
    with pytest.raises(ValueError, match="alpha must lie in"):
        expected_tokens_per_round(alpha, 3)
    with pytest.raises(ValueError, match="alpha must lie in"):
        expected_speedup(alpha, 3, 0.1)


@pytest.mark.parametrize("gamma", [-1, 2.5, float("nan")])
def test_a_gamma_that_is_no_count_of_drafts_raises(gamma):
    """γ counts drafts: a fraction would give round lengths whose chances do not sum to 1."""
    with pytest.raises(ValueError, match="gamma must be a whole number >= 0"):
        expected_tokens_per_round(0.5, gamma)
    with pytest.raises(ValueError, match="gamma must be a whole number >= 0"):
        round_length_distribution(0.5, gamma)
    assert expected_tokens_per_round(0.5, np.int64(2)) == pytest.approx(1.75)  # a NumPy count is one


def test_a_nan_speedup_has_no_alpha():
    with pytest.raises(ValueError, match="NaN"):
        alpha_for_speedup(float("nan"), 4, 0.1)


def test_a_drafter_equal_to_the_target_is_kept_at_most_always():
    """Rows that sum to 1 only within float32's rounding (as the pair's stored distributions
    do) must not make β, a chance, come out above 1."""
    rng = np.random.default_rng(0)
    rows = rng.dirichlet(np.ones(49_152), size=20).astype(np.float32)
    assert (rows.astype(np.float64).sum(-1) > 1).any()  # the case this guards
    assert np.all(overlap(rows, rows) <= 1.0) and overlap(rows, rows) == pytest.approx(1.0, abs=1e-6)


# --- 6. determinism ------------------------------------------------------------------------

def test_same_seed_same_round():
    """Same seed -> identical tokens and u values; a different seed changes the u values."""
    def run(seed):
        rng = np.random.default_rng(seed)
        return [speculative_round([1, 2, 0], Q_ROWS, P_ROWS, rng) for _ in range(50)]
    a, b, c = run(5), run(5), run(6)
    assert [r.tokens for r in a] == [r.tokens for r in b]
    assert [[ch.u for ch in r.checks] for r in a] == [[ch.u for ch in r.checks] for r in b]
    assert [[ch.u for ch in r.checks] for r in a] != [[ch.u for ch in r.checks] for r in c]


# --- inputs the rule refuses ---------------------------------------------------------------

def test_draft_with_zero_q_is_refused():
    """A draft the draft model could not have produced (q(x) = 0) is a caller error."""
    with pytest.raises(ValueError, match="q = 0"):
        speculative_round([2], [norm([1, 1, 0])], [norm([1, 1, 0])] * 2, np.random.default_rng(0))


def test_non_integer_draft_ids_are_refused():
    with pytest.raises(ValueError, match="integer"):
        speculative_round([1.7], [norm([1, 1, 1])], [norm([1, 1, 1])] * 2, np.random.default_rng(0))


def test_round_length_distribution_rejects_invalid_alpha():
    with pytest.raises(ValueError, match="alpha"):
        round_length_distribution(1.5, 2)


def test_expected_speedup_rejects_negative_cost():
    with pytest.raises(ValueError, match="cost_ratio"):
        expected_speedup(0.5, 4, -0.25)
