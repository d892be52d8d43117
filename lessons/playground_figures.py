"""The playground's charts: acceptance by draft position, and what the measured α buys against γ."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from specdec_core.sampling import GAMMAS, expected_speedup, expected_tokens_per_round, tokens_per_round_bound

from .chart import (MEASURED_CHECK, ONE_STEP_CHECK, TOKENS_CLOSED_FORM, Chart, add_closed_form, base_layout,
                    gamma_axes)
from .style import CHART_TEXT, OVERLAP_COLOR, P_COLOR, U_COLOR


def speedup_chart(alpha: float, cost: float, gamma_now: int,
                  verify: dict[int, float] | None = None) -> Chart:
    """Expected tokens per target pass and expected speed-up against gamma; with `verify` (the
    measured cost of checking gamma drafts, in single target steps) also the speed-up those
    costs give, since on a CPU the checking pass is not free."""
    g = list(GAMMAS)
    tokens = [expected_tokens_per_round(alpha, k) for k in g]
    speed = [expected_speedup(alpha, k, cost) for k in g]
    here = [expected_speedup(alpha, k, cost, verify[k]) for k in g] if verify and \
        all(k in verify for k in g) else None
    fig = go.Figure()
    # every line here is a closed form: drawn as the So what page draws the same ones beside
    # its measured lines
    add_closed_form(fig, g, tokens, TOKENS_CLOSED_FORM, P_COLOR)
    add_closed_form(fig, g, speed, ONE_STEP_CHECK, OVERLAP_COLOR)
    if here:
        add_closed_form(fig, g, here, MEASURED_CHECK, OVERLAP_COLOR)
    shown = here or speed
    if gamma_now in g:
        fig.add_scatter(x=[gamma_now], y=[shown[g.index(gamma_now)]], mode="markers", name="your γ",
                        marker={"size": 14, "color": U_COLOR, "symbol": "diamond"})
    top, step = _y_ticks(max(tokens + shown))
    gamma_axes(fig).update_yaxes(range=[0, top], dtick=step)
    fig = base_layout(fig, f"What α = {alpha:.2f} buys (draft step = {cost:.2f} target steps)", 440)
    # short column names, each the legend's line it holds: the table sits in half the page
    rows = [{"γ": k, "tokens per pass": round(a, 3), "speed-up, check = 1 step": round(b, 3)}
            for k, a, b in zip(g, tokens, speed)]
    if here:
        for row, h, k in zip(rows, here, g):
            row.update({"check cost (steps)": round(verify[k], 3), MEASURED: round(h, 3)})
    # no draft kept: exactly 1; every draft kept: no bound; and none worth a sentence that
    # would read "below 1.00" beside a measured 1.00
    bound = tokens_per_round_bound(alpha) if 0 < alpha < 1 else None
    # α to three places: worked from two, 1/(1 − α) can miss the shown result
    ceiling = (f" However large γ is, at this α the closed form keeps tokens per pass below 1/(1 − α) = "
               f"1/(1 − {alpha:.3f}) = {bound:.2f}."
               if bound is not None and round(bound, 2) > 1 else "")
    return Chart(fig, rows, _best_gamma_sentence(alpha, g, shown, "at the measured costs " if here else "",
                                                 gamma_now) + ceiling)


MEASURED = "speed-up, measured costs"  # the speed-up column where the checking pass was timed


def _y_ticks(highest: float) -> tuple[float, float]:
    """The y axis's top and the step between its ticks: the top is the first tick above the
    highest line, so that each line can be read off a tick below and above it (1.8 tokens per
    pass stood over the last tick, 1.5)."""
    step = 0.5 if highest <= 3 else 1.0
    return math.ceil(highest * 1.02 / step) * step, step


def _best_gamma_sentence(alpha: float, gammas: list[int], speeds: list[float], where: str,
                         gamma_now: int) -> str:
    best, top = gammas[int(np.argmax(speeds))], max(speeds)
    yours = (f" At your γ = {gamma_now} it is {speeds[gammas.index(gamma_now)]:.2f}x."
             if gamma_now in gammas and gamma_now != best else "")
    if top >= 1:
        return f"At α = {alpha:.2f} the expected speed-up {where}peaks at γ = {best} ({top:.2f}x).{yours}"
    return (f"At α = {alpha:.2f} drafting makes generation slower {where}than Nimbus-large alone at "
            f"every γ (below the line at 1×); it loses least at γ = {best} ({top:.2f}x).{yours}")


def wilson_interval(kept: float, checked: int, z: float = 1.645) -> tuple[float, float]:
    """The Wilson score interval for a rate of `kept` in `checked` coin flips (z = 1.645: 90 %);
    (0, 1) where nothing was checked. Unlike rate ± z·sd it stays inside [0, 1] and does not
    shrink to a point at 0 of 3 or 3 of 3."""
    if checked <= 0:
        return 0.0, 1.0
    rate = kept / checked
    centre = (rate + z * z / (2 * checked)) / (1 + z * z / checked)
    half = z / (1 + z * z / checked) * np.sqrt(rate * (1 - rate) / checked + z * z / (4 * checked ** 2))
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def position_chart(by_position, checked) -> Chart:
    """Acceptance by draft position: later positions are only checked when earlier ones held,
    so their rates rest on fewer checks; a whisker spans each rate's 90% Wilson interval, so
    that a rate from a handful of checks is not read as a trend."""
    # the count in each position's name, so that the whiskers have the space above the bars
    names = [f"{i + 1}<br>{n}×" for i, n in enumerate(checked)]
    rates = [0 if np.isnan(r) else r for r in by_position]
    # a position never checked has no rate: no bar and no whisker, where a rate of 0 with a
    # whisker of no length would draw a dash at 0 like a position checked and never kept
    low, high = zip(*(wilson_interval(r * n, n) if n else (0.0, 0.0) for r, n in zip(rates, checked)))
    fig = go.Figure(go.Bar(x=names, y=[r if n else None for r, n in zip(rates, checked)],
                           marker_color=OVERLAP_COLOR, name="kept when checked",
                           error_y={"type": "data", "symmetric": False, "color": CHART_TEXT,
                                    "array": [h - r if n else None for h, r, n in zip(high, rates, checked)],
                                    "arrayminus": [r - lo if n else None
                                                   for lo, r, n in zip(low, rates, checked)]}))
    # on two lines, so that it fits the chart's width in a projector's large type
    fig.update_xaxes(title="draft position, times checked<br>(whiskers: 90% confidence interval)",
                     type="category")
    fig.update_yaxes(range=[0, 1.05], title="P(kept | checked)")
    fig = base_layout(fig, "Acceptance by draft position", 320)
    rows = [{"position": i + 1, "kept when checked": None if np.isnan(r) else round(r, 3), "checked": n,
             "90% interval": "–" if not n else f"{lo:.2f} to {hi:.2f}"}
            for i, (r, n, lo, hi) in enumerate(zip(by_position, checked, low, high))]
    alt = "Acceptance by position: " + ", ".join(
        f"{i + 1}: {'–' if np.isnan(r) else f'{r:.2f}'} ({n} check{'' if n == 1 else 's'})"
        for i, (r, n) in enumerate(zip(by_position, checked))) + (
        "." if len(checked) == 1 else
        ". Position k is checked only when the guesses before it were all kept, so later positions "
        "are checked less often, and their rates, resting on fewer checks, say less.") + (
        " The whiskers "
        "are 90% Wilson confidence intervals for a position's chance of a keep, as if each check "
        "were an independent coin with that chance (in fact the chance moves along the text).")
    return Chart(fig, rows, alt)
