"""The five-step walkthrough: one round of Nimbus-mini drafting and Nimbus-large checking."""
from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import figures
from lessons.montecarlo import RULES, ExactnessCheck, check_exactness
from lessons.scenario import BONUS_TRIES, WALKTHROUGH_GAMMA, WALKTHROUGH_PROMPT, Scenario
from lessons.steps import STEPS, hidden_shortcut_note, step, unlucky_rule_note
from lessons.wording import coin_comparison, prob_is, ratio_pair, says
from specdec_core.catalog import DEFAULT_DRAFTER, ModelFileError, default_drafter, drafter_label

from . import class_link, focus, frame, keys, screen_reader, settings
from .display import html_block, metric_row, plain_markdown, plain_text, show_chart
from .models import bonus_seed, get_pair, get_scenario
from .page_list import ICONS
from .round_line import round_text, sentence, verdict_key

LAST = len(STEPS)
# the step's first line: a new step or round opens there, not at the buttons that were pressed
STEP_TOP = "#step-top"
STEP_QUESTION = "step-question"  # the id of the step's question, its heading


def _go(delta: int) -> None:
    # on the first or last step the button pressed is disabled: then the step's question, from
    # where Tab reads on through the step, and where Enter pressed once too often does nothing
    # (on the other button it would turn straight back)
    # in instructor mode the step's first line goes to the top, above the new chart
    focus.after_click("Next" if delta > 0 else "Back", show=STEP_TOP, then=f"#{STEP_QUESTION}",
                      to_top=bool(st.session_state.get("present")))
    if st.session_state.step == 3 and delta > 0:
        _reveal_all()
    st.session_state.step = int(np.clip(st.session_state.step + delta, 1, LAST))


# Roll again's seeds: short enough to read out to a class or type into the sidebar
ROLLED_SEEDS = 10_000


def _roll_again() -> None:
    seeds = np.random.default_rng().permutation(ROLLED_SEEDS)[:2]  # the second, if the first is this one
    _new_round(int(seeds[1] if seeds[0] == st.session_state.seed else seeds[0]))


def _worked_example() -> None:
    _back_to_default_drafter("Worked example")
    _new_round(settings.DEFAULT_SEED)


def _back_to_default_drafter(button: str) -> None:
    """For a round written around Nimbus-mini: the sidebar's draft model goes back to it, said
    under the round's line where another was chosen (instructor mode hides the sidebar)."""
    s = st.session_state
    if s.drafter != default_drafter():
        s.drafter_note = (f"“{button}” switched the draft model to {drafter_label(default_drafter())}, "
                          f"from {s.drafter}.")
        s.drafter = default_drafter()


def _on_worked_example() -> bool:
    s = st.session_state
    return s.seed == settings.DEFAULT_SEED and s.drafter == default_drafter()


def _bonus_round() -> None:
    """Nimbus-mini's first round that keeps all four guesses: found once per server."""
    s = st.session_state
    drafter = default_drafter()
    try:
        seed = bonus_seed(drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA)
    except ModelFileError:  # the page's own load of the drafter shows the error and its fix
        s.drafter = drafter
        return
    if seed is None:
        s.no_bonus = drafter  # said on the page, where a callback cannot write
        return
    _back_to_default_drafter("Bonus round")
    s.bonus_seed = seed
    _new_round(seed)


def _on_bonus_round() -> bool:
    """Whether this is the round Bonus round opened. Asked of the session, not of the round:
    on step 3 in predict-first mode the button must not give away whether this round keeps
    every guess."""
    s = st.session_state
    return s.seed == s.get("bonus_seed") and s.drafter == default_drafter()


def _new_round(seed: int) -> None:
    st.session_state.seed = seed
    st.session_state.revealed = 0
    # the worked example's button goes away once pressed: the focus then moves to Roll again
    focus.after_click("Roll again", show=STEP_TOP)


STEP_STATUS = '<span role="status">'


