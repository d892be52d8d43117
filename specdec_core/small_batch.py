"""Faster matrix products for the few rows decoding multiplies on a CPU.

Every decoding pass multiplies each weight matrix W (out, in) by a handful of rows x: one row
for a target step or a draft step, gamma + 1 rows for a verification. nn.Linear computes
x @ W^T, and for so few rows PyTorch's CPU BLAS takes slow paths (a matrix-vector product
for one row). The same product written as W @ x^T streams the weights through the
matrix-matrix kernel instead, which reads memory far faster. Measured on a 2-core CPU
(benchmarks/small_batch.py), a whole Nimbus-large pass over one new token went from 53 ms to
29 ms, over two from 85 ms to 30 ms and over five from 69 ms to 47 ms. The arithmetic is the
same product; only the summation order inside the kernel differs.

Above SMALL_ROWS rows (prompts, training batches) the library's own kernel is as fast or
faster and is used unchanged, as it is on GPUs.
"""
from __future__ import annotations

import torch
from torch import nn

SMALL_ROWS = 8


class SmallBatchLinear(nn.Linear):
    """nn.Linear with the weight-streaming product for at most SMALL_ROWS rows on a CPU."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.numel() // x.shape[-1]
        if n > SMALL_ROWS or x.device.type != "cpu":
            return super().forward(x)
        rows = x.reshape(n, x.shape[-1]).contiguous()  # (n, in), row-major: the kernel needs it
        if n == 1:  # one column would fall back to the slow matrix-vector kernel
            rows = torch.cat([rows, rows])
        out = torch.mm(self.weight, rows.t()).t()[:n].contiguous()  # (n, out)
        if self.bias is not None:
            out = out + self.bias
        return out.reshape(*x.shape[:-1], self.out_features)


def use_small_batch_kernels(model: nn.Module) -> nn.Module:
    """Switch every plain nn.Linear inside `model` to SmallBatchLinear, in place."""
    for module in model.modules():
        if type(module) is nn.Linear:
            module.__class__ = SmallBatchLinear
    return model
