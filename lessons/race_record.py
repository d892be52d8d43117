"""A finished race: each side's text, passes and clock, and the settings it ran with; one line
of the table of a session's races."""
from __future__ import annotations

from dataclasses import dataclass

from .style import marked_unseen


@dataclass(frozen=True)
class Finished:
    """A lane at the end of its race: what stays on screen until the next race."""

    name: str
    pieces: tuple[str, ...]
    origins: tuple[str, ...]
    ids: tuple[int, ...]
    passes: int
    drafted: int  # tokens the draft proposed, over all rounds
    seconds: float  # the lane's own clock: the compute time it has used

    @property
    def rate(self) -> float:
        """Tokens per second on the lane's own clock."""
        return len(self.ids) / self.seconds if self.seconds else 0.0

    @property
    def per_pass(self) -> float:
        """Tokens per pass of Nimbus-large."""
        return len(self.ids) / self.passes

    @property
    def drafts_per_round(self) -> float:
        """Tokens the draft proposed per round (one round per target pass)."""
        return self.drafted / self.passes


@dataclass(frozen=True)
class Race:
    """A finished race and the settings it ran with."""

    settings: str
    drafter: str
    gamma: int
    stop: float
    tokens: int
    base: Finished
    spec: Finished
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int = 0
    # passes of Nimbus-large that other sessions made on the server during the race
    others_passes: int = 0
    prompt: str = ""

    @property
    def speedup(self) -> float | None:
        return self.spec.rate / self.base.rate if self.base.rate else None

    @property
    def shared(self) -> bool:
        """Other sessions made enough passes of Nimbus-large during the race to slow its clocks
        visibly: a tenth as many as the race's own, or more (one walkthrough round elsewhere
        during a long race is not worth a remark)."""
        return self.others_passes >= SHARED_SHARE * (self.base.passes + self.spec.passes)


# the races a session keeps to compare, newest last
KEPT_RACES = 8
# other sessions' passes during a race, as a share of its own, from which the race says so
SHARED_SHARE = 0.1


def race_row(number: int, race: Race) -> dict:
    """One race's line in the table of this session's races: numbers as numbers, so that a
    column sorts by value."""
    spec = race.spec
    # the results first, where a phone's width still shows them beside the race's number, and
    # beside the speed-up whether other sessions' work slowed the race's clocks
    return {"race": number, "speed-up": race.speedup, "machine": "shared" if race.shared else "alone",
            "tokens / pass": spec.per_pass, "drafter": race.drafter, "γ": race.gamma,
            "early stop": f"{race.stop:g}" if race.stop else "off",
            "temperature": race.temperature, "top-p": race.top_p,
            "tokens": len(spec.ids), "asked": race.tokens, "seed": race.seed,
            "prompt": short_prompt(race.prompt),
            "same text": "yes" if spec.ids == race.base.ids else "no"}


def short_prompt(prompt: str, most: int = 40) -> str:
    """A prompt on one line, every character in it that prints nothing written as its code
    point (a direction character, U+202E, would otherwise turn the table cell it stands in, and
    the settings line, to read backwards), cut to `most` characters with "…", never inside a
    code point's mark."""
    line = marked_unseen(" ".join(prompt.split()))
    if len(line) <= most:
        return line
    cut = line[:most - 1]
    if cut.rfind("⟨") > cut.rfind("⟩"):  # a mark cut through: left out whole
        cut = cut[:cut.rfind("⟨")]
    return cut + "…"
