"""What a race means, in words: which γ to race at, why the pair lost, why a short race decides
little, which side ended its text early, and when timing noise beat the cost model. Pure text
from figures, so it is tested without Streamlit."""
from __future__ import annotations

from typing import Sequence

from .speed_story import SWEPT, TABLE_SAMPLING
from .race_record import Race
from .wording import counted, seconds_text


def slower_note(per_pass: float, drafts: float, gamma: int, cost: float | None,
                verify: float | None, raced: float | None = None, stopped: bool = False,
                uneven: bool = False) -> str:
    """Why the pair lost a race, worked out from the costs on the So what page (`cost`: a draft
    step in target steps; `verify`: the pass that checks `gamma` drafts, or with the early stop
    (`stopped`) the drafts a round averaged), with the figures as shown; "" where either was not
    measured. `raced`: the race's own speed-up, which the note names where the count misses it
    by more than a race's scatter. Where the count says the pair should not have lost, the loss
    is the clocks', not the drafts'. `uneven`: the two sides' texts ended at different lengths,
    which the clocks' figure then also reflects."""
    if cost is None or verify is None:
        return ""
    worked, by_count = _priced(per_pass, drafts, gamma, cost, verify, stopped)
    if round(by_count, 2) >= 1:
        clocks = "" if raced is None else f" ({raced:.2f}x)"
        return (f"By the costs on the So what page the pair should not have lost: {worked} It lost on this "
                f"race's own clocks{clocks}: {_clocks(uneven)} Run it again to see how far a race moves.")
    return (f"Why the pair lost, by the costs on the So what page: {worked}{_apart(raced, by_count, uneven)} "
            f"{_how_to_win(drafts, stopped)}")


# drafts a round below which fewer would save little: a round drafts at least one
FEW_DRAFTS = 1.25


def _how_to_win(drafts: float, stopped: bool) -> str:
    """What would make the pair win: fewer drafts a round, or, where its rounds already draft
    little more than one token each, a better drafter."""
    if round(drafts, 1) < FEW_DRAFTS:
        return (f"Its rounds already drafted {drafts:.1f} tokens on average, close to the one a round "
                "must draft, so fewer would save little: this drafter is too weak here to pay for its "
                "steps, and a better one (Draft model, in the sidebar) is the way to a win.")
    fewer = "a smaller γ or a higher early stop" if stopped else "a smaller γ or the early stop"
    return f"Fewer drafts a round, with {fewer}, waste less on guesses the target rejects."


def gain_note(per_pass: float, drafts: float, gamma: int, cost: float | None,
              verify: float | None, raced: float, stopped: bool = False, uneven: bool = False) -> str:
    """Why a race the pair won (`raced`, its speed-up) gained less than its tokens per pass: each
    round also paid for its drafts and for a check dearer than one step, worked out as
    `slower_note` does. Where the count says the pair should have lost, the win is the clocks',
    as `slower_note` says of a loss the count does not expect. "" where a cost was not measured,
    or where the race gained its tokens per pass as shown (`overshoot_note` speaks of more)."""
    if cost is None or verify is None or round(raced, 2) >= round(per_pass, 2):
        return ""
    worked, by_count = _priced(per_pass, drafts, gamma, cost, verify, stopped)
    if round(by_count, 2) < 1:
        return (f"By the costs on the So what page the pair should have lost: {worked} It won on this "
                f"race's own clocks ({raced:.2f}x): {_clocks(uneven)} Run it again to see how far a race moves.")
    return (f"Why {per_pass:.2f} tokens per target pass made the pair only {raced:.2f}x as fast: each "
            f"round also pays for its drafts and its check. By the costs on the So what page, "
            f"{worked}{_apart(raced, by_count, uneven)}")


MEDIANS = ("So what's costs are medians of many tries that `make bench` timed, and a pass's cost "
           "on this machine moves with its load.")


