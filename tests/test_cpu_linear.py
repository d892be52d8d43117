"""The CPU matrix products: the same numbers as nn.Linear on every path, used by every loaded
model, and the verify-cost side of the speed model that they change."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from torch import nn

from specdec_core import cpu_linear, timing
from specdec_core.cpu_linear import (HALF_PRODUCTS, ONEDNN, STREAM_ROWS, CPULinear, choose_row_products,
                                     is_half_exact, row_products_of, use_cpu_kernels, use_half_weights)
from specdec_core.quality import COST_CONTEXT, best_gamma, cost_context, pass_seconds, verify_cost
from specdec_core.sampling import expected_speedup

ROW_SHAPES = [(1, 96), (1, 1, 96), (1, 2, 96), (1, 3, 96), (1, 5, 96), (2, 4, 96), (1, 9, 96),
              (3, 40, 96)]


def linear_pair(bias: bool, seed: int = 0) -> tuple[nn.Linear, CPULinear]:
    torch.manual_seed(seed)
    plain = nn.Linear(96, 160, bias=bias)
    fast = use_cpu_kernels(nn.Sequential(nn.Linear(96, 160, bias=bias)))[0]
    fast.load_state_dict(plain.state_dict())
    return plain, fast


@pytest.mark.parametrize("grad", [False, True], ids=["inference", "with-grad"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_same_product_as_nn_linear(shape, bias, grad):
    """Within float32 rounding of nn.Linear for every row count, on every path."""
    assert_same_product(*linear_pair(bias), shape, grad)


def assert_same_product(plain: nn.Linear, fast: CPULinear, shape, grad: bool) -> None:
    """fast(x) is plain(x) to float32 rounding, same shape, row-major, for a random x of `shape`."""
    x = torch.randn(*shape)
    with torch.set_grad_enabled(grad):
        want, got = plain(x), fast(x)
    assert got.shape == want.shape and got.is_contiguous()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_transposed_input_gives_the_same_product():
    """Activations can arrive column-major (a transposed view); the result must not change."""
    plain, fast = linear_pair(True)
    for rows in (2, 3, 7):
        x = torch.randn(96, rows).t()[None]  # (1, rows, 96), not contiguous
        with torch.no_grad():
            torch.testing.assert_close(fast(x), plain(x), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not ONEDNN, reason="this PyTorch build has no oneDNN")
def test_switching_back_drops_the_copies_of_the_weights():
    """A model trained after inference (distillation) must not keep packed copies alive."""
    _, fast = linear_pair(False)
    with torch.no_grad():
        fast(torch.randn(STREAM_ROWS + 3, 96))
    assert "_packed_weight" in fast.__dict__
    use_cpu_kernels(fast, enabled=False)
    assert type(fast) is nn.Linear and "_packed_weight" not in fast.__dict__


@pytest.mark.skipif(not ONEDNN, reason="this PyTorch build has no oneDNN")
def test_switching_back_and_forth_can_keep_the_copies():
    """benchmarks/cpu_linear.py alternates the two products: the copy packed before the first
    turn serves every later one, so no turn times the packing."""
    _, fast = linear_pair(False)
    x = torch.randn(STREAM_ROWS + 3, 96)
    with torch.no_grad():
        fast(x)
        packed = fast.__dict__["_packed_weight"]  # (weight's key, the packed copy)
        for _ in range(3):
            use_cpu_kernels(fast, enabled=False, drop_copies=False)
            fast(x)
            use_cpu_kernels(fast, drop_copies=False)
            fast(x)
    assert fast.__dict__["_packed_weight"] is packed


def test_packed_weight_is_used_and_follows_weight_changes():
    """Above STREAM_ROWS rows without gradients the packed copy serves the product; changing
    the weight in place packs it again, so the product never uses stale weights."""
    plain, fast = linear_pair(False)
    x = torch.randn(STREAM_ROWS + 3, 96)
    with torch.no_grad():
        fast(x)
        first = fast.__dict__["_packed_weight"][1]
        fast.weight.mul_(-2.0)
        plain.weight.mul_(-2.0)
        torch.testing.assert_close(fast(x), plain(x), rtol=1e-5, atol=1e-5)
    assert fast.__dict__["_packed_weight"][1] is not first
    twin = copy.deepcopy(fast)  # the packed copy stays behind and is rebuilt on use
    assert "_packed_weight" not in twin.__dict__
    with torch.no_grad():
        torch.testing.assert_close(twin(x), plain(x), rtol=1e-5, atol=1e-5)


def half_pair(bias: bool, seed: int = 0) -> tuple[nn.Linear, CPULinear]:
    """linear_pair with float16 values in float32 weights, the fast layer on the float16 product."""
    plain, fast = linear_pair(bias, seed)
    with torch.no_grad():
        for layer in (plain, fast):
            layer.weight.copy_(plain.weight.half().float())
    assert use_half_weights(fast) == 1 and fast.half
    return plain, fast


needs_half = pytest.mark.skipif(not HALF_PRODUCTS, reason="this PyTorch build has no fbgemm")


@needs_half
@pytest.mark.parametrize("grad", [False, True], ids=["inference", "with-grad"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_half_product_is_the_same_product(shape, bias, grad):
    """The float16 copy holds the same weights, so the product is nn.Linear's to float32 rounding;
    with gradients the library's product runs and no copy is made."""
    plain, fast = half_pair(bias)
    assert_same_product(plain, fast, shape, grad)
    assert ("_half_weight" in fast.__dict__) == (not grad)


