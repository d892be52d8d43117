"""Self-study: change the draft's quality and the decoding settings, see what it costs."""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import streamlit as st

from lessons import playground_figures
from lessons.playground import (FEW_TOKENS, RUN_CLOSED_FORM, RoundSummary, above_ceiling_note,
                                same_text_note, seed_spread_note, short_bonus_note, short_rounds_note,
                                short_text_note, steady_alpha_note, summarize)
from lessons.speed_story import TABLE_SAMPLING, sampled_as_table, saved_verify_costs
from lessons.wording import OTHER_MACHINES, counted, passes_said
from lessons.written import Written, pass_by_pass
from specdec_core.engine import encode, generate, stream
from specdec_core.inputs import is_blank
from specdec_core.catalog import TARGET_VOCAB, drafter_label, drafter_names, drafter_vocabulary
from specdec_core.quality import alpha_by_noise, drafter_table
from specdec_core.warping import Sampling

from . import screen_reader, settings
from .display import (colored_text, draw_as_written, html_block, metric_row, origin_legend, prompt_chip, show_chart,
                      so_far)
from .models import get_pair
from .shared_stream import SharedStream

PLAY_TOKENS = 48


@st.cache_resource(show_spinner=False, max_entries=128)
def play_stream(drafter, prompt, gamma, temperature, top_p, noise, seed) -> SharedStream[Written]:
    """One text for each set of controls, for every session: written pass by pass the first time
    it is asked for (watched by any session that asks meanwhile), whole at once after that."""
    return SharedStream()


def passes(drafter, prompt, gamma, temperature, top_p, noise, seed) -> Iterator[Written]:
    pair = get_pair(drafter)
    return pass_by_pass(pair.tokenizer, stream(pair, prompt, PLAY_TOKENS, "speculative", gamma,
                                               temperature, 0, top_p, seed, draft_noise=noise))


@st.cache_resource(show_spinner=False, max_entries=32)
def reference_text(_pair, prompt, temperature, top_p, seed) -> tuple[tuple[int, ...], int]:
    """Nimbus-large's own text for the prompt, settings and seed (the drafter plays no part):
    (prompt and text ids, where the text starts)."""
    ids = encode(_pair, prompt)
    made = generate(_pair, prompt, PLAY_TOKENS, "target", temperature=temperature, top_p=top_p, seed=seed)
    return (*ids, *made.token_ids), len(ids)


def noise_grid() -> np.ndarray:
    """Every value the noise slider can take."""
    lim = settings.limits("noise")
    count = round((lim["max_value"] - lim["min_value"]) / lim["step"]) + 1
    return np.round(np.linspace(lim["min_value"], lim["max_value"], count), 4)


@st.cache_resource(show_spinner=False, max_entries=64)
def steady_alphas(drafter, prompt, temperature, top_p, seed) -> dict[float, float] | None:
    """The drafter's α on Nimbus-large's own text at each noise the slider offers; None where
    that text is empty (the prompt's next token ends the text)."""
    pair = get_pair(drafter)
    ids, start = reference_text(pair, prompt, temperature, top_p, seed)
    if len(ids) <= start:
        return None
    noises = noise_grid()
    alphas = alpha_by_noise(pair, list(ids), start, Sampling(temperature, 0, top_p), noises)
    return dict(zip(noises.tolist(), alphas.tolist()))


def rung_label(drafter: str, rows: dict) -> str:
    """A step of the draft-quality ladder, with the drafter table's α and c where they were
    measured (`rows`: the table's rows by drafter)."""
    row = rows.get(drafter)
    return drafter_label(drafter) + ("" if row is None else f" (α {row.alpha:.2f}, c {row.cost_ratio:.2f})")


def controls(rows: list) -> None:
    """The page's sliders and prompt; `rows`: the drafter table, whose α and c each rung shows."""
    by_drafter = {row.drafter: row for row in rows}
    st.select_slider("Draft quality: from the target's early exit up to Nimbus-mini",
                     drafter_names(), key="drafter", format_func=lambda name: rung_label(name, by_drafter),
                     help="Each step up the ladder has a higher measured acceptance rate α; c is what "
                     "one of its draft steps costs, in steps of Nimbus-large (both from the table on the "
                     "So what page). A higher α pays only where c stays small: early-exit-12 keeps more "
                     "drafts than early-exit-4, but its 12 layers cost about half a target step, so it "
                     f"is slower. {settings.DRAFTERS_NAMED}")
    # the draft's side on the left, the sampling on the right; a row at a time, each slider at
    # its row's foot, so that a label wrapped in instructor mode's large type moves no slider
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    c1.slider("Draft noise: blend q with the uniform distribution", key="noise",
              help="0 keeps the drafter as it is; 1 makes it guess uniformly at random",
              **settings.limits("noise"))
    c2.slider("Temperature (0 = greedy)", key="temperature", **settings.limits("temperature"),
              help=settings.HELP["temperature"])
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    c1.slider("γ, drafted tokens per round", key="gamma", **settings.limits("gamma"),
              help=settings.HELP["gamma"])
    settings.top_p_slider(c2)
    settings.prompt_box()


