"""Tests for specdec_core.engine on the real Nimbus-large (SmolLM2-135M) pair, on the CPU.

The drafter is early-exit-6 (poor: most drafts are rejected) and, where the all-accepted path
matters, the target drafting for itself (every greedy draft kept, every round ends in a bonus).
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy.stats import chisquare
from transformers import DynamicCache

import specdec_core
from specdec_core import engine, models, sampling
from specdec_core.engine import MAX_GAMMA, generate, iter_speculative, stream
from specdec_core.inputs import MIN_TEMPERATURE
from specdec_core.models import load_pair
from specdec_core.sampling import sample, speculative_round
from specdec_core.warping import Sampling, to_distributions

EXPORT = "Your export failed because your"
STORY = "Once upon a time"
QUESTION = "What is 2+2?"  # chat-formatted, the model answers in ~12 tokens and writes EOS
GREETING = "Say hi."  # chat-formatted, ~24 tokens then EOS
NEW = 40
ALPHA = 1e-3  # chi-square threshold; seeds are fixed, so each test is deterministic
# how far a probability from the engine's cached passes may stray from one uncached pass: the
# CPU products are chosen per row count when the target loads, by timing, and a pass over one
# row (or a few) may add in another order than a pass over the whole text, which moves a
# float32 logit by about 1e-6 of its size. A wrong context or position moves them by 1e-2 and up.
ROUNDING = 5e-5

_greedy_cache: dict = {}


def prompt_of(which: str, chat_ids):
    return {"export": EXPORT, "story": STORY}.get(which) or chat_ids(
        {"chat-sum": QUESTION, "chat-hi": GREETING}[which])


def greedy_target(pair, prompt, new=NEW):
    """Target-only greedy output, computed once per prompt."""
    key = (prompt if isinstance(prompt, str) else tuple(prompt), new)
    if key not in _greedy_cache:
        _greedy_cache[key] = generate(pair, prompt, new, method="target", temperature=0)
    return _greedy_cache[key]


class EosAs:
    """The pair's tokenizer with a different eos_token_id (everything else delegated)."""

    def __init__(self, tokenizer, eos_id: int):
        self._tokenizer, self.eos_token_id = tokenizer, eos_id

    def __call__(self, *args, **kwargs):
        return self._tokenizer(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._tokenizer, name)


# --- 1. greedy: speculative writes exactly what the target writes ---------------------------

@pytest.mark.parametrize("gamma", [1, 4, 7])
@pytest.mark.parametrize("which", ["export", "chat-sum", "chat-hi"])
def test_greedy_speculative_equals_target(pair, chat_ids, which, gamma):
    prompt = prompt_of(which, chat_ids)
    ref = greedy_target(pair, prompt)
    res = generate(pair, prompt, NEW, method="speculative", gamma=gamma, temperature=0)
    assert res.token_ids == ref.token_ids
    assert res.text == ref.text
    # the poor drafter really is corrected: the identity is not trivial
    assert any(not r.bonus for r in res.rounds)


def test_greedy_target_matches_transformers_generate(pair, ids_of):
    """An oracle independent of our engine: transformers' own greedy decoding."""
    ids, n = ids_of(pair, EXPORT), 20
    with torch.inference_mode():
        out = pair.target.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=n,
                                   min_new_tokens=n, pad_token_id=pair.tokenizer.eos_token_id)
    assert greedy_target(pair, EXPORT).token_ids[:n] == out[0, len(ids):].tolist()


def test_transformers_assisted_writes_what_we_write(pair_named, chat_ids):
    """The speed benchmark's reference does the same work as ours: with the same pair, greedy
    and end-of-text banned on both sides, transformers' assisted generation writes the same
    tokens as our speculative loop, all 24 asked for, also past where a chat answer ends."""
    from specdec_core.bench import hf_assisted

    mini = pair_named("nimbus-mini")
    assert len(generate(mini, chat_ids(QUESTION), 24, temperature=0).token_ids) < 24
    for prompt in (EXPORT, chat_ids(QUESTION)):
        theirs, _ = hf_assisted(mini, prompt, 24, gamma=4, temperature=0.0, seed=0)
        ours = generate(mini, prompt, 24, "speculative", gamma=4, temperature=0, suppress_eos=True)
        assert len(theirs) == 24 and theirs == ours.token_ids


@pytest.mark.parametrize("gamma", [4, 6])
def test_greedy_identity_with_a_perfect_drafter(pair, self_pair, gamma):
    """Target drafting for itself: all drafts kept, every round ends with a bonus token, and the
    caches are rolled back after bonus rounds; the output must still be the target's."""
    ref = greedy_target(pair, STORY)
    res = generate(self_pair, STORY, NEW, method="speculative", gamma=gamma, temperature=0)
    assert res.token_ids == ref.token_ids
    assert sum(r.bonus for r in res.rounds) >= len(res.rounds) - 1
    assert res.stats.target_passes == math.ceil(NEW / (gamma + 1))


def test_generations_at_once_on_one_pair_write_what_each_writes_alone(pair):
    """A class shares one loaded pair: four generations run in threads at once write the same
    tokens, round by round, as each writes alone (each has its own caches and random stream)."""
    def write(seed: int):
        return generate(pair, EXPORT, 12, "speculative", gamma=3, temperature=1.0, seed=seed)

    alone = [write(seed) for seed in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(write, range(4)))
    for a, b in zip(alone, together):
        assert b.token_ids == a.token_ids
        assert [r.tokens for r in b.rounds] == [r.tokens for r in a.rounds]
    assert len({tuple(a.token_ids) for a in alone}) > 1  # four seeds, not one text four times


