"""Faster matrix products for decoding on a CPU.

Every decoding pass multiplies each weight matrix W (out, in) by a handful of rows x: one row
for a target step or a draft step, gamma + 1 rows for a verification, the prompt's length for
a prefill. Decoding only reads weights, so its speed is the speed at which the weights stream
from memory, and for so few rows the products differ a lot from one CPU to another. CPULinear
can take three:

- the library's own (nn.Linear: x @ W^T through PyTorch's CPU BLAS), which on some CPUs takes
  slow paths for so few rows: a single-threaded matrix-vector product for one row, a packing
  path that re-reads the weights for a few;
- up to two rows: W @ x^T, the same product written the other way round, which streams the
  weights through the matrix-matrix kernel;
- when no gradient is wanted: oneDNN's matrix product over a copy of W packed once into its
  blocked layout (torch.ops.mkldnn, the kernels PyTorch's own compiler uses on CPUs). A whole
  pass over 9 rows costs only about a fifth more than over 3.

`choose_row_products` times whole passes of a loaded model with each and keeps the fastest
per row count. On an AMD EPYC the streamed product won for one and two rows and the packed
one above: a Nimbus-large pass that checks 4 drafted tokens (5 positions) went from 86 ms with
nn.Linear to 40 ms, a pass over one token from 54 ms to 31 ms, and a 30-token prompt from 144
ms to 80 ms (benchmarks/cpu_linear.py). On an Intel Xeon (Sapphire Rapids) the library's
product won for one to three rows (a one-row pass in 31 ms, against 40 packed and 69
streamed) and the packed one from four or five. On GPUs the library's product runs unchanged.
The arithmetic is the same product; only the summation order inside the kernels differs.

A model whose weights are float16 values (Nimbus-mini is stored in float16, and Nimbus-large is
rounded to float16 values when it loads) can take a fourth product: fbgemm's float16 matrix
product (torch.ops.quantized), which reads a float16 copy of the weights and sums in float32.
The weights are the same numbers, and they take half the bytes. Nimbus-mini takes it for every
row count (`use_half_weights`): the whole drafter (23 MB) then stayed in the AMD EPYC's 32 MB
L3 cache from one draft step to the next, and a draft step cost about a fifth less. For
Nimbus-large it is one more candidate of `choose_row_products`; on the Intel Xeon most loads
chose it for every row count (others kept PyTorch's product for one or two rows), and the pass
that checks 4 drafts cost about 1.2 one-token passes instead of 1.55.
"""
from __future__ import annotations

import threading
import time

import torch
from torch import nn

STREAM_ROWS = 2  # up to this many rows W @ x^T may serve
# the row counts whose passes `choose_row_products` times; a count in between takes the product
# of the largest one below it
CALIBRATED_ROWS = (1, 2, 3, 4, 5, 9)
_PACKING = threading.Lock()  # sessions of one app share the models: pack each weight once


def _onednn_available() -> bool:
    try:
        return torch.backends.mkldnn.is_available() and callable(torch.ops.mkldnn._linear_pointwise)
    except (AttributeError, RuntimeError):
        return False


def _half_products_available() -> bool:
    try:
        packed = torch.ops.quantized.linear_prepack_fp16(torch.zeros(2, 2), None)
        torch.ops.quantized.linear_dynamic_fp16(torch.zeros(1, 2), packed)
        return True
    except (AttributeError, RuntimeError):  # a build without fbgemm (an ARM CPU, say)
        return False


ONEDNN = _onednn_available()
HALF_PRODUCTS = _half_products_available()
_PACKS = ("_packed_weight", "_half_weight")  # per-module caches of re-laid-out weights


