"""Tests for the teaching layer (lessons/): figure builders, Monte Carlo, code lesson, steps,
playground summary, on a small hand-made round. No Streamlit and no model here."""
from __future__ import annotations

import ast
import dataclasses
import math
import re
from functools import partial
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

ROOT = Path(__file__).resolve().parents[1]
from lessons import (code_lesson, figures, montecarlo, playground, playground_figures, race_notes, race_record,
                     speed_charts, speed_story, steps, wording)
from lessons.chart import (PROJECTOR_HEIGHT, enlarged, fixed, legible, lifted_title, outlined, panel_count,
                           regridded)
from lessons.playground import same_text_note, short_rounds_note, steady_alpha_note, summarize
import lessons.scenario
from lessons import chart as chart_parts
from lessons.scenario import Scenario
from lessons.steps import STEPS, step
from lessons.style import ORIGIN_COLORS, ORIGIN_LINES, Q_COLOR, U_COLOR, contrast, over_white, visible
from lessons.wording import (coin_comparison, counted, passes_said, prob_is, prob_pair, prob_text, ratio_pair, says,
                             significant)
from specdec_core.inputs import is_blank
from specdec_core.sampling import (
    DraftCheck, RoundRecord, acceptance_probability, alpha_for_speedup, expected_speedup,
    expected_tokens_given_drafts, expected_tokens_per_round, output_distribution, residual_distribution,
    speculative_round,
)
from specdec_core.warping import Sampling

V = 8
GAMMA = 3
# token 1 is HTML on purpose: it must come out escaped wherever a figure shows it; token 6 ends
# a quotation, and plotly shows an escaped quote (&quot;) as written, so it must stay a quote
LABELS = {0: " the", 1: "<s>", 2: "cat", 3: "\n", 4: " sat", 5: "&", 6: '."', 7: " on"}
SHOWN = {k: visible(v) for k, v in LABELS.items()}  # as text shows them: "␣the", "↵"


def norm(w) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    return w / w.sum()


def make_scenario(drafts, q_rows, p_rows, seed: int = 7) -> Scenario:
    q = np.array([norm(r) for r in q_rows])
    p = np.array([norm(r) for r in p_rows])
    record = speculative_round(list(drafts), q, p, np.random.default_rng(seed))
    return Scenario("Once <i>upon</i>", (0, 7), "synthetic", seed, Sampling(), tuple(drafts), q, p,
                    record, dict(LABELS), verify_seconds=0.010, single_pass_seconds=0.004)


@pytest.fixture(scope="module")
def rejected() -> Scenario:
    """Draft 1 ("<s>") has p >= q, so it is always kept; draft 2 ("cat") has p = 0, so it is
    always rejected: the round ends on a correction, and draft 3 is never checked."""
    sc = make_scenario(
        drafts=(1, 2, 6),
        q_rows=[[1, 5, 1, 1, 1, 0.5, 0.5, 0], [2, 1, 4, 1, 1, 0.5, 0.5, 0], [1, 1, 1, 1, 1, 1, 2, 0]],
        p_rows=[[1, 6, 1, 1, 0.5, 0.5, 0, 0], [3, 1, 0, 3, 2, 0.5, 0.5, 0], [1, 1, 1, 1, 1, 1, 1, 1],
                [1, 1, 1, 1, 1, 1, 1, 1]],
    )
    rec = sc.record
    assert [c.accepted for c in rec.checks] == [True, False] and not rec.bonus
    return sc


@pytest.fixture(scope="module")
def all_kept() -> Scenario:
    """p >= q at every drafted token: all three are kept and a bonus token comes from p[3]."""
    sc = make_scenario(
        drafts=(1, 4, 7),
        q_rows=[[1, 3, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 3, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 3]],
        p_rows=[[1, 5, 1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 6, 1, 0, 0], [0, 0, 1, 1, 1, 1, 1, 6],
                [0, 6, 1, 1, 1, 1, 1, 1]],
    )
    assert sc.record.bonus and sc.record.n_accepted == GAMMA
    return sc


def strings(obj) -> list[str]:
    """Every string inside a figure's JSON (trace names, labels, texts, titles)."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in strings(v)]
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [s for v in obj for s in strings(v)]
    return []


def n_subplots(fig) -> int:
    return sum(1 for k in fig.to_plotly_json()["layout"] if k.startswith("xaxis"))


def assert_escaped(fig) -> None:
    texts = strings(fig.to_plotly_json())
    assert not any("<s>" in s for s in texts), [s for s in texts if "<s>" in s]
    assert any("&lt;s&gt;" in s for s in texts)
    assert not any("&quot;" in s or "&#x27;" in s for s in texts), [s for s in texts if "&quot;" in s]


# --- figure builders -----------------------------------------------------------------------

def test_a_label_shows_every_character_and_blank_means_nothing_shows():
    assert visible(" a\n\tb") == "␣a↵⇥b" and visible("") == "∅"
    assert visible("\u2001x\u202e\r") == "⟨U+2001⟩x⟨U+202E⟩⟨U+000D⟩"  # no empty box, no reversal
    assert visible("\u0301") == "◌\u0301" and visible("e\u0301") == "e\u0301"  # a lone accent, on ◌
    assert all(is_blank(t) for t in ("", " \n", "\u200b\u200b", "\u2001\u202e", "\r\n\u00a0"))
    assert not any(is_blank(t) for t in ("a", " \u200b.", "\u0301", "😀"))


def test_draft_chart(rejected):
    sc = rejected
    chart = figures.draft_chart(sc)
    assert len(chart.figure.data) == GAMMA + 2  # a panel's bars each, and the two keys
    drawn, other = [t for t in chart.figure.data if t.showlegend is not False]
    assert drawn.marker.color == Q_COLOR and drawn.marker.line.color == U_COLOR  # as the drawn bars
    # and as the others, so that the pale bars are named too
    panel_colors = {c for t in chart.figure.data if t.name == "q(x)" for c in t.marker.color}
    assert panel_colors == {Q_COLOR, other.marker.color}
    assert n_subplots(chart.figure) == GAMMA
    assert len(chart.figure.layout.annotations) == GAMMA  # one title per drafted position
    assert len(chart.rows) == 5 * GAMMA
    for i, t in enumerate(sc.draft_tokens):
        rows = [r for r in chart.rows if r["position"] == i + 1]
        drafted = [r for r in rows if r["drafted"]]
        assert [r["token"] for r in drafted] == [SHOWN[t]]
        assert drafted[0]["q"] == pytest.approx(sc.q_dists[i][t], abs=1e-4)
        assert sum(r["q"] for r in rows) <= 1 + 1e-6
    assert chart.alt and all(f"“{SHOWN[t]}”" in chart.alt for t in sc.draft_tokens)
    assert_escaped(chart.figure)
    # one shared scale, holding the tallest bar: bar heights compare across positions, and
    # only the first panel carries numbers
    axes = list(chart.figure.select_yaxes())
    assert len(axes) == GAMMA and all(ax.matches == "y" for ax in axes[1:])
    assert max(r["q"] for r in chart.rows) <= axes[0].range[1]
    # each panel names its own tokens under its bars, the drafted one in bold
    for i, (ax, t) in enumerate(zip(chart.figure.select_xaxes(), sc.draft_tokens)):
        assert f"<b>{figures.tick_name(LABELS[t])}</b>" in ax.ticktext and len(ax.ticktext) == 5


def test_verify_chart(rejected):
    sc = rejected
    chart = figures.verify_chart(sc)
    # q, p and min(p, q) per drafted position, p alone in the bonus slot
    assert len(chart.figure.data) == 3 * GAMMA + 1
    assert n_subplots(chart.figure) == GAMMA + 1
    assert len(chart.rows) == 5 * (GAMMA + 1)
    for r in chart.rows:
        i, t = r["position"] - 1, next(k for k, v in SHOWN.items() if v == r["token"])
        assert r["p"] == pytest.approx(sc.p_dists[i][t], abs=1e-4)
        if i < GAMMA:
            assert r["q"] == pytest.approx(sc.q_dists[i][t], abs=1e-4)
        else:  # the draft never scored the bonus slot
            assert r["q"] is None
    for i in range(GAMMA):
        beta = np.minimum(sc.p_dists[i], sc.q_dists[i]).sum()
        assert f"{beta:.2f}" in chart.alt
    # each guess with its own p and q, as the bold bars show them, and marked in the table
    t = sc.draft_tokens[0]
    assert f"“{SHOWN[t]}”: {prob_is('p', sc.p_dists[0][t])}, {prob_is('q', sc.q_dists[0][t])}, β" in chart.alt
    assert [(r["position"], r["token"]) for r in chart.rows if r["drafted"] == "yes"] == \
        [(i + 1, SHOWN[t]) for i, t in enumerate(sc.draft_tokens)]
    assert_escaped(chart.figure)
    assert_drafts_named_in_bold(chart, sc)


def assert_drafts_named_in_bold(chart, sc) -> None:
    """Every token of every panel is named (plotly would skip some on a narrow panel), and at a
    drafted position the drafted token, in bold."""
    axes = sorted((k for k in chart.figure.layout.to_plotly_json() if k.startswith("xaxis")),
                  key=lambda k: int(k[5:] or 1))
    for i, key in enumerate(axes):
        axis = chart.figure.layout[key]
        assert axis.tickmode == "array" and len(axis.tickvals) == len(axis.ticktext) == 5
        bold = [text for text in axis.ticktext if text.startswith("<b>")]
        if i < sc.gamma:
            assert bold == [f"<b>{figures.tick_name(LABELS[sc.draft_tokens[i]])}</b>"]
        else:
            assert bold == []  # the bonus slot has no draft


def test_verify_chart_shows_a_draft_outside_the_top_five():
    """Token 7 has the least mass under p and q at the first position; it was drafted, so the
    chart must still show it."""
    low = [5, 5, 5, 5, 5, 5, 5, 1]
    sc = make_scenario(drafts=(7, 0, 0), q_rows=[low, low, low], p_rows=[low, low, low, low])
    chart = figures.verify_chart(sc)
    assert SHOWN[7] in [r["token"] for r in chart.rows if r["position"] == 1]
    assert_drafts_named_in_bold(chart, sc)


def test_a_draft_from_the_tail_of_q_is_explained_under_the_draft_chart(rejected):
    """Token 7 holds 1/36 of q at the first position, outside the five the chart shows first:
    the caption says where it came from. A round of likely drafts gets no such sentence."""
    low = [5, 5, 5, 5, 5, 5, 5, 1]
    sc = make_scenario(drafts=(7, 0, 0), q_rows=[low, low, low], p_rows=[low, low, low, low])
    alt = figures.draft_chart(sc).alt
    assert f"at position 1 the 4 likeliest tokens hold 56% of q, and “{SHOWN[7]}” came from the other 44%" in alt
    assert "position 2" not in alt.split("rather than")[1]  # token 0 is among the likeliest there
    assert "rather than taking its favourites" not in figures.draft_chart(rejected).alt


def coin_points(chart):
    (scatter,) = [t for t in chart.figure.data if t.type == "scatter"]
    return list(scatter.x or ())


def test_coin_chart_shows_every_flip(rejected):
    sc = rejected
    chart = figures.coin_chart(sc)
    checks = sc.record.checks
    # two stacked bars per checked draft, one for the unchecked one, one scatter of u values
    assert len(chart.figure.data) == 2 * len(checks) + (GAMMA - len(checks)) + 1
    assert coin_points(chart) == pytest.approx([c.u for c in checks])
    assert [r["verdict"] for r in chart.rows] == ["kept", "rejected", "never checked"]
    # the guess never checked still has the p and q that one pass gave every guess
    never = chart.rows[2]
    t = sc.draft_tokens[2]
    assert (never["p"], never["q"], never["u"]) == (figures.table_number(sc.p_dists[2][t]),
                                                     figures.table_number(sc.q_dists[2][t]), figures.NO_FLIP)
    # and a small probability keeps its size: four decimals read 0.00002 as 0
    assert figures.table_number(2.345678e-5) == 2.346e-5 and figures.table_number(0.53234) == 0.5323
    for r, c in zip(chart.rows, checks):
        assert float(r["u"]) == pytest.approx(c.u, abs=1e-4)
        assert r["min(1, p/q)"] == pytest.approx(c.accept_prob, abs=1e-4)
    assert checks[1].accept_prob == 0.0 and checks[0].accept_prob == 1.0
    for c in checks:
        assert f"u = {c.u:.2f}" in chart.alt and f"“{SHOWN[c.token]}”" in chart.alt
    assert_escaped(chart.figure)
    # each u's label reads towards the middle, where there is room for it at any width
    moved = tuple(dataclasses.replace(c, u=u) for c, u in zip(checks, (0.62, 0.3)))
    chart = figures.coin_chart(dataclasses.replace(sc, record=dataclasses.replace(sc.record, checks=moved)))
    (flips,) = [t for t in chart.figure.data if t.type == "scatter"]
    assert list(flips.textposition) == ["middle left", "middle right"]
    # a u close to its line is labelled with the decimals the text alternative gives it
    close = (dataclasses.replace(checks[0], u=0.0093, accept_prob=0.0107),)
    chart = figures.coin_chart(dataclasses.replace(sc, record=dataclasses.replace(sc.record, checks=close)))
    (flips,) = [t for t in chart.figure.data if t.type == "scatter"]
    assert list(flips.text) == ["u = 0.009"] and "u = 0.009" in chart.alt


def test_coin_chart_reveal_zero_hides_every_u(rejected):
    chart = figures.coin_chart(rejected, reveal=0)
    assert coin_points(chart) == []
    assert all(r["u"] == figures.NO_FLIP for r in chart.rows)
    # nothing tells where the round ends: the third draft, never checked, looks like the others
    assert [r["verdict"] for r in chart.rows] == ["?", "?", "?"]
    assert len(chart.figure.data) == 2 * GAMMA + 1 and "never checked" not in strings(chart.figure.to_dict())
    assert all(r["min(1, p/q)"] is not None for r in chart.rows)
    assert "u =" not in chart.alt
    # every guess's chance, as the chart shows it, and no verdict
    assert chart.alt.count("not flipped yet") == GAMMA and chart.alt.count("min(1, p/q)") == GAMMA
    assert "kept" not in chart.alt and "rejected" not in chart.alt
    texts = strings(chart.figure.to_plotly_json())
    assert not any(f"{c.u:.2f}" in s for c in rejected.record.checks for s in texts)


def test_coin_chart_partial_reveal(rejected):
    chart = figures.coin_chart(rejected, reveal=1)
    first = rejected.record.checks[0]
    assert coin_points(chart) == pytest.approx([first.u])
    assert [r["verdict"] for r in chart.rows] == ["kept", "?", "?"]
    # the draft after the rejection shows the chance it would have had
    third = rejected.draft_tokens[2]
    assert chart.rows[2]["min(1, p/q)"] == pytest.approx(
        acceptance_probability(rejected.p_dists[2][third], rejected.q_dists[2][third]), abs=1e-4)


def test_correction_chart_after_a_rejection(rejected):
    sc = rejected
    rec = sc.record
    chart = figures.correction_chart(sc)
    assert n_subplots(chart.figure) == 3
    assert len(chart.figure.data) == 4  # q, p | leftover | residual
    # one scale: dividing by Z visibly scales the leftover up into r
    assert all(ax.matches == "y" for ax in list(chart.figure.select_yaxes())[1:])
    row = sc.decided_row
    assert row == 1
    residual, z = residual_distribution(sc.p_dists[row], sc.q_dists[row])
    assert rec.residual_mass == pytest.approx(z)
    drawn = [r for r in chart.rows if r["drawn"]]
    assert [r["token"] for r in drawn] == [SHOWN[rec.last_token]]
    assert residual[rec.last_token] > 0  # a correction only comes from where p > q
    for r in chart.rows:
        t = next(k for k, v in SHOWN.items() if v == r["token"])
        p, q = sc.p_dists[row][t], sc.q_dists[row][t]
        assert r["max(0, p-q)"] == pytest.approx(max(0.0, p - q), abs=1e-4)
        assert r["residual"] == pytest.approx(max(0.0, p - q) / z, abs=1e-4)
    assert chart.rows[0]["token"] == SHOWN[rec.checks[-1].token]  # the rejected draft leads
    assert f"“{SHOWN[rec.checks[-1].token]}” was rejected" in chart.alt
    assert f"“{SHOWN[rec.last_token]}”" in chart.alt and f"Z = {z:.2f}" in chart.alt
    # every token named under each panel (a phone's narrow axis would skip some), the drawn one in bold
    for axis in chart.figure.select_xaxes():
        assert axis.tickmode == "array" and len(axis.ticktext) == len(chart.rows)
        assert [t for t in axis.ticktext if t.startswith("<b>")] == [f"<b>{figures.tick_name(LABELS[rec.last_token])}</b>"]


def test_a_punctuation_token_is_named_in_quotes_under_its_bar():
    assert [figures.tick_name(t) for t in ('."', ":", "&", " the", "\n", "<s>", " .", " ", "", " 1")] == \
        ["“.\"”", "“:”", "“&amp;”", "␣the", "“↵”", "&lt;s&gt;", "“␣.”", "“␣”", "∅", "␣1"]


def test_correction_chart_says_how_much_of_r_lies_off_the_chart(rejected):
    """Where r is spread over many tokens, the bars shown hold little of it: the caption says
    how much, so that a draw landing on a low bar is no surprise."""
    assert "of r;" not in figures.correction_chart(rejected).alt  # eight tokens: all of r shown
    vocab = 40  # the draft bets on token 0, the target spreads its mass over the other 39
    sc = make_scenario(drafts=(0,), q_rows=[[30] + [1] * (vocab - 1)], p_rows=[[0] + [1] * (vocab - 1)] * 2)
    assert not sc.record.checks[0].accepted  # p = 0 at the draft: always rejected
    chart = figures.correction_chart(sc)
    shown = len(chart.rows) - 1  # the rejected draft holds none of r
    assert f"The {len(chart.rows)} tokens shown hold {shown / 39:.0%} of r; the other " \
           f"{1 - shown / 39:.0%} is spread" in chart.alt


def test_correction_chart_bonus(all_kept):
    sc = all_kept
    rec = sc.record
    chart = figures.correction_chart(sc)
    assert len(chart.figure.data) == 1 and n_subplots(chart.figure) <= 1  # one plain bar chart
    assert sc.decided_row == GAMMA
    drawn = [r for r in chart.rows if r["drawn"]]
    assert [r["token"] for r in drawn] == [SHOWN[rec.last_token]]
    for r in chart.rows:
        t = next(k for k, v in SHOWN.items() if v == r["token"])
        assert r["p"] == pytest.approx(sc.p_dists[GAMMA][t], abs=1e-4)
    assert "bonus" in chart.alt and f"“{SHOWN[rec.last_token]}”" in chart.alt
    assert_escaped(chart.figure)  # "<s>" is p[3]'s favourite token


def test_decomposition_chart_adds_up_to_p(rejected):
    p, q = rejected.p_dists[1], rejected.q_dists[1]
    tokens = list(range(V))
    chart = figures.decomposition_chart(p, q, tokens, LABELS, position=2)
    kept, corrected, target = chart.figure.data
    assert len(chart.figure.data) == 3
    assert "at drafted position 2" in chart.figure.layout.title.text  # which of the round's positions
    np.testing.assert_allclose(np.add(kept.y, corrected.y), target.y, atol=1e-9)
    np.testing.assert_allclose(target.y, p, atol=1e-12)
    np.testing.assert_allclose(kept.y, np.minimum(p, q), atol=1e-12)
    for r, t in zip(chart.rows, tokens):
        assert r["token"] == SHOWN[t]
        assert r["kept"] + r["corrected"] == pytest.approx(r["p"], abs=2e-4)
        assert r["sum"] == pytest.approx(p[t], abs=1e-4)
    assert chart.alt and "equals p" in chart.alt
    assert_escaped(chart.figure)


@pytest.mark.parametrize("x, text", [(0.0, "0.00"), (0.25, "0.25"), (1.0, "1.00"), (0.0123, "0.01"),
                                     (0.004, "0.004"), (0.0094, "0.009"), (0.0004, "<\u00a00.001"),
                                     (0.994, "0.99"), (0.996, "0.996"), (0.9996, ">\u00a00.999")])
def test_prob_text_never_rounds_a_probability_to_zero_or_one(x, text):
    assert prob_text(x) == text


def test_a_draw_and_its_threshold_never_read_as_equal():
    assert prob_pair(0.4712, 0.4698) == ("0.4712", "0.4698")  # both "0.47" at two decimals
    assert prob_pair(0.87, 0.47) == ("0.87", "0.47")
    # p 0.0037 and q 0.0042 are both "0.004": step 3 would seem to keep p = q with chance 0.88
    assert prob_pair(0.0037, 0.0042) == ("0.0037", "0.0042")
    assert prob_pair(0.1234511, 0.1234513) == ("0.1234511", "0.1234513")  # as many decimals as it takes
    assert prob_pair(0.5, 0.5) == ("0.50", "0.50")  # really equal: as prob_text writes them
    assert prob_is("u", 0.31) == "u = 0.31" and prob_is("p", 0.0001) == "p <\u00a00.001"
    assert says("min(1, p/q)", prob_text(0.0002)) == "min(1, p/q) <\u00a00.001"  # not "= < 0.001"


def test_a_coin_flip_against_a_line_shown_as_a_bound_reads_as_one_sentence():
    assert coin_comparison(0.62, 0.91, kept=True) == "u = 0.62 < min(1, p/q) = 0.91"
    assert coin_comparison(0.4712, 0.4698, kept=False) == "u = 0.4712 ≥ min(1, p/q) = 0.4698"
    # not "u = 0.06 ≥ min(1, p/q) < 0.001", two comparisons chained the wrong way round
    assert coin_comparison(0.06, 0.0002, kept=False) == "min(1, p/q) is below 0.001, and u = 0.06 is above it"


@pytest.mark.parametrize("p, q, shown", [
    (0.0343, 0.0399, ("0.0343", "0.0399")),  # "0.03 / 0.04" would give 0.75, not the 0.86 stated
    (0.0676, 0.0886, ("0.0676", "0.0886")),
    (0.004, 0.0045, ("0.00400", "0.00450")),
    (0.5, 0.2, ("0.500", "0.200")),
    (0.0, 0.3, ("0", "0.300")),
    (1e-7, 0.9, ("<\u00a00.001", "0.900")),  # a bound, as the chance it gives
    (0.99951, 0.99952, ("0.99951", "0.99952")),  # more figures until the ratio reads "> 0.999"
])
def test_p_and_q_are_shown_so_that_their_ratio_gives_the_chance_stated(p, q, shown):
    assert ratio_pair(p, q) == shown
    if not shown[0].startswith("<"):
        assert prob_text(min(1, float(shown[0]) / float(shown[1]))) == prob_text(min(1, p / q))


def test_legible_darkens_every_axis_and_panel_title(rejected):
    from lessons.style import CHART_TEXT

    for chart in (figures.verify_chart(rejected), playground_figures.position_chart([0.5, 0.2], [4, 2])):
        layout = legible(chart.figure.to_dict())["layout"]
        axes = [v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
        assert len(axes) >= 2
        assert all(a["tickfont"]["color"] == a["title"]["font"]["color"] == CHART_TEXT for a in axes)
        assert all(n["font"]["color"] == CHART_TEXT for n in layout.get("annotations", []))
    assert len(figures.verify_chart(rejected).figure.layout.annotations) == GAMMA + 1  # panel titles


def test_fixed_charts_cannot_be_zoomed_by_a_drag(rejected):
    for chart in (figures.verify_chart(rejected), figures.coin_chart(rejected)):
        spec = fixed(chart.figure.to_dict())
        axes = [k for k in spec["layout"] if k.startswith(("xaxis", "yaxis"))]
        assert len(axes) >= 2 and all(spec["layout"][k]["fixedrange"] is True for k in axes)
        assert go.Figure(spec).layout.dragmode is False  # plotly takes it as a valid figure


def test_enlarged_grows_every_text_and_leaves_the_original(rejected):
    small = figures.verify_chart(rejected).figure  # subplot titles and a height of its own
    before = small.to_json()
    big = go.Figure(enlarged(small, 1.5))  # a valid figure: plotly checks every key
    assert small.to_json() == before
    assert big.layout.font.size == pytest.approx(1.5 * small.layout.font.size)
    # taller, but no taller than a 720-pixel projector shows with the chart's title
    assert small.layout.height == 440 and big.layout.height == PROJECTOR_HEIGHT == 560
    assert go.Figure(enlarged(figures.coin_chart(rejected).figure, 1.5)).layout.height == 1.5 * 330
    assert big.layout.legend.font.size == 21 and {a.tickfont.size for a in big.select_xaxes()} == {18}
    assert [a.font.size for a in big.layout.annotations] == \
        pytest.approx([1.5 * a.font.size for a in small.layout.annotations])
    # a figure without subplots that never set its x axis (step 5's): its token names grow too
    row = rejected.decided_row
    plain = figures.decomposition_chart(rejected.p_dists[row], rejected.q_dists[row], [0, 1, 2],
                                        LABELS).figure
    assert "xaxis" not in plain.to_dict()["layout"]
    assert go.Figure(enlarged(plain, 1.5)).layout.xaxis.tickfont.size == 18
    coins = figures.coin_chart(rejected).figure  # the u labels are trace text
    (u,) = [t for t in go.Figure(enlarged(coins, 2)).data if t.name == "coin flip u"]
    assert u.textfont.size == 2 * [t for t in coins.data if t.name == "coin flip u"][0].textfont.size


def test_enlarged_grows_again_with_a_larger_screen(rejected):
    """A 1080p projector (ui/projector.py reports 1.2) grows a chart's type and its height cap
    by as much again as the page's own type grows."""
    small = figures.verify_chart(rejected).figure
    base, wide = go.Figure(enlarged(small, 1.5)), go.Figure(enlarged(small, 1.5, screen=1.2))
    assert wide.layout.font.size == pytest.approx(1.2 * base.layout.font.size)
    assert [a.tickfont.size for a in wide.select_xaxes()] == pytest.approx([18 * 1.2] * 4)  # 3 guesses, the bonus
    assert wide.layout.legend.font.size == pytest.approx(21 * 1.2)
    assert base.layout.height == PROJECTOR_HEIGHT and wide.layout.height == pytest.approx(1.2 * PROJECTOR_HEIGHT)
    coins = figures.coin_chart(rejected).figure  # under the cap: grown by both factors
    assert go.Figure(enlarged(coins, 1.5, screen=1.2)).layout.height == pytest.approx(1.8 * coins.layout.height)