# --- 2. seeds --------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["speculative", "target"])
def test_seeds_are_reproducible(pair, method):
    def run(seed):
        return generate(pair, STORY, 12, method=method, gamma=3, temperature=1.0, seed=seed)
    a, b, c = run(11), run(11), run(12)
    assert a.token_ids == b.token_ids and a.origins == b.origins
    assert a.token_ids != c.token_ids


# --- 3. the numpy rule sees exactly the model's distributions --------------------------------

def assert_same_record(a, b):
    assert a.draft_tokens == b.draft_tokens and a.tokens == b.tokens and a.bonus == b.bonus
    assert a.checks == b.checks  # tokens, p, q, accept_prob, u, verdict: all bit-identical
    assert a.residual_mass == b.residual_mass


def spy_rounds(monkeypatch):
    """Record the context, drafts, q_dists and p_dists of every round the engine runs."""
    seen = []
    real_propose, real_verify = engine.propose, engine.verify

    def propose(pair, context, *rest):
        drafts, q = real_propose(pair, context, *rest)
        seen.append({"context": list(context), "drafts": list(drafts), "q": q})
        return drafts, q

    def verify(*args):
        p = real_verify(*args)
        seen[-1]["p"] = p
        return p

    monkeypatch.setattr(engine, "propose", propose)
    monkeypatch.setattr(engine, "verify", verify)
    return seen


@pytest.mark.parametrize("which, stop_below", [("pair", 0.0), ("self_pair", 0.0), ("pair", 0.4),
                                               ("nimbus-mini", 0.0), ("nimbus-mini", 0.4)])
def test_engine_distributions_and_rounds_replay(request, monkeypatch, ids_of, pair_named, which, stop_below):
    """For the first rounds: q_dists / p_dists (computed with KV caches, rolled back between
    rounds) equal one full uncached pass over context + drafts at the right rows; the drafts are
    inverse-CDF samples from q with the seeded generator; and speculative_round on those arrays,
    with the generator in the same state, reproduces the engine's record. With an early stop the
    drafts of a round vary in number, and the caches are rolled back from other lengths.
    Nimbus-mini keeps a cache of its own and scores outside its reduced head as -inf."""
    pair = pair_named(which) if which == "nimbus-mini" else request.getfixturevalue(which)
    seen = spy_rounds(monkeypatch)
    gamma, seed, rounds = 3, 5, 5
    prompt_ids = ids_of(pair, EXPORT)
    rng = np.random.default_rng(seed)
    chunks = list(itertools.islice(
        iter_speculative(pair, prompt_ids, 200, Sampling(1.0), rng, gamma, stop_below=stop_below),
        rounds))
    assert len(seen) == rounds

    replay = np.random.default_rng(seed)
    context = list(prompt_ids)
    for chunk, r in zip(chunks, seen):
        assert r["context"] == context  # each round starts where the last one ended
        n, g = len(context), len(r["drafts"])  # fewer than gamma after an early stop or end-of-text
        assert g == gamma or stop_below or r["drafts"][-1] == pair.tokenizer.eos_token_id
        p_full, q_full = pair.distributions(context + r["drafts"])  # float32, (n + g, V)
        assert r["q"].shape == (g, pair.vocab_size)
        assert r["p"].shape == (g + 1, pair.vocab_size)
        assert np.allclose(r["q"], q_full[n - 1:n - 1 + g], atol=ROUNDING, rtol=0)
        assert np.allclose(r["p"], p_full[n - 1:n + g], atol=ROUNDING, rtol=0)
        assert [sample(row, replay) for row in r["q"]] == r["drafts"]
        assert_same_record(speculative_round(r["drafts"], r["q"], r["p"], replay), chunk.record)
        assert chunk.token_ids == chunk.record.tokens
        context += list(chunk.token_ids)
    if which == "self_pair":  # the bonus path and its cache roll-back were exercised
        assert any(c.record.bonus for c in chunks)
    else:
        assert any(not c.record.bonus for c in chunks)
    if stop_below:  # and so were rounds that stopped drafting early
        assert any(len(r["drafts"]) < gamma for r in seen)


