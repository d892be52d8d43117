"""Turning logits into the distributions the rule compares.

The same warping (temperature, top-k, top-p) is applied to the target's and the draft's
logits. Exactness needs only that p is the warped target and q is what the draft really sampled
from; warping q alike keeps it close to p, so drafts are kept often. Temperature 0 means greedy:
the distribution becomes one-hot at the argmax, and the accept-or-correct rule then keeps a
draft exactly when it equals the target's argmax.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from .checks import check_sampling, is_whole


@dataclass(frozen=True)
class Sampling:
    """Decoding settings shared by the target and the draft."""

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    # tokens neither model may write: the benchmarks ban end-of-text so that every run writes
    # the same number of tokens, as transformers' min_new_tokens does
    banned: tuple[int, ...] = ()

    def __post_init__(self):
        t, k, p = self.temperature, self.top_k, self.top_p
        check_sampling(t, k, p)
        if not isinstance(self.banned, tuple) or not all(
                is_whole(tok) and tok >= 0 for tok in self.banned):
            raise ValueError(f"banned must be a tuple of token ids; got {self.banned!r}")
        # numpy's numbers (a float32 from an array, say) kept as Python's, which the warpers take
        object.__setattr__(self, "temperature", float(t))
        object.__setattr__(self, "top_k", int(k))
        object.__setattr__(self, "top_p", float(p))

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def warpers(self) -> LogitsProcessorList:
        steps = LogitsProcessorList()
        if not self.greedy and self.temperature != 1.0:
            steps.append(TemperatureLogitsWarper(float(self.temperature)))
        if self.top_k > 0:
            steps.append(TopKLogitsWarper(int(self.top_k)))
        if self.top_p < 1.0:
            steps.append(TopPLogitsWarper(float(self.top_p)))
        return steps


def probabilities(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis as float64 rows that sum to 1: PyTorch's float32 softmax over
    49,152 tokens can miss a sum of 1 by 3e-5, enough to score a drafter identical to the target
    above α = 1. Renormalising the float32 rows in float64 adds about half of the softmax's
    cost, where a softmax in float64 would double it, on every step of the decoding loop."""
    p = torch.softmax(logits.float(), -1).double()
    return p / p.sum(-1, keepdim=True)


def allowed(logits: torch.Tensor, sampling: Sampling) -> torch.Tensor:
    """The logits in float32, with -inf for the tokens `sampling` bans (a copy where any are)."""
    logits = logits.float()
    if sampling.banned:
        logits = logits.clone()
        logits[..., list(sampling.banned)] = float("-inf")
    return logits


def to_distributions(logits: torch.Tensor, sampling: Sampling) -> np.ndarray:
    """(T, V) logits -> (T, V) float64 probabilities after warping."""
    logits = allowed(logits, sampling)  # (T, V)
    if sampling.greedy:
        probs = torch.zeros_like(logits)
        probs[torch.arange(len(logits)), logits.argmax(-1)] = 1.0
        return probs.cpu().double().numpy()
    warped = sampling.warpers()(None, logits)
    return probabilities(warped).cpu().numpy()