def test_lifted_title_leaves_room_for_the_panel_titles_only(rejected):
    verify = figures.verify_chart(rejected).figure  # two-line panel titles
    spec = verify.to_dict()
    assert lifted_title(spec) == verify.layout.title.text
    assert "title" not in spec["layout"] and verify.layout.title.text  # the original keeps it
    panel = max(a.font.size for a in verify.layout.annotations)
    assert 2 * panel <= spec["layout"]["margin"]["t"] < verify.layout.margin.t
    big = enlarged(verify, 1.5)
    lifted_title(big)
    assert big["layout"]["margin"]["t"] >= 2 * 1.5 * panel  # the larger type gets its room
    draft = figures.draft_chart(rejected).figure.to_dict()  # one-line panel titles
    lifted_title(draft)
    assert panel <= draft["layout"]["margin"]["t"] < spec["layout"]["margin"]["t"]
    coins = figures.coin_chart(rejected).figure.to_dict()  # no panel titles: the u labels are text
    lifted_title(coins)
    assert coins["layout"]["margin"]["t"] == 10
    go.Figure(big)  # still a valid figure


def test_every_bar_stands_out_from_the_page_by_three_to_one(rejected, all_kept):
    """WCAG's 3:1 for a shape that carries meaning: each bar of the walkthrough's charts, by its
    fill or by its edge. q's orange reaches 2.25:1 alone, a coin's reject side 1.41:1."""
    charts = [figures.draft_chart(rejected), figures.verify_chart(rejected), figures.coin_chart(rejected, 3),
              figures.correction_chart(rejected), figures.correction_chart(all_kept)]
    pale = 0
    for chart in charts:
        for trace in outlined(chart.figure.to_dict())["data"]:
            if trace["type"] != "bar":
                continue
            fills = trace["marker"]["color"]
            n = len(fills) if isinstance(fills, (list, tuple)) else 1
            line = trace["marker"].get("line", {})
            per_bar = [chart_parts._per_bar(v, n) for v in (fills, line.get("color"), line.get("width") or 0)]
            seen = partial(over_white, opacity=trace.get("opacity", 1))  # a see-through trace fades whole
            for fill, edge, width in zip(*per_bar):
                edge = edge if width and str(edge).startswith("#") else fill
                pale += contrast(fill, "#ffffff") < 3
                assert max(contrast(seen(fill), "#ffffff"), contrast(seen(edge), "#ffffff")) >= 3, \
                    (trace["name"], fill, edge)
    assert pale >= 3  # the pale fills are there, and edged


def test_regridded_sets_panels_in_rows_with_their_titles(rejected):
    """A phone's copy of a chart of panels side by side: rows of two, each panel keeping its
    bars and its title over it, the rows apart, the y ticks at each row's start only."""
    verify = figures.verify_chart(rejected).figure  # four panels: three guesses and the bonus slot
    spec = verify.to_dict()
    lifted_title(spec)
    before = [(t["xaxis"], t["yaxis"], list(t["x"])) for t in spec["data"]]
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    rows = regridded(spec, 2, panel_height=150, gap=140)
    fig = go.Figure(rows)  # still a valid figure
    layout = fig.layout
    assert panel_count(rows) == 4 and [(t.xaxis, t.yaxis, list(t.x)) for t in fig.data] == before
    xs = [layout[f"xaxis{i or ''}"].domain for i in (0, 2, 3, 4)]
    ys = [layout[f"yaxis{i or ''}"].domain for i in (0, 2, 3, 4)]
    assert xs[0] == xs[2] and xs[1] == xs[3] and xs[0][1] < xs[1][0]  # two columns, apart
    assert ys[0] == ys[1] and ys[2] == ys[3] and ys[2][1] < ys[0][0]  # two rows, apart
    assert ys[0][1] == 1 and ys[2][0] == pytest.approx(0)
    plot = layout.height - spec["layout"]["margin"]["t"] - 150
    assert (ys[0][0] - ys[2][1]) * plot == pytest.approx(140)  # the gap, in pixels
    assert [layout[f"yaxis{i or ''}"].showticklabels is not False for i in (0, 2, 3, 4)] == [True, False, True, False]
    for note, x, y in zip(layout.annotations, xs, ys):  # each title centred over its own panel
        assert note.x == pytest.approx(sum(x) / 2) and note.y == y[1]
    assert [a.text for a in layout.annotations] == titles
    draft = figures.draft_chart(rejected).figure.to_dict()  # its y axis titled q(x)
    rows = go.Figure(regridded(draft, 2)).layout  # three guesses: two rows
    assert rows.yaxis.title.text == rows.yaxis3.title.text == "q(x)" and not rows.yaxis2.title.text
    assert panel_count(figures.coin_chart(rejected).figure.to_dict()) == 1


