"""The playground's charts: acceptance by draft position, and what the measured α buys against γ."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from specdec_core.sampling import expected_speedup, expected_tokens_per_round

from .chart import Chart, base_layout, gamma_axes
from .style import CHART_TEXT, OVERLAP_COLOR, P_COLOR, U_COLOR


def speedup_chart(alpha: float, cost: float, gamma_now: int, gammas=range(1, 9),
                  verify: dict[int, float] | None = None) -> Chart:
    """Expected tokens per target pass and expected speed-up against gamma; with `verify` (the
    measured cost of checking gamma drafts, in single target steps) also the speed-up those
    costs give, since on a CPU the checking pass is not free."""
    g = list(gammas)
    tokens = [expected_tokens_per_round(alpha, k) for k in g]
    speed = [expected_speedup(alpha, k, cost) for k in g]
    here = [expected_speedup(alpha, k, cost, verify[k]) for k in g] if verify and \
        all(k in verify for k in g) else None
    fig = go.Figure()
    fig.add_scatter(x=g, y=tokens, name="tokens per target pass", line={"color": P_COLOR})
    fig.add_scatter(x=g, y=speed, name="speed-up if a check cost one step",
                    line={"color": OVERLAP_COLOR, "dash": "dash"})
    if here:
        fig.add_scatter(x=g, y=here, name="speed-up at the measured costs", line={"color": OVERLAP_COLOR})
    shown = here or speed
    if gamma_now in g:
        fig.add_scatter(x=[gamma_now], y=[shown[g.index(gamma_now)]], mode="markers", name="your γ",
                        marker={"size": 14, "color": U_COLOR, "symbol": "diamond"})
    gamma_axes(fig).update_yaxes(rangemode="tozero")
    fig = base_layout(fig, f"What α = {alpha:.2f} buys (draft step = {cost:.2f} target steps)", 440)
    # short column names, each the legend's line it holds: the table sits in half the page
    rows = [{"γ": k, "tokens per pass": round(a, 3), "speed-up, free check": round(b, 3)}
            for k, a, b in zip(g, tokens, speed)]
    if here:
        for row, h, k in zip(rows, here, g):
            row.update({"check cost (steps)": round(verify[k], 3), MEASURED: round(h, 3)})
    return Chart(fig, rows, _best_gamma_sentence(alpha, g, shown, "at the measured costs " if here else "",
                                                 gamma_now))


MEASURED = "speed-up, measured costs"  # the speed-up column where the checking pass was timed


def _best_gamma_sentence(alpha: float, gammas: list[int], speeds: list[float], where: str,
                         gamma_now: int) -> str:
    best, top = gammas[int(np.argmax(speeds))], max(speeds)
    yours = (f" At your γ = {gamma_now} it is {speeds[gammas.index(gamma_now)]:.2f}x."
             if gamma_now in gammas and gamma_now != best else "")
    if top >= 1:
        return f"At α = {alpha:.2f} the expected speed-up {where}peaks at γ = {best} ({top:.2f}x).{yours}"
    return (f"At α = {alpha:.2f} drafting makes generation slower {where}than Nimbus-large alone at "
            f"every γ (below the dotted 1× line); it loses least at γ = {best} ({top:.2f}x).{yours}")


def position_chart(by_position, checked) -> Chart:
    """Acceptance by draft position: later positions are only checked when earlier ones held."""
    names = [str(i + 1) for i in range(len(by_position))]
    # the count alone above each bar, so that eight bars' labels stay apart
    fig = go.Figure(go.Bar(x=names, y=[0 if np.isnan(r) else r for r in by_position],
                           marker_color=OVERLAP_COLOR, text=[f"{n}×" for n in checked],
                           textposition="outside", constraintext="none",  # never shrunk to fit
                           textfont_color=CHART_TEXT, name="kept when checked", cliponaxis=False))
    # on two lines, so that it fits the chart's width in a projector's large type
    fig.update_xaxes(title="draft position<br>(above each bar: times checked)", type="category")
    fig.update_yaxes(range=[0, 1.1], title="P(kept | checked)")
    fig = base_layout(fig, "Acceptance by draft position", 320)
    rows = [{"position": i + 1, "kept when checked": None if np.isnan(r) else round(r, 3), "checked": n}
            for i, (r, n) in enumerate(zip(by_position, checked))]
    alt = "Acceptance by position: " + ", ".join(
        f"{i + 1}: {'–' if np.isnan(r) else f'{r:.2f}'} ({n} check{'' if n == 1 else 's'})"
        for i, (r, n) in enumerate(zip(by_position, checked))) + (
        ". Position k is checked only when the guesses before it were all kept, so later positions "
        "are checked less often.")
    return Chart(fig, rows, alt)