class CPULinear(nn.Linear):
    """nn.Linear with the weight-streaming products above on a CPU."""

    half = False  # True: every product without gradients reads the float16 copy
    # (from this many rows on, this product): "streamed", "packed", "half" (the float16 product,
    # for a weight of float16 values) or "library"; `choose_row_products` sets it per model, by
    # timing them on this machine
    row_products = ((1, "streamed"), (STREAM_ROWS + 1, "packed"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu":
            return super().forward(x)
        n = x.numel() // x.shape[-1]
        way = "half" if self.half else self.product_for(n)
        if way == "half" and not (HALF_PRODUCTS and self._inference(x)):  # gradients wanted
            way = "library"
        if way == "packed" and not self._packable(x):  # gradients wanted, or no oneDNN
            way = "streamed" if n <= STREAM_ROWS else "library"
        if way == "library":
            return super().forward(x)
        rows = x.reshape(n, x.shape[-1])
        if way == "streamed":
            out = self._streamed(rows)
        elif way == "half":
            out = torch.ops.quantized.linear_dynamic_fp16(rows.contiguous(), self._half_packed())
            out = out if self.bias is None else out + self.bias
        else:
            out = torch.ops.mkldnn._linear_pointwise(rows.contiguous(), self._packed(), self.bias,
                                                     "none", [], "")
        return out.reshape(*x.shape[:-1], self.out_features)

    def product_for(self, n: int) -> str:
        """The product this layer takes for n rows."""
        return [way for rows, way in self.row_products if rows <= n][-1]

    def _streamed(self, rows: torch.Tensor) -> torch.Tensor:
        """W @ rows^T for at most STREAM_ROWS rows, as (n, out)."""
        n = rows.shape[0]
        rows = rows.contiguous()  # row-major: the kernel needs it
        if n == 1:  # one column would fall back to the slow matrix-vector kernel
            rows = torch.cat([rows, rows])
        out = torch.mm(self.weight, rows.t()).t()[:n].contiguous()  # contiguous: or the next
        return out if self.bias is None else out + self.bias        # layer gets column-major

    def _inference(self, x: torch.Tensor) -> bool:
        """No gradient wanted and float32 throughout: the re-laid-out weights may serve."""
        wants_grad = torch.is_grad_enabled() and (self.weight.requires_grad or x.requires_grad)
        return not wants_grad and x.dtype == self.weight.dtype == torch.float32

    def _packable(self, x: torch.Tensor) -> bool:
        return ONEDNN and self._inference(x)

    def _packed(self) -> torch.Tensor:
        """The weight in oneDNN's blocked layout."""
        return self._pack("_packed_weight", lambda w: torch.ops.mkldnn._reorder_linear_weight(w, 8))

    def _half_packed(self):
        """The weight as float16, in fbgemm's layout for its float16 product."""
        return self._pack("_half_weight", lambda w: torch.ops.quantized.linear_prepack_fp16(w, None))

    def _pack(self, slot: str, make):
        """make(weight), kept in `slot` and made again whenever the weight changes."""
        weight = self.weight
        try:
            key = (weight.data_ptr(), weight._version)
        except RuntimeError:  # an inference tensor has no version counter
            key = (weight.data_ptr(), None)
        cached = self.__dict__.get(slot)
        if cached is None or cached[0] != key:
            with _PACKING:
                cached = self.__dict__.get(slot)
                if cached is None or cached[0] != key:
                    self.__dict__[slot] = cached = (key, make(weight.detach()))
        return cached[1]

    def __getstate__(self):  # a copy packs its own weight when it first needs it
        return {k: v for k, v in super().__getstate__().items() if k not in _PACKS}


def pack_weights(model: nn.Module) -> nn.Module:
    """Make now, at load time, the copies of every CPU float32 weight of `model` that its
    products read (oneDNN's packed layout, fbgemm's float16 one): left to the first pass over
    several positions, the packing (about 0.4 s for the whole pair) would land inside whichever
    generation came first and make it look slow."""
    for module in model.modules():
        if isinstance(module, CPULinear) and module.weight.device.type == "cpu" and \
                module.weight.dtype == torch.float32:
            ways = {"half"} if module.half else {way for _, way in module.row_products}
            if "half" in ways and HALF_PRODUCTS:
                module._half_packed()
            if "packed" in ways and ONEDNN:
                module._packed()
    return model


# another product must beat the library's by this share to be chosen: timings of a few tens of
# milliseconds scatter, and the library's product is the one nobody can call slow by fiat
MARGIN = 0.05


def choose_row_products(model: nn.Module, run_pass, turns: int = 1, rounds: int = 2) -> dict[int, str]:
    """Time whole passes of `model` over each of CALIBRATED_ROWS new rows (`run_pass(n)` runs
    one) with every product that can serve them (the library's, the packed one, the float16
    one where every weight is made of float16 values, and the streamed one up to STREAM_ROWS
    rows); then let every float32 CPULinear of the model take, for each row count, the product
    that was fastest, or the library's where no other beat it by MARGIN, and drop the copies of
    the weights that no row count reads. A product's turn is `turns` timed passes in a row after
    an untimed one, as decoding repeats one product pass after pass (the weights it reads stay
    warm; passes alternating between two copies of the weights would time something decoding
    never does). Every product takes one turn for every row count in each of `rounds` rounds,
    a round starting its list of products further along, and a product's fastest pass counts:
    a spell of load on a shared machine then cannot sink every timing of one product, as it
    could when each was timed in one turn (one load on a 2-core AMD EPYC took oneDNN's packed
    product for one-position passes, which then took longer than the float16 product's passes
    over two positions). Returns {rows: product}. In a model with no such layer nothing is
    timed and the default stays."""
    layers = _float32_cpu_layers(model)
    if not layers:
        return dict(CPULinear.row_products)
    half = HALF_PRODUCTS and all(is_half_exact(layer.weight) for layer in layers)
    fastest = {n: dict.fromkeys(["library", *(["packed"] if ONEDNN else []), *(["half"] if half else []),
                                 *(["streamed"] if n <= STREAM_ROWS else [])], float("inf"))
               for n in CALIBRATED_ROWS}
    for r in range(rounds):
        for n, times in fastest.items():
            ways = list(times)
            start = r * len(ways) // rounds
            for way in ways[start:] + ways[:start]:
                for layer in layers:
                    layer.row_products = ((1, way),)
                for turn in range(turns + 1):
                    begin = time.perf_counter()
                    run_pass(n)
                    if turn:  # the first pass of a turn is untimed
                        times[way] = min(times[way], time.perf_counter() - begin)
    chosen = {}
    for n, times in fastest.items():
        best = min(times, key=times.get)
        chosen[n] = best if times[best] * (1 + MARGIN) < times["library"] else "library"
    unread = [slot for slot, way in (("_packed_weight", "packed"), ("_half_weight", "half"))
              if way not in chosen.values()]
    for layer in layers:
        layer.row_products = tuple(chosen.items())
        for slot in unread:
            layer.__dict__.pop(slot, None)
    return chosen


def _float32_cpu_layers(model: nn.Module) -> list[CPULinear]:
    """The CPULinear layers of `model` whose products `choose_row_products` chooses."""
    return [m for m in model.modules() if isinstance(m, CPULinear) and not m.half
            and m.weight.device.type == "cpu" and m.weight.dtype == torch.float32]


def row_products_of(model: nn.Module) -> dict[int, str] | None:
    """{from this many rows: product} that `model`'s float32 CPU layers take, as a benchmark
    records it beside its figures (the choice depends on the machine's speed at load time);
    None for a model with no such layer (on a GPU, say)."""
    layers = _float32_cpu_layers(model)
    return dict(layers[0].row_products) if layers else None


def is_half_exact(weight: torch.Tensor) -> bool:
    """Whether every entry of a float32 weight is a float16 value, so that a float16 copy is
    the same weight."""
    return bool(torch.equal(weight.detach().half().float(), weight.detach()))


def use_half_weights(model: nn.Module) -> int:
    """Give every CPULinear of `model` on a CPU whose weight is exactly float16 (`is_half_exact`)
    the float16 product; returns how many took it. A weight with any other value keeps its
    float32 products, so this never changes a model's numbers beyond summation order."""
    switched = 0
    for module in model.modules():
        if HALF_PRODUCTS and isinstance(module, CPULinear) and module.weight.device.type == "cpu" \
                and module.weight.dtype == torch.float32 and is_half_exact(module.weight):
            module.half = True
            module.__dict__.pop("_packed_weight", None)
            switched += 1
    return switched


def use_cpu_kernels(model: nn.Module, enabled: bool = True, drop_copies: bool = True) -> nn.Module:
    """Switch every plain nn.Linear inside `model` to CPULinear, in place (or back to nn.Linear
    with enabled=False, dropping the re-laid-out copies of its weights unless `drop_copies` is
    False: a benchmark that switches back and forth must not time the packing again)."""
    before, after = (nn.Linear, CPULinear) if enabled else (CPULinear, nn.Linear)
    for module in model.modules():
        if type(module) is before:
            module.__class__ = after
            if not enabled and drop_copies:
                for cache in _PACKS:
                    module.__dict__.pop(cache, None)
    return model