def test_exactness_tokens_show_both_routes():
    """When the draft over-sells the target's favourites, the corrected route lives on other
    tokens: the chart's tokens must include those as well as the favourites."""
    p = [4, 2, 1, 1, 1, 1, 0, 0]
    q = [6, 3, 0.5, 0.5, 0, 0, 0, 0]  # over-sells 0 and 1; tokens 4 and 5 get no draft mass
    sc = make_scenario(drafts=(0,), q_rows=[q], p_rows=[p, [1] * V])
    tokens = sc.exactness_tokens(0, 4)
    assert len(tokens) == len(set(tokens)) == 4
    assert {0, 1} <= set(tokens) and set(tokens) & {4, 5}
    assert [sc.p_dists[0][t] for t in tokens] == sorted((sc.p_dists[0][t] for t in tokens), reverse=True)
    chart = figures.decomposition_chart(sc.p_dists[0], sc.q_dists[0], tokens, LABELS)
    kept, corrected, _ = chart.figure.data
    assert max(corrected.y) > 0.05 and max(kept.y) > 0.3  # both routes visible
    assert not any(np.array(sc.top_tokens(0, 4)) >= 4)  # the plain top-4 would miss the correction


def test_monte_carlo_chart(rejected):
    p, q = rejected.p_dists[1], rejected.q_dists[1]
    freqs = montecarlo.simulate_all(p, q, 2_000, seed=3)
    tokens = list(range(6))
    chart = figures.monte_carlo_chart(p, freqs, tokens, LABELS, 2_000)
    assert len(chart.figure.data) == len(freqs) + 1
    assert [t.name for t in chart.figure.data[:-1]] == list(montecarlo.RULES)
    # the rule's bars plain, each wrong rule's patterned its own way: told apart without hue
    shapes = [t.marker.pattern.shape or "" for t in chart.figure.data[:-1]]
    assert shapes[0] == "" and "" not in shapes[1:] and len(set(shapes)) == len(shapes)
    assert len(chart.rows) == len(tokens)
    for r, t in zip(chart.rows, tokens):
        assert r["p"] == pytest.approx(p[t], abs=1e-4)
        for rule, f in freqs.items():
            assert r[rule] == pytest.approx(f[t], abs=1e-4)
    for rule, f in freqs.items():
        assert f"{rule}: {montecarlo.grouped_distance(f, p, tokens):.3f}" in chart.alt
    assert "2,000" in chart.alt
    assert_escaped(chart.figure)
    # p spans each token's whole group of bars, at p's height, under the token's name
    line = chart.figure.data[-1]
    for i, t in enumerate(tokens):
        (left, right), (y0, y1) = line.x[3 * i:3 * i + 2], line.y[3 * i:3 * i + 2]
        assert left < i - 0.4 and right > i + 0.4 and y0 == y1 == pytest.approx(p[t])
    assert list(chart.figure.layout.xaxis.ticktext) == [figures.tick_name(LABELS[t]) for t in tokens]


def test_a_token_named_by_its_bytes_is_explained_where_a_chart_shows_one(rejected):
    """Step 1 and 2 say what "⟨A8⟩" is when a drafted or shown token holds part of a character."""
    plain = figures.draft_chart(rejected).alt, figures.verify_chart(rejected).alt
    assert not any("⟨E2·80⟩" in alt for alt in plain)
    for name in ("⟨A8⟩", " ⟨F0·9F·98⟩"):  # one byte; three, after a space
        odd = dataclasses.replace(rejected, labels={**rejected.labels, 1: name})
        for chart in (figures.draft_chart(odd), figures.verify_chart(odd)):
            assert odd.label(1) in str(chart.rows)
            assert chart.alt.endswith("A name such as ⟨E2·80⟩ is a token that holds only some of a "
                                      "character's bytes, shown in hex: that character takes more than "
                                      "one token to write.")


def test_a_coin_flip_is_never_written_as_a_bound():
    """u is a draw in [0, 1): "u = < 0.001 < min(1, p/q) = 0.001" read as a slip."""
    assert coin_comparison(0.00003, 0.001049, kept=True) == "u = 0.00003 < min(1, p/q) = 0.001"
    assert coin_comparison(0.99996, 1.0, kept=True) == "u = 0.99996 < min(1, p/q) = 1.00"
    assert coin_comparison(0.99996, 0.62, kept=False) == "u = 0.99996 ≥ min(1, p/q) = 0.62"
    # nor rounded to 0 or 1 by the decimals that tell two close values apart
    assert coin_comparison(0.00001, 0.0003, kept=True) == "u = 0.00001 < min(1, p/q) = 0.0003"
    assert coin_comparison(0.99995, 0.9999, kept=False) == "u = 0.99995 ≥ min(1, p/q) = 0.9999"
    assert coin_comparison(0.0003, 0.00001, kept=False) == "u = 0.0003 ≥ min(1, p/q) = 0.00001"
    assert [wording.draw_text(u, 4) for u in (0.00002, 0.99999, 0.5, 0.0)] == ["0.00002", "0.99999",
                                                                                "0.5000", "0.0000"]


def test_shares_are_never_rounded_to_none_or_all():
    shares = (0.0, 0.004, 0.0004, 0.5, 0.998, 0.9996, 1.0, -1e-9, 1 + 1e-9)
    assert [wording.share_text(x) for x in shares] == ["0%", "0.4%", "under 0.1%", "50%", "99.8%",
                                                       "over 99.9%", "100%", "0%", "100%"]


def test_a_short_race_is_timed_to_the_hundredth_so_that_its_two_sides_can_differ():
    """1.58 s and 1.64 s both read "1.6 s" to a tenth, beside a speed-up of 1.04x."""
    assert [wording.seconds_text(x) for x in (1.58, 1.64, 0.004, 9.99, 9.996, 12.34)] == [
        "1.58 s", "1.64 s", "0.00 s", "9.99 s", "10.0 s", "12.3 s"]


def test_a_tiny_number_reads_as_a_power_of_ten():
    assert [wording.tiny_text(x) for x in (2.8e-17, 5.55e-17, 1e-300, 0.0, 3e5)] == [
        "2.8 × 10⁻¹⁷", "5.6 × 10⁻¹⁷", "1.0 × 10⁻³⁰⁰", "0", "3.0 × 10⁵"]


def test_significant_figures_count_after_rounding():
    """0.9996 to three figures is 1.00: rounding up to the next power of ten leaves one decimal
    fewer, not four figures ("1.000")."""
    assert [significant(x, 3) for x in (0.9996, 0.09996, 0.123456, 999.6, 0.0004321, 0.5)] == [
        "1.00", "0.100", "0.123", "1000", "0.000432", "0.500"]


def test_counts_are_singular_for_one():
    assert [counted(n, "token") for n in (0, 1, 2, 1234)] == ["0 tokens", "1 token", "2 tokens",
                                                                      "1,234 tokens"]
    assert [counted(n, "target pass", "target passes") for n in (1, 2)] == ["1 target pass",
                                                                           "2 target passes"]
    one = steady_alpha_note(0.53, 0.53, 0.0, "Nimbus-mini", 8192, 49152, 1, measured=0.0, checks=1)
    assert "the one text of 1 token " in one and "over this run's 1 check against" in one


def test_a_text_above_the_charts_ceiling_says_why():
    """1/(1 − α) bounds the closed form's tokens per pass at the chart's α; one short text can
    pass it with a higher α of its own, and the page says so."""
    higher = playground.above_ceiling_note(1.92, 0.54, 0.35)
    assert higher == (" This text's 1.92 tokens per pass is above the chart's ceiling at its α, "
                      "1/(1 − α) = 1/(1 − 0.350) = 1.54, which no γ passes: "
                      "this one text's own α was 0.54, against the chart's 0.35.")
    # above the ceiling only with a higher α of its own, however close: said to the decimal
    # that shows it (tokens per round never pass 1/(1 − kept / checked))
    close = playground.above_ceiling_note(1.76, 0.432, 0.4283)
    assert close.endswith("this one text's own α was 0.432, against the chart's 0.428."), close
    assert playground.above_ceiling_note(1.54, 0.54, 0.35) == ""  # at the ceiling as shown, not above
    assert playground.above_ceiling_note(1.4, 0.3, 0.0) == playground.above_ceiling_note(3, 1, 1) == ""


def test_the_gain_from_a_larger_gamma_is_set_against_a_seeds_spread_only_where_smaller():
    """At α 0.43 the closed form gains 0.02 tokens per pass from γ = 4 to 8, far less than
    another seed moves one text; at α 0.8 it gains about a whole token, and the claim is dropped."""
    assert playground.gamma_gain_clause(0.43) == (", by more than the closed form gains from γ = 4 to 8 "
                                                  "at α = 0.43 (+0.02 tokens per pass)")
    assert playground.gamma_gain_clause(0.8) == ""
    assert playground.gamma_gain_clause(0.11) == ""  # +0.00: γ hardly matters there


def test_the_seed_advice_holds_only_where_a_seed_draws_something():
    """At temperature 0 without noise every draw is the top token, so no seed moves the figures;
    with noise the draft's guesses are drawn, and above 0 a new γ changes the text too."""
    greedy = playground.seed_spread_note(0.43, 0.0, 0.0, "in the sidebar")
    assert greedy.startswith("At temperature 0 with no draft noise nothing here is drawn at random")
    assert "the whiskers on the acceptance chart say how far" in greedy  # what they are for, with no draws
    assert "try a few seeds" not in greedy
    noisy = playground.seed_spread_note(0.43, 0.0, 0.3, "in the sidebar")
    assert "another seed moves them, by more than" in noisy and "try a few seeds (in the sidebar)" in noisy
    assert "the text itself changes" not in noisy  # at temperature 0 the text is Nimbus-large's own
    assert "another text" not in noisy  # at temperature 0 the chart's text is the same for every seed
    sampled = playground.seed_spread_note(0.11, 1.0, 0.0, "in the sidebar")
    assert "another seed moves them." in sampled and "the text itself changes" in sampled
    # above temperature 0 the chart's own text is drawn too: its α moves with the seed
    assert sampled.endswith("another seed gives it another text, and its α moves too, often by a tenth: "
                            "try a few seeds (in the sidebar) to see the spread of both.")


def test_a_short_own_text_says_where_the_chart_alpha_comes_from():
    at_once = playground.short_text_note(1, "Nimbus-mini", 0.4281)
    assert at_once.startswith("Nimbus-large ends its text at once after this prompt: too few positions")
    assert "drafter table's α for Nimbus-mini (0.428, So what page)" in at_once
    few = playground.short_text_note(5, "early-exit-9", None)
    assert few.startswith("Nimbus-large's own text from this prompt ends after 5 tokens: too few")
    assert "comes from this run's own few checks and says little" in few and "mid-sentence" in few
    assert f"such as “{playground.OPEN_PROMPT}”" in few
    # the prompt left open already: no advice to type what is in the box, but another seed
    open_prompt = playground.short_text_note(5, "Nimbus-mini", 0.4281, written=9, prompt=playground.OPEN_PROMPT)
    assert open_prompt.endswith("Another seed may draw Nimbus-large a longer text of its own.")
    assert "mid-sentence" not in open_prompt
    # this run's own text, drawn apart, ran long: the prompt leaves room, and a seed is the way
    drawn_long = playground.short_text_note(6, "Nimbus-mini", 0.4281, written=48, prompt="Hi")
    assert drawn_long.endswith("This run's own text, drawn apart from Nimbus-large's, ran to 48 tokens, so the "
                               "prompt leaves room: another seed may draw Nimbus-large a longer text of its own.")
    assert "mid-sentence" not in drawn_long
    # at temperature 0 no seed draws another text: only another prompt does
    greedy_open = playground.short_text_note(5, "Nimbus-mini", 0.4281, written=5, prompt=playground.OPEN_PROMPT,
                                             greedy=True)
    assert "seed may draw" not in greedy_open and "another prompt that breaks off mid-sentence" in greedy_open
    noisy = playground.short_text_note(1, "Nimbus-mini", 0.4281, noise=0.3)
    assert "(0.428, So what page, measured without draft noise, which the chart then leaves out)" in noisy
    # at another temperature or with top-p, the table's α was measured elsewhere, and it says so
    greedy = playground.short_text_note(1, "Nimbus-mini", 0.4281, table_settings=False)
    assert "(0.428, So what page; the table samples at temperature 1 without top-p, and α differs" in greedy
    assert "temperature 1" not in at_once


def test_ceiling_text_gives_the_most_alpha_allows_and_the_alpha_that_doubles_the_speed():
    text = speed_story.ceiling_text(0.428, 0.093, "nimbus-mini")
    assert "If every check were an independent coin" in text  # a bound of the closed form only
    assert ("which approaches 1/(1 − α) as γ grows: at α = 0.428 (nimbus-mini, at temperature 1), 1.75 "
            "tokens. By that closed form, even free drafts and a one-step check would make the pair only "
            "about 1.75 times as fast") in text
    assert "It is an estimate, not a limit: α differs from one text to another" in text
    assert "1/(1 − α)" not in speed_story.ceiling_text(0.0, 0.1, "w")  # none kept: one token a pass
    assert "the γ sweep below times prompts on whose text the drafter's α is higher" in text
    needed = alpha_for_speedup(2.0, 4, 0.093)
    assert 0.68 < needed < 0.70 and text.endswith(f"would take α ≈ {needed:.2f}.")
    # worked out at the c the sentence shows: 0.09349 would give 0.695, shown as 0.70
    assert speed_story.ceiling_text(0.428, 0.09349, "nimbus-mini") == text
    assert "γ sweep" not in speed_story.ceiling_text(0.428, 0.093, "nimbus-mini", sweep=False)
    # a drafter that already doubles it, costs that no α could beat, and α = 1 (no ceiling)
    good = speed_story.ceiling_text(0.8, 0.05, "x")
    assert "its α doubles the speed" in good and "would take" not in good
    costly = speed_story.ceiling_text(0.1, 0.6, "y")
    assert "no α could double the speed at γ = 4 (drafts at c = 0.600" in costly
    assert "1/(1 − α)" not in speed_story.ceiling_text(1.0, 0.1, "z")


def test_speed_rows_are_numbered_by_the_run_that_measured_them():
    assert speed_story.run_numbers([{"run": "b"}, {"run": "a"}, {"run": "b"}]) == [1, 2, 1]
    # rows saved before they named their run: told apart by their repeats
    assert speed_story.run_numbers([{"repeats": 3}, {"repeats": 3}, {"repeats": 1}]) == [1, 1, 2]
    assert speed_story.run_numbers([{"run": "a", "repeats": 3}, {"repeats": 3}]) == [1, 2]
    assert speed_story.run_numbers([{"run": "a"}, {"run": "a"}]) == [1, 1]


def test_the_speed_caption_says_how_often_each_run_wrote_each_prompt():
    rows = [{"repeats": 3}, {"repeats": 3}, {"repeats": 1}]
    assert speed_story.repeats_text(rows, [1, 1, 2]) == (
        " Every method wrote each prompt 3 times in run 1, once in run 2.")
    assert speed_story.repeats_text(rows[:2], [1, 1]) == " Every method wrote each prompt 3 times."
    assert speed_story.repeats_text([{"repeats": 2}, {}], [1, 2]) == " Every method wrote each prompt twice."
    assert speed_story.repeats_text([{}], [1]) == ""


def test_charts_against_gamma_mark_the_speed_of_the_target_alone():
    """A speed-up below the dotted 1x line is a slowdown; the y axis says what it counts. The
    line is drawn over the data, where a line of tokens per pass near 1 would hide it."""
    rows = [{"gamma": k, "tokens_per_pass": 1.5, "tokens_per_pass_closed_form": 1.5, "speedup": 0.9,
             "speedup_closed_form": 1.1} for k in (1, 2)]
    sweep = speed_charts.sweep_chart({"rows": rows, "drafter": "d", "alpha": 0.4, "cost_ratio": 0.1})
    for chart in (sweep, playground_figures.speedup_chart(0.4, 0.1, 2)):
        layout = chart.figure.layout
        assert [(shape.y0, shape.y1, shape.layer) for shape in layout.shapes] == [(1, 1, "above")]
        assert layout.yaxis.title.text == "tokens per pass<br>or speed-up (×)"


