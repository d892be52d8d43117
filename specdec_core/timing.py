"""Wall-clock timing that also counts work still queued on a GPU, and timing in turns.

A CUDA call returns as soon as its kernels are queued, so a clock read straight after it
measures the launch, not the work. Every timer in the project waits for the result first.
"""
from __future__ import annotations

import time

import numpy as np
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


def alternate_timings(calls: dict, repeats: int, statistic=np.median) -> dict:
    """Seconds of each call, summed up by `statistic` (the median, or np.min for the fastest
    turn), the calls run in turn `repeats` times so that machine noise hits all of them alike,
    after one untimed turn (a first call's setup counts for none of them)."""
    times = {key: [] for key in calls}
    for turn in range(repeats + 1):
        for key, call in calls.items():
            begin = time.perf_counter()
            call()
            if turn:
                times[key].append(time.perf_counter() - begin)
    return {key: float(statistic(t)) for key, t in times.items()}