def _clocks(uneven: bool) -> str:
    """Why a race's clocks can part from the count: the costs' being medians, and where the two
    texts ended at different lengths (`uneven`), that too."""
    return MEDIANS + (" Its two texts also ended at different lengths (above), and each side's speed "
                      "is over its own text." if uneven else "")


def _priced(per_pass: float, drafts: float, gamma: int, cost: float, verify: float,
            stopped: bool) -> tuple[str, float]:
    """A round's cost in Nimbus-large passes, worked out in words from the figures as shown, and
    the speed-up that count gives."""
    drafts, cost, verify, per_pass = round(drafts, 1), round(cost, 2), round(verify, 2), round(per_pass, 2)
    spent = drafts * cost + verify
    by_count = per_pass / spent
    checked = (f"{drafts:.1f} drafts (a round's average here, with the early stop)" if stopped
               else counted(gamma, "draft"))
    # without the early stop only the last rounds draft fewer than γ, as the tokens left run out
    fewer = "" if stopped or drafts >= gamma else (f" (on average: the last rounds drafted fewer than {gamma}, "
                                                   "as the tokens left ran out)")
    return (f"a draft step costs about {cost:.2f} of a Nimbus-large pass, and the pass that checks "
            f"{checked} about {verify:.2f} passes. A round of {drafts:.1f} drafts{fewer} so cost about "
            f"{drafts:.1f} × {cost:.2f} + {verify:.2f} = {spent:.2f} passes and bought {per_pass:.2f} "
            f"tokens: {by_count:.2f}x by that count."), by_count


def _apart(raced: float | None, by_count: float, uneven: bool = False) -> str:
    """The race's own speed-up where it differs from the count, as shown: within a race's
    scatter said to be that, beyond it put down to the costs' being medians."""
    if raced is None or round(raced, 2) == round(by_count, 2):
        return ""
    if abs(round(raced, 2) - round(by_count, 2)) <= RACE_SCATTER:
        return (f" This race's own clocks gave {raced:.2f}x, within the tenth or two a race moves "
                "from run to run.")
    return f" This race's own clocks gave {raced:.2f}x: {_clocks(uneven)}"


# how far one race's speed-up moves from run to run (race_note says "a tenth or two")
RACE_SCATTER = 0.15


def gamma_advice(drafter: str, gamma: int, best: int, speedup: float, here: float,
                 table_settings: bool) -> str:
    """Which γ `drafter` is expected to race best at (`best`, `speedup` times as fast as
    Nimbus-large alone), and what the γ on the slider (`gamma`) is expected to give (`here`):
    slower than Nimbus-large alone, or near enough to 1x that one race can lose.
    `table_settings`: the race samples as the drafter table was measured; if not, the best γ
    may differ."""
    expected = f"{drafter} is expected to"
    source = (f" (Priced on the So what page: the drafter table's α and draft cost, with the checking "
              f"pass at the γ sweep's measured costs, its column “{SWEPT}”. The playground prices "
              "at α on the text Nimbus-large writes from its prompt, at its own settings, so its figures differ "
              "with the prompt and the settings.)")
    if speedup >= 1:
        here = round(here, 2)  # as shown
        if here < 1:
            odds = ", slower than Nimbus-large alone"
        elif here < 1 + RACE_SCATTER:
            odds = ", close enough to 1x that one race can come out a loss"
        else:
            odds = ""
        why = ("The k-th draft of a round is kept only with chance α^k, which shrinks fast, yet "
               "each costs a full draft step. On this CPU the checking pass also costs more as γ grows."
               if gamma > best else
               f"Up to γ = {best} one more draft, a cheap step, is kept often enough to pay for itself "
               "and the longer check.")
        advice = (f"{expected} pay off most at γ = {best} ({speedup:.2f}x); at γ = {gamma}, "
                  f"{here:.2f}x{odds}. {why}" + source)
    else:
        advice = (f"{expected} be slower than Nimbus-large alone at every γ; it loses least at γ = {best} "
                  f"({speedup:.2f}x).{source}")
    if not table_settings:
        advice += (f" The table was measured at {TABLE_SAMPLING}. Here drafts are kept "
                   "more or less often, so the best γ may differ; the playground measures it at any "
                   "setting.")
    return advice