def _header(sc: Scenario, number: int, revealed: int | None = None) -> None:
    # the tab names the step, for a reader with many tabs and for a screen reader's page title
    title = step(number).title_for(sc)
    st.set_page_config(page_title=frame.tab_title(f"Step {number} of {LAST}: {title}"))
    # a status line: when Next or Back changes it, a screen reader says which step this is
    st.markdown(f'{STEP_STATUS}**Step {number} of {LAST}** · {title}</span>'
                f'<span id="{STEP_TOP[1:]}"></span>', unsafe_allow_html=True)
    st.progress(number / LAST)
    html_block("<b>Continuing:</b> " + sentence(sc, number, revealed))
    # one element here on every step, so that the buttons below keep their place in the page
    # from step to step, and a focused one its focus
    if number == 3:  # the verdicts' looks, first shown here
        st.caption(verdict_key(sc, revealed))
    elif number >= 4:  # the round is decided: what it leaves, apart from the guesses it threw away
        dropped = "" if sc.record.bonus else ": a struck-through guess is not part of it"
        st.caption(plain_text(f"After this round the text reads “{round_text(sc)}”{dropped}."),
                   unsafe_allow_html=True)
    else:
        st.empty()
    note = st.session_state.pop("drafter_note", None)  # once, where the last run said which it was
    if sc.drafter != DEFAULT_DRAFTER:
        st.caption(f"The draft model here is **{sc.drafter}**, standing in for Nimbus-mini "
                   f"(change it {settings.in_the_sidebar()}).")
    elif note:
        st.caption(note)


def _nav() -> None:
    # each button as wide as its label: columns of a fixed share cut the labels off in
    # instructor mode's large type on a projector
    with st.container(horizontal=True):
        st.button("Back", on_click=_go, args=(-1,), shortcut="Left", disabled=st.session_state.step <= 1)
        st.button("Next", on_click=_go, args=(1,), shortcut="Right", type="primary",
                  disabled=st.session_state.step >= LAST)
        st.button("Roll again", on_click=_roll_again, icon=":material/casino:",
                  help="New coin flips and a new draft: a new seed in the link")
        if not _on_worked_example():
            st.button("Worked example", on_click=_worked_example, icon=":material/undo:",
                      help=f"Back to the round the lesson is written around: Nimbus-mini, seed "
                           f"{settings.DEFAULT_SEED} (two guesses kept, the third corrected)")
        # only with Nimbus-mini shipped: the weaker drafters rarely, if ever, keep all four
        if default_drafter() == DEFAULT_DRAFTER and not _on_bonus_round():
            st.button("Bonus round", on_click=_bonus_round, icon=":material/add_circle:",
                      help="A round in which Nimbus-mini's four guesses are all kept, so that the "
                           "checking pass adds a bonus token instead of a correction (step 4): the "
                           "first seed whose round does. The weaker draft models rarely keep all four.")
    missing = st.session_state.pop("no_bonus", None)
    if missing:
        st.warning(f"No seed from 0 to {BONUS_TRIES - 1} keeps all four of {drafter_label(missing)}'s "
                   "guesses here: try Roll again.", icon=":material/search_off:")


def _revealed(sc: Scenario) -> int:
    """Coin flips shown so far in predict-first mode, counted afresh for each round."""
    s = st.session_state
    if s.get("revealed_round") != (sc.drafter, sc.seed):
        s.revealed_round = (sc.drafter, sc.seed)
        s.revealed = 0
        s.pop("last_guess", None)
    return s.revealed


def _predict_first(sc: Scenario) -> int:
    """Students predict keep or reject before each coin flip is shown; returns flips revealed.
    The verdict on the last guess comes first, then the question about the next draft."""
    shown = _revealed(sc)
    checks = sc.record.checks
    if "last_guess" in st.session_state and shown:
        with st.container(key="verdict"):
            _last_verdict(*st.session_state.last_guess)
    if shown < len(checks):
        c = checks[shown]
        p, q = ratio_pair(c.p, c.q)  # the shown values' ratio gives the chance stated
        st.info(f"Predict first: will “{plain_markdown(sc.label(c.token))}” be kept? The target "
                f"gives it {says('p', p)}, the draft gave it {says('q', q)}, so it is kept with "
                f"probability {prob_is('min(1, p/q)', c.accept_prob)}{_sure_keep(c)}.{_how_to_flip(shown)}")
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
    return st.session_state.revealed