@needs_half
def test_half_weights_only_where_float16_loses_nothing():
    """A weight with a value float16 cannot hold keeps its float32 products."""
    torch.manual_seed(0)
    model = use_cpu_kernels(nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8)))
    with torch.no_grad():
        model[0].weight.copy_(model[0].weight.half().float())
        model[1].weight[0, 0] = 1.0 + 2.0 ** -12  # between two float16 neighbours
    assert is_half_exact(model[0].weight) and not is_half_exact(model[1].weight)
    assert use_half_weights(model) == 1
    assert model[0].half and not model[1].half


@needs_half
def test_half_copy_follows_weight_changes_and_is_not_copied():
    plain, fast = half_pair(False)
    x = torch.randn(1, 96)
    with torch.no_grad():
        fast(x)
        first = fast.__dict__["_half_weight"][1]
        for layer in (plain, fast):
            layer.weight.mul_(-2.0)  # still float16 values
        torch.testing.assert_close(fast(x), plain(x), rtol=1e-5, atol=1e-5)
    assert fast.__dict__["_half_weight"][1] is not first
    twin = copy.deepcopy(fast)
    assert twin.half and "_half_weight" not in twin.__dict__
    with torch.no_grad():
        torch.testing.assert_close(twin(x), plain(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows", [1, STREAM_ROWS, STREAM_ROWS + 2])
def test_gradients_match_nn_linear(rows):
    plain, fast = linear_pair(True, seed=1)
    x = torch.randn(1, rows, 96)
    (plain(x) ** 2).sum().backward()
    (fast(x) ** 2).sum().backward()
    torch.testing.assert_close(fast.weight.grad, plain.weight.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(fast.bias.grad, plain.bias.grad, rtol=1e-4, atol=1e-5)


def test_switch_touches_only_plain_linear_layers():
    class Custom(nn.Linear):
        pass

    model = nn.Sequential(nn.Linear(4, 4), Custom(4, 4), nn.LayerNorm(4))
    assert use_cpu_kernels(model) is model
    assert [type(m) for m in model] == [CPULinear, Custom, nn.LayerNorm]
    assert use_cpu_kernels(model, enabled=False) is model
    assert [type(m) for m in model] == [nn.Linear, Custom, nn.LayerNorm]


def test_loaded_models_use_the_cpu_products(pair):
    for model in (pair.target, pair.drafter):
        linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
        assert linears and all(type(m) is CPULinear for m in linears)
        assert not any(p.requires_grad for p in model.parameters())


@pytest.mark.skipif(not ONEDNN, reason="this PyTorch build has no oneDNN")
def test_loaded_models_pack_even_where_gradients_are_on(pair, monkeypatch):
    """Streamlit runs each session in its own thread, where grad mode starts on: a loaded model's
    weights want no gradient, so its passes still take the packed path where it is chosen."""
    layer = pair.target.model.layers[0].mlp.up_proj
    monkeypatch.setattr(layer, "row_products", ((1, "packed"),))  # whatever this machine chose
    layer.__dict__.pop("_packed_weight", None)
    x = torch.randn(1, STREAM_ROWS + 2, layer.in_features)
    with torch.enable_grad():
        out = layer(x)
    assert "_packed_weight" in layer.__dict__
    torch.testing.assert_close(out, nn.functional.linear(x, layer.weight), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not (ONEDNN and HALF_PRODUCTS), reason="this PyTorch build lacks oneDNN or fbgemm")
def test_a_loaded_pair_is_packed_before_its_first_pass():
    """Packing at load keeps its cost out of the first generation (the race times that).
    Nimbus-mini, stored in float16, takes the float16 product in every layer; the target, whose
    weights are float16 values too, takes for each row count whichever product ran fastest here,
    and keeps the copies of its weights those products read, and no other. A fresh load on
    purpose: the session's pair has run passes already."""
    from specdec_core.models import load_pair
    fresh = load_pair("nimbus-mini", device="cpu")
    target = [m for m in fresh.target.modules() if isinstance(m, CPULinear)]
    drafter = [m for m in fresh.drafter.modules() if isinstance(m, CPULinear)]
    assert target and not any(m.half for m in target) and all(is_half_exact(m.weight) for m in target)
    # each row count's product was chosen for this machine, alike in every layer
    assert all("row_products" in m.__dict__ for m in target) and len({m.row_products for m in target}) == 1
    chosen = {way for _, way in target[0].row_products}
    for slot, way in (("_packed_weight", "packed"), ("_half_weight", "half")):
        assert all((slot in m.__dict__) == (way in chosen) for m in target), way
    assert drafter and all("_half_weight" in m.__dict__ and m.half for m in drafter)
    assert not any("_packed_weight" in m.__dict__ for m in drafter)  # no second copy


@pytest.mark.skipif(not ONEDNN, reason="this PyTorch build has no oneDNN")
def test_each_row_count_takes_the_product_that_ran_a_whole_pass_fastest(monkeypatch):
    """A fake clock where one row runs fastest with the packed product, two with the streamed
    one, three with the library's, and five or more packed again (CPUs differ in this): each
    count takes its fastest product, in every layer, a count in between that of the calibrated
    count below it, and the model's products follow."""
    model = use_cpu_kernels(nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))).requires_grad_(False)
    clock = [0.0]
    monkeypatch.setattr(cpu_linear.time, "perf_counter", lambda: clock[0])
    fastest = {1: "packed", 2: "streamed", 3: "library", 4: "library", 5: "packed", 9: "packed"}

    def run_pass(n):
        (way,) = {layer.product_for(n) for layer in model}  # every layer the same way
        clock[0] += 1.0 if way == fastest[n] else 2.0

    assert choose_row_products(model, run_pass) == fastest
    assert row_products_of(model) == fastest  # what the benchmarks record beside their figures
    assert all(layer.product_for(7) == "packed" and layer.product_for(30) == "packed" for layer in model)
    taken = []
    monkeypatch.setattr(CPULinear, "_streamed", lambda self, rows: taken.append("streamed") or rows @ self.weight.T)
    monkeypatch.setattr(nn.Linear, "forward", lambda self, x: taken.append("library") or x @ self.weight.T)
    for rows in (1, 2, 3, 4, 5, 7):
        with torch.no_grad():
            model[0](torch.randn(rows, 8))
        taken.append("|")
    assert "".join(w[0] for w in taken) == "|s|l|l|||"  # packed: neither of the two others


@pytest.mark.skipif(not (ONEDNN and HALF_PRODUCTS), reason="this PyTorch build lacks oneDNN or fbgemm")
def test_a_slow_spell_does_not_sink_the_fastest_product(monkeypatch):
    """A fake clock on which the float16 product is fastest, but its first four passes, as many
    as one product's turn took when each was timed once, cost three times as much (a spell of
    load, or a slow first use): timed again in a later round, it is still chosen."""
    clock, half_passes = [0.0], [0]
    monkeypatch.setattr(cpu_linear.time, "perf_counter", lambda: clock[0])
    model = use_cpu_kernels(nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))).requires_grad_(False)
    for layer in model:
        layer.weight.copy_(layer.weight.half().float())

    def run_pass(n):
        (way,) = {layer.product_for(n) for layer in model}
        cost = {"half": 1.0, "packed": 1.5}.get(way, 2.0)
        if way == "half":
            half_passes[0] += 1
            cost *= 3.0 if half_passes[0] <= 4 else 1.0
        clock[0] += cost

    assert set(choose_row_products(model, run_pass).values()) == {"half"}


