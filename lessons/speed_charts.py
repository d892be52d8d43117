"""So what's two charts of measured figures: the γ sweep (benchmarks/gamma_sweep.py) and what
the early stop buys (benchmarks/early_stop.py), each with its table and its text alternative."""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .chart import (MEASURED_CHECK, ONE_STEP_CHECK, TOKENS_CLOSED_FORM, Chart, add_closed_form, base_layout,
                    gamma_axes, target_alone_line)
from .speed_story import early_stop_text
from .style import OVERLAP_COLOR, P_COLOR, Q_COLOR


# the results files' keys as a chart's table view names its columns (and a screen reader reads them)
_COLUMNS = {"gamma": "γ", "temperature": "temperature", "stop_below": "early stop below",
            "drafts_per_round": "drafts per round", "tokens_per_pass": "tokens per pass",
            "tokens_per_pass_closed_form": "tokens per pass, closed form",
            "speedup": "speed-up, measured",
            "speedup_closed_form": "speed-up, closed form, check costs one step",
            "verify_cost": "check cost, in target steps",
            "speedup_closed_form_measured_verify": "speed-up, closed form, measured check cost",
            "modelled_speedup": "modelled speed-up"}


def _table_row(row: dict) -> dict:
    """A results row for a chart's table, its columns named in words and its floats rounded to
    three decimals."""
    return {_COLUMNS.get(k, k.replace("_", " ")): round(v, 3) if isinstance(v, float) else v
            for k, v in row.items()}


def sweep_chart(sweep: dict) -> Chart:
    rows = sweep["rows"]
    g = [r["gamma"] for r in rows]
    fig = go.Figure()  # the longer names on two lines, which a phone's legend has room for
    fig.add_scatter(x=g, y=[r["tokens_per_pass"] for r in rows], name="tokens per target pass, measured",
                    line={"color": P_COLOR})
    add_closed_form(fig, g, [r["tokens_per_pass_closed_form"] for r in rows], TOKENS_CLOSED_FORM, P_COLOR)
    fig.add_scatter(x=g, y=[r["speedup"] for r in rows], name="speed-up, measured",
                    line={"color": OVERLAP_COLOR})
    add_closed_form(fig, g, [r["speedup_closed_form"] for r in rows], ONE_STEP_CHECK, OVERLAP_COLOR)
    if "speedup_closed_form_measured_verify" in rows[0]:
        add_closed_form(fig, g, [r["speedup_closed_form_measured_verify"] for r in rows], MEASURED_CHECK,
                        OVERLAP_COLOR)
    gamma_axes(fig)
    # the closed forms' α is the drafter table's, from held-out texts, not the swept prompts' own
    fig = base_layout(fig, f"γ sweep, one run: {sweep['drafter']}; closed forms at the held-out texts' "
                      f"α = {sweep['alpha']:.2f}, c = {sweep['cost_ratio']:.2f}", 460)
    return Chart(fig, [_table_row(r) for r in rows], sweep_alt(rows))


SWEEP_CLOSE = 0.1  # tokens per pass this near their closed form are said to follow it


def sweep_alt(rows: list[dict]) -> str:
    """What the sweep's rows show, in words worked out from them: the peak, how far tokens per
    pass follow their closed form, and how near the closed form with the measured verify costs
    comes to the measured speed-up."""
    best = max(rows, key=lambda r: r["speedup"])
    text = ("Blue lines count tokens per target pass, green ones speed-up. The solid lines are timed; "
            "the closed-form speed-ups divide tokens per pass by what a round costs in target steps, "
            "γc + v (γ draft steps of c each and a check of v), so the gap between blue and green is "
            "the price of drafting and checking. Measured speed-up peaks "
            f"at γ = {best['gamma']} ({best['speedup']:.2f}x).")
    gaps = [abs(r["tokens_per_pass"] - r["tokens_per_pass_closed_form"]) for r in rows]
    near = next((i for i, gap in enumerate(gaps) if gap > SWEEP_CLOSE), len(rows))
    if near == len(rows):
        text += f" Tokens per pass stay within {SWEEP_CLOSE} of their closed form at every γ."
    elif near:
        text += (f" Tokens per pass stay within {SWEEP_CLOSE} of their closed form up to γ = "
                 f"{rows[near - 1]['gamma']}, and differ from it by up to {max(gaps[near:]):.2f} beyond.")
    else:
        text += f" Tokens per pass differ from their closed form by up to {max(gaps):.2f}."
    if "speedup_closed_form_measured_verify" in rows[0]:
        off = max(abs(r["speedup"] - r["speedup_closed_form_measured_verify"]) for r in rows)
        text += (f" With the measured cost of verifying γ + 1 positions in place of one step, the "
                 f"closed form comes within {off:.2f} of the measured speed-up at every γ.")
    return text