def test_the_saved_sweep_page_is_the_chart_so_what_draws_from_the_saved_figures():
    """gamma_sweep.html, the plot the sweep saves, must not lag the page's chart code: every
    trace, title and axis title So what draws from gamma_sweep.json is in it, as Plotly writes
    it (`benchmarks/gamma_sweep.py --redraw` draws it again from the JSON)."""
    from plotly.io.json import to_json_plotly

    figure = speed_charts.sweep_chart(speed_story.load("gamma_sweep.json")).figure
    page = (speed_story.RESULTS / "gamma_sweep.html").read_text(encoding="utf-8")
    layout = figure.layout
    texts = [trace.name for trace in figure.data] + [
        layout.xaxis.title.text, layout.yaxis.title.text]
    assert len(texts) == 7 and all(texts)
    for text in texts:
        assert to_json_plotly(text) in page, text
    for trace in figure.data:
        assert to_json_plotly(list(trace.y)) in page, trace.name


def test_the_sweep_is_described_from_its_own_rows():
    def row(gamma, per_pass, closed, speedup, with_v):
        return {"gamma": gamma, "tokens_per_pass": per_pass, "tokens_per_pass_closed_form": closed,
                "speedup": speedup, "speedup_closed_form": 1.0, "speedup_closed_form_measured_verify": with_v}

    rows = [row(1, 1.40, 1.43, 1.10, 1.14), row(2, 1.61, 1.60, 1.21, 1.20), row(3, 1.90, 1.70, 1.15, 1.00)]
    assert speed_charts.sweep_alt(rows) == (
        "Blue lines count tokens per target pass, green ones speed-up. The solid lines are timed; "
        "the closed-form speed-ups divide tokens per pass by what a round costs in target steps, "
        "γc + v (γ draft steps of c each and a check of v), so the gap between blue and green is "
        "the price of drafting and checking. Measured speed-up peaks at γ = 2 (1.21x). Tokens per pass stay within 0.1 of their closed "
        "form up to γ = 2, and differ from it by up to 0.20 beyond. With the measured cost of "
        "verifying γ + 1 positions in place of one step, the closed form comes within 0.15 of the "
        "measured speed-up at every γ.")
    assert "at every γ." in speed_charts.sweep_alt(rows[:2]).split(" With")[0]
    assert "differ from their closed form by up to 0.20." in speed_charts.sweep_alt(rows[2:])


def test_speedup_and_position_charts():
    chart = playground_figures.speedup_chart(0.8, 0.1, 4)
    assert len(chart.figure.data) == 3  # tokens per pass, speed-up, your γ
    assert [r["γ"] for r in chart.rows] == list(range(1, 9))
    assert chart.rows[3]["tokens per pass"] == pytest.approx(expected_tokens_per_round(0.8, 4), abs=1e-3)
    assert "γ =" in chart.alt
    assert chart.alt.endswith("However large γ is, at this α the closed form keeps tokens per pass below "
                             "1/(1 − α) = 1/(1 − 0.800) = 5.00.")  # α to three places, as the check needs
    # the y axis ends at a tick above the highest line: each line read between two ticks
    for a in (0.8, 0.45, 0.1):
        fig = playground_figures.speedup_chart(a, 0.1, 4).figure
        top, step, highest = fig.layout.yaxis.range[1], fig.layout.yaxis.dtick, max(max(t.y) for t in fig.data)
        assert step in (0.5, 1.0) and highest < top <= highest + step and (top / step).is_integer(), (a, top, highest)
    assert "1/(1 − α)" not in playground_figures.speedup_chart(1.0, 0.1, 4).alt  # every draft kept: no bound
    assert "1/(1 − α)" not in playground_figures.speedup_chart(0.0, 0.1, 4).alt  # none kept: exactly 1
    # nor "below 1.00" beside a measured 1.00, as at full draft noise (α about 1/49,152)
    assert "1/(1 − α)" not in playground_figures.speedup_chart(1 / 49_152, 0.1, 4).alt
    assert playground_figures.speedup_chart(0.01, 0.1, 4).alt.endswith("1/(1 − α) = 1/(1 − 0.010) = 1.01.")
    assert len(playground_figures.speedup_chart(0.8, 0.1, 20).figure.data) == 2  # γ off the chart: no marker

    # a checking pass that costs more as γ grows moves the peak to a smaller γ
    verify = {k: 1.0 + 0.3 * (k - 1) for k in range(1, 9)}
    chart = playground_figures.speedup_chart(0.8, 0.1, 4, verify=verify)
    assert [t.name for t in chart.figure.data][-2:] == [chart_parts.MEASURED_CHECK, "your γ"]
    here = [r[playground_figures.MEASURED] for r in chart.rows]
    assert here[3] == pytest.approx(expected_speedup(0.8, 4, 0.1, 1.9), abs=1e-3)
    assert chart.figure.data[-1].y[0] == pytest.approx(here[3], abs=1e-3)
    best_here = 1 + int(np.argmax(here))
    assert best_here < 1 + int(np.argmax([r["speed-up, check = 1 step"] for r in chart.rows]))
    assert f"at the measured costs peaks at γ = {best_here}" in chart.alt
    assert f"At your γ = 4 it is {here[3]:.2f}x." in chart.alt  # not the peak: said where it stands
    # a drafter that never pays off is not said to peak
    slow = playground_figures.speedup_chart(0.1, 0.5, 4, verify=verify)
    assert max(r[playground_figures.MEASURED] for r in slow.rows) < 1
    assert "peaks" not in slow.alt
    assert "slower at the measured costs than Nimbus-large alone at every γ" in slow.alt
    assert "loses least at γ = 1 (" in slow.alt

    chart = playground_figures.position_chart((0.75, 0.5, 1.0, float("nan")), (4, 2, 1, 0))
    assert len(chart.figure.data) == 1
    assert list(chart.figure.data[0].x) == ["1<br>4×", "2<br>2×", "3<br>1×", "4<br>0×"]
    # never checked: no bar and no whisker (a dash at 0 would read as checked and never kept)
    assert chart.figure.data[0].y[3] is None
    assert chart.figure.data[0].error_y.array[3] is None and chart.figure.data[0].error_y.arrayminus[3] is None
    assert chart.figure.data[0].error_y.array[2] == 0 < chart.figure.data[0].error_y.arrayminus[2]
    assert [r["kept when checked"] for r in chart.rows] == [0.75, 0.5, 1.0, None]
    assert chart.alt == ("Acceptance by position: 1: 0.75 (4 checks), 2: 0.50 (2 checks), "
                         "3: 1.00 (1 check), 4: – (0 checks). Position k is checked only when the "
                         "guesses before it were all kept, so later positions are checked less often, "
                         "and their rates, resting on fewer checks, say less. The whiskers are 90% "
                         "Wilson confidence intervals for a position's chance of a keep, as if each "
                         "check were an independent coin with that chance (in fact the chance moves "
                         "along the text).")
    one = playground_figures.position_chart((0.4,), (10,))  # γ = 1: no later positions to speak of
    assert one.alt.startswith("Acceptance by position: 1: 0.40 (10 checks). The whiskers are 90%")


# --- Monte Carlo ---------------------------------------------------------------------------

N_MC = 200_000  # rounds per rule
# The total variation of N_MC exact samples of P_MC from P_MC itself (4 live tokens) averages
# 0.0014; its 99.9 % quantile is 0.0039 and its 99.99 % quantile 0.0045 (100,000 multinomial
# draws, numpy seed 123). A correct rule stays below 0.005 except about 1 time in 30,000; a rule
# whose output is 0.009 or more from p is caught at least 999 times in 1,000 (triangle
# inequality), where a threshold of 0.01 let rules up to 0.014 away through.
TV_MC = 0.005
P_MC = np.array([0.5, 0.25, 0.15, 0.1, 0.0])
Q_MC = np.array([0.1, 0.1, 0.2, 0.3, 0.3])


def test_accept_or_correct_reproduces_p():
    freq = montecarlo.simulate(P_MC, Q_MC, N_MC, np.random.default_rng(0))
    assert freq.sum() == pytest.approx(1.0)
    assert montecarlo.total_variation(freq, P_MC) < TV_MC
    np.testing.assert_allclose(output_distribution(P_MC, Q_MC), P_MC, atol=1e-12)


@pytest.mark.parametrize("rule, exact_tv", [
    ("accept every draft", 0.55),  # outputs q
    ("resample from p on reject", 0.1375),  # outputs min(p, q) + (1 - beta) p
])
def test_wrong_rules_miss_p(rule, exact_tv):
    freq = montecarlo.simulate(P_MC, Q_MC, N_MC, np.random.default_rng(1), rule)
    tv = montecarlo.total_variation(freq, P_MC)
    assert tv > 0.05
    assert tv == pytest.approx(exact_tv, abs=0.01)
    # the closed form the page quotes beside the simulation, worked out by hand above
    assert montecarlo.total_variation(montecarlo.exact_output(P_MC, Q_MC, rule), P_MC) == pytest.approx(exact_tv)


def test_the_rule_exactly_gives_p():
    np.testing.assert_allclose(montecarlo.exact_output(P_MC, Q_MC), P_MC, atol=1e-12)
    with pytest.raises(ValueError):
        montecarlo.exact_output(P_MC, Q_MC, "accept if you like it")


def test_the_shortcuts_errors_are_bounded_by_beta():
    """Resampling from p is off by at most β(1 − β), which is small where β is near 0 or 1, and
    accepting every draft by exactly 1 − β: the bounds the hidden-shortcut note leans on. The
    first bound is reached (p and q with disjoint tops)."""
    rng = np.random.default_rng(7)
    for _ in range(500):
        p, q = rng.dirichlet(np.full(12, 0.3)), rng.dirichlet(np.full(12, 0.3))
        beta = float(np.minimum(p, q).sum())
        resampled = montecarlo.total_variation(montecarlo.exact_output(p, q, montecarlo.RULES[2]), p)
        assert resampled <= beta * (1 - beta) + 1e-12, (resampled, beta)
        accepted = montecarlo.total_variation(montecarlo.exact_output(p, q, montecarlo.RULES[1]), p)
        assert accepted == pytest.approx(1 - beta)
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])
    assert montecarlo.total_variation(montecarlo.exact_output(p, q, montecarlo.RULES[2]), p) == \
        pytest.approx(0.25)


def test_a_shortcut_that_chance_hides_is_named_and_not_ranked():
    p = np.array([0.5, 0.3, 0.2, 0.0, 0.0])
    shown = [0, 1, 2]
    # beta = 0.01: nearly every draft is rejected, and resampling from p is 0.008 from p
    hopeless = np.array([0.0, 0.0, 0.01, 0.49, 0.5])
    assert montecarlo.hidden_shortcuts(p, hopeless, shown, reach=0.02) == {
        "resample from p on reject": pytest.approx(0.008)}
    assert montecarlo.hidden_shortcuts(p, hopeless, shown, reach=0.006) == {}
    # beta = 0.99: accepting every draft is 0.01 from p, resampling from p 0.005
    nearly_p = np.array([0.49, 0.3, 0.2, 0.01, 0.0])
    assert montecarlo.hidden_shortcuts(p, nearly_p, shown, reach=0.02) == {
        "accept every draft": pytest.approx(0.01), "resample from p on reject": pytest.approx(0.005)}
    # errors of 0.55 and 0.1375 stand out of any sensible noise
    assert montecarlo.hidden_shortcuts(P_MC, Q_MC, [0, 1, 2, 3], reach=0.04) == {}

    # the reason is beta where beta explains it (each shortcut is off by at most beta (1 - beta) or 1 - beta)
    chance = montecarlo.ChanceRange(typical=0.01, low=0.004, high=0.02)
    note = steps.hidden_shortcut_note({"resample from p on reject": 0.008}, 0.01, 10_000, chance)
    assert "β = 0.010" in note and "hardly ever kept" in note and "as Nimbus-mini usually is" in note
    assert "“resample from p on reject”'s true distance (0.008 from p, worked out with the tokens not shown as " \
           "one bucket) is within what chance alone often gives at 10,000 draws (up to 0.020)" in note
    assert "rank it against the rule" in note
    both = steps.hidden_shortcut_note({"accept every draft": 0.01, "resample from p on reject": 0.005},
                                      0.99, 1_000, chance)
    assert "q is almost p" in both and " are within" in both and "rank them" in both
    # a small β explains only resampling from p: accepting every draft is then off by nearly 1,
    # and where lumping the unshown tokens hides that, the reason is the draws, not β
    lumped = steps.hidden_shortcut_note({"accept every draft": 0.015}, 0.01, 10_000, chance)
    assert "hardly ever kept" not in lumped and lumped.startswith("At 10,000 draws perfect samples")
    # and the draws where they are too few: at 100 draws chance hides a shortcut at beta 0.5 too
    few = steps.hidden_shortcut_note({"resample from p on reject": 0.1}, 0.495, 100,
                                     montecarlo.ChanceRange(typical=0.073, low=0.035, high=0.118))
    assert few.startswith("At 100 draws perfect samples of p land 0.073 from p on average, and between "
                          "0.035 and 0.118 in 9 runs out of 10.")
    assert "β =" not in few and few.endswith("More draws tell them apart.")
    most = steps.hidden_shortcut_note({"resample from p on reject": 0.1}, 0.495, 100_000,
                                      montecarlo.ChanceRange(typical=0.073, low=0.035, high=0.118), False)
    assert most.endswith("More draws than this page simulates would tell them apart.")
    assert steps.hidden_shortcut_note({}, 0.5, 10_000, chance) == ""


def test_step_5_says_when_the_rule_lands_above_the_chance_range():
    """1 run in 20 of an exact rule lands above the 9-in-10 range: said, with the figures, and
    nothing said inside the range."""
    chance = montecarlo.ChanceRange(typical=0.006, low=0.003, high=0.012)
    note = steps.unlucky_rule_note(0.013, chance)
    # at the slider's most draws, only another seed is left to try
    most = steps.unlucky_rule_note(0.013, chance, more_draws=False)
    assert "another seed usually brings it back inside, where" in most and "more draws" not in most
    assert note.startswith("This time accept-or-correct itself lands above that range (0.013 against "
                           "up to 0.012).") and "1 run in 20, at any number of draws" in note
    assert note.endswith("a wrong rule's error stays (and with more draws stands further out).")
    assert steps.unlucky_rule_note(0.012, chance) == ""
    assert steps.unlucky_rule_note(0.001, chance) == ""  # below the range is no failure
    # above the range's top by less than the shown digits: at its edge, as the figures read
    assert steps.unlucky_rule_note(chance.high + 0.0004, chance) == ""


def test_the_chance_range_holds_nine_runs_in_ten():
    """The range step 5 shows beside the rules: 200 simulations of the exact rule, each of 1,000
    draws with its own seed, land inside it about 9 times in 10 (binomial sd 0.021 at 200: the
    bounds are over 3 sd away), and its typical value shrinks with more draws, as 1/sqrt(n)."""
    shown = [0, 1, 2]
    chance = montecarlo.chance_range(P_MC, shown, 1_000, seed=0)
    assert chance.low < chance.typical < chance.high
    inside = [chance.low <= montecarlo.grouped_distance(
        montecarlo.simulate(P_MC, Q_MC, 1_000, np.random.default_rng(s)), P_MC, shown) <= chance.high
        for s in range(200)]
    assert 0.8 <= np.mean(inside) <= 0.97
    many = montecarlo.chance_range(P_MC, shown, 100_000, seed=0)
    assert many.typical == pytest.approx(chance.typical / 10, rel=0.25)


def test_simulate_all_is_reproducible_and_checks_the_rule():
    a = montecarlo.simulate_all(P_MC, Q_MC, 1_000, seed=5)
    b = montecarlo.simulate_all(P_MC, Q_MC, 1_000, seed=5)
    assert list(a) == list(montecarlo.RULES)
    for rule in a:
        np.testing.assert_array_equal(a[rule], b[rule])
    with pytest.raises(ValueError):
        montecarlo.simulate(P_MC, Q_MC, 10, np.random.default_rng(0), "accept if you like it")


