"""The five steps of "Faster, not different": each answers one question with one main chart
and ends on a one-sentence takeaway computed from the round on screen."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from specdec_core.sampling import expected_tokens_per_round, overlap

from .scenario import Scenario
from .style import prob_text


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    question: str
    body: str  # markdown, written for this app
    takeaway: Callable[[Scenario], str]


def _q(sc: Scenario, t: int) -> str:
    return f"“{sc.label(t)}”"


def _draft_takeaway(sc: Scenario) -> str:
    words = " ".join(_q(sc, t) for t in sc.draft_tokens)
    return (f"Nimbus-mini wrote {words} in {sc.gamma} quick sequential steps. Nothing is decided "
            "yet: these are guesses, each with the probability q the draft gave it.")


def _verify_takeaway(sc: Scenario) -> str:
    four = sc.gamma * sc.single_pass_seconds
    return (f"One pass of Nimbus-large scored all {sc.gamma} guesses plus a bonus slot in "
            f"{sc.verify_seconds * 1000:.0f} ms; {sc.gamma} separate passes would take about "
            f"{four * 1000:.0f} ms. Checking in parallel is what makes the method fast.")


def _accept_takeaway(sc: Scenario) -> str:
    rec = sc.record
    if rec.bonus:
        return f"All {sc.gamma} guesses survived their coin flips, so all {sc.gamma} are locked in."
    bad = rec.checks[-1]
    kept = {0: "No guess is", 1: "1 guess is"}.get(rec.n_accepted, f"{rec.n_accepted} guesses are")
    return (f"{kept} locked in. {_q(sc, bad.token)} was rejected "
            f"(u = {prob_text(bad.u)} ≥ min(1, p/q) = {prob_text(bad.accept_prob)}), so everything "
            "after it is thrown away unseen.")


def _correct_takeaway(sc: Scenario) -> str:
    rec = sc.record
    if rec.bonus:
        return (f"Because nothing was rejected, the target's pass already held p for the next "
                f"position, and {_q(sc, rec.last_token)} came from it for free.")
    return (f"The replacement {_q(sc, rec.last_token)} came from the leftover distribution, "
            f"which only holds tokens the target wanted more than the draft offered (Z = "
            f"{rec.residual_mass:.2f}).")


def _exact_takeaway(sc: Scenario) -> str:
    n = len(sc.record.tokens)
    betas = [overlap(sc.p_dists[i], sc.q_dists[i]) for i in range(sc.gamma)]
    expected = expected_tokens_per_round(float(np.mean(betas)), sc.gamma)
    return (f"This round produced {n} token{'s' if n > 1 else ''} for one target pass (a round "
            f"with this draft averages about {expected:.1f}), and each of them is distributed "
            "exactly as if Nimbus-large had written it alone.")


STEPS = (
    Step(1, "Draft", "What does the small model guess?",
         "Nimbus-mini is cheap, so we let it run ahead. It samples a token from its own "
         "distribution **q**, feeds that token back in, samples the next one, and so on for "
         "**γ = 4** tokens. Each bar shows how much probability the draft gave a candidate; the "
         "outlined bar is the one it drew.", _draft_takeaway),
    Step(2, "Verify in one pass", "How does the big model check four guesses at once?",
         "Nimbus-large reads the prompt plus all four guesses in a **single forward pass**. Because "
         "a transformer scores every position of its input in parallel, that one pass yields the "
         "target's distribution **p** at each drafted position, and one more **p** for the slot "
         "after the last guess. Where the blue and orange bars overlap, the draft and the target "
         "agree: the green bar is **min(p, q)**, and its sum **β** is the chance a guess survives.",
         _verify_takeaway),
    Step(3, "Accept or reject", "Which guesses do we keep?",
         "Go left to right. Keep a guess x with probability **min(1, p(x)/q(x))**: draw a uniform "
         "**u** in [0, 1) and keep x when u falls below that line. If the target likes x at least "
         "as much as the draft did (**p ≥ q**), the line sits at 1 and the guess is always kept. "
         "The first rejection ends the round; later guesses were built on a token we just threw "
         "away, so they are never even looked at.", _accept_takeaway),
    Step(4, "Correct", "What replaces a rejected guess?",
         "We do not fall back to p. We draw from what is **left over** once the draft's share is "
         "removed: **max(0, p(x) − q(x))**, divided by its total **Z** so it sums to one. Those are "
         "exactly the tokens the draft under-sold. If all four guesses were kept, there is nothing "
         "to correct, and the fifth distribution from the same pass gives a **bonus** token.",
         _correct_takeaway),
    Step(5, "Why it's exact", "Is the output really the big model's?",
         "A token x can come out of a position in two ways: drafted and kept, with probability "
         "**q(x)·min(1, p(x)/q(x)) = min(p(x), q(x))**, or reached through a rejection, with "
         "probability **(1 − β)·r(x) = max(0, p(x) − q(x))**. The two add up to **p(x)** for every "
         "x. The simulation below runs thousands of rounds and compares the rule with two "
         "shortcuts that look harmless and are not.", _exact_takeaway),
)


def step(number: int) -> Step:
    if not 1 <= number <= len(STEPS):
        raise ValueError(f"step must lie in 1..{len(STEPS)}; got {number}")
    return STEPS[number - 1]