# every colour dark enough to see on white; 0.3 dashed to tell it from 0.5
STOP_COLORS = {0.0: "#9e9e9e", 0.3: "#c98a00", 0.5: Q_COLOR, 0.7: "#8a5a00"}
STOP_DASHES = {0.3: "dash", 0.7: "dashdot"}  # each line told apart without its colour too


def _regime(temperature: float) -> str:
    return "greedy" if temperature == 0 else f"temperature {temperature:g}"


def early_stop_chart(data: dict) -> Chart:
    """Modelled speed-up against γ, one line per early-stop threshold, greedy and temperature 1
    side by side (from benchmarks/early_stop.py)."""
    rows = data["rows"]
    temperatures = sorted({r["temperature"] for r in rows})
    fig = make_subplots(rows=1, cols=len(temperatures), shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=[_regime(t) for t in temperatures])
    stops = sorted({r["stop_below"] for r in rows})
    for col, t in enumerate(temperatures, start=1):
        for stop in stops:
            line = sorted((r for r in rows if r["temperature"] == t and
                           (r["stop_below"] == stop or r["gamma"] == 1)), key=lambda r: r["gamma"])
            fig.add_scatter(x=[r["gamma"] for r in line], y=[r["modelled_speedup"] for r in line],
                            name=f"early stop {early_stop_text(stop)}", legendgroup=str(stop),
                            showlegend=col == 1, row=1, col=col,
                            line={"color": STOP_COLORS.get(stop, Q_COLOR), "width": 3 if stop else 2,
                                  "dash": STOP_DASHES.get(stop, "solid")})
    target_alone_line(fig)
    # on two lines, so that the two panels' titles stay apart on a phone
    fig.update_xaxes(title="γ, the most<br>a round drafts", dtick=1)
    fig.update_yaxes(title="modelled speed-up", col=1)
    fig = base_layout(fig, "What the early stop buys: speed-up priced from counted rounds", 420)
    best = {t: max((r for r in rows if r["temperature"] == t), key=lambda r: r["modelled_speedup"])
            for t in temperatures}
    worst = {t: min((r for r in rows if r["temperature"] == t and r["stop_below"] == 0),
                    key=lambda r: r["modelled_speedup"]) for t in temperatures}  # no stop
    falls = "; ".join(f"{_regime(t)}: {r['modelled_speedup']:.2f}x at γ = {r['gamma']}"
                      for t, r in worst.items())
    plain = {t: max((r for r in rows if r["temperature"] == t and r["stop_below"] == 0),
                    key=lambda r: r["modelled_speedup"]) for t in temperatures}  # the best γ, no stop

    def matched(t) -> str:  # a tie, as shown, with no early stop at all
        same = f"{plain[t]['modelled_speedup']:.2f}" == f"{best[t]['modelled_speedup']:.2f}"
        return f", matched by γ = {plain[t]['gamma']} without one" if same and best[t]["stop_below"] else ""

    stays = "; ".join(f"{_regime(t)}: {r['modelled_speedup']:.2f}x at γ = {r['gamma']}, "
                      f"stop {early_stop_text(r['stop_below'])}{matched(t)}" for t, r in best.items())
    alt = (f"Without an early stop a large γ pays for drafts that are thrown away (at worst {falls}). "
           f"With one, every γ stays "
           f"near the best setting ({stays}), because a round stops drafting where the draft is "
           "unsure, which is where the target is most likely to reject.")
    return Chart(fig, [_table_row(r) for r in rows], alt)