def test_step_5s_check_measures_each_rule_as_the_page_shows_it():
    """Step 5's figures in one place: the rule is exact token by token, accepting every draft is
    off by 1 - β and resampling from p by at most β(1 - β); the simulated distances are those of
    the simulated frequencies, and at 100,000 draws only the exact rule lands within chance."""
    shown = [0, 1, 2]
    check = montecarlo.check_exactness(P_MC, Q_MC, shown, 100_000, seed=4)
    beta = float(np.minimum(P_MC, Q_MC).sum())
    assert check.beta == pytest.approx(beta) and check.rounds == 100_000
    assert check.exact["accept-or-correct"] < 1e-12
    assert check.exact["accept every draft"] == pytest.approx(1 - beta)
    assert 0.05 < check.exact["resample from p on reject"] <= beta * (1 - beta) + 1e-12
    for rule, freq in check.freqs.items():
        assert check.distances[rule] == montecarlo.grouped_distance(freq, P_MC, shown)
    assert check.distances["accept-or-correct"] < 3 * check.chance.high
    assert min(d for rule, d in check.distances.items() if rule != "accept-or-correct") > 10 * check.chance.high
    assert check.hidden == {}  # both shortcuts are far outside chance here


def test_the_rules_are_simulated_from_the_same_random_numbers():
    """Where no rule can differ, none does by luck: a draft that never agrees with the target
    (β = 0) leaves the residual equal to p, so the exact rule and resampling from p come out
    draw for draw alike; a draft equal to the target keeps every draft, as accepting every
    draft does. Elsewhere the rules still differ."""
    p = np.array([0.5, 0.3, 0.2, 0.0, 0.0])
    apart = montecarlo.simulate_all(p, np.array([0.0, 0.0, 0.0, 0.6, 0.4]), 2_000, seed=7)
    np.testing.assert_array_equal(apart["accept-or-correct"], apart["resample from p on reject"])
    same = montecarlo.simulate_all(p, p, 2_000, seed=7)
    np.testing.assert_array_equal(same["accept-or-correct"], same["accept every draft"])
    mixed = montecarlo.simulate_all(P_MC, Q_MC, 2_000, seed=7)
    assert not np.array_equal(mixed["accept-or-correct"], mixed["resample from p on reject"])


# --- code lesson ---------------------------------------------------------------------------

def test_every_anchor_is_in_the_running_source():
    assert code_lesson.missing_anchors() == []
    assert code_lesson.missing_anchors("def f():\n    pass\n") == list(code_lesson.ANCHORS)


def test_a_tiny_leftover_mass_reads_as_itself_in_the_code(rejected):
    """Z beside the residual line: three significant figures, so that a rejection whose leftover
    is tiny does not read "Z = 0.000", a division by zero."""
    from dataclasses import replace
    tiny = replace(rejected, record=replace(rejected.record, residual_mass=0.000123))
    assert code_lesson._residual(tiny) == "Z = 0.000123"
    usual = replace(rejected, record=replace(rejected.record, residual_mass=0.5061))
    assert code_lesson._residual(usual) == "Z = 0.506"


def test_a_coin_flip_and_its_line_never_read_as_equal_in_the_code():
    assert code_lesson._apart(0.4712, 0.4698) == ("0.471", "0.470")
    assert code_lesson._apart(0.47123, 0.47119) == ("0.47123", "0.47119")
    assert code_lesson._apart(1.0, 1.0) == ("1.00", "1.00")
    assert code_lesson._apart(1.02e-6, 0.6) == ("0.00000102", "0.600")  # decimals, as the walkthrough


def test_annotate_marks_the_check_line_with_u(rejected):
    rows = code_lesson.annotate(code_lesson.round_source(), rejected)
    (notes,) = [n for line, n in rows if line.strip().startswith("check = check_draft(")]
    checks = rejected.record.checks
    assert len(notes) == len(checks) > 1  # one note per coin flip
    for c, note in zip(checks, notes):
        assert f"u = {significant(c.u, 3)}" in note and f"min(1, {significant(c.p, 3)}/{significant(c.q, 3)})" in note
        assert note.endswith("keep" if c.accepted else "reject")
    annotated = {line.strip(): n for line, n in rows if n}
    assert len(annotated) == len(code_lesson.ANCHORS)
    assert any("Z = " in n[0] for n in annotated.values())
    text = code_lesson.annotated_source(rejected)
    assert text.count("◀") == len(code_lesson.ANCHORS) - 1 + len(checks)
    code = [line.split("    # ◀")[0] for line in text.splitlines() if not line.lstrip().startswith("# ◀")]
    assert code == code_lesson.round_source().splitlines()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("check = check_draft("))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    assert lines[at + 1: at + 1 + len(checks)] == [f"{indent}# ◀ {n}" for n in notes]
    # for a projector every note gets a line of its own, the code lines stay as they are
    apart = code_lesson.annotated_source(rejected, apart=True).splitlines()
    assert [line for line in apart if not line.lstrip().startswith("# ◀")] == code_lesson.round_source().splitlines()
    assert sum("◀" in line for line in apart) == text.count("◀")
    assert max(map(len, apart)) <= 80  # so few lines of it wrap on a projector
    at = next(i for i, line in enumerate(apart) if line.strip().startswith("for i, x in"))
    body = apart[at + 2]  # the note, then the loop's first line: at the same indentation
    assert apart[at + 1].lstrip().startswith("# ◀ drafts:")
    assert len(apart[at + 1]) - len(apart[at + 1].lstrip()) == len(body) - len(body.lstrip())


def test_a_lone_note_too_long_to_stand_beside_its_line_gets_a_line_of_its_own():
    """A round that rejects its first draft has one coin flip: its note beside the check's line
    would run past the columns the code page gives that layout."""
    sc = make_scenario(drafts=(2, 1, 6), q_rows=[[1, 1, 4, 1, 1, 0.5, 0.5, 0]] * 3,
                       p_rows=[[3, 1, 0, 3, 2, 0.5, 0.5, 0]] * 4)
    assert len(sc.record.checks) == 1 and not sc.record.checks[0].accepted
    lines = code_lesson.annotated_source(sc).splitlines()
    assert max(map(len, lines)) <= code_lesson.BESIDE_COLUMNS
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("check = check_draft("))
    assert "◀" not in lines[at] and lines[at + 1].lstrip().startswith("# ◀ #1 ")
    assert any(not line.lstrip().startswith("#") and "    # ◀ " in line for line in lines)  # others beside


def test_annotate_bonus_round(all_kept):
    text = code_lesson.annotated_source(all_kept)
    assert "not reached: every draft was kept" in text
    assert f"bonus “{SHOWN[all_kept.record.last_token]}”" in text


# --- steps ---------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["rejected", "all_kept"])
def test_step_texts_count_the_rounds_own_guesses(which, request):
    """These rounds drafted 3 tokens (a round that drafts end-of-text has fewer than γ): the
    questions and bodies say three, never the walkthrough's four."""
    sc = request.getfixturevalue(which)
    assert sc.gamma == 3
    question, body = step(2).text(sc)
    assert question == "How does the big model check three guesses in one pass?"
    assert "all three guesses in a **single forward pass**" in body
    texts = [part for n in range(1, 6) for part in step(n).text(sc)]
    assert not any("{" in t or "four guesses" in t for t in texts)
    assert ("This round kept all three guesses" in step(4).text(sc)[1]) == sc.record.bonus
    # and they name the round's own draft model
    assert f"\n\nThe draft model, {sc.drafter_label}, is cheap" in step(1).text(sc)[1]
    # a draft of one token (end-of-text at once) is one guess, in the singular
    one = dataclasses.replace(sc, draft_tokens=sc.draft_tokens[:1])
    question, body = step(2).text(one)
    assert question == "How does the big model check one guess in one pass?"
    assert "the prompt and the one guess in a **single forward pass**" in body
    assert ("If the one guess were kept" in step(4).text(one)[1]) != sc.record.bonus
    assert " in 1 quick pass, one after another. " in step(1).takeaway(one)
    assert "scored the one guess plus a bonus slot" in step(2).takeaway(one)
    assert "With fresh coin flips this draft would give" in step(5).takeaway(one)
    if sc.record.bonus:
        assert step(3).takeaway(one) == "The one guess survived its coin flip, so it is kept."
        # step 4's takeaway counts what the round bought: γ + 1 tokens for one pass
        assert step(4).takeaway(sc).startswith(
            "This round gets 4 tokens from one pass of Nimbus-large, the most 3 guesses can buy: "
            "the 3 kept guesses, and “")
        bought = dataclasses.replace(one, record=dataclasses.replace(sc.record, tokens=sc.record.tokens[-2:]))
        assert step(4).takeaway(bought).startswith(
            "This round gets 2 tokens from one pass of Nimbus-large, the most one guess can buy: the "
            "one kept guess, and “")
    assert not any(" 1 guesses" in t or " 1 drafts" in t for n in range(1, 6) for t in step(n).text(one))
    # a round whose first guess is rejected gives one token: it, not each of them
    first_out = dataclasses.replace(sc, record=dataclasses.replace(sc.record, tokens=sc.record.tokens[:1]))
    assert step(5).takeaway(first_out).startswith(
        "This round gave 1 token for one target pass, and it follows Nimbus-large's distribution")
    assert step(5).takeaway(sc).startswith(f"This round gave {len(sc.record.tokens)} tokens for one "
                                           "target pass, each following")
    other = dataclasses.replace(sc, drafter="early-exit-4")
    assert "\n\nThe draft model, early-exit-4, is cheap" in step(1).text(other)[1]


@pytest.mark.parametrize("which", ["rejected", "all_kept"])
def test_all_five_takeaways_render(which, request):
    sc = request.getfixturevalue(which)
    assert [s.number for s in STEPS] == [1, 2, 3, 4, 5]
    texts = [step(n).takeaway(sc) for n in range(1, 6)]
    for text in texts:
        assert isinstance(text, str) and len(text) > 20
        assert "{" not in text and "nan" not in text.lower()
    rec = sc.record
    n = len(rec.tokens)
    assert f"“{SHOWN[sc.draft_tokens[0]]}”" in texts[0]
    # one pass over gamma + 1 positions against gamma + 1 single passes of 4 ms
    assert "in 10 ms, 2.5 times as long as a pass over one position (4 ms)" in texts[1]
    assert "that one pass buys 4 tokens, which Nimbus-large alone writes in 4 passes (about 4 × 4 = 16 ms)" in texts[1]
    # the sum is worked from the time as shown: 4 × 57 is 228, though 4 × 56.7 rounds to 227
    slower = step(2).takeaway(dataclasses.replace(sc, single_pass_seconds=0.0567))
    assert "(57 ms)" in slower and "4 passes (about 4 × 57 = 228 ms)" in slower
    assert f"gave {n} tokens for one target pass" in texts[4]
    keeps = [acceptance_probability(sc.p_dists[i][t], sc.q_dists[i][t])
             for i, t in enumerate(sc.draft_tokens)]
    assert f"these 3 drafts would give {expected_tokens_given_drafts(keeps):.2f} tokens on average" in texts[4]
    assert "The acceptance rate of" not in texts[4]  # the synthetic drafter has no measured alpha
    if rec.bonus:
        assert "All 3 guesses survived" in texts[2]
        assert "which that pass scored anyway" in texts[3] and f"“{SHOWN[rec.last_token]}”" in texts[3]
    else:
        bad = rec.checks[-1]
        assert f"“{SHOWN[bad.token]}” was rejected" in texts[2] and f"u = {bad.u:.2f}" in texts[2]
        assert texts[2].startswith("1 guess is kept.")  # one kept, in plain English
        assert "the guess after it was built on it and is dropped without a coin flip" in texts[2]
        assert f"Z = {rec.residual_mass:.2f}" in texts[3]


def test_step_2_times_the_fastest_of_the_turns_it_names(monkeypatch):
    asked = []
    monkeypatch.setattr(lessons.scenario.quality, "pass_seconds", lambda *a: asked.append(a) or (2.0, 1.0))
    assert lessons.scenario.pass_seconds("pair", [5, 6], [7, 8, 9]) == (2.0, 1.0)
    assert asked == [("pair", [5, 6, 7, 8, 9], 4, lessons.scenario.TIMED_TURNS, np.min)]
    assert f"fastest of {lessons.scenario.TIMED_TURNS} tries" in step(2).takeaway(make_scenario(
        drafts=(1, 2, 6), q_rows=[[1] * V] * 3, p_rows=[[1] * V] * 4))


@pytest.mark.parametrize("verify, said", [(0.0131, "1.3 times as long as"), (0.0104, "about as long as"),
                                           (0.0096, "about as long as"), (0.0061, "no longer than")])
def test_step_2_never_calls_the_longer_pass_the_cheaper_one(rejected, verify, said):
    """Timings scatter on a busy machine; a pass over four positions that happened to run faster
    than a pass over one is not reported as a fraction of it, nor as about as long where it
    took clearly less."""
    text = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=verify, single_pass_seconds=0.010))
    assert f"{said} a pass over one position (10 ms)" in text and "0.9 times" not in text


def test_step_2_works_its_ratio_out_from_the_milliseconds_it_shows(rejected):
    """57.6 ms over 46.4 ms is 1.24, but the page shows 58 and 46, whose ratio is 1.26: a reader
    who divides them must get what the sentence says."""
    text = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=0.0576, single_pass_seconds=0.0464))
    assert "in 58 ms, 1.3 times as long as a pass over one position (46 ms)" in text


def test_step_2_names_the_swept_cost_where_a_busy_server_timed_the_check_far_from_it(rejected):
    """A check timed at 2.2 single passes on a loaded server would contradict the lesson that
    checking costs little more than one step; the γ sweep's median is named beside it,
    and only where the two stray by more than BUSY_GAP."""
    quiet = speed_story.saved_verify_costs()[rejected.gamma]
    far = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=0.010 * (quiet + 1),
                                               single_pass_seconds=0.010))
    assert (f"The γ sweep on the So what page, the median of many tries, timed such a pass at "
            f"{quiet:.2f} times") in far
    near = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=0.010 * (quiet + 0.15),
                                                single_pass_seconds=0.010))
    assert "median of many tries" not in near
    just_over = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=0.010 * (quiet + 0.25),
                                                     single_pass_seconds=0.010))
    assert "median of many tries" in just_over  # the gap is 0.2, not wider
    on_gpu = step(2).takeaway(dataclasses.replace(rejected, verify_seconds=0.010 * (quiet + 1),
                                                  single_pass_seconds=0.010, timed_on="cuda"))
    assert "median of many tries" not in on_gpu  # the sweep ran on a CPU: a GPU's pass is another machine


def test_a_correction_the_draft_could_never_have_drafted_says_why():
    """Step 4 names why the replacement had q = 0 (a reduced head, top-p, temperature 0), since
    min(1, p/q) at q = 0 would otherwise puzzle; a full-vocabulary drafter at plain settings
    never gives an exact 0 and says nothing."""
    sc = make_scenario(drafts=(1, 2, 6), q_rows=[[1, 5, 1, 1, 1, 0.5, 0.5, 0], [1, 1, 4, 1, 1, 1, 1, 0], [1] * V],
                       p_rows=[[1, 6, 1, 1, 0.5, 0.5, 0, 0], [0] * 7 + [1], [1] * V, [1] * V])
    assert sc.record.n_accepted == 1 and sc.record.last_token == 7 and sc.q_dists[1][7] == 0
    assert "q = 0" not in step(4).takeaway(sc)
    said = {(drafter, sampling): step(4).takeaway(dataclasses.replace(sc, drafter=drafter, sampling=sampling))
            for drafter in ("nimbus-mini", "early-exit-4")
            for sampling in (Sampling(), Sampling(top_p=0.9), Sampling(temperature=0))}
    head = ("Nimbus-mini's output layer scores only 8,192 of the 49,152 tokens, those that held the most "
            "of Nimbus-large's probability in the text it was trained on")
    assert said["nimbus-mini", Sampling()].endswith(
        f"The draft gave “{SHOWN[7]}” q = 0, so it is never drafted: only a correction or a bonus token can "
        f"bring it into the text. Why q = 0: {head}.")
    assert f"Why q = 0: top-p cut it, or {head}." in said["nimbus-mini", Sampling(top_p=0.9)]
    assert "Why q = 0: top-p cut it from the draft's choices." in said["early-exit-4", Sampling(top_p=0.9)]
    assert "q = 0" not in said["early-exit-4", Sampling()]
    for drafter in ("nimbus-mini", "early-exit-4"):
        assert "Why q = 0: at temperature 0 each model gives all" in said[drafter, Sampling(temperature=0)]