@pytest.mark.skipif(not (ONEDNN and HALF_PRODUCTS), reason="this PyTorch build lacks oneDNN or fbgemm")
def test_the_float16_product_is_a_candidate_only_for_weights_of_float16_values(monkeypatch):
    """A fake clock on which the float16 product is fastest for every row count: a model whose
    weights are all float16 values takes it (and the packed copies go), and gives what the
    library's product gives; a model with one other value in one weight never times it."""
    clock = [0.0]
    monkeypatch.setattr(cpu_linear.time, "perf_counter", lambda: clock[0])

    def model_of(exact: bool):
        model = use_cpu_kernels(nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))).requires_grad_(False)
        for layer in model:
            layer.weight.copy_(layer.weight.half().float())
        if not exact:
            model[1].weight[0, 0] += 1e-6
        return model

    def timed(model):
        def run_pass(n):
            (way,) = {layer.product_for(n) for layer in model}
            clock[0] += {"half": 1.0, "packed": 2.0}.get(way, 3.0)
        return run_pass

    exact = model_of(True)
    assert set(choose_row_products(exact, timed(exact)).values()) == {"half"}
    x = torch.randn(5, 8)
    with torch.no_grad():
        torch.testing.assert_close(exact(x), nn.functional.linear(nn.functional.linear(
            x, exact[0].weight, exact[0].bias), exact[1].weight, exact[1].bias), rtol=1e-5, atol=1e-5)
    assert all("_half_weight" in m.__dict__ and "_packed_weight" not in m.__dict__ for m in exact)
    other = model_of(False)
    assert "half" not in choose_row_products(other, timed(other)).values()


