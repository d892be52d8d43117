"""A perfect drafter for tests: the target drafting for itself."""
from __future__ import annotations


class TargetAsDrafter:
    """A perfect drafter: the target itself, with its own cache. At temperature 0 every draft
    is kept, so every round ends with a bonus token; it exercises the all-accepted path that
    the poor early-exit drafter rarely reaches."""

    def __init__(self, pair):
        self._pair = pair

    def logits(self, input_ids, cache, keep=0):
        return self._pair.target_logits(input_ids, cache, keep)