def _how_to_flip(shown: int) -> str:
    """How the buttons flip a coin, said at the first coin only: a class reads it once."""
    return ("" if shown else f" A prediction flips the coin; “{keys.FLIP}” flips it without one, for a "
            "class that voted by hand (in instructor mode a clicker's Page Down presses it).")


def _sure_keep(c) -> str:
    """Where p ≥ q no coin can reject the draft: said, as the rule's first lesson."""
    return (": the target wants it at least as much as the draft did, so no coin can reject it"
            if c.accept_prob >= 1 else "")


def _reveal_all() -> None:
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
    focus.after_click(pressed, "Next", always=True, show=".st-key-verdict",
                      to_top=bool(st.session_state.get("present")))


def _last_verdict(right: bool | None, c) -> None:
    """The coin just flipped, and whether the guess was right (`right`: None, flipped without one)."""
    outcome = (f"{coin_comparison(c.u, c.accept_prob, c.accepted)}, so the draft is "
               f"{'kept' if c.accepted else 'rejected'}.")
    if right is None:
        st.info(f"Flipped: {outcome}", icon=":material/toll:")
        return
    if not right and c.accept_prob >= 1:  # no luck in it: the coin could not reject this draft
        st.warning(f"It could not be rejected: p ≥ q, so every coin keeps it. {outcome}")
        return
    message = f"{'Right' if right else 'Not this time'}: {outcome}"
    if right:  # st.info, not st.success: the green box is the step's takeaway
        st.info(message, icon=":material/check_circle:")
    else:
        st.warning(message)


def _step_body(sc: Scenario, number: int) -> None:
    if number == 1:
        show_chart(figures.draft_chart(sc), "draft")
    elif number == 2:
        show_chart(figures.verify_chart(sc), "verify")
    elif number == 3:
        reveal = _predict_first(sc) if st.session_state.get("predict") else None
        show_chart(figures.coin_chart(sc, reveal), "coins")
    elif number == 4:
        show_chart(figures.correction_chart(sc), "correct")
    else:
        _exactness(sc)


def _exactness(sc: Scenario) -> None:
    row = sc.decided_row if not sc.record.bonus else 0
    p, q = sc.p_dists[row], sc.q_dists[row]
    tokens = sc.exactness_tokens(row)
    labels = sc.labels
    if sc.record.bonus:
        st.caption("Nothing was rejected in this round, so the charts below look at the first "
                   "guess's position; the argument holds at every position alike.")
    show_chart(figures.decomposition_chart(p, q, tokens, labels, position=row + 1), "decomposition")
    rounds = st.select_slider("Simulated draws", settings.SIMULATED_DRAWS, key="draws",
                              format_func="{:,}".format,
                              help="Each draw drafts x ~ q at this one position and applies a rule; "
                                   "the bars are how often each token came out.")
    check = check_exactness(p, q, tokens, rounds, sc.seed)
    st.markdown("**Distance to p** is the total variation: half the sum of the gaps between how often "
                "each token came out and its p, over the tokens shown and one bucket for all the "
                "others. It is the share of draws that landed in the wrong place: at 0.1, a tenth of "
                "the draws would have to move to other tokens to match p. The bucket hides "
                "part of a wrong rule's error; the note under the distances gives each rule's "
                "exact distance over the whole vocabulary.")
    show_chart(figures.monte_carlo_chart(p, check.freqs, tokens, labels, rounds), "montecarlo")
    _distances(check)
    n = len(sc.record.tokens)
    # a short label and only the number as the value: a metric cuts both off at its column's
    # edge, which instructor mode on a phone reached
    st.metric("Tokens per target pass", n,
              help="In this round. Target-only decoding always gets exactly 1.")