def test_a_model_with_no_float32_cpu_layer_has_no_products_to_record():
    model = use_cpu_kernels(nn.Sequential(nn.Linear(8, 8)))
    assert row_products_of(model) == dict(CPULinear.row_products)  # the default until timed
    model[0].half = True  # the float16 product serves every row count: nothing chosen
    assert row_products_of(model) is None
    assert row_products_of(nn.Sequential(nn.Linear(8, 8))) is None  # plain nn.Linear: not ours


def test_verify_cost_is_a_positive_ratio_and_checks_its_input(pair, ids_of):
    context = ids_of(pair, "Your export failed because your account was locked")
    for positions in (1, 5):  # a ratio of two timings: positive and finite, never asserted tighter
        assert 0.0 < verify_cost(pair, context, positions, repeats=3) < float("inf")
    with pytest.raises(ValueError, match="positions must lie in"):
        verify_cost(pair, context, len(context))
    # the walkthrough times a one-token prompt's pass too: no cached prefix at all
    assert all(t > 0 for t in pass_seconds(pair, context[:1] * 5, 5, repeats=2))


def test_alternate_timings_sum_up_the_timed_turns_with_the_chosen_statistic(monkeypatch):
    """A fake clock: call "a" takes 9 s on the untimed first turn, then 3, 1 and 2 s; "b" 1 s
    each time. The walkthrough's step 2 says "fastest of N tries": that is the minimum."""
    durations = iter([9, 1, 3, 1, 1, 1, 2, 1])  # a, b per turn
    clock = [0.0]

    def perf_counter():
        return clock[0]

    def call():
        clock[0] += next(durations)

    monkeypatch.setattr(timing.time, "perf_counter", perf_counter)
    calls = {"a": call, "b": call}
    assert timing.alternate_timings(calls, repeats=3) == {"a": 2.0, "b": 1.0}  # median
    durations = iter([9, 1, 3, 1, 1, 1, 2, 1])
    assert timing.alternate_timings(calls, repeats=3, statistic=np.min) == {"a": 1.0, "b": 1.0}


def test_expected_speedup_divides_by_the_verify_cost():
    """alpha 0.8, gamma 4, c 0.05, verify 1.5: 3.3616 / (0.2 + 1.5)."""
    assert expected_speedup(0.8, 4, 0.05, 1.5) == pytest.approx(3.3616 / 1.7, rel=1e-12)
    with pytest.raises(ValueError, match="verify_cost must be > 0"):
        expected_speedup(0.8, 4, 0.05, 0.0)


def test_costly_verification_moves_the_best_gamma_down():
    """α 0.8, c 0.05, by hand. A one-step check: γ = 8 gives (1 − 0.8⁹)/0.2 = 4.32891136 tokens
    for 1.4 steps, just ahead of γ = 7 (4.1611392 / 1.35). A check that costs 1 + 0.4γ steps:
    γ = 2 gives 2.44 / 1.9, ahead of γ = 1 (1.8 / 1.45) and γ = 3 (2.952 / 2.35)."""
    assert best_gamma(0.8, 0.05) == (8, pytest.approx(4.32891136 / 1.4, rel=1e-9))
    costly = best_gamma(0.8, 0.05, {g: 1.0 + 0.4 * g for g in range(1, 9)})
    assert costly == (2, pytest.approx(2.44 / 1.9, rel=1e-9))


def test_costs_are_timed_after_a_text_long_enough_for_them():
    """A prompt the target ends at once (a question, say) gives a text of a few tokens: the
    costs are then timed after the first text that has COST_CONTEXT tokens, else the longest,
    and a set of texts too short for the largest γ is refused in words, not by verify_cost."""
    short, long, longer = list(range(4)), list(range(100)), list(range(200))
    assert cost_context([(short, 2), (long, 5), (longer, 5)]) == long[:COST_CONTEXT]
    assert cost_context([(short, 2), (long[:20], 5), (long[:30], 5)]) == long[:30]
    with pytest.raises(ValueError, match="every text is under 10 tokens"):
        cost_context([(short, 2), (short[:3], 1)])