def warped(logits: torch.Tensor, sampling: Sampling) -> np.ndarray:
    """An independent warping of raw logits (T, V): softmax(logits / T) in float64, then the
    top_k likeliest tokens, then the nucleus (the likeliest tokens until their mass reaches
    top_p, the one that crosses it included), renormalised after each cut."""
    z = logits.double().cpu().numpy() / sampling.temperature
    probs = np.exp(z - z.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    for row in probs:
        order = np.argsort(-row, kind="stable")
        if sampling.top_k:
            row[order[sampling.top_k:]] = 0
            row /= row.sum()
        if sampling.top_p < 1:  # 1 is off: rounding must not cut the tail
            mass_before = np.cumsum(row[order]) - row[order]
            row[order[mass_before >= sampling.top_p]] = 0
            row /= row.sum()
    return probs


# first rounds whose drafts are replayed: a draft drawn from other rows than q often lands on the
# same token (the same uniform, two similar distributions), but not 2 × 12 times in a row
DRAFT_SEEDS = 12


@pytest.mark.parametrize("settings", [Sampling(1.0, top_k=5), Sampling(0.5), Sampling(1.0, top_p=0.9),
                                      Sampling(0.7, top_k=20, top_p=0.9)], ids=repr)
def test_same_warping_for_p_and_q(pair, monkeypatch, ids_of, settings):
    """The draft's rows q and the target's rows p are both the warped distributions of their
    model's raw logits (from one uncached pass), with the same temperature, top-k and top-p:
    the same tokens left and the same probabilities on them. The drafts are drawn from those
    warped rows q, the ones the rule is given: a draft drawn at another temperature would make
    the output inexact wherever the temperature is not 1."""
    seen = spy_rounds(monkeypatch)
    prompt_ids = ids_of(pair, EXPORT)
    for seed in range(DRAFT_SEEDS):
        next(iter_speculative(pair, prompt_ids, 10, settings, np.random.default_rng(seed), 2))
        replay = np.random.default_rng(seed)  # a round's first draws are its drafts
        assert [sample(row, replay) for row in seen[-1]["q"]] == seen[-1]["drafts"], seed
    r = seen[0]
    n, k = len(prompt_ids), len(r["drafts"])
    ids = torch.tensor([prompt_ids + r["drafts"]])
    with torch.inference_mode():
        q_logits = pair.drafter_logits(ids, DynamicCache())[n - 1:n - 1 + k]
        p_logits = pair.target_logits(ids, DynamicCache())[n - 1:n + k]
    for got, expect in [(r["q"], warped(q_logits, settings)), (r["p"], warped(p_logits, settings))]:
        assert got.shape == expect.shape
        for row, want in zip(got, expect):
            assert np.count_nonzero(want > 1e-6) > 1  # more than one token left to compare
            assert not row[want == 0].any()  # nothing the warping cuts is left in
            assert (row[want > 1e-30] > 0).all()  # nor cut (float32 only underflows below ~1e-38)
            assert np.allclose(row, want, atol=ROUNDING, rtol=0)


def test_the_smallest_temperature_still_gives_distributions():
    """At MIN_TEMPERATURE the logits are divided by 0.01, far from float32's limits: rows stay
    finite and sum to one, and two logits 0.01 apart differ by a factor e."""
    logits = torch.tensor([[30.0, 29.99, -40.0, 0.0], [-5.0, 12.0, 11.0, 3.0]])  # (2, 4)
    probs = to_distributions(logits, Sampling(MIN_TEMPERATURE))
    assert np.isfinite(probs).all() and np.allclose(probs.sum(-1), 1.0)
    assert probs[0, 0] / probs[0, 1] == pytest.approx(math.e, rel=1e-3)
    assert probs[1, 1] == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="temperature must be 0 \\(greedy\\) or a number in"):
        Sampling(MIN_TEMPERATURE / 2)


@pytest.mark.parametrize("kwargs, both", [(dict(top_k=1), True), (dict(top_p=1e-6), True),
                                          (dict(top_k=1, temperature=3.0), False)])
def test_warping_to_one_token_is_greedy(pair, kwargs, both):
    """top_k=1 (or a tiny top_p) at temperature > 0 leaves one token in p, so both methods
    write the target's greedy text whatever the seed. The rule is exact for any q, so this
    cannot see q's warping: test_same_warping_for_p_and_q checks that."""
    ref = greedy_target(pair, STORY).token_ids[:16]
    settings = {"temperature": 1.0, **kwargs}
    assert generate(pair, STORY, 16, "speculative", gamma=3, seed=9, **settings).token_ids == ref
    if both:
        assert generate(pair, STORY, 16, "target", seed=9, **settings).token_ids == ref


def test_the_draft_stops_after_end_of_text(pair, monkeypatch, ids_of):
    """Nothing follows an end-of-text token, so a round drafts nothing after one."""
    eos = pair.tokenizer.eos_token_id
    drawn = iter([ids_of(pair, " the")[0], eos, 5, 6])
    monkeypatch.setattr(engine, "sample", lambda q, rng: next(drawn))
    tokens, q = engine.propose(pair, ids_of(pair, EXPORT), 4, Sampling(), np.random.default_rng(0),
                               DynamicCache())
    assert tokens == [ids_of(pair, " the")[0], eos] and q.shape == (2, pair.vocab_size)


# --- 4. bookkeeping --------------------------------------------------------------------------

ORIGIN_PATTERN = re.compile(r"(accepted,)*(correction|bonus)")


@pytest.mark.parametrize("which, gamma", [("pair", 3), ("self_pair", 4)])
def test_round_bookkeeping(request, which, gamma):
    pair = request.getfixturevalue(which)
    new = 17
    chunks = list(stream(pair, EXPORT, new, "speculative", gamma=gamma, temperature=1.0, seed=3))
    produced = 0
    for i, ch in enumerate(chunks):
        last = i == len(chunks) - 1
        rec, left = ch.record, new - produced
        # at most one draft fewer than the tokens still to write: a bonus token completes them
        assert rec.gamma == max(1, min(gamma, left - 1))
        assert 1 <= len(ch.token_ids) <= min(gamma + 1, left)
        assert len(ch.origins) == len(ch.token_ids)
        assert rec.tokens[:len(ch.token_ids)] == ch.token_ids
        assert ORIGIN_PATTERN.fullmatch(",".join(engine.origins_of(rec)))
        assert ch.origins == tuple(engine.origins_of(rec))[:len(ch.token_ids)]
        assert rec.bonus == (len(rec.tokens) == rec.gamma + 1)
        if not last:  # only the final round may be cut at max_new_tokens
            assert ch.token_ids == rec.tokens
            assert ORIGIN_PATTERN.fullmatch(",".join(ch.origins))
        produced += len(ch.token_ids)
    assert any(ch.record.gamma < gamma for ch in chunks)  # the cap above was exercised

    res = generate(pair, EXPORT, new, "speculative", gamma=gamma, temperature=1.0, seed=3)
    assert res.token_ids == [t for ch in chunks for t in ch.token_ids]
    assert res.origins == [o for ch in chunks for o in ch.origins]
    s = res.stats
    assert s.new_tokens == len(res.token_ids) == new
    assert s.target_passes == len(res.rounds) == len(chunks)
    assert s.drafted == sum(r.gamma for r in res.rounds)
    assert s.checked == sum(len(r.checks) for r in res.rounds) <= s.drafted
    assert s.accepted == sum(r.n_accepted for r in res.rounds)
    assert s.alpha == pytest.approx(s.accepted / s.checked)
    assert s.tokens_per_target_pass == pytest.approx(s.new_tokens / s.target_passes)
    assert 1 <= s.tokens_per_target_pass <= gamma + 1
    d = s.as_dict()
    assert d["new_tokens"] == new and d["tokens_per_target_pass"] == s.tokens_per_target_pass
    assert d["alpha"] == s.alpha
    assert engine.Stats(new_tokens=3, target_passes=3).as_dict()["alpha"] is None  # nothing checked


