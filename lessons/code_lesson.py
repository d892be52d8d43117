"""The project's own round function, read from its running source, with the values of the
round on screen written beside the lines that produced them."""
from __future__ import annotations

import inspect
from typing import Callable

from specdec_core import engine, sampling

from .scenario import Scenario
from .wording import draw_text, significant

SHOWN = (sampling.speculative_round, sampling.check_draft, sampling.acceptance_probability,
         sampling.residual_distribution, sampling.sample)
# the loop around it: drafting, the one target pass, and rolling the caches back to what stands
AROUND = (engine.iter_speculative, engine.run_round, engine.propose, engine.verify, engine.crop)


def _apart(a: float, b: float) -> tuple[str, str]:
    """Two values in three significant digits, or more where three would make them look equal."""
    for digits in (3, 5, 8):
        shown = significant(a, digits), significant(b, digits)
        if shown[0] != shown[1] or a == b:
            break
    return shown


def _checks(sc: Scenario) -> list[str]:
    """One note per coin flip: on one line they would wrap past the code's indentation."""
    # significant digits: a drafted token's p or q can be far below 0.01, and the ratio only
    # makes sense when both are shown as they are (in decimals, as the walkthrough writes them)
    notes = []
    for c in sc.record.checks:
        line, u = _apart(c.accept_prob, c.u)
        u = u if float(u) < 1 else draw_text(c.u, 3)  # 0.99999 to three figures reads as 1.00
        notes.append(f"#{c.position + 1} “{sc.label(c.token)}”: min(1, {significant(c.p, 3)}/"
                     f"{significant(c.q, 3)}) = {line}, "
                     f"u = {u} → {'keep' if c.accepted else 'reject'}")
    return notes


def _residual(sc: Scenario) -> str:
    rec = sc.record
    return "not reached: every draft was kept" if rec.bonus else f"Z = {significant(rec.residual_mass, 3)}"


def _correction(sc: Scenario) -> str:
    rec = sc.record
    return "not reached" if rec.bonus else f"→ “{sc.label(rec.last_token)}”, round ends"


def _bonus(sc: Scenario) -> str:
    rec = sc.record
    return f"→ bonus “{sc.label(rec.last_token)}”" if rec.bonus else "not reached: a draft was rejected"


# a line of the source (found by its text) -> what this round did there: one note, or several
ANCHORS: dict[str, Callable[[Scenario], str | list[str]]] = {
    "for i, x in enumerate(tokens_in):": lambda sc: "drafts: " + " ".join(
        f"“{sc.label(t)}”" for t in sc.draft_tokens),
    "check = check_draft(i, x, p[i], q[i], rng.random())": _checks,
    "emitted.append(x)": lambda sc: f"kept {sc.record.n_accepted} of {sc.gamma}",
    "residual, z = residual_distribution(p[i], q[i])": _residual,
    "emitted.append(sample(residual, rng))": _correction,
    "emitted.append(sample(p[gamma], rng))": _bonus,
}


def round_source() -> str:
    return inspect.getsource(sampling.speculative_round)


def helper_sources() -> list[str]:
    """The source of each helper the round function calls, in the order it calls them."""
    return [inspect.getsource(fn) for fn in SHOWN[1:]]


def loop_sources() -> list[str]:
    """The source of the decoding loop that calls the round function, from the outside in."""
    return [inspect.getsource(fn) for fn in AROUND]


def annotate(source: str, sc: Scenario) -> list[tuple[str, list[str]]]:
    """(line, notes) for every line of `source`; notes is empty where nothing happened."""
    rows = []
    for line in source.splitlines():
        note = next((fn(sc) for anchor, fn in ANCHORS.items() if line.strip().startswith(anchor)), [])
        rows.append((line, [note] if isinstance(note, str) else note))
    return rows


# the widest line with a note beside it: the code page shows that layout only in a column that
# holds this many (ui/style.py, round_code)
BESIDE_COLUMNS = 90


def annotated_source(sc: Scenario, apart: bool = False) -> str:
    """The source with this round's values as comments: one note trails its line, where the two
    fit in BESIDE_COLUMNS; others follow it, one comment line each, at the indentation of the
    code that follows (a line that opens a block, such as a `for`, is followed by its body).
    `apart`: every note on a line of its own (a projector's large type would wrap a trailing
    note back to the margin)."""
    out = []
    for line, notes in annotate(round_source(), sc):
        beside = f"{line}    # ◀ {notes[0]}" if len(notes) == 1 else ""
        if beside and len(beside) <= BESIDE_COLUMNS and not apart:
            out.append(beside)
            continue
        out.append(line)
        indent = line[: len(line) - len(line.lstrip())] + ("    " if line.rstrip().endswith(":") else "")
        out += [f"{indent}# ◀ {note}" for note in notes]
    return "\n".join(out)


def missing_anchors(source: str | None = None) -> list[str]:
    """Anchors no longer found in the source: the lesson would silently lose a note."""
    text = source if source is not None else round_source()
    stripped = [line.strip() for line in text.splitlines()]
    return [a for a in ANCHORS if not any(s.startswith(a) for s in stripped)]