def test_a_rejected_last_guess_has_nothing_after_it():
    """The last of three drafts has p = 0: the first two are kept (p >= q), the third rejected."""
    sc = make_scenario(drafts=(1, 4, 2), q_rows=[[1, 3, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 3, 1, 1, 1],
                                                 [1, 1, 5, 1, 1, 1, 1, 1]],
                       p_rows=[[1, 5, 1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 6, 1, 0, 0], [1, 1, 0, 1, 1, 1, 1, 1],
                               [1, 1, 1, 1, 1, 1, 1, 1]])
    assert sc.record.n_accepted == 2 and sc.record.checks[-1].position == 2
    text = step(3).takeaway(sc)
    assert "2 guesses are kept" in text and "it was the last guess" in text
    assert "after it" not in text


def test_the_exactness_takeaway_names_the_drafters_measured_average(rejected):
    from specdec_core.quality import drafter_table

    alpha = {r.drafter: r.alpha for r in drafter_table()}["nimbus-mini"]
    text = step(5).takeaway(dataclasses.replace(rejected, drafter="nimbus-mini"))
    average = expected_tokens_per_round(alpha, 3)
    assert f"The acceptance rate of Nimbus-mini is α = {alpha:.3f}" in text
    assert f"a round would give 1 + α + α² + α³ = {average:.2f} tokens on average." in text
    # worked from the α shown, the closed form gives the average shown
    shown = float(text.split("α = ")[1][:5])
    assert f"{expected_tokens_per_round(shown, 3):.2f}" == f"{average:.2f}"
    # the table's alpha is at temperature 1: at another temperature the clause is left out
    cooler = dataclasses.replace(rejected, drafter="nimbus-mini", sampling=Sampling(temperature=0.5))
    assert "The acceptance rate of" not in step(5).takeaway(cooler)


def test_the_exactness_takeaway_says_when_a_round_was_easier_or_harder_than_most(rejected, all_kept):
    """A round whose drafts would give half a token or more above (or below) the drafter's
    average says so, so that 3.01 beside 1.72 does not read as a contradiction."""
    from specdec_core.quality import drafter_table

    average = expected_tokens_per_round({r.drafter: r.alpha for r in drafter_table()}["nimbus-mini"], 3)
    for sc in (rejected, all_kept):
        keeps = [acceptance_probability(sc.p_dists[i][t], sc.q_dists[i][t]) for i, t in enumerate(sc.draft_tokens)]
        these = expected_tokens_given_drafts(keeps)
        text = step(5).takeaway(dataclasses.replace(sc, drafter="nimbus-mini"))
        remark = (f"were {'easier' if these > average else 'harder'} to get right than that average "
                  f"({these:.2f} against")
        assert (remark in text) == (abs(these - average) >= 0.5), (these, average, text)
    easy = step(5).takeaway(dataclasses.replace(all_kept, drafter="nimbus-mini"))
    assert "easier to get right than that average" in easy  # every draft has p ≥ q: all 4 tokens expected
    assert "all the same" not in easy  # and all 4 came


def test_the_exactness_takeaway_says_when_the_coins_went_against_easy_drafts(all_kept):
    """Easy drafts whose coins still fell badly (a round that gave 1 token where 3 or more were
    expected) are told as luck, not left beside "easier than the average" unexplained."""
    from specdec_core.quality import drafter_table

    alpha = {r.drafter: r.alpha for r in drafter_table()}["nimbus-mini"]
    average = expected_tokens_per_round(alpha, all_kept.gamma)
    sc = dataclasses.replace(all_kept, drafter="nimbus-mini")
    # the same drafts, their first refused: one token came, a correction
    unlucky = dataclasses.replace(sc, record=dataclasses.replace(sc.record, tokens=sc.record.tokens[:1]))
    text = step(5).takeaway(unlucky)
    assert text.startswith("This round gave 1 token for one target pass")
    assert ("easier to get right than that average" in text
            and "; its coin flips went against them all the same, and it gave 1 token." in text), \
        (average, text)


def test_the_draft_takeaway_shows_a_guess_drawn_from_below_the_top(rejected):
    """Step 1 shows that the draft samples: the first guess that was not q's likeliest token is
    named beside that token; a draft that took its top token at every position gets no such
    sentence."""
    assert all(int(q.argmax()) == t for q, t in zip(rejected.q_dists, rejected.draft_tokens))
    assert "Sampled, not its favourite" not in step(1).takeaway(rejected)
    # the second guess drawn from below its top token (token 2, q = 4/10.5), and the third too
    below = dataclasses.replace(rejected, draft_tokens=(1, 0, 5))
    q = below.q_dists
    assert step(1).takeaway(below).endswith(
        f" Sampled, not its favourite: at guess 2 it drew “{SHOWN[0]}” (q = {q[1][0]:.2f}) where “{SHOWN[2]}” "
        f"had q = {q[1][2]:.2f}.")


def test_step_out_of_range():
    for bad in (0, 6, -1):
        with pytest.raises(ValueError):
            step(bad)


# --- playground summary --------------------------------------------------------------------

def check(position: int, accepted: bool) -> DraftCheck:
    return DraftCheck(position, 1, 0.5, 0.5 if accepted else 0.0, 1.0 if accepted else 0.0,
                      0.3, accepted)


def record(outcomes: list[bool], gamma: int = 3) -> RoundRecord:
    """A round whose checks went as `outcomes` (stopping at the first False)."""
    checks = tuple(check(i, ok) for i, ok in enumerate(outcomes))
    bonus = all(outcomes) and len(outcomes) == gamma
    n_tokens = sum(outcomes) + 1
    return RoundRecord((1,) * gamma, checks, (1,) * n_tokens, None if bonus else 1.0, bonus)


def test_wilson_interval_covers_the_true_rate_nine_times_in_ten():
    wilson = playground_figures.wilson_interval
    # closed forms at the edges: 0 of n has upper bound z²/(n + z²), n of n the mirror image
    z2 = 1.645 ** 2
    assert wilson(0, 3) == pytest.approx((0.0, z2 / (3 + z2)))
    assert wilson(3, 3) == pytest.approx((3 / (3 + z2), 1.0))
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(13, 26)
    assert low < 0.5 < high and high - low < wilson(3, 6)[1] - wilson(3, 6)[0]  # more checks, narrower
    # coverage: 4,000 seeded runs of 20 checks at rate 0.4; a 90 % interval's coverage, give or
    # take the discreteness of 20 coins (Wilson's runs 0.87 to 0.93 here) and 4,000 runs' noise
    kept = np.random.default_rng(3).binomial(20, 0.4, size=4000)
    covered = np.mean([lo <= 0.4 <= hi for lo, hi in (wilson(k, 20) for k in kept)])
    assert 0.86 <= covered <= 0.95


def test_acceptance_by_position_shows_how_far_each_rate_could_be_off():
    chart = playground_figures.position_chart([0.58, 0.5, 0.14, 0.0], [26, 14, 7, 1])
    bar = chart.figure.data[0]
    assert list(bar.x) == ["1<br>26×", "2<br>14×", "3<br>7×", "4<br>1×"]
    spans = [up + down for up, down in zip(bar.error_y.array, bar.error_y.arrayminus)]
    assert spans == sorted(spans)  # fewer checks, wider whiskers
    assert all(0 <= r - d and r + u <= 1 for r, u, d in zip(bar.y, bar.error_y.array, bar.error_y.arrayminus))
    assert chart.rows[3]["90% interval"] == "0.00 to %.2f" % (1.645 ** 2 / (1 + 1.645 ** 2))
    assert "90% Wilson confidence intervals" in chart.alt


def test_summarize_per_position_rates():
    rounds = [record([True, False]), record([True, True, True]), record([False]),
              record([True, True, False])]
    s = summarize(rounds, 3)
    assert s.checked == (4, 3, 2)
    assert s.by_position == pytest.approx((3 / 4, 2 / 3, 1 / 2))
    assert s.alpha == pytest.approx(6 / 9)
    assert s.tokens_per_round == pytest.approx((2 + 4 + 1 + 3) / 4)
    assert s.expected_tokens_per_round == pytest.approx(expected_tokens_per_round(6 / 9, 3))
    assert s.rounds == 4
    # a token limit that cut the last round short: only the tokens written count
    assert summarize(rounds, 3, written=8).tokens_per_round == pytest.approx(8 / 4)


def test_summarize_prices_each_round_at_the_drafts_it_made():
    """Near the token limit a round drafts fewer than γ: the closed form beside the measured
    tokens per round counts that round at its own number of drafts."""
    rounds = [record([True, False]), record([True, True, True]), record([True], gamma=1)]
    s = summarize(rounds, 3)
    assert s.alpha == pytest.approx(5 / 6)
    assert s.expected_tokens_per_round == pytest.approx(
        (2 * expected_tokens_per_round(5 / 6, 3) + expected_tokens_per_round(5 / 6, 1)) / 3)


def test_a_closed_form_below_the_plain_one_says_why():
    """The plain closed form prices every round at γ: where short last rounds pull the metric's
    closed form below it, the caption names both figures; where they agree, nothing."""
    rounds = [record([True, False]), record([True, True, True]), record([True], gamma=1)]
    s = summarize(rounds, 3)
    plain = expected_tokens_per_round(s.alpha, 3)
    note = short_rounds_note(s, 3)
    assert (f"“Closed form, this run's α” ({s.expected_tokens_per_round:.2f}) prices these rounds as they "
            f"were cut, below (1 − α^(γ+1)) / (1 − α) = {plain:.2f} at γ = 3") in note
    assert short_rounds_note(summarize(rounds[:2], 3), 3) == ""


def test_the_steady_alpha_note_names_both_figures_and_why_noise_can_raise_alpha():
    plain = steady_alpha_note(0.45, 0.45, 0.0, "Nimbus-mini", 8192, 49152, 48)
    assert plain.startswith("α on Nimbus-large's own text: 0.45, the α the speed-up chart is priced at.")
    assert "one text of 48 tokens" in plain and "noise raises" not in plain
    noisy = steady_alpha_note(0.32, 0.45, 0.5, "Nimbus-mini", 8192, 49152, 48)
    assert "0.32 at noise 0.5 (0.45 without noise)" in noisy and "noise raises" not in noisy
    raised = steady_alpha_note(0.49, 0.37, 0.9, "Nimbus-mini", 8192, 49152, 48)
    assert "Here noise raises α" in raised and "(its output layer covers 8,192 of the 49,152 tokens)" in raised
    assert "output layer" not in steady_alpha_note(0.2, 0.1, 0.9, "early-exit-4", 49152, 49152, 48)
    # at full noise every drafter is the same uniform guesser: said, not explained by its head
    uniform = steady_alpha_note(0.49, 0.37, 1.0, "Nimbus-mini", 8192, 49152, 48)
    assert "At noise 1 q is the uniform distribution whatever the drafter" in uniform
    assert "output layer" not in uniform and "noise raises" not in uniform
    assert "moves with the noise alone" in uniform and "moves with the drafter" not in uniform
    # a poor drafter's α as shown, with and without noise: the slider did something, and says so
    level = steady_alpha_note(0.112, 0.108, 0.5, "early-exit-4", 49152, 49152, 48)
    assert "Here noise hardly moves α" in level and "noise raises" not in level
    assert "hardly moves" not in plain and "hardly moves" not in noisy and "hardly moves" not in raised
    # a drafter that never agrees (α 0 as shown): nothing for the blend to take, nothing said
    assert "hardly moves" not in steady_alpha_note(0.001, 0.0, 0.5, "early-exit-4", 49152, 49152, 48)
    # sampled: the run's text and the chart's both move with the seed
    assert "also moves with the luck of each new text" in plain
    assert "alone while the seed stays (another seed gives another text, and this α moves with it" in plain
    # the run wrote this very text (temperature 0, no noise): no luck, only positions not checked
    same = steady_alpha_note(0.56, 0.56, 0.0, "Nimbus-mini", 8192, 49152, 48, 0.54, 46, True, True)
    assert "luck" not in same and "comes from this same text, but counts only the positions" in same
    assert "seed stays" not in same  # at temperature 0 every seed's text is the same
    # noise at temperature 0: the guesses are drawn, the text is not
    guessed = steady_alpha_note(0.3, 0.56, 0.5, "Nimbus-mini", 8192, 49152, 48, 0.3, 46, True, True)
    assert "luck of the noisy draft's guesses, though at temperature 0 the text itself" in guessed
    assert "new text" not in guessed
    # rounding tipped a near-tie: another text, still nothing drawn
    tipped = steady_alpha_note(0.56, 0.56, 0.0, "Nimbus-mini", 8192, 49152, 48, 0.54, 46, False, True)
    assert "luck" not in tipped and "where rounding tipped a near-tie" in tipped
    # with noise, or above temperature 0, the drafts are random draws, even on the same text
    assert "luck" in steady_alpha_note(0.3, 0.56, 0.5, "Nimbus-mini", 8192, 49152, 48, 0.3, 46, True, True)
    assert "luck" in steady_alpha_note(0.56, 0.56, 0.0, "Nimbus-mini", 8192, 49152, 48, 0.5, 46, True, False)
    # far apart on the same text, nothing drawn: the bonus positions, not coin flips
    far = steady_alpha_note(0.5, 0.5, 0.0, "Nimbus-mini", 8192, 49152, 48, 1.0, 24, True, True)
    assert "this run never checked the positions its bonus tokens filled" in far and "coin" not in far


def test_every_way_a_token_comes_has_its_own_colour_and_underline():
    """In the race's key, a bonus token and Nimbus-large's own text look different, in colour
    and without it."""
    assert len(set(ORIGIN_COLORS.values())) == len(ORIGIN_COLORS)
    assert len(set(ORIGIN_LINES.values())) == len(ORIGIN_LINES)


def test_the_steady_alpha_note_says_when_the_runs_own_alpha_is_far_from_it():
    near = steady_alpha_note(0.45, 0.45, 0.0, "Nimbus-mini", 8192, 49152, 48, measured=0.40, checks=30)
    far = steady_alpha_note(0.53, 0.53, 0.0, "Nimbus-mini", 8192, 49152, 48, measured=0.04, checks=46)
    assert "far apart" not in near
    assert "far apart (0.04 over this run's 46 checks against 0.53)" in far
    assert "far apart" not in steady_alpha_note(0.53, 0.53, 0.0, "Nimbus-mini", 8192, 49152, 48)
    assert "another text" in far
    # at temperature 0 the run writes that very text: the difference is in what it counts
    same = steady_alpha_note(0.53, 0.53, 0.0, "Nimbus-mini", 8192, 49152, 48, measured=0.2, checks=20,
                             same_text=True, greedy=True)
    assert "another text" not in same and "never checked the positions its bonus tokens filled" in same
    # the same text with random drafts (noise, say): each position one coin flip
    drawn = steady_alpha_note(0.53, 0.53, 0.5, "Nimbus-mini", 8192, 49152, 48, measured=0.2, checks=20,
                              same_text=True, greedy=True)
    assert "another text" not in drawn and "checked each position once, with one random draft" in drawn


def test_a_result_is_said_in_words_for_a_screen_reader():
    assert passes_said("Reply written", 57, 31) == ("Reply written: 57 tokens in 31 passes of Nimbus-large, "
                                                    "which alone needs one pass a token.")
    assert passes_said("Written", 1, 1) == ("Written: 1 token in 1 pass of Nimbus-large, "
                                            "which alone needs one pass a token.")
    lane = partial(race_record.Finished, pieces=(), origins=(), drafted=0)
    race = race_record.Race("", "nimbus-mini", 4, 0.0, 48, lane("Nimbus-large alone", ids=(0,) * 48, passes=48, seconds=1.6),
                            lane("Nimbus-mini drafts, Nimbus-large checks", ids=(0,) * 48, passes=26, seconds=0.8))
    assert race_notes.race_said(race) == (
        "Race finished. Nimbus-large alone: 48 tokens in 1.60 s. Nimbus-mini drafts, Nimbus-large checks: "
        "48 tokens in 0.80 s, 1.85 tokens per pass of Nimbus-large. Speed-up 2.00x.")