def _distances(check: ExactnessCheck) -> None:
    """Step 5's distances, the range chance gives, the notes they call for, and the exact ones."""
    chance, rounds = check.chance, check.rounds
    metric_row(*({"label": rule, "value": f"{d:.3f}"} for rule, d in check.distances.items()),
               {"label": "chance alone, 9 runs in 10", "value": f"{chance.low:.3f}–{chance.high:.3f}",
                "help": f"Even perfect samples of p land away from p: at {rounds:,} draws, "
                        f"{chance.typical:.3f} on average, and between {chance.low:.3f} and "
                        f"{chance.high:.3f} in 9 runs out of 10 (of {chance.runs} simulated). Any single "
                        "run, the rule's included, can land anywhere in that range."})
    more = rounds < max(settings.SIMULATED_DRAWS)  # the slider can go further
    notes = (unlucky_rule_note(check.distances[RULES[0]], chance, more),
             hidden_shortcut_note(check.hidden, check.beta, rounds, chance, more))
    for note in filter(None, notes):
        st.info(plain_markdown(note), icon=":material/info:")
    exact = ", ".join(f"{rule} {d:.3f}" for rule, d in check.exact.items())
    st.caption(f"Lumping every token not shown into one bucket keeps chance small at this many draws, "
               f"but hides part of a rule's error. Worked out exactly, token by token over the whole "
               f"vocabulary, each rule is this far from p: {exact} (accept every draft is off by 1 − β, "
               f"with β = {check.beta:.3f} at this position).")


def render() -> None:
    problems = settings.load_walkthrough()
    # the link first: a click on a button drawn below must find the browser's link up to date
    settings.save_walkthrough()
    settings.show_problems(problems)
    get_pair(st.session_state.drafter)  # loads once, or shows the fixing command and stops
    sc = get_scenario(st.session_state.drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA,
                      int(st.session_state.seed))
    number = int(st.session_state.step)
    current = step(number)
    # in predict-first mode, nothing on step 3 may give away a coin flip before it is revealed
    revealed = _revealed(sc) if number == 3 and st.session_state.get("predict") else None
    _header(sc, number, revealed)
    question, body = current.text(sc)
    st.header(question, anchor=STEP_QUESTION)
    st.markdown(body)
    _step_body(sc, number)
    with st.container(key=screen_reader.TAKEAWAY):  # read where it stands, not announced
        if revealed is not None and revealed < len(sc.record.checks):
            st.info("Flip every coin to see what this round kept, or press Next: it flips the rest "
                    "and goes on to step 4, which tells how the round ended (Back shows every coin "
                    "here).",
                    icon=":material/lightbulb:")
        else:
            st.success(plain_markdown(current.takeaway(sc)), icon=":material/lightbulb:")
    if number == LAST:  # above the buttons, where a clicker's Page Down reads to
        _where_next()
    _nav()
    focus.restore()
    class_link.show()


# after the last step, the pages that go on from it: (page file, what it holds)
NEXT_PAGES = (
    ("pages/code.py", "The code: this round as a Python function, with its values beside its lines"),
    ("pages/thread.py", "The Nimbus thread: a whole support reply, each token coloured by how it came"),
    ("pages/so_what.py", "So what: the speed-ups `make bench` measured, and what bounds them"),
    ("pages/playground.py", "Playground: make the draft better or worse, and watch α and the speed-up"),
    ("pages/race.py", "Race: Nimbus-large alone against the pair, side by side"),
)


def _where_next() -> None:
    """Links on from the last step: in instructor mode there is no sidebar to find them in."""
    def links() -> None:
        st.markdown("**Where next**")
        with st.container(key=keys.ONWARD_KEY):  # the one a clicker's Page Down follows
            first, label = NEXT_PAGES[0]
            st.page_link(first, label=label, icon=ICONS[first])
        for path, label in NEXT_PAGES[1:]:
            st.page_link(path, label=label, icon=ICONS[path])

    frame.page_links(links)
