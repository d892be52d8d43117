"""The target drafting for itself, for tests: a perfect drafter, or one that leans."""
from __future__ import annotations


class TargetAsDrafter:
    """The target itself, with its own cache. At temperature 0 every draft is kept, so every
    round ends with a bonus token; it exercises the all-accepted path that the poor early-exit
    drafter rarely reaches. `boost`: nats added to the logit of the target's own first choice at
    every position, a drafter that overrates it by the same margin on any weights (seeded random
    ones too), so that its q differs from p in a known way: most of its drafts are kept, and a
    rejected one must be corrected away from that choice."""

    def __init__(self, pair, boost: float = 0.0):
        self._pair = pair
        self._boost = boost

    def logits(self, input_ids, cache, keep=0):
        logits = self._pair.target_logits(input_ids, cache, keep)
        if not self._boost:
            return logits
        top = logits.argmax(-1, keepdim=True)
        return logits.scatter(-1, top, logits.gather(-1, top) + self._boost)