def test_origins_name_how_each_round_ended():
    """The app colours a reply by these: kept drafts are "accepted", and the round's last token
    is "bonus" where every draft was kept and "correction" after a rejection. Forced rounds."""
    uniform = np.full(5, 0.2)
    kept = speculative_round([0, 3], [uniform, uniform], [uniform, uniform, np.eye(5)[4]],
                             np.random.default_rng(0))  # p = q: both kept, the bonus from p[2]
    assert kept.bonus and engine.origins_of(kept) == ["accepted", "accepted", "bonus"]
    q, p = np.array([0.5, 0.5, 0, 0, 0]), np.array([0.5, 0, 0.5, 0, 0])  # p(1) = 0: rejected
    rejected = speculative_round([0, 1], [uniform, q], [uniform, p, uniform], np.random.default_rng(0))
    assert not rejected.bonus and rejected.n_accepted == 1
    assert engine.origins_of(rejected) == ["accepted", "correction"]


def test_target_only_bookkeeping(pair):
    res = generate(pair, EXPORT, 9, "target", temperature=1.0, seed=4)
    s = res.stats
    assert s.target_passes == s.new_tokens == len(res.token_ids) == 9
    assert res.origins == ["target"] * 9 and res.rounds == []
    assert s.drafted == s.checked == s.accepted == 0 and s.alpha == 0.0
    assert s.tokens_per_target_pass == 1.0


class FedCounter:
    """A pair that records, for every pass, which model ran, how many new positions it was fed
    and how many its cache already held."""

    def __init__(self, pair):
        self.pair, self.passes = pair, []

    def __getattr__(self, name):
        return getattr(self.pair, name)

    def target_logits(self, ids, cache, keep=0):
        self.passes.append(("target", ids.shape[1], cache.get_seq_length()))
        return self.pair.target_logits(ids, cache, keep)

    def drafter_logits(self, ids, cache, keep=0):
        self.passes.append(("draft", ids.shape[1], cache.get_seq_length()))
        return self.pair.drafter_logits(ids, cache, keep)


@pytest.mark.parametrize("which, temperature", [("pair", 1.0), ("pair", 0.0), ("self_pair", 1.0)])
def test_each_pass_reads_only_what_its_cache_has_not_seen(request, ids_of, which, temperature):
    """The KV caches carry every token that stands from round to round: a round's target pass
    is fed the newest token and the drafts (the prompt too, the first time), and the draft
    model only what it has not read. A cache thrown away, or never filled, gives the same
    tokens, and only this shows it."""
    counter = FedCounter(request.getfixturevalue(which))
    prompt = ids_of(counter.pair, EXPORT)
    res = generate(counter, prompt, 16, "speculative", gamma=4, temperature=temperature, seed=5)
    passes, context, draft_seen = iter(counter.passes), len(prompt), 0
    for i, record in enumerate(res.rounds):
        # the draft reads what its cache lacks of the context, then each draft it wrote
        assert next(passes) == ("draft", context - draft_seen, draft_seen)
        for k in range(1, record.gamma):
            assert next(passes) == ("draft", 1, context + k - 1)
        seen = 0 if i == 0 else context - 1
        assert next(passes) == ("target", context - seen + record.gamma, seen)
        context += len(record.tokens)
        # rolled back to all but the newest token; after a bonus the last draft was never read
        draft_seen = context - 2 if record.bonus else context - 1
    assert next(passes, None) is None
    # both ways a round can end were exercised: corrections (early-exit-6), bonuses (itself)
    assert any(r.bonus == (which == "self_pair") for r in res.rounds)


@pytest.mark.parametrize("which, gamma, new", [("pair", 4, 1), ("pair", 7, 9),
                                               ("self_pair", 4, 7), ("self_pair", 6, 1)])
def test_max_new_tokens_is_exact(request, which, gamma, new):
    """No EOS in reach: exactly max_new_tokens come out, even when a round is cut."""
    pair = request.getfixturevalue(which)
    res = generate(pair, EXPORT, new, "speculative", gamma=gamma, temperature=1.0, seed=1)
    assert len(res.token_ids) == len(res.origins) == res.stats.new_tokens == new
    assert pair.tokenizer.eos_token_id not in res.token_ids
    if which == "self_pair":  # a perfect drafter's last round drafts one fewer than the tokens
        left = new - sum(len(r.tokens) for r in res.rounds[:-1])  # left, and its bonus ends them
        assert res.rounds[-1].gamma == max(1, left - 1)
        assert len(res.rounds[-1].tokens) == max(2, left)  # with one left it still drafts one


# --- 5. EOS ------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["target", "speculative"])
def test_eos_ends_a_chat_answer(pair, chat_ids, method):
    eos = pair.tokenizer.eos_token_id
    res = generate(pair, chat_ids(QUESTION), NEW, method, gamma=4, temperature=0)
    assert 1 < len(res.token_ids) < NEW
    assert res.token_ids[-1] == eos and eos not in res.token_ids[:-1]
    assert res.stats.new_tokens == len(res.token_ids)
    assert "4" in res.text and pair.tokenizer.eos_token not in res.text


