"""The five-step walkthrough: one round of Nimbus-mini drafting and Nimbus-large checking."""
from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import figures
from lessons.montecarlo import RULES, ExactnessCheck, check_exactness
from lessons.scenario import BONUS_TRIES, WALKTHROUGH_GAMMA, WALKTHROUGH_PROMPT, Scenario, token_name
from lessons.steps import STEPS, hidden_shortcut_note, step, unlucky_rule_note
from specdec_core.catalog import DEFAULT_DRAFTER, ModelFileError, default_drafter, drafter_label

from . import class_link, focus, frame, keys, predict_first, screen_reader, settings, url_state
from .display import html_block, metric_row, plain_markdown, plain_text, show_chart, spoken_token
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
        predict_first.reveal_all()
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


def _step_body(sc: Scenario, number: int) -> None:
    if number == 1:
        show_chart(figures.draft_chart(sc), "draft")
    elif number == 2:
        show_chart(figures.verify_chart(sc), "verify")
    elif number == 3:
        reveal = predict_first.ask(sc) if st.session_state.get("predict") else None
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
    _say_new_draws(check)
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


def _say_a_new_round(sc: Scenario) -> None:
    """A new round (Roll again, Worked example, Bonus round, another seed or draft model) changes
    the page while the focus stays on the control: a screen reader hears its draft, as the line
    under the step's bar shows it, and not its verdicts, which step 3 may still be hiding."""
    s = st.session_state
    seen, s.said_round = s.get("said_round"), (sc.drafter, sc.seed)
    # a seed or drafter changed on another page: the page is read anew on arrival anyway
    if seen not in (None, s.said_round) and not url_state.arrived():
        guesses = ", ".join(spoken_token(token_name(sc.labels, t), last=False) for t in sc.draft_tokens)
        screen_reader.announce(f"New round, seed {sc.seed}: {drafter_label(sc.drafter)} guessed {guesses}.")


def _say_new_draws(check: ExactnessCheck) -> None:
    """Step 5's distances, said when the Simulated draws slider moves (the focus stays on it)."""
    s = st.session_state
    seen, s.said_draws = s.get("said_draws"), check.rounds
    if seen not in (None, check.rounds) and not url_state.arrived():
        distances = ", ".join(f"{rule} {d:.3f}" for rule, d in check.distances.items())
        screen_reader.announce(f"{check.rounds:,} draws. Distance to p: {distances}; chance alone, "
                               f"9 runs in 10: {check.chance.low:.3f} to {check.chance.high:.3f}.")


def render() -> None:
    problems = settings.load_walkthrough()
    # the link first: a click on a button drawn below must find the browser's link up to date
    settings.save_walkthrough()
    settings.show_problems(problems)
    get_pair(st.session_state.drafter)  # loads once, or shows the fixing command and stops
    sc = get_scenario(st.session_state.drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA,
                      int(st.session_state.seed))
    _say_a_new_round(sc)
    number = int(st.session_state.step)
    current = step(number)
    # in predict-first mode, nothing on step 3 may give away a coin flip before it is revealed
    revealed = predict_first.revealed(sc) if number == 3 and st.session_state.get("predict") else None
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
