"""Predict first (step 3): the class guesses keep or reject before each coin is flipped. The
verdict on the last guess comes first, then the question about the next draft; a screen reader
hears both at once after a flip, where the focus stays on the button pressed."""
from __future__ import annotations

import streamlit as st

from lessons.scenario import WALKTHROUGH_GAMMA, Scenario, token_name
from lessons.wording import coin_comparison, prob_is, ratio_pair, says

from . import focus, keys, screen_reader
from .display import plain_markdown, spoken_token


def revealed(sc: Scenario) -> int:
    """Coin flips shown so far in predict-first mode, counted afresh for each round."""
    s = st.session_state
    if s.get("revealed_round") != (sc.drafter, sc.seed):
        s.revealed_round = (sc.drafter, sc.seed)
        s.revealed = 0
        s.pop("last_guess", None)
    return s.revealed


def ask(sc: Scenario) -> int:
    """The verdict on the last guess, the question about the next draft and the buttons that
    answer it, and both said at once; returns the flips revealed."""
    shown = revealed(sc)
    checks = sc.record.checks
    flipped = bool(shown) and "last_guess" in st.session_state  # this run follows a flip
    said = []
    if flipped:
        with st.container(key=screen_reader.VERDICT):
            said.append(_last_verdict(*st.session_state.last_guess))
    if shown < len(checks):
        c = checks[shown]
        with st.container(key=screen_reader.QUESTION):
            st.info(_question(sc, c, f"“{plain_markdown(sc.label(c.token))}”") + _how_to_flip(shown))
        said.append(_question(sc, c, spoken_token(token_name(sc.labels, c.token), last=False)))
        # one press per coin, and plain buttons: → and ← still change the step, where a
        # choice group would take them to move between its options
        with st.container(horizontal=True):
            for guess in ("keep", "reject"):
                st.button(f"Predict {guess}", key=f"guess_{guess}", on_click=_flip, args=(guess, shown, c),
                          icon=":material/toll:")
            # without a guess: a clicker presses it
            # no help of its own: the focus stays on it after a flip, and its help box, shown on
            # focus, covered the next question; the question says what a clicker does
            st.button(keys.FLIP, key="flip", on_click=_flip, args=(None, shown, c))
    elif flipped:  # not after Next, which reveals every coin at once and says nothing of them
        said.append("That was the round's last coin.")
    if flipped:
        screen_reader.announce(" ".join(said))
    return st.session_state.revealed


def _question(sc: Scenario, c, token: str) -> str:
    """Predict first's question about the draft `token` (as shown, or as spoken) that coin `c`
    checks."""
    p, q = ratio_pair(c.p, c.q)  # the shown values' ratio gives the chance stated
    return (f"Predict first: will {token} be kept? The target gives it {says('p', p)}, the draft gave "
            f"it {says('q', q)}, so it is kept with probability "
            f"{prob_is('min(1, p/q)', c.accept_prob)}{_sure_keep(c)}.")


def _how_to_flip(shown: int) -> str:
    """How the buttons flip a coin, said at the first coin only: a class reads it once."""
    return ("" if shown else f" A prediction flips the coin; “{keys.FLIP}” flips it without one, for a "
            "class that voted by hand (in instructor mode a clicker's Page Down presses it).")


def _sure_keep(c) -> str:
    """Where p ≥ q no coin can reject the draft: said, as the rule's first lesson."""
    return (": the target wants it at least as much as the draft did, so no coin can reject it"
            if c.accept_prob >= 1 else "")


def reveal_all() -> None:
    """Predict first: moving on from step 3 shows the coins not yet flipped (steps 4 and 5 tell
    what they did), and step 3 then shows them too, with no question left open."""
    st.session_state.revealed = WALKTHROUGH_GAMMA
    st.session_state.pop("last_guess", None)


def _flip(guess: str | None, position: int, c) -> None:
    """Reveal the coin at `position`, with the class's guess ("keep" or "reject") or without one."""
    if st.session_state.revealed != position:  # a second press before the page caught up
        return
    st.session_state.revealed = position + 1
    right = None if guess is None else guess == ("keep" if c.accepted else "reject")
    st.session_state.last_guess = (right, c)
    # the same button again for the next guess (on a projector the focus ring is seen: on
    # "Predict keep" after a flip without a guess it read as a keep chosen), or on once all are
    # flipped; and the verdict kept in view, where moving on to Next, below the chart, scrolled
    # the last one away; on a projector at the top of the view, so that the chart under the
    # next guess shows the coin just flipped
    pressed = keys.FLIP if guess is None else f"Predict {guess}"
    focus.after_click(pressed, "Next", always=True, show=f".st-key-{screen_reader.VERDICT}",
                      to_top=bool(st.session_state.get("present")))


def _last_verdict(right: bool | None, c) -> str:
    """The coin just flipped, and whether the guess was right (`right`: None, flipped without
    one), shown; returned too, for a screen reader."""
    outcome = (f"{coin_comparison(c.u, c.accept_prob, c.accepted)}, so the draft is "
               f"{'kept' if c.accepted else 'rejected'}.")
    if right is None:
        message = f"Flipped: {outcome}"
        st.info(message, icon=":material/toll:")
    elif not right and c.accept_prob >= 1:  # no luck in it: the coin could not reject this draft
        message = f"It could not be rejected: p ≥ q, so every coin keeps it. {outcome}"
        st.warning(message)
    elif right:  # st.info, not st.success: the green box is the step's takeaway
        message = f"Right: {outcome}"
        st.info(message, icon=":material/check_circle:")
    else:
        message = f"Not this time: {outcome}"
        st.warning(message)
    return message
