"""Target-only against speculative on the same prompt, streamed side by side.

Both run on this one machine, so they take turns: the side that has used less compute time
so far goes next. Each side's tokens per second is measured on its own clock, as if each had
the machine to itself; a race during which other sessions used Nimbus-large says so, as both
clocks count that time.
"""
from __future__ import annotations

import html
import time
from typing import Iterator

import streamlit as st

from lessons.race_notes import (FEW_PASSES, ended_note, gamma_advice, overshoot_note, race_note, race_said,
                                gain_note, shared_machine_note, slower_note)
from lessons.race_record import KEPT_RACES, Finished, Race, race_row, short_prompt
from lessons.speed_story import (expected_at, expected_best, sampled_as_table, saved_verify_costs,
                                 verify_cost_for)
from lessons.wording import ROUNDING_TIE, counted, seconds_text
from lessons.written import NOTHING_YET, pass_by_pass
from specdec_core.catalog import drafter_label
from specdec_core.engine import Chunk, stream
from specdec_core.inputs import is_blank
from specdec_core.quality import drafter_quality

from . import focus, keys, screen_reader, settings
from .display import colored_text, html_block, html_div, metric_row, number_table, origin_legend, plain_text
from .models import get_pair
from .server_load import TARGET_PASSES


# how many times slower slow motion shows a race than it ran
SLOW_MOTION = 10


def side_name(method: str, drafter: str) -> str:
    if method == "target":
        return "Nimbus-large alone"
    return f"{drafter_label(drafter)} drafts, Nimbus-large checks"


def draw_scoreboard(lanes: tuple[Finished, ...], tokens: int) -> None:
    """Each side's progress towards its tokens, one bar above the other: the lanes below may
    stack on a narrow screen, and the bars show at a glance who is ahead on the same clock."""
    for lane in lanes:
        done = min(len(lane.ids), tokens)
        st.progress(done / tokens, text=f"{lane.name}: {done} of {tokens} tokens in {seconds_text(lane.seconds)}")


def draw_lane(lane: Finished) -> None:
    """The lane's heading and its text as one element: a Stop between two elements would leave
    a heading that counts a pass its text does not show."""
    st.markdown(f"{lane_heading(lane)}\n\n{html_div(colored_text(list(zip(lane.pieces, lane.origins))))}",
                unsafe_allow_html=True)


def lane_heading(lane: Finished) -> str:
    """The lane's name, a heading to a screen reader (a reader moves between the two lanes by
    their headings), and its counts on the line below."""
    passes = counted(lane.passes, "target pass", "target passes")
    # a number stays on its unit's line
    return (f'<p style="margin:0 0 0.5rem"><span role="heading" aria-level="2" style="font-weight:600">'
            f"{html.escape(lane.name)}</span><br>\n{counted(len(lane.ids), 'token')} · {passes} · "
            f"{lane.rate:.1f}\u00a0tokens/s</p>")