@pytest.mark.parametrize("method", ["target", "speculative"])
def test_suppress_eos_writes_every_token_asked_for(pair, chat_ids, method):
    """The same answer that ends after ~12 tokens runs on to NEW, with no end-of-text, and up to
    where it ended before it is the same text: the ban changes nothing but that one token."""
    eos = pair.tokenizer.eos_token_id
    ended = generate(pair, chat_ids(QUESTION), NEW, method, gamma=4, temperature=0).token_ids
    res = generate(pair, chat_ids(QUESTION), NEW, method, gamma=4, temperature=0, suppress_eos=True)
    assert len(res.token_ids) == res.stats.new_tokens == NEW and eos not in res.token_ids
    assert res.token_ids[:len(ended) - 1] == ended[:-1]


def test_a_banned_token_gets_no_probability():
    logits = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 1.0]])
    for setting in (Sampling(0.0, banned=(0,)), Sampling(0.7, banned=(0,))):
        probs = to_distributions(logits, setting)
        assert np.all(probs[:, 0] == 0) and np.allclose(probs.sum(-1), 1)
    assert to_distributions(logits, Sampling(0.0, banned=(0,)))[0].tolist() == [0.0, 0.0, 1.0]
    assert logits[0, 0] == 3.0  # the caller's scores are not written into
    with pytest.raises(ValueError, match="banned"):
        Sampling(banned=[0])


def test_numpy_numbers_are_settings_like_any_other():
    """A setting read from an array (a float32, say) is taken, and kept as Python's number."""
    setting = Sampling(np.float32(0.7), top_k=np.int64(5), top_p=np.float32(0.9))
    assert (setting.temperature, setting.top_k, setting.top_p) == pytest.approx((0.7, 5, 0.9))
    assert [type(v) for v in (setting.temperature, setting.top_k, setting.top_p)] == [float, int, float]
    for bad in (dict(temperature=np.float32("nan")), dict(top_p=np.float32(1.5)), dict(temperature=True),
                dict(temperature=float("inf")), dict(top_p=10 ** 400)):
        with pytest.raises(ValueError, match="temperature|top_p"):
            Sampling(**bad)


def test_a_prompt_that_is_not_text_is_named_as_such(pair):
    with pytest.raises(ValueError, match="the prompt must be text .*; got int"):
        engine.encode(pair, 123)
    with pytest.raises(ValueError, match="the prompt is empty"):
        engine.encode(pair, " \u200b")


@pytest.mark.parametrize("method", ["target", "speculative"])
def test_eos_cuts_a_round_in_the_middle(self_pair, method):
    """Make a token we know comes 3rd into EOS: with the perfect drafter it sits inside the
    first 5-token round, and generation must stop right after it."""
    ref = greedy_target(self_pair, STORY).token_ids
    k = next(i for i in range(2, 4) if ref[i] not in ref[:i])
    fake = dataclasses.replace(self_pair, tokenizer=EosAs(self_pair.tokenizer, ref[k]))
    chunks = list(stream(fake, STORY, NEW, method, gamma=4, temperature=0))
    assert [t for ch in chunks for t in ch.token_ids] == ref[:k + 1]
    if method == "speculative":  # the draft stopped at its end-of-text token, which was kept
        assert len(chunks) == 1 and chunks[0].record.draft_tokens == tuple(ref[:k + 1])
        assert chunks[0].origins == ("accepted",) * (k + 1)
    res = generate(fake, STORY, NEW, method, gamma=4, temperature=0)
    assert res.token_ids == ref[:k + 1] and res.stats.new_tokens == k + 1


# --- 6. the output follows the target's warped distribution --------------------------------

class Memo:
    """A logits function that sends each distinct context through the real model once, with a
    fresh cache. The engine's own cache then stays empty, so it always hands over the whole
    context, which is the key. Same numbers as the cached run, without 2,000 forward passes."""

    def __init__(self, fn):
        self.fn, self.store = fn, {}

    def __call__(self, input_ids, cache, keep=0):
        assert cache.get_seq_length() == 0
        key = tuple(input_ids[0].tolist())
        if key not in self.store:
            self.store[key] = self.fn(input_ids, DynamicCache())
        return self.store[key][-keep:].clone()  # callers may not write into the stored copy


STAT_PROMPT = "The weather today is"  # p's top 5 and q's top 5 share 2 tokens
N_SEEDS = 2000  # smallest expected count ~ 0.06 * 2000 = 120


def chi2_pvalue(samples, support, probs) -> float:
    """Chi-square p-value of `samples` against `probs` on `support`; 0 if any sample falls
    outside the support (a token with expected count 0 cannot appear under the hypothesis).
    `probs` sum to one up to the float32 rounding of the models' distributions, which scipy's
    check of the totals (to 1.5e-8) can refuse: they are renormalised in float64 first."""
    index = {int(t): i for i, t in enumerate(support)}
    if any(int(s) not in index for s in samples):
        return 0.0
    counts = np.bincount([index[int(s)] for s in samples], minlength=len(support))
    probs = np.asarray(probs, dtype=np.float64)
    return chisquare(counts, len(samples) * probs / probs.sum()).pvalue


@pytest.fixture(scope="module")
def first_token_setup(pair, ids_of):
    ids = ids_of(pair, STAT_PROMPT)
    p_raw, q_raw = pair.distributions(ids)

    def top5(row):
        top = np.argsort(-row)[:5]
        mass = row[top].astype(np.float64)
        return top, mass / mass.sum()

    memo = copy.copy(pair)
    memo.target_logits = Memo(pair.target_logits)
    memo.drafter_logits = Memo(pair.drafter_logits)
    return ids, top5(p_raw[-1]), top5(q_raw[-1]), memo


