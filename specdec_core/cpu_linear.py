"""Faster matrix products for decoding on a CPU.

Every decoding pass multiplies each weight matrix W (out, in) by a handful of rows x: one row
for a target step or a draft step, gamma + 1 rows for a verification, the prompt's length for
a prefill. nn.Linear computes x @ W^T through PyTorch's CPU BLAS, which for so few rows takes
slow paths: a single-threaded matrix-vector product for one row, a packing path that re-reads
the weights for a few. Decoding only reads weights, so its speed is the speed at which the
weights stream from memory. Two products do that better, and CPULinear picks one per call:

- one or two rows: W @ x^T, the same product written the other way round, which streams the
  weights through the matrix-matrix kernel;
- three rows or more, when no gradient is wanted: oneDNN's matrix product over a copy of W
  packed once into its blocked layout (torch.ops.mkldnn, the kernels PyTorch's own compiler
  uses on CPUs). A whole pass over 9 rows costs only about a fifth more than over 3.

With gradients, on GPUs, or where oneDNN is missing, the library's product runs unchanged.
Measured on a 2-core CPU (benchmarks/cpu_linear.py), a whole Nimbus-large pass that checks 4
drafted tokens (5 positions) went from 86 ms with nn.Linear to 40 ms, a pass over one token
from 54 ms to 31 ms, and a 30-token prompt from 144 ms to 80 ms. The arithmetic is the same
product; only the summation order inside the kernels differs.
"""
from __future__ import annotations

import threading

import torch
from torch import nn

STREAM_ROWS = 2  # up to this many rows: W @ x^T; above: the packed oneDNN product
_PACKING = threading.Lock()  # sessions of one app share the models: pack each weight once


def _onednn_available() -> bool:
    try:
        return torch.backends.mkldnn.is_available() and callable(torch.ops.mkldnn._linear_pointwise)
    except (AttributeError, RuntimeError):
        return False


ONEDNN = _onednn_available()


class CPULinear(nn.Linear):
    """nn.Linear with the weight-streaming products above on a CPU."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu":
            return super().forward(x)
        n = x.numel() // x.shape[-1]
        if n <= STREAM_ROWS:
            out = self._streamed(x.reshape(n, x.shape[-1]))
        elif self._packable(x):
            out = torch.ops.mkldnn._linear_pointwise(
                x.reshape(n, x.shape[-1]).contiguous(), self._packed(), self.bias, "none", [], "")
        else:
            return super().forward(x)
        return out.reshape(*x.shape[:-1], self.out_features)

    def _streamed(self, rows: torch.Tensor) -> torch.Tensor:
        """W @ rows^T for at most STREAM_ROWS rows, as (n, out)."""
        n = rows.shape[0]
        rows = rows.contiguous()  # row-major: the kernel needs it
        if n == 1:  # one column would fall back to the slow matrix-vector kernel
            rows = torch.cat([rows, rows])
        out = torch.mm(self.weight, rows.t()).t()[:n].contiguous()  # contiguous: or the next
        return out if self.bias is None else out + self.bias        # layer gets column-major

    def _packable(self, x: torch.Tensor) -> bool:
        wants_grad = torch.is_grad_enabled() and (self.weight.requires_grad or x.requires_grad)
        return ONEDNN and not wants_grad and x.dtype == self.weight.dtype == torch.float32

    def _packed(self) -> torch.Tensor:
        """The weight in oneDNN's blocked layout, packed again whenever the weight changes."""
        weight = self.weight
        try:
            key = (weight.data_ptr(), weight._version)
        except RuntimeError:  # an inference tensor has no version counter
            key = (weight.data_ptr(), None)
        cached = self.__dict__.get("_packed_weight")
        if cached is None or cached[0] != key:
            with _PACKING:
                cached = self.__dict__.get("_packed_weight")
                if cached is None or cached[0] != key:
                    packed = torch.ops.mkldnn._reorder_linear_weight(weight.detach(), 8)
                    self.__dict__["_packed_weight"] = cached = (key, packed)
        return cached[1]

    def __getstate__(self):  # a copy packs its own weight when it first needs it
        return {k: v for k, v in super().__getstate__().items() if k != "_packed_weight"}


def pack_weights(model: nn.Module) -> nn.Module:
    """Pack every CPU float32 weight of `model` for the oneDNN product now, at load time: left
    to the first pass over several positions, the packing (about 0.4 s for the whole pair)
    would land inside whichever generation came first and make it look slow."""
    for module in model.modules():
        if ONEDNN and isinstance(module, CPULinear) and module.weight.device.type == "cpu" and \
                module.weight.dtype == torch.float32:
            module._packed()
    return model


def use_cpu_kernels(model: nn.Module, enabled: bool = True) -> nn.Module:
    """Switch every plain nn.Linear inside `model` to CPULinear, in place (or back to nn.Linear
    with enabled=False)."""
    before, after = (nn.Linear, CPULinear) if enabled else (CPULinear, nn.Linear)
    for module in model.modules():
        if type(module) is before:
            module.__class__ = after
    return model