def test_a_races_prompt_in_its_table_reads_forwards():
    """A direction character in a prompt turned the table's cell to read backwards: it shows as
    its code point, as a token made of one does; the cut still comes at 40 characters."""
    assert race_record.short_prompt("\u202eevil <b>bold</b>\n  plain") == "⟨U+202E⟩evil <b>bold</b> plain"
    assert race_record.short_prompt("a\u200bb") == "a⟨U+200B⟩b"
    cut = race_record.short_prompt("word " * 20)
    assert cut.endswith("…") and len(cut) == 40
    # the marks count towards the 40, and none is cut through
    marked = race_record.short_prompt("\u200b" * 10)
    assert marked == "⟨U+200B⟩" * 4 + "…" and len(marked) <= 40


def test_the_same_text_note_holds_the_check_at_temperature_0_only():
    assert same_text_note(0.0, True).endswith("Checked against it, it is.")
    assert "rounding tipped the choice" in same_text_note(0.0, False)
    assert "checked" not in same_text_note(1.0, True) and "at temperature 0" in same_text_note(1.0, False)


def test_summarize_caps_each_rounds_closed_form_where_the_count_is_capped():
    """The measured count keeps at most what a round could keep: what the token limit left
    (one token left: the round drafts one and keeps one), and no bonus after an end-of-text
    draft. The closed form beside it is capped the same way."""
    # as the engine drafts them under a limit of 7: 3 drafts, then 2 (3 tokens left), then 1
    rounds = [record([True, True, True]), record([True, False], gamma=2), record([True], gamma=1)]
    alpha = 5 / 6  # 5 of 6 checks kept
    first_two = expected_tokens_per_round(alpha, 3) + expected_tokens_per_round(alpha, 2)
    # 4 + 2 tokens before the last round; a limit of 7 leaves it one
    s = summarize(rounds, 3, written=7, max_new_tokens=7)
    assert s.tokens_per_round == pytest.approx(7 / 3)
    assert s.expected_tokens_per_round == pytest.approx((first_two + 1) / 3)
    # uncapped, the last round would be priced at 1 + alpha
    assert summarize(rounds, 3).expected_tokens_per_round == pytest.approx((first_two + 1 + alpha) / 3)
    # a round whose last draft is end-of-text (token 1 here) keeps at most its drafts
    (kept_eos,) = [record([True, True, True])]
    capped = summarize([kept_eos], 3, eos=1).expected_tokens_per_round
    assert capped == pytest.approx(expected_tokens_per_round(1.0, 2)) == pytest.approx(3.0)


def test_a_bonus_after_fewer_than_gamma_drafts_is_explained():
    """Near the limit the last round drafts fewer than γ; keeping them all earns a bonus token
    that the caption explains, unless the limit cut that bonus off."""
    # a limit of 7 at γ 3: 4 tokens, then 2 left: the last round drafts 1, keeps it, adds a bonus
    rounds = [record([True, True, True]), record([True], gamma=1)]
    assert playground.short_bonus_note(rounds, 3, 6, written=6) == (
        "; the last round drafted 1 token, not γ = 3, as the 6-token limit left room for 2, and "
        "kept it, so its bonus token came after that one kept draft")
    two = [record([False]), record([True, True], gamma=2)]
    assert "drafted 2 tokens, not γ = 3" in playground.short_bonus_note(two, 3, 4, written=4)
    assert "after 2 kept drafts" in playground.short_bonus_note(two, 3, 4, written=4)
    # one token left: the round drafts one and keeps it, and the limit drops its bonus
    assert playground.short_bonus_note(rounds, 3, 5, written=5) == ""
    # a round that drafted γ, or that rejected a draft, needs no word
    assert playground.short_bonus_note([record([True, True, True])], 3, 4, written=4) == ""
    assert playground.short_bonus_note([record([False], gamma=1)], 3, 1, written=1) == ""


def test_summarize_unchecked_position_is_nan_and_empty_is_an_error():
    s = summarize([record([False]), record([True, False])], 3)
    assert s.checked == (2, 1, 0)
    assert s.by_position[:2] == pytest.approx((0.5, 0.0)) and math.isnan(s.by_position[2])
    with pytest.raises(ValueError):
        summarize([], 3)


# --- layering ------------------------------------------------------------------------------

def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package, forbidden", [("lessons", {"streamlit"}),
                                               ("specdec_core", {"streamlit", "plotly"})])
def test_no_streamlit_below_the_ui(package, forbidden):
    """The library draws nothing; the lessons build figures but never a page."""
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    offenders = [str(f.relative_to(ROOT)) for f in files if forbidden & imported_roots(f)]
    assert offenders == []


def test_the_sampling_rule_does_not_import_torch():
    roots = imported_roots(ROOT / "specdec_core" / "sampling.py")
    assert "numpy" in roots
    assert "torch" not in roots and "transformers" not in roots


def test_grouped_distance_sees_the_rule_not_the_unseen_tail():
    """Over a wide vocabulary the raw distance of exact samples is large; grouped, it is small."""
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.full(5000, 0.05))
    tokens = list(np.argsort(-p)[:6])
    n = 10_000  # samples, as in the walkthrough's default
    freq = np.bincount(rng.choice(len(p), size=n, p=p), minlength=len(p)) / n
    assert montecarlo.total_variation(freq, p) > 3 * montecarlo.grouped_distance(freq, p, tokens)
    assert montecarlo.grouped_distance(freq, p, tokens) < 0.03
    assert montecarlo.chance_range(p, tokens, n, seed=1).high < 0.03


def test_verify_cost_note_reads_both_machines():
    from lessons.speed_story import verify_cost_note

    cpu = {1: 1.06, 4: 1.36}
    alone = verify_cost_note(cpu, None)
    assert "costs 1.36 passes over one" in alone and "H200" not in alone
    gpu = {"device": "NVIDIA H200", "verify_cost": {"1": 1.24, "4": 1.22, "8": 1.26}}
    both = verify_cost_note(cpu, gpu)
    assert "on an NVIDIA H200" in both and "1.22 to 1.26" in both and "too small" in both
    free = verify_cost_note(cpu, {"device": "NVIDIA H200", "verify_cost": {"1": 1.0, "4": 0.98, "8": 1.03}})
    assert "0.98 to 1.03" in free and "It holds on an NVIDIA H200" in free and "too small" not in free
    # a fixed extra cost per check is spread over a round's drafts: it favours a larger γ
    assert "favours a larger γ" in both and "favours a larger γ" not in free


def test_the_saved_charts_table_views_name_their_columns_in_words():
    """So what's table views read as words, not as the results files' keys."""
    sweep = speed_charts.sweep_chart(speed_story.load("gamma_sweep.json"))
    stops = speed_charts.early_stop_chart(speed_story.load("early_stop.json"))
    for chart in (sweep, stops):
        names = list(chart.rows[0])
        assert "γ" in names and not any("_" in name for name in names), names
    assert {"tokens per pass, closed form", "speed-up, measured"} <= set(sweep.rows[0])
    assert {"early stop below", "modelled speed-up"} <= set(stops.rows[0])


def test_a_closed_form_is_drawn_alike_on_the_playground_and_so_what():
    """A reader who learns on So what that solid is measured and dotted or dashed a closed form
    reads the playground's chart, where every line is a closed form, the same way."""
    sweep = speed_charts.sweep_chart(speed_story.load("gamma_sweep.json")).figure
    verify = {k: 1.0 + 0.1 * k for k in range(1, 9)}
    play = playground_figures.speedup_chart(0.45, 0.09, 4, verify=verify).figure
    lines = {t.name: t.line.dash or "solid" for t in sweep.data}
    assert lines["speed-up, measured"] == "solid" and lines["tokens per target pass, measured"] == "solid"
    drawn = [t for t in play.data if t.mode != "markers"]
    assert [t.name for t in drawn] == [chart_parts.TOKENS_CLOSED_FORM, chart_parts.ONE_STEP_CHECK,
                                      chart_parts.MEASURED_CHECK]
    for t in drawn:
        assert t.line.dash == lines[t.name] != "solid", t.name


def test_a_tapped_value_reads_as_the_page_writes_numbers():
    """A hovered or tapped point shows three significant digits on every y axis (the stored
    0.5769231 and its error bar's ends otherwise), and a line's whole name."""
    chart = speed_charts.early_stop_chart(speed_story.load("early_stop.json")).figure
    axes = [chart.layout[key] for key in chart.layout if key.startswith("yaxis")]
    assert len(axes) == 2 and all(axis.hoverformat == ".3~g" for axis in axes)
    assert chart.layout.hoverlabel.namelength == -1


def test_early_stop_chart_draws_one_line_per_stop_from_gamma_1():
    from lessons.speed_charts import early_stop_chart

    def row(t, g, stop, x):
        return {"temperature": t, "gamma": g, "stop_below": stop, "modelled_speedup": x,
                "drafts_per_round": 1.0, "tokens_per_pass": 1.5}

    rows = [row(t, 1, 0.0, 1.3 - t / 10) for t in (0.0, 1.0)]
    for t in (0.0, 1.0):
        rows += [row(t, 4, 0.0, 1.0), row(t, 8, 0.0, 0.8 - t / 10), row(t, 4, 0.5, 1.2), row(t, 8, 0.5, 1.25)]
    chart = early_stop_chart({"rows": rows, "cost_ratio": 0.1})
    lines = chart.figure.data
    assert len(lines) == 4  # (off, below 0.5) × (greedy, temperature 1)
    for line in lines:
        assert list(line.x) == [1, 4, 8]  # every threshold starts where one draft cannot stop earlier
    assert [line.name for line in lines if line.showlegend] == ["early stop off", "early stop below 0.5"]
    assert "greedy: 0.80x at γ = 8" in chart.alt and "temperature 1: 0.70x at γ = 8" in chart.alt
    assert "greedy: 1.30x at γ = 1, stop off" in chart.alt
    assert "temperature 1: 1.25x at γ = 8, stop below 0.5)" in chart.alt  # 1.20x without a stop
    assert len(chart.rows) == len(rows)
    # a stop that only ties, as shown, with the best γ without one is not sold as a gain
    rows[1] = row(1.0, 1, 0.0, 1.248)
    tie = early_stop_chart({"rows": rows, "cost_ratio": 0.1}).alt
    assert "temperature 1: 1.25x at γ = 8, stop below 0.5, matched by γ = 1 without one)" in tie


@pytest.mark.parametrize("passes, said", [
    (1, "made only 1 target pass: one lucky"), (7, "made only 7 target passes"),
    (race_notes.FEW_PASSES, "One race is one sample")])
def test_a_race_too_short_to_measure_says_so(passes, said):
    assert said in race_notes.race_note(passes)
    if passes < race_notes.FEW_PASSES:
        assert "Raise Tokens" in race_notes.race_note(passes)
        assert "The pair's text ended early, at an end-of-text token" in race_notes.race_note(passes, ended_early=True)


def test_a_side_that_ends_its_text_early_is_named():
    alone, pair = ("Nimbus-large alone", 49), ("Nimbus-mini drafts, Nimbus-large checks", 160)
    note = race_notes.ended_note((alone, pair), 160)
    assert note.startswith("“Nimbus-large alone” ended its text after 49 of 160 tokens,") and "checks" not in note
    assert "so its bar stops there" in note
    assert race_notes.ended_note((pair, pair), 160) == ""
    # both: each name in quotes, so that the pair's comma does not read as a list; two bars
    both = race_notes.ended_note((alone, (pair[0], 60)), 160)
    assert "49 of 160 tokens and “Nimbus-mini drafts, Nimbus-large checks” ended its text after 60 of 160" in both
    assert "so their bars stop there" in both


def test_at_temperature_0_a_race_does_not_send_the_reader_to_the_seed():
    """Greedy text is the same for every seed: only another prompt writes another text."""
    alone = ("Nimbus-large alone", 9)
    assert race_notes.ended_note([alone], 160).endswith("another prompt or seed gives both sides the whole length.")
    assert race_notes.ended_note([alone], 160, greedy=True).endswith("another prompt gives both sides the whole length.")
    assert "another prompt writes more" in race_notes.race_note(2, ended_early=True, greedy=True)
    assert "seed" not in race_notes.race_note(2, ended_early=True, greedy=True)
    assert "seed" not in race_notes.race_note(race_notes.FEW_PASSES, greedy=True)
    assert "another seed" in race_notes.race_note(race_notes.FEW_PASSES)


def test_a_lost_race_is_worked_out_from_the_measured_costs():
    note = race_notes.slower_note(1.78, 3.9, 4, 0.1, 1.55)
    # a round: 3.9 drafts at 0.1 plus a check at 1.55 = 1.94 passes, for 1.78 tokens: 0.92x
    assert "the pass that checks 4 drafts about 1.55 passes" in note
    assert "3.9 × 0.10 + 1.55 = 1.94 passes and bought 1.78 tokens: 0.92x" in note
    # worked from the figures as shown: 3.84 × 0.104 + 1.546 is 1.945, but 3.8 × 0.10 + 1.55 = 1.93
    assert "3.8 × 0.10 + 1.55 = 1.93 passes" in race_notes.slower_note(1.78, 3.84, 4, 0.104, 1.546)
    assert race_notes.slower_note(1.78, 3.9, 4, None, 1.55) == "" == race_notes.slower_note(1.78, 3.9, 4, 0.1, None)
    # a race whose own clocks disagree with the count says so, one within a race's scatter as
    # scatter, and one that agrees as shown says nothing more
    assert "This race's own clocks gave 0.99x: So what's costs" in race_notes.slower_note(1.33, 3.5, 4, 0.1, 1.55, raced=0.99)
    near = race_notes.slower_note(1.78, 3.9, 4, 0.1, 1.55, raced=0.95)
    assert "own clocks gave 0.95x, within the tenth or two a race moves from run to run." in near
    assert "own clocks" not in race_notes.slower_note(1.78, 3.9, 4, 0.1, 1.55, raced=0.92)


def test_a_lost_race_with_the_early_stop_prices_the_check_at_the_drafts_a_round_averaged():
    note = race_notes.slower_note(1.09, 1.7, 4, 0.1, 1.07, raced=0.71, stopped=True)
    assert ("the pass that checks 1.7 drafts (a round's average here, with the early stop) about 1.07 "
            "passes. A round of 1.7 drafts so cost about 1.7 × 0.10 + 1.07 = 1.24 passes") in note
    assert "with a smaller γ or a higher early stop, waste less" in note
    # rounds of about one draft each cannot draft fewer: the drafter is what loses
    weak = race_notes.slower_note(1.0, 1.14, 8, 0.27, 1.1, raced=0.76, stopped=True)
    assert "already drafted 1.1 tokens on average" in weak and "a better one (Draft model" in weak
    assert "higher early stop" not in weak
    # the γ sweep's costs read between the whole numbers around the average
    costs = {1: 1.0, 2: 1.1, 4: 1.3}
    assert speed_story.verify_cost_for(1.7, costs) == pytest.approx(1.07)
    assert speed_story.verify_cost_for(3.0, costs) == pytest.approx(1.2)
    assert speed_story.verify_cost_for(2.0, {}) is None