def first_tokens(memo_pair, ids):
    firsts, first_kept = [], 0
    for seed in range(N_SEEDS):
        # three tokens to write, so that the first round drafts two (with one it would draft one)
        res = generate(memo_pair, ids, 3, "speculative", gamma=2, temperature=1.0, top_k=5,
                       seed=seed)
        assert res.rounds[0].gamma == 2
        firsts.append(res.token_ids[0])
        first_kept += res.rounds[0].checks[0].accepted
    return firsts, first_kept


def test_first_token_follows_warped_target(first_token_setup):
    """N_SEEDS = 2000 speculative runs (gamma 2, temperature 1, top_k 5): the first token
    ~ the target's top-5 renormalised p; drafts were both kept and corrected along the way."""
    ids, (p_top, p_w), (q_top, q_w), memo = first_token_setup
    assert 1 <= len(set(p_top) & set(q_top)) <= 4  # neither disjoint nor identical supports
    firsts, first_kept = first_tokens(memo, ids)
    assert 0.05 * N_SEEDS < first_kept < 0.5 * N_SEEDS
    assert chi2_pvalue(firsts, p_top, p_w) > ALPHA


def test_first_token_test_has_power(first_token_setup, monkeypatch):
    """The same test rejects (a) samples straight from the draft's warped q and (b) the engine
    with a plausible bug: a rejected draft resampled from p instead of max(0, p - q)."""
    ids, (p_top, p_w), (q_top, q_w), memo = first_token_setup
    from_q = np.random.default_rng(0).choice(q_top, size=N_SEEDS, p=q_w)
    assert chi2_pvalue(from_q, p_top, p_w) < ALPHA
    # restricted to p's support the draft's samples still fail on their proportions
    kept = [t for t in from_q if t in set(p_top)]
    assert len(kept) > 100 and chi2_pvalue(kept, p_top, p_w) < ALPHA

    monkeypatch.setattr(sampling, "residual_distribution", lambda p, q: (np.asarray(p), 1.0))
    firsts, _ = first_tokens(memo, ids)
    assert all(t in set(p_top) for t in firsts)  # only the proportions are wrong
    assert chi2_pvalue(firsts, p_top, p_w) < ALPHA


def binned(samples, expected: np.ndarray) -> tuple[list[int], list[int], list[float]]:
    """Samples and an expected distribution over the vocabulary, with every token expected
    fewer than 5 times in len(samples) draws (or never) in one bin, -1."""
    support = [int(t) for t in np.flatnonzero(expected * len(samples) >= 5)]
    rest = 1.0 - float(expected[support].sum())
    shown = set(support)
    return ([int(s) if int(s) in shown else -1 for s in samples], support + [-1],
            [float(expected[t]) for t in support] + [max(rest, 0.0)])


@pytest.mark.parametrize("setting", [Sampling(0.5), Sampling(1.0, top_p=0.9)], ids=repr)
def test_the_target_alone_samples_its_warped_distribution(first_token_setup, pair, setting):
    """N_SEEDS = 2000 one-token runs of Nimbus-large alone, at temperature 0.5 and at top-p 0.9:
    the token ~ the target's p warped by the independent `warped`; the same test refuses draws
    from the plain p, which the warping was meant to change."""
    ids, _, _, memo = first_token_setup
    p = pair.distributions(ids)[0][-1].astype(np.float64)
    expected = warped(torch.log(torch.from_numpy(p))[None], setting)[0]
    firsts = [generate(memo, ids, 1, "target", temperature=setting.temperature, top_p=setting.top_p,
                       seed=seed).token_ids[0] for seed in range(N_SEEDS)]
    assert chi2_pvalue(*binned(firsts, expected)) > ALPHA
    plain = np.random.default_rng(0).choice(len(p), size=N_SEEDS, p=p / p.sum())
    assert chi2_pvalue(*binned(plain, expected)) < ALPHA


# --- 6b. a draft that stops early when it is unsure is still exact --------------------------

STOP = 0.3  # early-exit-6 gives its first drafted token less than this about half the time


def test_second_token_follows_target_when_drafts_stop_early(first_token_setup, pair):
    """N_SEEDS = 2000 three-token runs (gamma 2, temperature 1, top_k 5, stop_below 0.3; with
    three tokens to write the first round may draft two). The early stop decides whether the
    second token is drafted, so it is the token to check: its
    frequencies ~ sum over x1 of p(x1) p(x2 | x1), both warped to their top 5. Tokens
    expected fewer than 5 times share one bin."""
    ids, (p_top, p_w), _, memo = first_token_setup
    expected: dict[int, float] = {}
    for x1, w1 in zip(p_top, p_w):
        p2 = pair.distributions(ids + [int(x1)])[0][-1]
        top = np.argsort(-p2)[:5]
        for x2, w2 in zip(top, p2[top] / p2[top].sum()):
            expected[int(x2)] = expected.get(int(x2), 0.0) + float(w1 * w2)
    seconds, stopped = [], 0
    for seed in range(N_SEEDS):
        res = generate(memo, ids, 3, "speculative", gamma=2, temperature=1.0, top_k=5, seed=seed,
                       stop_below=STOP)
        seconds.append(res.token_ids[1])
        stopped += res.rounds[0].gamma == 1
    assert 0.2 * N_SEEDS < stopped < 0.8 * N_SEEDS  # both kinds of round happen often
    rare = {t for t, w in expected.items() if w * N_SEEDS < 5}
    support = [t for t in expected if t not in rare] + [-1]
    probs = [expected[t] for t in support[:-1]] + [sum(expected[t] for t in rare)]
    binned = [-1 if t in rare else t for t in seconds]
    assert chi2_pvalue(binned, support, probs) > ALPHA