ASSUMED_COST = 0.1  # for a drafter the table has not measured


def alpha_help(drafter: str, row) -> str:
    """What the measured α counts, beside the steadier figure of the drafter table (`row`: the
    drafter's row, or None)."""
    table = (f" The drafter table (So what) measured {row.alpha:.3f} for {drafter} over hundreds of "
             "positions, at temperature 1 and draft noise 0." if row else "")
    return f"Kept drafts / checked drafts, in this one text.{table}"


# the second figure while the text is written: the α the chart is priced at comes after it
PRICED_LATER = {"label": "α for the chart", "value": "…",
                "help": "Worked out once the text is written (both models score the text Nimbus-large "
                        "writes alone from this prompt); a Stop before then leaves it out, and the same "
                        "settings work it out next time"}


def draw(slot, written: Written, eos: int, alpha_note: str, whole: bool = False,
         priced: dict | None = PRICED_LATER) -> RoundSummary:
    """The measured figures and the coloured text, as far as they have been written; `priced`,
    the metric of the α the chart is priced at, beside this run's (None where that is this
    run's own)."""
    s = st.session_state
    summary = summarize(list(written.rounds), s.gamma, written.stats.new_tokens, PLAY_TOKENS, eos)
    with slot.container():
        so_far(f"{written.stats.new_tokens} of up to {PLAY_TOKENS} tokens", whole)
        metric_row(
            {"label": "α, this run", "value": f"{summary.alpha:.2f}", "help": alpha_note},
            *([priced] if priced else []),
            {"label": "Tokens per pass", "value": f"{summary.tokens_per_round:.2f}",
             "help": "Measured: the tokens written over the rounds that wrote them, one target pass "
                     "each (a round keeps some drafts and adds one correction or bonus token)"},
            {"label": RUN_CLOSED_FORM, "value": f"{summary.expected_tokens_per_round:.2f}",
             "help": "The tokens per pass these rounds would give on average if every draft were kept "
                     "with the same chance α (this run's), independently: (1 − α^(k+1)) / (1 − α) "
                     "for a round of k drafts, averaged over the rounds. k is γ, or fewer near the end, "
                     "where a round drafts and writes no more than the tokens still to write need; "
                     "a round whose last kept draft ends the text counts no bonus token"},
            {"label": f"Target passes for {counted(written.stats.new_tokens, 'token')}",
             "value": written.stats.target_passes,
             "help": "Nimbus-large alone would need one pass per token"},
            gap="small")  # five in one row beside the sidebar at 1280 px
        html_block("<b>Continuing:</b> " + prompt_chip(s.prompt) + " " + colored_text(list(written.pieces))
                   + "<br>" + origin_legend())
    return summary


def written_text(eos: int, table) -> tuple[Written, RoundSummary, Callable[[dict | None], object]]:
    """The text for the controls as they stand, drawn after each target pass unless it is whole;
    with a call that draws it again with the metric of the α the chart is priced at (or None).
    `table`: the drafter's row of the drafter table, or None."""
    s = st.session_state
    key = (s.drafter, s.prompt, s.gamma, s.temperature, s.top_p, s.noise, int(s.seed))
    slot, note = st.empty(), alpha_help(s.drafter, table)
    written = draw_as_written(play_stream(*key), lambda: passes(*key),
                              lambda partial: draw(slot, partial, eos, note))
    return (written, draw(slot, written, eos, note, whole=True),
            lambda priced: draw(slot, written, eos, note, whole=True, priced=priced))