def test_a_lost_race_the_costs_say_was_won_blames_the_clocks_not_the_drafts():
    # 3.8 drafts at 0.09 plus a check at 1.20 = 1.54 passes, for 1.85 tokens: 1.20x
    note = race_notes.slower_note(1.85, 3.8, 4, 0.09, 1.2, raced=0.97)
    assert note.startswith("By the costs on the So what page the pair should not have lost:")
    assert "= 1.54 passes and bought 1.85 tokens: 1.20x by that count." in note
    assert "It lost on this race's own clocks (0.97x)" in note
    assert "Why the pair lost" not in note and "smaller γ" not in note
    # a count of exactly 1.00x, as shown, is a draw, not a loss
    assert "should not have lost" in race_notes.slower_note(1.5, 3.0, 4, 0.1, 1.2, raced=0.9)
    # where the two texts ended at different lengths, the clocks' figure is said to reflect that too
    uneven = race_notes.slower_note(1.5, 3.0, 4, 0.1, 1.2, raced=0.71, uneven=True)
    assert "Its two texts also ended at different lengths (above)" in uneven
    assert "different lengths" not in race_notes.slower_note(1.5, 3.0, 4, 0.1, 1.2, raced=0.71)
    assert "different lengths" in race_notes.slower_note(1.78, 3.9, 4, 0.1, 1.55, raced=0.5, uneven=True)
    won = race_notes.gain_note(1.3, 3.9, 4, 0.1, 1.55, raced=1.1, uneven=True)  # by the count a loss
    assert "should have lost" in won and "different lengths" in won


def test_a_race_the_pair_won_prices_its_rounds_as_a_loss_does():
    # 3.8 drafts at 0.09 plus a check at 1.20 = 1.54 passes, for 1.85 tokens: 1.20x
    note = race_notes.gain_note(1.85, 3.8, 4, 0.09, 1.2, raced=1.12)
    assert note == ("Why 1.85 tokens per target pass made the pair only 1.12x as fast: each round also "
                    "pays for its drafts and its check. By the costs on the So what page, a draft step "
                    "costs about 0.09 of a Nimbus-large pass, and the pass that checks 4 drafts about "
                    "1.20 passes. A round of 3.8 drafts (on average: the last rounds drafted fewer than "
                    "4, as the tokens left ran out) so cost about 3.8 × 0.09 + 1.20 = 1.54 passes "
                    "and bought 1.85 tokens: 1.20x by that count. This race's own clocks gave 1.12x, "
                    "within the tenth or two a race moves from run to run.")
    assert "This race's own clocks gave 1.00x: So what's costs" in race_notes.gain_note(1.85, 3.8, 4, 0.09, 1.2, raced=1.0)
    # without the early stop, fewer drafts than γ per round come from the last rounds only
    assert "(on average: the last rounds drafted fewer than 4, as the tokens left ran out)" in note
    full = race_notes.gain_note(1.85, 4.0, 4, 0.09, 1.2, raced=1.12)
    assert "A round of 4.0 drafts so cost" in full and "on average" not in full
    assert race_notes.gain_note(1.85, 3.8, 4, None, 1.2, raced=1.1) == ""
    # all its tokens per pass, as shown: no "only"
    assert race_notes.gain_note(1.85, 3.8, 4, 0.09, 1.2, raced=1.848) == ""
    # the count says it should have lost: the win is the clocks', not a small gain
    won = race_notes.gain_note(1.30, 4.0, 4, 0.1, 1.2, raced=1.05)
    assert won.startswith("By the costs on the So what page the pair should have lost:")
    assert "0.81x by that count. It won on this race's own clocks (1.05x)" in won and "only" not in won
    # one draft, singular
    assert "the pass that checks 1 draft about 1.05 passes" in race_notes.gain_note(1.5, 1.0, 1, 0.1, 1.05, raced=1.2)


def test_a_race_faster_than_its_passes_allow_says_it_was_noise():
    assert race_notes.overshoot_note(1.5, 1.66) == "" and race_notes.overshoot_note(1.66, 1.66) == ""
    note = race_notes.overshoot_note(2.06, 1.66)
    assert "(2.06x against 1.66)" in note and "timing noise" in note


# --- what each chart draws: its bars against the numbers they stand for ----------------------

def bars(fig: go.Figure, name: str) -> list:
    return [t for t in fig.data if t.type == "bar" and t.name == name]


def token_ids_of(rows: list[dict]) -> list[int]:
    """The token ids of a chart's table rows, from the labels they are shown by."""
    return [next(k for k, shown in SHOWN.items() if shown == r["token"]) for r in rows]


def test_verify_chart_draws_p_q_and_their_overlap(rejected):
    """Each panel's bars are p, q and min(p, q) of its own position, and its title gives β, the
    sum of min(p, q) over the whole vocabulary (not over the tokens drawn)."""
    sc = rejected
    chart = figures.verify_chart(sc)
    titles = [a.text for a in chart.figure.layout.annotations]
    for i in range(sc.gamma + 1):
        toks = token_ids_of([r for r in chart.rows if r["position"] == i + 1])
        p = sc.p_dists[i][toks]
        np.testing.assert_allclose(bars(chart.figure, "p (target)")[i].y, p, atol=1e-12)
        if i < sc.gamma:
            q = sc.q_dists[i][toks]
            np.testing.assert_allclose(bars(chart.figure, "q (draft)")[i].y, q, atol=1e-12)
            np.testing.assert_allclose(bars(chart.figure, "min(p, q)")[i].y, np.minimum(p, q), atol=1e-12)
            beta = np.minimum(sc.p_dists[i], sc.q_dists[i]).sum()
            assert titles[i].endswith("<br>" + prob_is("β", beta).replace("<", "&lt;"))


def test_draft_chart_draws_q(rejected):
    traces = [t for t in figures.draft_chart(rejected).figure.data if t.name == "q(x)"]
    assert len(traces) == rejected.gamma
    for i, trace in enumerate(traces):
        toks = token_ids_of([r for r in figures.draft_chart(rejected).rows if r["position"] == i + 1])
        np.testing.assert_allclose(trace.y, rejected.q_dists[i][toks], atol=1e-12)


def test_correction_chart_draws_the_leftover_and_r_divided_by_z(rejected):
    sc = rejected
    chart = figures.correction_chart(sc)
    p, q = sc.p_dists[sc.decided_row], sc.q_dists[sc.decided_row]
    r, z = residual_distribution(p, q)
    toks = token_ids_of(chart.rows)
    leftover = np.maximum(0, p - q)[toks]
    np.testing.assert_allclose(bars(chart.figure, "q (draft)")[0].y, q[toks], atol=1e-12)
    np.testing.assert_allclose(bars(chart.figure, "p (target)")[0].y, p[toks], atol=1e-12)
    np.testing.assert_allclose(bars(chart.figure, "max(0, p − q)")[0].y, leftover, atol=1e-12)
    np.testing.assert_allclose(bars(chart.figure, "residual r")[0].y, leftover / z, atol=1e-12)
    assert f"Z = {z:.2f}" in chart.figure.layout.annotations[1].text
    assert f"r = {r[sc.record.last_token]:.2f}" in chart.alt


def test_bonus_chart_draws_p_of_the_slot_after_the_last_guess(all_kept):
    chart = figures.correction_chart(all_kept)
    np.testing.assert_allclose(chart.figure.data[0].y, all_kept.p_dists[GAMMA][token_ids_of(chart.rows)],
                               atol=1e-12)


def test_monte_carlo_chart_draws_each_rule_s_own_frequencies(rejected):
    p, q = rejected.p_dists[1], rejected.q_dists[1]
    freqs = montecarlo.simulate_all(p, q, 2_000, seed=3)
    chart = figures.monte_carlo_chart(p, freqs, list(range(6)), LABELS, 2_000)
    rules = [t for t in chart.figure.data if t.name in freqs]
    assert len(rules) == len(freqs)
    for trace in rules:
        np.testing.assert_array_equal(trace.y, freqs[trace.name][:6])


def test_decomposition_text_reports_only_rounding(rejected):
    """The largest gap between the two routes' sum and p, as the text states it, is float
    rounding: far below anything a wrong rule would leave."""
    chart = figures.decomposition_chart(rejected.p_dists[1], rejected.q_dists[1], list(range(V)), LABELS)
    said = re.search(r"whole vocabulary is (0|([0-9.]+) × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)),", chart.alt)
    power = said.group(3).translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")) if said.group(2) else "0"
    worst = float(said.group(2) or 0) * 10.0 ** int(power)
    assert worst < 1e-12


def test_playground_charts_draw_their_tables():
    verify = {k: 1.0 + 0.3 * (k - 1) for k in range(1, 9)}
    chart = playground_figures.speedup_chart(0.8, 0.1, 4, verify=verify)
    drawn = {t.name: list(t.y) for t in chart.figure.data}
    assert drawn[chart_parts.TOKENS_CLOSED_FORM] == pytest.approx([r["tokens per pass"] for r in chart.rows], abs=1e-3)
    assert drawn[chart_parts.ONE_STEP_CHECK] == pytest.approx(
        [r["speed-up, check = 1 step"] for r in chart.rows], abs=1e-3)
    rates = [0.58, 0.5, 0.14, 0.0]
    assert list(playground_figures.position_chart(rates, [26, 14, 7, 1]).figure.data[0].y) == rates


def test_the_chance_range_leaves_one_run_in_twenty_on_each_side_and_typical_is_their_mean():
    """ChanceRange: low..high is the 5-95 % range of the distance that `rounds` perfect samples
    of p land from p, and `typical` their mean. Checked against 20,000 fresh perfect runs of
    10,000 draws (their own seed), with the range estimated from 20,000 runs: each tail's share
    has sd about 0.002 (its estimate and the fresh sample), so 0.035 and 0.065 lie over 6 sd
    from 0.05, where a 2.5-97.5 % range (0.025 a tail) or a 10-90 % one (0.10) fails; the mean
    of either sample is known to about 0.4 %, and a median instead of the mean is 5 % low."""
    shown, rounds = [0, 1, 2], 10_000
    chance = montecarlo.chance_range(P_MC, shown, rounds, seed=0, runs=20_000)
    buckets = montecarlo.grouped(P_MC, shown)
    freqs = np.random.default_rng(99).multinomial(rounds, buckets, size=20_000) / rounds
    d = 0.5 * np.abs(freqs - buckets).sum(axis=1)  # grouped total variation of each run
    assert 0.035 < np.mean(d < chance.low) < 0.065
    assert 0.035 < np.mean(d > chance.high) < 0.065
    assert chance.typical == pytest.approx(d.mean(), rel=0.025)


def test_the_bonus_row_ranks_its_tokens_by_p_alone():
    """No draft was made for the bonus position, so its chart shows p's favourites, never the
    last drafted position's: q[2] gives token 7 three times the mass of any other, and p[3]
    gives 6/12 to token 1 and 1/12 to each of tokens 2 to 7."""
    sc = make_scenario(
        drafts=(1, 4, 7),
        q_rows=[[1, 3, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 3, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 3]],
        p_rows=[[1, 5, 1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 6, 1, 0, 0], [0, 0, 1, 1, 1, 1, 1, 6],
                [0, 6, 1, 1, 1, 1, 1, 1]])
    assert sc.record.bonus and sc.decided_row == GAMMA
    assert sc.top_tokens(GAMMA, 3) == [1, 2, 3]


def test_verify_chart_shows_a_token_the_draft_over_offered():
    """Tokens are picked by max(p, q): one the draft over-offered (q high, p tiny) is shown,
    since that is where a guess gets rejected."""
    sc = make_scenario(drafts=(0,), q_rows=[[1, 0, 0, 0, 0, 0, 0, 9]], p_rows=[[1, 1, 1, 1, 1, 1, 1, 0.01], [1] * V])
    chart = figures.verify_chart(sc)
    assert SHOWN[7] in [r["token"] for r in chart.rows if r["position"] == 1]


def test_a_long_paste_that_starts_with_blanks_keeps_its_text():
    """Cut after its last whole word, 400 spaces and a word kept nothing but the spaces, and the
    prompt came out empty: the blanks it starts with are dropped before the cut."""
    assert wording.fit_text(" " * 400 + "hello", 400, "prompt") == ("hello", None)
    assert wording.fit_text("hello" + "\n" * 400, 400, "prompt") == ("hello", None)
    kept, said = wording.fit_text(" " * 50 + "Where is my invoice? " * 30, 400, "prompt")
    assert kept.startswith("Where is my invoice?") and kept.endswith("invoice?") and len(kept) <= 400
    assert said == (f"The prompt had 680 characters, more than the 400 this page takes, so it keeps the "
                    f"first {len(kept)} characters, after the 50 blank characters it started with.")
    # blank as is_blank reads it: zero-width spaces too; and one blank character, in the singular
    assert wording.fit_text("\u200b" * 400 + "hello", 400, "prompt") == ("hello", None)
    one = wording.fit_text("\n" + "word " * 100, 400, "prompt")[1]
    assert one.endswith("characters, after the 1 blank character it started with."), one
    assert wording.fit_text("ok", 400, "prompt") == ("ok", None)  # what fits is left as typed
    assert wording.fit_text("  ok  ", 4, "prompt") == ("ok", None)


def test_the_drafter_tables_reading_works_its_alpha_through_at_gamma_4():
    """α + α² + α³ + α⁴ drafts kept a round, with α = 0.5: 0.94, 23 % of the 4 drafted."""
    text = speed_story.table_reading(0.5, "nimbus-mini", "NAMES")
    assert "- **The drafters.** NAMES\n" in text
    assert ("At γ = 4 and α = 0.500 (nimbus-mini), if each check were an independent coin with chance "
            "α, a round would keep α + α² + α³ + α⁴ ≈ 0.94 drafts on average, only 23% of its 4.") in text


def test_the_steps_answer_the_questions_students_ask_on_the_way():
    """Why checking is cheap (step 2), why a coin and not a plain p ≥ q test, what step 3's green
    bar is against step 2's, and what happens to the caches (step 3), what temperature and exact
    mean and what the two shortcuts are (step 5)."""
    assert "Why is that cheap?" in STEPS[1].body and "reading the model's weights" in STEPS[1].body
    assert "Why a coin, and not simply keep x whenever p ≥ q?" in STEPS[2].body
    assert "q · p/q = p" in STEPS[2].body and "key-value caches" in STEPS[2].body
    assert STEPS[4].body.startswith("Exact does not mean the same text")
    assert "That bar is step 2's green min(p, q) divided by q(x)" in STEPS[2].body
    assert "Exact means the text is a draw from the same distribution as Nimbus-large's own." in STEPS[4].body
    assert "(only at temperature 0, greedy decoding, is each token simply the likeliest" in STEPS[4].body
    # why one pass can check every guess, and why Z = 1 − β (the step 4 total is the mass p has left)
    assert "the guesses hand it every input at once" in STEPS[1].body
    assert "so **Z = 1 − β**" in STEPS[4].body and "min(p, q) + max(0, p − q) = p" in STEPS[4].body
    assert "accept every draft, is the small model writing on its own: at this position it outputs q" \
        in STEPS[4].body
    assert "The second, resample from p on reject, replaces a rejected draft with a fresh draw from p" \
        in STEPS[4].body
    # step 4 points back to step 3's argument rather than making it again
    assert "(step 3: q · p/q = p)" in STEPS[3].body and "(step 3: q · p/q = p)" in STEPS[3].all_kept[1]


def test_the_race_advice_gives_the_reason_that_fits_the_gamma_on_the_slider():
    """Above the best γ, why extra drafts stop paying; below it, why one more still pays."""
    above = race_notes.gamma_advice("Nimbus-mini", 8, 2, 1.21, 0.86, table_settings=True)
    below = race_notes.gamma_advice("Nimbus-mini", 1, 2, 1.21, 1.20, table_settings=True)
    assert "at γ = 8, 0.86x, slower than Nimbus-large alone. The k-th draft of a round is kept only with chance α^k" in above
    assert "Up to γ = 2 one more draft" not in above
    assert "at γ = 1, 1.20x. Up to γ = 2 one more draft, a cheap step, is kept often enough" in below
    assert "The k-th draft" not in below
    elsewhere = race_notes.gamma_advice("Nimbus-mini", 1, 2, 1.21, 1.20, table_settings=False)
    assert elsewhere.startswith(below) and "The table was measured at temperature 1" in elsewhere