class Lane:
    """One side of the race, written pass by pass and timed on its own clock."""

    def __init__(self, pair, method, slot):
        s = st.session_state
        self.pair, self.method, self.slot = pair, method, slot
        chunks = stream(pair, s.prompt, s.tokens, method, s.gamma, s.temperature, 0, s.top_p, int(s.seed),
                        stop_below=s.stop)
        self.passes = pass_by_pass(pair.tokenizer, self._timed(chunks))
        self.written, self.clock, self.done = NOTHING_YET, 0.0, False

    def _timed(self, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        """The chunks, the time each takes to make added to the lane's clock; the time the page
        takes to show them is not."""
        while True:
            begin = time.perf_counter()
            chunk = next(chunks, None)
            self.clock += time.perf_counter() - begin
            if chunk is None:
                return
            yield chunk

    def step(self) -> None:
        """One more target pass; at the end, the lane is drawn at its rate over the whole race, as
        the figures below it count it."""
        written = next(self.passes, None)
        if written is None:
            self.done = True
        else:
            self.written = written
        with self.slot.container():
            draw_lane(self.finished())

    def finished(self) -> Finished:
        w = self.written
        return Finished(side_name(self.method, self.pair.drafter_name), tuple(text for text, _ in w.pieces),
                        tuple(origin for _, origin in w.pieces), w.ids, w.stats.target_passes,
                        w.stats.drafted, self.clock)


def _use_gamma(gamma: int) -> None:
    st.session_state.gamma = gamma
    focus.after_click("Start the race")  # the button pressed goes away with the advice


def _suggest_best_gamma() -> None:
    """Point to the γ expected to be best here, one click away. Only without the early stop,
    which the closed form does not account for; away from the table's sampling settings
    (temperature 1, no top-p), saying that the best γ may differ there."""
    s = st.session_state
    row = drafter_quality(s.drafter)
    if row is None:
        return
    verify = saved_verify_costs()  # read once for both figures
    best, speedup = expected_best(row, verify)
    if best == s.gamma or s.stop > 0:
        return
    advice = gamma_advice(drafter_label(s.drafter), s.gamma, best, speedup, expected_at(row, s.gamma, verify),
                          table_settings=sampled_as_table(s.temperature, s.top_p))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(advice)
        st.button(f"Use γ = {best}", on_click=_use_gamma, args=(best,))


def render() -> None:
    settings.show_problems(settings.load_race())
    pair = get_pair(st.session_state.drafter)
    settings.prompt_box()
    _controls()
    settings.save_race()
    _suggest_best_gamma()
    focus.restore()
    if is_blank(st.session_state.prompt):
        st.info("Type a prompt to race on.")
        return
    with st.container(key=keys.ONWARD_KEY):  # pressed by a clicker's Page Down at the page's foot
        started = st.button("Start the race", type="primary", icon=":material/sports_score:", key="start_race")
    if started:
        _run(pair)
    else:
        st.caption(f"At temperature 0 both sides write the same text token for token (unless "
                   f"{ROUNDING_TIE}); above it they write different samples from the same distribution.")
        _show_last(st.session_state.get("races", []))


def _stop_label(stop: float) -> str:
    return f"{stop:.1f}" if stop else "off"


def _controls() -> None:
    """The race's sliders, bound to the session's settings."""
    # five sliders in a row leave too little room for a label in instructor mode's large type
    c1, c2, c3, c4, c5 = [*st.columns(3), *st.columns(2)] if st.session_state.get("present") else st.columns(5)
    c1.slider("γ", key="gamma", **settings.limits("gamma"), help=settings.HELP["gamma"])
    c2.select_slider("Early stop", settings.grid("stop"), key="stop", format_func=_stop_label,
              help="End a round's draft after a token to which the drafter gave less than this "
                   "probability, in the distribution it drew the token from (at temperature 0, its "
                   "plain softmax): "
                   "where the drafter is unsure the target often disagrees, and every draft after a "
                   "rejection is wasted. "
                   "Off always drafts γ tokens, as in the walkthrough. The output stays exact either way.")
    c3.slider("Temperature", key="temperature", **settings.limits("temperature"),
              help=settings.HELP["temperature"])
    settings.top_p_slider(c4)
    c5.slider("Tokens", key="tokens", **settings.limits("tokens"),
              help="How many tokens each side writes, unless Nimbus-large ends the text sooner")
    st.toggle(f"Slow motion ({SLOW_MOTION}× slower)", key="slow",
              help=f"Shows each side's passes {SLOW_MOTION} times slower than they ran, so that a class "
                   "can watch the pair's bursts arrive. The waits between passes are on no side's "
                   "clock, but a pass after a wait runs a little slower (the processor's caches have "
                   "gone cold), so both sides' speeds may read a little lower than at full speed; "
                   "the speed-up, with both sides slowed alike, moves less.")


def _show_last(races: list[Race]) -> None:
    """The last race, kept on screen to compare with the next, and this session's races."""
    if not races:
        return
    last = races[-1]
    # an HTML block: markdown would make a link of a web address in the prompt, and
    # pictures of shortcodes such as ":smile:"
    st.caption(plain_text(f"The last race, with {last.settings}:"), unsafe_allow_html=True)
    draw_scoreboard((last.base, last.spec), last.tokens)
    with st.container(key="last_race_lanes"):
        for column, lane in zip(st.columns(2, gap="large"), (last.base, last.spec)):
            with column:
                draw_lane(lane)
    lane_key()
    results(last)
    races_so_far(races)


def _run(pair) -> None:
    """Both sides, streamed pass by pass with the side behind on its own clock going next; the
    finished race is kept with the session's races."""
    with st.container(key="race_lanes"):
        board = st.empty()
        left, right = st.columns(2, gap="large")
        # the lanes stream in below the controls: bring them into view (on a projector they
        # would otherwise run below the fold), with the button just above them, which holds the
        # focus after a key press and must not go under Streamlit's header
        focus.show_now(".st-key-start_race")
    lanes = [Lane(pair, "target", left.empty()), Lane(pair, "speculative", right.empty())]
    lane_key()  # before the race runs, so that a race stopped halfway keeps it
    # where the results will stand; a race stopped before both sides finish keeps this line, so
    # that its lanes are not read as a result
    pending = st.empty()
    pending.caption("The results appear here once both sides have finished; a race stopped before "
                    "then has none.")
    began, pace = time.perf_counter(), SLOW_MOTION if st.session_state.slow else 1
    # Nimbus-large's passes by other sessions while a side ran (so not in slow motion's waits),
    # which its clock counted
    others = 0
    while not all(lane.done for lane in lanes):
        lane = min((lane for lane in lanes if not lane.done), key=lambda lane: lane.clock)
        before = TARGET_PASSES.by_others()
        lane.step()
        others += TARGET_PASSES.by_others() - before
        with board.container():
            draw_scoreboard(tuple(lane.finished() for lane in lanes), st.session_state.tokens)
        if pace > 1:  # each pass shown when it would come at this pace, on its own side's clock
            _wait_until(began + pace * lane.clock)
    pending.empty()
    s = st.session_state
    race = Race(race_settings(), s.drafter, s.gamma, s.stop, s.tokens, *(lane.finished() for lane in lanes),
                temperature=s.temperature, top_p=s.top_p, seed=int(s.seed),
                others_passes=others, prompt=s.prompt)
    s.races = [*s.get("races", []), race][-KEPT_RACES:]
    screen_reader.announce(race_said(race))  # the focus stays on Start
    results(race)
    races_so_far(s.races)


def _wait_until(moment: float) -> None:
    """Slow motion's wait, outside both sides' clocks (a moment from time.perf_counter)."""
    wait = moment - time.perf_counter()
    if wait > 0:
        time.sleep(wait)


def races_so_far(races: list[Race]) -> None:
    """This session's races side by side, newest first, once there are two to compare."""
    if len(races) < 2:
        return
    st.header("Your races so far", anchor=False)
    rows = [race_row(n, r) for n, r in reversed(list(enumerate(races, start=1)))]
    # a column that says nothing would push another out of view
    silent = {"machine"} if not any(r.shared for r in races) else set()
    silent |= {"prompt"} if len({r.prompt for r in races}) == 1 else set()
    rows = [{k: v for k, v in row.items() if k not in silent} for row in rows]
    number_table(rows, "races",
                 formats={"speed-up": "%.2fx", "tokens / pass": "%.2f", "temperature": "%g", "top-p": "%g"},
                 helps={"race": "Numbered in the order they ran; the newest is at the top",
                        "tokens": "Tokens the speculative side wrote: fewer than asked where its "
                                  "text ended early",
                        "asked": "The Tokens setting of the race",
                        "tokens / pass": "Tokens per pass of Nimbus-large on the speculative side",
                        "machine": "Shared: other sessions made at least a tenth as many passes of "
                                   "Nimbus-large on this server during the race as the race itself, "
                                   "and both sides' clocks count the time they took"},
                 # left out of instructor mode's plain table, to fit a projector, where they tell
                 # no two races apart
                 wide=tuple(k for k in ("seed", "top-p", "same text", "machine")
                            if k in rows[0] and len({r[k] for r in rows}) == 1))
    kept = ("This session's races." if len(races) < KEPT_RACES else
            f"This session's last {KEPT_RACES} races: an older one leaves the table as a new one comes.")
    st.caption(f"{kept} Each race is one sample: compare "
               "settings by several races each, not by one.")


def race_settings() -> str:
    """The settings of a race, in words, for the caption above a result kept on screen."""
    s = st.session_state
    prompt = short_prompt(s.prompt)
    stop = f"early stop {s.stop:g}" if s.stop else "no early stop"
    return (f"{drafter_label(s.drafter)}, γ = {s.gamma}, {stop}, temperature {s.temperature:g}, "
            f"top-p {s.top_p:g}, {s.tokens} tokens, seed {s.seed} and the prompt “{prompt}”")


def lane_key() -> None:
    """The colour key under the lanes."""
    html_block(origin_legend(with_target=True))
    st.space("small")  # the key belongs to the lanes above, not to the figures below


def results(race: Race) -> None:
    """The race's figures and what to make of them."""
    base, spec = race.base, race.spec
    metric_row(
        {"label": "Speed-up", "value": "–" if race.speedup is None else f"{race.speedup:.2f}x",
         "help": "The pair's tokens per second over Nimbus-large's alone, each on its own clock"},
        # per pass, not in all: a side that reaches the end-of-text token early makes fewer passes
        {"label": "Tokens per target pass", "value": f"{spec.per_pass:.2f} vs "
                                                      f"{base.per_pass:.2f}",
         "help": "Tokens written per pass of Nimbus-large: the pair's, then Nimbus-large's alone, "
                 "which writes one a pass"},
        {"label": "Drafts per round", "value": f"{spec.drafts_per_round:.1f} of {race.gamma}",
         "help": "How many tokens the drafter wrote per round on average: γ, or fewer when the early "
                 "stop ended a draft, and near the end, where a round drafts no more than it needs: one "
                 "token fewer than the tokens still to write (if it keeps every draft, a bonus token "
                 "completes them), and never fewer than one"},
        {"label": "Same text?", "value": "yes" if spec.ids == base.ids else "no",
         "help": f"At temperature 0 both sides write the same tokens, unless {ROUNDING_TIE}. Above it "
                 "each side draws its own random numbers, so they write different samples from the "
                 "same distribution."})
    if race.shared:
        st.caption(shared_machine_note(race.others_passes))
    greedy = race.temperature == 0  # where the seed changes nothing
    ended = ended_note([(lane.name, len(lane.ids)) for lane in (base, spec)], race.tokens, greedy)
    if ended:
        st.caption(ended)
    speedup, per_pass = race.speedup, spec.per_pass
    note = overshoot_note(speedup, per_pass) if speedup is not None else ""
    # beside a race that timing noise threw off, "a tenth or two" would read as a contradiction
    if not note or spec.passes < FEW_PASSES:
        st.caption(race_note(spec.passes, ended_early=len(spec.ids) < race.tokens, greedy=greedy))
    if speedup is not None:
        if not note and spec.passes >= FEW_PASSES:
            cost = getattr(drafter_quality(race.drafter), "cost_ratio", None)
            costs = saved_verify_costs()
            # with the early stop, rounds check fewer drafts than γ: priced at their average
            verify = verify_cost_for(spec.drafts_per_round, costs) if race.stop else costs.get(race.gamma)
            # lost as the metric shows it: 0.998 reads as 1.00x, a draw
            priced = slower_note if round(speedup, 2) < 1 else gain_note
            note = priced(per_pass, spec.drafts_per_round, race.gamma, cost, verify, raced=speedup,
                          stopped=bool(race.stop), uneven=len(spec.ids) != len(base.ids))
        if note:
            st.caption(note)