def test_a_draft_stops_right_after_its_first_unsure_token(pair, monkeypatch):
    """Every round drafts up to the first token the draft gave less than stop_below, or gamma
    tokens if there is none; 0 turns the stop off and 1 stops after every first token."""
    seen = []
    real = engine.draft_confidence
    monkeypatch.setattr(engine, "draft_confidence",
                        lambda *args: seen.append(real(*args)) or seen[-1])
    for stop_below in (0.0, 0.4, 1.0):
        seen.clear()
        res = generate(pair, EXPORT, 30, gamma=5, temperature=1.0, seed=3, stop_below=stop_below)
        lengths, caps, produced = [r.gamma for r in res.rounds], [], 0
        for r in res.rounds:  # gamma, or one fewer than the tokens left when that is less
            caps.append(max(1, min(5, 30 - produced - 1)))
            produced += len(r.tokens)
        if stop_below == 0:
            assert not seen and lengths == caps and caps[0] == 5
            continue
        assert sum(lengths) == len(seen)
        at = 0
        for n, cap in zip(lengths, caps):
            confidences, at = seen[at:at + n], at + n
            assert all(c >= stop_below for c in confidences[:-1])
            assert confidences[-1] < stop_below or n == cap
        if stop_below == 1.0:
            assert set(lengths) == {1}
        else:
            assert 1 < len(set(lengths))  # some rounds stopped early, some did not


def test_draft_confidence_reads_the_distribution_the_draft_came_from():
    """At temperature 0.5 or with top-p, the probability in the warped q the token was drawn
    from (as transformers' assistant_confidence_threshold reads its processed scores), noise
    left out; at temperature 0, where that q is one-hot, the plain softmax."""
    logits = torch.tensor([2.0, 1.0, 0.0, -1.0])
    plain = torch.softmax(logits, -1)
    for setting in (Sampling(0.5), Sampling(1.0, top_p=0.8)):
        warped = to_distributions(logits[None], setting)[0]
        assert engine.draft_confidence(logits, warped, 1, setting) == pytest.approx(warped[1])
        assert warped[1] != pytest.approx(float(plain[1]), abs=1e-3)
    one_hot = to_distributions(logits[None], Sampling(0.0))[0]
    assert engine.draft_confidence(logits, one_hot, 1, Sampling(0.0)) == pytest.approx(float(plain[1]))
    banned = Sampling(0.0, banned=(0,))
    assert engine.draft_confidence(logits, one_hot, 1, banned) == pytest.approx(
        float(torch.softmax(logits[1:], -1)[0]))


@pytest.mark.parametrize("noise", [0.25, 1.0])
def test_draft_noise_blends_q_with_the_uniform_distribution(pair, monkeypatch, ids_of, noise):
    """With draft_noise = ε every q row the rule sees is (1 - ε)·q_raw + ε/V, q_raw being the
    drafter's own softmax for that context, and each draft is sampled from that blended row.
    Memo keeps the draft's cache empty, so q_raw comes from the same logits the engine used."""
    seen = spy_rounds(monkeypatch)
    memo = copy.copy(pair)
    memo.drafter_logits = Memo(pair.drafter_logits)
    prompt_ids, seed = ids_of(pair, EXPORT), 8
    chunks = list(itertools.islice(iter_speculative(memo, prompt_ids, 200, Sampling(1.0),
                                                    np.random.default_rng(seed), 3, noise), 3))
    replay, v = np.random.default_rng(seed), pair.vocab_size
    for chunk, r in zip(chunks, seen):
        for i, row in enumerate(r["q"]):
            logits = memo.drafter_logits.store[tuple(r["context"] + r["drafts"][:i])][-1]
            q_raw = torch.softmax(logits.float(), -1).double()
            q_raw = (q_raw / q_raw.sum()).numpy()  # renormalised in float64, as the engine does
            assert np.allclose(row, (1 - noise) * q_raw + noise / v, atol=1e-12, rtol=0)
        assert [sample(row, replay) for row in r["q"]] == r["drafts"]
        assert speculative_round(r["drafts"], r["q"], r["p"], replay).tokens == chunk.token_ids


def test_draft_noise_spreads_over_the_tokens_not_banned(pair, monkeypatch, chat_ids):
    """With end-of-text banned, full noise makes q uniform over the other tokens: a draft the
    target could never keep (p = 0 there) is never drafted, and each row still sums to 1."""
    seen = spy_rounds(monkeypatch)
    eos = pair.tokenizer.eos_token_id
    generate(pair, chat_ids(QUESTION), 12, gamma=4, temperature=1.0, draft_noise=1.0,
             suppress_eos=True)
    rows = np.concatenate([r["q"] for r in seen])
    assert len(rows) >= 3 and np.all(rows[:, eos] == 0)
    assert np.allclose(rows, 1 / (pair.vocab_size - 1) * (np.arange(pair.vocab_size) != eos),
                       atol=1e-15, rtol=0)
    assert np.allclose(engine.add_noise(np.array([0.5, 0.5, 0.0]), 0.5, (0,)),
                       [0.25, 0.5, 0.25], atol=1e-15, rtol=0)


def test_greedy_with_early_stops_equals_target(pair):
    ref = greedy_target(pair, EXPORT)
    res = generate(pair, EXPORT, NEW, gamma=6, temperature=0, stop_below=0.5)
    assert res.token_ids == ref.token_ids
    assert min(r.gamma for r in res.rounds) < 6  # the one-hot q did not hide the draft's doubt

# --- 7. bad input: a clear ValueError, raised by our code ------------------------------------

