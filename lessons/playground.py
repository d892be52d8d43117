"""Numbers the self-study playground shows, computed from a generation's round records."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specdec_core.sampling import RoundRecord, expected_tokens_per_round


@dataclass(frozen=True)
class RoundSummary:
    alpha: float  # kept / checked drafts: each check is a coin with P(keep) = beta
    by_position: tuple[float, ...]  # P(kept | checked) for draft positions 1..gamma
    checked: tuple[int, ...]  # how many times each position was checked
    tokens_per_round: float  # measured: the tokens written over the rounds that wrote them
    expected_tokens_per_round: float  # closed form at the measured alpha and each round's drafts
    rounds: int


def summarize(rounds: list[RoundRecord], gamma: int, written: int | None = None) -> RoundSummary:
    """`written`: the tokens the generation kept, when its token limit cut the last round short
    (that round's other tokens were drawn but never shown). The closed form is averaged over the
    rounds at the number each drafted: `gamma`, or fewer near the token limit or after an
    end-of-text draft, as the measured tokens per round count them."""
    if not rounds:
        raise ValueError("no rounds to summarise")
    kept = np.zeros(gamma)
    checked = np.zeros(gamma, dtype=int)
    for r in rounds:
        for c in r.checks:
            checked[c.position] += 1
            kept[c.position] += c.accepted
    alpha = float(kept.sum() / checked.sum())
    rates = tuple(float(k / n) if n else float("nan") for k, n in zip(kept, checked))
    if written is None:
        written = sum(len(r.tokens) for r in rounds)
    expected = float(np.mean([expected_tokens_per_round(alpha, r.gamma) for r in rounds]))
    return RoundSummary(alpha, rates, tuple(int(n) for n in checked), written / len(rounds),
                        expected, len(rounds))
