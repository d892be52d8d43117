"""Nimbus-mini's one-token step (specdec_core/draft_step.py) against transformers' forward."""
from __future__ import annotations

import copy

import pytest
import torch
from transformers import DynamicCache

from specdec_core.cpu_linear import HALF_PRODUCTS, use_cpu_kernels
from specdec_core.models import load_drafter

pytestmark = pytest.mark.skipif(not HALF_PRODUCTS, reason="the step needs fbgemm's float16 product")

TEXT = ("Your export failed because your file was larger than the 2 GB limit of the free plan. "
        "Split it into parts, or upgrade, and try again; the logs say more.")


@pytest.fixture(scope="module")
def mini(pair):
    return load_drafter("nimbus-mini", pair.target)


def _steps(model, ids: list[int], prefix: int, cache: DynamicCache) -> torch.Tensor:
    """The logits of every position after `prefix`, one new token per call: (len - prefix, V)."""
    rows = [model.logits(torch.tensor([ids[n:n + 1]]), cache)[0] for n in range(prefix, len(ids))]
    return torch.stack(rows)


def test_the_shipped_drafter_takes_the_step_on_a_cpu(mini):
    assert mini.one_token_step is not None


def test_its_logits_and_cache_equal_the_forward_s(mini, pair, ids_of):
    """Step by step after a prompt read by the forward: the same logits (-inf where the reduced
    head has no row) and the same keys and values in every layer."""
    ids = ids_of(pair, TEXT)
    step = mini.one_token_step
    fast, slow = DynamicCache(), DynamicCache()
    with torch.inference_mode():
        mini.logits(torch.tensor([ids[:8]]), fast)
        mini.logits(torch.tensor([ids[:8]]), slow)
        got = _steps(mini, ids, 8, fast)
        mini.one_token_step = None
        try:
            want = _steps(mini, ids, 8, slow)
        finally:
            mini.one_token_step = step
    assert torch.equal(torch.isfinite(got), torch.isfinite(want))
    finite = torch.isfinite(want)
    assert (got[finite] - want[finite]).abs().max() < 1e-5
    assert fast.get_seq_length() == slow.get_seq_length() == len(ids)
    for mine, theirs in zip(fast.layers, slow.layers):
        assert (mine.keys - theirs.keys).abs().max() < 1e-5
        assert (mine.values - theirs.values).abs().max() < 1e-5


def test_a_cache_passes_between_the_step_and_the_forward(mini, pair, ids_of):
    """Decoding mixes them: a round's first draft step may read two new tokens (the forward),
    the rest one (the step). Every mixture scores the text as one whole forward pass does."""
    ids = ids_of(pair, TEXT)
    with torch.inference_mode():
        whole = mini.logits(torch.tensor([ids]), DynamicCache())
        cache = DynamicCache()
        mini.logits(torch.tensor([ids[:5]]), cache)
        parts = [_steps(mini, ids[:9], 5, cache), mini.logits(torch.tensor([ids[9:11]]), cache),
                 _steps(mini, ids, 11, cache)]
    mixed = torch.cat(parts)
    finite = torch.isfinite(whole[5:])
    assert torch.equal(torch.isfinite(mixed), finite)
    assert (mixed[finite] - whole[5:][finite]).abs().max() < 1e-4


def test_other_calls_go_through_the_forward(mini, pair, ids_of, monkeypatch):
    """Several positions, a call that wants gradients and a model in training never reach the
    step (it has no backward pass and no dropout)."""
    calls, real = [], mini.one_token_step.hidden
    monkeypatch.setattr(mini.one_token_step, "hidden", lambda *a: calls.append(a) or real(*a))
    one = torch.tensor([ids_of(pair, TEXT)[:1]])
    with torch.inference_mode():
        mini.logits(torch.tensor([ids_of(pair, TEXT)[:3]]), DynamicCache())
    mini.logits(one, DynamicCache())  # gradients enabled
    assert calls == []
    with torch.inference_mode():
        mini.train()
        try:
            mini.logits(one, DynamicCache())
        finally:
            mini.eval()
        assert calls == []
        mini.logits(one, DynamicCache())
    assert len(calls) == 1


def test_a_drafter_with_other_products_does_not_take_it(pair):
    """The step multiplies by float16 copies; a drafter whose layers took PyTorch's product
    (switched back to nn.Linear) keeps the forward, which then computes what it says."""
    drafter = load_drafter("nimbus-mini", pair.target)
    use_cpu_kernels(drafter, enabled=False)
    assert not drafter.use_one_token_step() and drafter.one_token_step is None


def test_a_copy_makes_its_own_step(mini, pair, ids_of):
    """The step holds float16 copies of the weights it was made from: a deep copy of the drafter
    starts without one (as CPULinear's copies do), and then runs the forward on its own weights."""
    twin = copy.deepcopy(mini)
    assert twin.one_token_step is None and mini.one_token_step is not None
    ids = ids_of(pair, TEXT)[:6]
    with torch.inference_mode():
        want = mini.logits(torch.tensor([ids]), DynamicCache())
        got = twin.logits(torch.tensor([ids]), DynamicCache())
    finite = torch.isfinite(want)
    assert torch.equal(torch.isfinite(got), finite)
    assert (got[finite] - want[finite]).abs().max() < 1e-5