BAD_REQUESTS = [
    (dict(prompt=""), "prompt is empty"),
    (dict(prompt="   \n\t "), "prompt is empty"),
    (dict(prompt="\u200b\u200e\u3000"), "prompt is empty"),
    (dict(prompt=[]), "prompt is empty"),
    (dict(gamma=0), "gamma must be a whole number from 1 to 16; got 0"),
    (dict(gamma=MAX_GAMMA + 1), "gamma must be a whole number from 1 to 16; got 17"),
    (dict(gamma="4"), r"gamma must be a whole number from 1 to 16; got '4'"),
    (dict(gamma=2.0), "gamma must be a whole number"),
    (dict(temperature=-0.5), r"temperature must be 0 \(greedy\) or a number in \[0.01, 10"),
    (dict(temperature=float("nan")), r"temperature must be 0 \(greedy\) or a number in \[0.01, 10"),
    (dict(temperature=1e-300), r"temperature must be 0 \(greedy\) .*; got 1e-300"),
    (dict(top_p=0), r"top_p must lie in \(0, 1\]"),
    (dict(top_p=1.5), r"top_p must lie in \(0, 1\]"),
    (dict(top_k=-1), "top_k must be a whole number >= 0"),
    (dict(seed=-1), r"seed must be a whole number >= 0 \(or None\); got -1"),
    (dict(prompt="caf\udce9"), r"the prompt is not valid Unicode text \(character 3\)"),
    (dict(method="fast"), "method must be one of"),
    (dict(max_new_tokens=0), "max_new_tokens must be a whole number >= 1"),
    (dict(prompt=[-1, 5]), r"token ids must lie in \[0, 49152\)"),
    (dict(prompt=[5, 49152]), r"token ids must lie in \[0, 49152\)"),
    (dict(stop_below=1.5), r"stop_below \(the draft's early-stop threshold\) must lie in \[0, 1\]"),
    (dict(stop_below=float("nan")), r"stop_below .* must lie in \[0, 1\]; got nan"),
    (dict(stop_below=True), r"stop_below .* must lie in \[0, 1\]; got True"),
    (dict(draft_noise=-0.1), r"draft noise must lie in \[0, 1\]; got -0.1"),
    (dict(draft_noise=1.5), r"draft noise must lie in \[0, 1\]; got 1.5"),
    (dict(draft_noise=float("nan")), r"draft noise must lie in \[0, 1\]; got nan"),
    (dict(draft_noise="0.5"), r"draft noise must lie in \[0, 1\]; got '0.5'"),
    (dict(draft_noise=True), r"draft noise must lie in \[0, 1\]; got True"),
]


@pytest.mark.parametrize("method", ["speculative", "target"])
@pytest.mark.parametrize("kwargs, match", BAD_REQUESTS,
                         ids=[next(iter(k)) + "=" + repr(next(iter(k.values())))[:12]
                              for k, _ in BAD_REQUESTS])
def test_bad_request_is_a_clear_value_error(pair, kwargs, match, method):
    request = {"prompt": EXPORT, "max_new_tokens": 4, "method": method, **kwargs}
    with pytest.raises(ValueError, match=match) as info:
        generate(pair, **request)
    assert_raised_by_us(info)


def test_prompt_longer_than_context(pair):
    with pytest.raises(ValueError, match="8192-token context") as info:
        generate(pair, [1] * pair.context_length, 4)
    assert_raised_by_us(info)
    room = pair.context_length - MAX_GAMMA - 1
    with pytest.raises(ValueError, match="8192-token context"):
        generate(pair, [1] * (room - 3), 4)  # one token too many, counting max_new_tokens
    engine.check_request(pair, [1] * (room - 4), 4, "speculative", MAX_GAMMA)  # exactly room: fine


def assert_raised_by_us(info):
    """The error comes from specdec_core's own checks, not from deep inside torch."""
    package = Path(specdec_core.__file__).parent
    assert Path(str(info.traceback[-1].path)).parent == package


@pytest.mark.parametrize("drafter", ["nimbus-huge", "early-exit-30", "early-exit-0", "early-exit-07"])
def test_unknown_drafter_is_refused_before_loading(drafter, monkeypatch):
    """A name no drafter answers to is refused at once, not after the target's 538 MB load."""
    def no_load(*args, **kwargs):
        raise AssertionError("the target was loaded")

    monkeypatch.setattr(models, "load_target", no_load)
    with pytest.raises(ValueError, match=rf"unknown drafter '{drafter}'.* early-exit-K \(K = 1..29\)"):
        load_pair(drafter, device="cpu")


def test_unknown_device():
    with pytest.raises(ValueError, match="device must be 'auto', 'cpu' or 'cuda'; got 'tpu'"):
        load_pair("early-exit-6", device="tpu")


def test_a_scenario_is_the_first_round_generate_runs(pair_named):
    """The walkthrough's round is the one `generate` runs first with the same prompt, γ, seed
    and sampling: the same drafts, coins and tokens (seed 16 is the worked example, 130 the
    README's all-kept round)."""
    from lessons.scenario import WALKTHROUGH_PROMPT, build_scenario
    mini = pair_named("nimbus-mini")
    for seed in (0, 16, 130):
        sc = build_scenario(mini, seed=seed, pass_costs=(1.0, 1.0))
        out = generate(mini, WALKTHROUGH_PROMPT, max_new_tokens=8, gamma=sc.gamma, seed=seed)
        assert out.rounds[0] == sc.record, seed


def test_a_scenario_names_every_token_its_charts_show(pair_named):
    """Steps 4 and 5 show the tokens the draft under-offered; each needs its text, not an id."""
    from lessons import figures
    from lessons.scenario import build_scenario
    mini = pair_named("nimbus-mini")  # the walkthrough's drafter
    for seed in range(6):
        sc = build_scenario(mini, seed=seed)
        row = sc.decided_row if not sc.record.bonus else 0
        assert set(sc.exactness_tokens(row)) <= set(sc.labels)
        for chart in (figures.correction_chart(sc), figures.verify_chart(sc), figures.draft_chart(sc)):
            unnamed = [r["token"] for r in chart.rows if re.fullmatch(r"#\d+", r["token"])]
            assert not unnamed, (seed, unnamed)