# below this many target passes one lucky or unlucky round decides the speed-up
FEW_PASSES = 8


def _another(greedy: bool) -> str:
    """What else writes another text: at temperature 0 (`greedy`) the seed changes nothing."""
    return "another prompt" if greedy else "another prompt or seed"


def race_note(passes: int, ended_early: bool = False, greedy: bool = False) -> str:
    if passes < FEW_PASSES:
        more = (f"The pair's text ended early, at an end-of-text token: {_another(greedy)} writes more."
                if ended_early else "Raise Tokens to measure it.")
        return (f"The speculative side made only {passes} target pass{'' if passes == 1 else 'es'}: "
                f"one lucky or unlucky round decides a speed-up this short. {more}")
    if greedy:
        return ("One race is one sample: run it again and the speed-up moves by a tenth or two either "
                "way, as the machine's load changes (at temperature 0 the texts stay the same).")
    return ("One race is one sample: run it again, or with another seed, and the speed-up moves by "
            "a tenth or two either way, as the machine's load and the draws change.")


def ended_note(sides: Sequence[tuple[str, int]], tokens: int, greedy: bool = False) -> str:
    """Which side, of (name, tokens written) pairs, wrote Nimbus-large's end-of-text token before
    the race's length: its bar stops short, as if it had stalled, and the speed-up then compares
    rates over two texts of different lengths. `greedy`: at temperature 0, where only another
    prompt writes another text."""
    short = [f"“{name}” ended its text after {written} of {tokens} tokens"
             for name, written in sides if written < tokens]
    if not short:
        return ""
    bars = "its bar stops" if len(short) == 1 else "their bars stop"
    return (" and ".join(short) + f", at Nimbus-large's end-of-text token, so {bars} there. The "
            f"speed-up divides the two sides' tokens per second, each over its own text; {_another(greedy)} "
            "gives both sides the whole length.")


def overshoot_note(speedup: float, per_pass: float) -> str:
    """Where timing noise beat the cost model: with these drafters a round, its drafts and its
    check, costs about one target pass or more (γc + v > 1 in every row of the drafter table),
    so the speed-up cannot well exceed the tokens each pass bought."""
    if speedup <= per_pass:
        return ""
    return (f"This speed-up came out above the tokens per target pass ({speedup:.2f}x against "
            f"{per_pass:.2f}), as if a whole round, drafts and check, had cost less than one pass of "
            "Nimbus-large alone. With this drafter a round costs about one pass or more, so that is "
            "most likely timing noise: the machine's load changed during the race (a "
            "browser on this same machine, drawing each side's tokens as they come, counts too). The "
            "speed-ups on the So what page were measured over many generations and are steadier.")


def shared_machine_note(others_passes: int) -> str:
    """Other sessions used the server during the race: both clocks count that time."""
    passes = counted(others_passes, "pass", "passes")
    return (f"While this race ran, other sessions on this server made {passes} of Nimbus-large "
            "(another race, a class in the walkthrough, the playground or the thread). Each side's "
            "clock counts the time the machine spent on them too, so these speeds, and their ratio, "
            "are not what a race with the machine to itself would show: run it again when the "
            "server is quiet.")


def race_said(race: Race) -> str:
    """A finished race in words for a screen reader: each side's tokens and clock, the pair's
    tokens per pass, and the speed-up."""
    base, spec = race.base, race.spec
    speed = "" if race.speedup is None else f" Speed-up {race.speedup:.2f}x."
    return (f"Race finished. {base.name}: {counted(len(base.ids), 'token')} in {seconds_text(base.seconds)}. "
            f"{spec.name}: {counted(len(spec.ids), 'token')} in {seconds_text(spec.seconds)}, "
            f"{spec.per_pass:.2f} tokens per pass of Nimbus-large.{speed}")