def chart_alpha(pair, written: Written, summary: RoundSummary,
                table) -> tuple[float, list[str], dict | None]:
    """The α the speed-up chart is priced at, the notes that say where it comes from, and its
    metric (None where it is this run's own α, which the metrics already show): α on the text
    Nimbus-large writes alone from the prompt, at the slider's noise; where that text is only a
    few tokens long, the drafter table's α (`table`: the drafter's row, or None)."""
    s = st.session_state
    key = (s.drafter, s.prompt, s.temperature, s.top_p, int(s.seed))
    own, start = reference_text(pair, *key[1:])
    tokens, same = len(own) - start, list(written.ids) == list(own[start:])
    notes = [same_text_note(s.temperature, same)]
    if tokens < FEW_TOKENS:  # a prompt that reads as finished, a question say: too little to count
        table_alpha = table.alpha if table else None
        notes.insert(0, short_text_note(tokens, drafter_label(s.drafter), table_alpha, s.noise,
                                        table_settings=sampled_as_table(s.temperature, s.top_p),
                                        written=len(written.ids), prompt=s.prompt,
                                        greedy=s.temperature == 0))
        if table_alpha is None:
            return summary.alpha, notes, None
        return table_alpha, notes, {"label": "α, drafter table", "value": f"{table_alpha:.2f}",
                                    "help": TABLE_ALPHA_HELP}
    steady = steady_alphas(*key)
    # the grid's noise nearest the slider's, which float steps may miss by a rounding error
    alpha = steady[min(steady, key=lambda n: abs(n - s.noise))]
    notes.insert(0, steady_alpha_note(alpha, steady[0.0], s.noise, drafter_label(s.drafter),
                                      drafter_vocabulary(s.drafter), TARGET_VOCAB, tokens, summary.alpha,
                                      sum(summary.checked), same, s.temperature == 0))
    return alpha, notes, {"label": "α for the chart", "value": f"{alpha:.2f}",
                          "help": OWN_ALPHA_HELP}


# what the metric beside "α, this run" holds
OWN_ALPHA_HELP = ("Both models scored the one text Nimbus-large writes alone from this prompt, at this "
                  "temperature, top-p and seed, with the draft noise blended into q: this α moves with "
                  "the drafter and the noise (and, above temperature 0, with the seed, which draws that "
                  "text), where this run's counts only the positions it "
                  "checked and, above temperature 0 or with noise, moves with the luck of its own "
                  "draws. The speed-up chart below is priced at it.")
TABLE_ALPHA_HELP = ("Nimbus-large ends its own text after only a few tokens here, too few to measure α "
                    f"on: this is the drafter table's α (So what page, measured at {TABLE_SAMPLING} "
                    "or draft noise), "
                    "which the speed-up chart below is priced at.")


def render() -> None:
    settings.show_problems(settings.load_playground())
    rows = drafter_table()  # read once a run, for the ladder, the notes and the chart
    controls(rows)
    pair = get_pair(st.session_state.drafter)
    settings.save_playground()
    if is_blank(st.session_state.prompt):
        st.info("Type a prompt to continue.")
        return
    s = st.session_state
    table = next((row for row in rows if row.drafter == s.drafter), None)
    written, summary, redraw = written_text(pair.tokenizer.eos_token_id, table)
    # the focus stays on the slider or the prompt that asked for it
    screen_reader.announce(passes_said("Written", written.stats.new_tokens, written.stats.target_passes)
                           + f" α, this run: {summary.alpha:.2f}.")
    alpha, notes, priced = chart_alpha(pair, written, summary, table)
    redraw(priced)
    # a section of its own, so that the charts' titles sit under it in the list of headings
    st.header("What these settings give", anchor=False)
    st.caption(" ".join(notes))
    # side by side, but one under the other on a projector, where a screen holds one chart whole
    left, right = (st.container(), st.container()) if s.get("present") else st.columns(2)
    with left:
        show_chart(playground_figures.position_chart(summary.by_position, summary.checked), "positions")
    measured = getattr(table, "cost_ratio", None)
    cost = ASSUMED_COST if measured is None else measured
    with right:
        show_chart(playground_figures.speedup_chart(alpha, cost, s.gamma,
                                                    verify=saved_verify_costs()), "speedup")
    count = written.stats.new_tokens
    ended = "" if count >= PLAY_TOKENS else f" (the text ended, at an end-of-text token, before {PLAY_TOKENS} tokens)"
    source = (f"comes from the drafter table on the So what page ({cost:.2f}), and" if measured is not None
              else f"is taken as {cost:.2f}, as the drafter table on the So what page has not measured "
                   f"{s.drafter}; and")
    bonus = short_bonus_note(list(written.rounds), s.gamma, PLAY_TOKENS, count)
    short = short_rounds_note(summary, s.gamma)
    ceiling = above_ceiling_note(summary.tokens_per_round, summary.alpha, alpha)
    # three paragraphs: this text's figures, where the chart's costs come from, how far to trust it
    st.caption(f"{counted(summary.rounds, 'round')} to write {counted(count, 'token')}{ended}{bonus}."
               f"{short}{ceiling}\n\n"
               "The chart prices a round at γ draft steps and one pass that checks them, both in "
               "target steps: speed-up = tokens per pass ÷ (γ c + v). The cost c of a draft step "
               f"{source} the cost v of the pass that checks γ drafts comes from its γ sweep.\n\n"
               f"{seed_spread_note(alpha, s.temperature, s.noise, settings.in_the_sidebar())}"
               # at 0 only a near tie could tip elsewhere, as the note on the same text says
               + (f" {OTHER_MACHINES}" if s.temperature > 0 else ""))
