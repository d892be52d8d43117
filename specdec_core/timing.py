"""Wall-clock timing that also counts work still queued on a GPU.

A CUDA call returns as soon as its kernels are queued, so a clock read straight after it
measures the launch, not the work. Every timer in the project waits for the result first.
"""
from __future__ import annotations

import time

import torch


def wait_for(out):
    """Block until the GPU work that produced `out` (a tensor, or anything else) is done."""
    if isinstance(out, torch.Tensor) and out.is_cuda:
        torch.cuda.synchronize(out.device)
    return out


def timed(fn):
    """(fn(), seconds), the seconds including any GPU work fn's result waited on."""
    begin = time.perf_counter()
    out = wait_for(fn())
    return out, time.perf_counter() - begin
