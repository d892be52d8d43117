"""The walkthrough's line of text over each step: the prompt and the round's guesses, each shown
as what is known of it at that step (drafted, kept, rejected, never checked), then the
correction or the bonus; and the key to those looks."""
from __future__ import annotations

from lessons.scenario import Scenario, token_name
from lessons.style import (HATCHED, ORIGIN_LINES, OVERLAP_COLOR, P_COLOR, Q_COLOR, REJECT_COLOR, RESIDUAL_COLOR,
                           UNCHECKED_FILL, UNCHECKED_LINE, line_color)

from .display import chip


def verdicts(sc: Scenario, at_step: int, revealed: int | None = None) -> list[str]:
    """What is known of each guess at this step: drafted, kept, rejected or never checked. In
    predict-first mode (`revealed` coins shown at step 3) a guess stays a bare draft until its
    coin is revealed, and those after a rejection until the rejection is."""
    checks = sc.record.checks
    unrevealed = at_step == 3 and revealed is not None and revealed < len(checks)
    return ["drafted" if at_step < 3 or (unrevealed and i >= revealed)
            else ("kept" if checks[i].accepted else "rejected") if i < len(checks)
            else "never checked" for i in range(sc.gamma)]


# how the line over step 3 shows each verdict, in words
# (an underline: the token is part of the text, its line the same as on the other pages; a box: a
# guess with no verdict)
VERDICT_KEY = {"drafted": "boxed in orange, not checked yet", "kept": "underlined in green, kept",
               "rejected": "struck through, rejected", "never checked": "in a grey dashed box, never checked"}


def verdict_key(sc: Scenario, revealed: int | None = None) -> str:
    """The key to the guesses' looks in step 3's line, naming only the looks it shows."""
    looks = verdicts(sc, 3, revealed)
    keys = [VERDICT_KEY[v] for v in dict.fromkeys(looks)]  # each look once, in the line's order
    if "never checked" in looks:
        keys[-1] += f" ({'it' if looks.count('never checked') == 1 else 'they'} came after the rejection)"
    return "The guesses above: " + "; ".join(keys) + "."


def sentence(sc: Scenario, at_step: int, revealed: int | None = None) -> str:
    """The prompt and the round's tokens, coloured by what is known at this step
    (`revealed` limits the verdicts shown at step 3, for predict-first mode). From step 4 the
    guesses never checked are left out: step 3 showed them, and the line then reads on from the
    rejected guess to its correction, as the text does."""
    pieces = [chip(sc.prompt, visible_space=False)]
    for t, verdict in zip(sc.draft_tokens, verdicts(sc, at_step, revealed)):
        if verdict == "drafted":  # boxed: a guess, not yet part of the text
            boxed = f"border-bottom:none;outline:2px solid {line_color(Q_COLOR)};outline-offset:-1px;"
            pieces.append(chip(sc.label(t), Q_COLOR, style=boxed, title="drafted", spoken="drafted"))
        elif verdict == "kept":
            pieces.append(chip(sc.label(t), OVERLAP_COLOR, line=ORIGIN_LINES["accepted"], title="kept",
                               spoken="kept"))
        elif verdict == "rejected":
            # grey, yet 5.7:1 on its chip; no underline: it is not part of the text
            strike = "text-decoration:line-through;color:#555;border-bottom:none;"
            pieces.append(chip(sc.label(t), REJECT_COLOR, style=strike, title="rejected", spoken="rejected"))
            if at_step >= 4:  # the correction takes the rejected guess's place in the text
                pieces.append(last_token(sc))
        elif at_step == 3:  # from step 4 the line shows what the round made of its guesses
            # pale and outlined, as in step 3's chart: no coin was flipped, so nothing is struck
            pale = f"color:#555;background:{UNCHECKED_FILL};outline:2px dashed {UNCHECKED_LINE};outline-offset:-1px;border-bottom:none;"
            pieces.append(chip(sc.label(t), style=pale, title="never checked", spoken="never checked"))
    if at_step >= 4 and sc.record.bonus:
        pieces.append(last_token(sc))
    return " ".join(pieces)


def round_text(sc: Scenario) -> str:
    """The prompt and the tokens the round leaves: its kept guesses and its last token."""
    return sc.prompt + "".join(token_name(sc.labels, t) for t in sc.record.tokens)


def last_token(sc: Scenario) -> str:
    """The round's last token, the correction or the bonus, with its note."""
    color, how = (P_COLOR, "bonus") if sc.record.bonus else (RESIDUAL_COLOR, "correction")
    # the token and its note on one line: apart, "← correction" reads as a word of the text
    # (the chip's own break-spaces let a line end right after it, so it is nowrap here too)
    token = chip(sc.label(sc.record.last_token), color, title=how, line=ORIGIN_LINES[how],
                 hatched=how == HATCHED, style="white-space:nowrap")
    return f'<span style="white-space:nowrap">{token}&nbsp;<small>← {how}</small></span>'
