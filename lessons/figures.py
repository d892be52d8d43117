"""The walkthrough's plotly figures: pure functions that each return a Chart. Steps 1 to 4 take a
scenario; step 5's two take one position's p (and q, or the simulated frequencies), the tokens to
show and their labels.

Every Chart carries its figure, the numbers behind it as table rows, and a one-paragraph text
alternative for readers who cannot see the chart.
"""
from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from specdec_core.sampling import acceptance_probability, output_parts, overlap, residual_distribution

from .chart import Chart, base_layout
from .montecarlo import grouped_distance
from .scenario import token_name, under_offered
from .style import (OVERLAP_COLOR, P_COLOR, Q_COLOR, REJECT_COLOR, RESIDUAL_COLOR, U_COLOR, UNCHECKED_FILL,
                    UNCHECKED_LINE, over_white, token_label, visible)
from .wording import coin_pair, draw_text, prob_is, says, share_text, tiny_text


def table_number(x) -> float:
    """A probability for a chart's table: four significant digits, so that a small one still
    shows (rounded to four decimals, 0.00002 read as 0 beside a ratio p/q of 0.19)."""
    return float(f"{float(x):.4g}")


def _slanted_token_axis(fig: go.Figure) -> go.Figure:
    """Token names slanted under each panel, or vertical where slanted ones would overlap (a
    phone's narrow panels)."""
    return fig.update_xaxes(autotickangles=[-40, -90])  # tried in turn, the angle left on "auto"


def tick_name(text: str) -> str:
    """A token's name under its bar; one with no letter or digit (“.”, “␣.”, “↵”) in quotes, as a
    lone dot, even after a space's mark, is hard to see under a bar."""
    name = token_label(text)
    return name if not text or any(c.isalnum() for c in text) else f"“{name}”"


def _names(tokens, labels) -> list[str]:
    return [tick_name(token_name(labels, t)) for t in tokens]


def _with(tokens: list[int], token: int) -> list[int]:
    """`tokens`, with the last one swapped for `token` if it is missing."""
    return tokens if token in tokens else [*tokens[:-1], token]


def _drawn_outline(tokens: list[int], drawn: int, width: int) -> dict:
    """A bar trace's outline that rings the drawn token's bar alone (the others' is clear)."""
    return {"color": [U_COLOR if t == drawn else "rgba(0,0,0,0)" for t in tokens], "width": width}


def _bold_drawn(fig: go.Figure, top: list[int], names: list[str], drawn: int, **where) -> None:
    """Every token named under its bar (a narrow axis would skip every other name), the drawn
    one in bold."""
    fig.update_xaxes(tickmode="array", tickvals=names, **where,
                     ticktext=[f"<b>{n}</b>" if t == drawn else n for t, n in zip(top, names)])


UNDRAWN_FILL = "#f3d9a4"  # step 1: a candidate the draft did not draw, a paler q


def draft_chart(sc) -> Chart:
    """Step 1: what Nimbus-mini considered at each position, and what it picked."""
    tops = [_with([int(t) for t in np.argsort(-sc.q_dists[i], kind="stable")[:5]], chosen)
            for i, chosen in enumerate(sc.draft_tokens)]
    # upright bars on one shared scale: each panel's token names then sit under its own bars,
    # where names beside the bars ran into the next panel on a phone's narrow width; the
    # guess's number and its token on two lines, each short enough for a phone's narrow panel
    # in type as large as the axis's
    fig = make_subplots(rows=1, cols=sc.gamma, horizontal_spacing=0.04, shared_yaxes=True,
                        subplot_titles=[f"guess {i + 1}<br>“{token_label(sc.label(t))}”"
                                        for i, t in enumerate(sc.draft_tokens)])
    rows = []
    for i, (chosen, top) in enumerate(zip(sc.draft_tokens, tops)):
        q = sc.q_dists[i]
        names = _names(top, sc.labels)
        fig.add_bar(x=names, y=[q[t] for t in top], row=1, col=i + 1,
                    marker={"color": [Q_COLOR if t == chosen else UNDRAWN_FILL for t in top],
                            "line": _drawn_outline(top, chosen, 2)},
                    name="q(x)", showlegend=False, hovertemplate="%{x}: q = %{y:.3f}<extra></extra>")
        _bold_drawn(fig, top, names, chosen, row=1, col=i + 1)  # as at step 2
        rows += [{"position": i + 1, "token": sc.label(t), "q": table_number(q[t]),
                  "drafted": t == chosen} for t in top]
    # the key in the drawn bars' colour and outline: a bar trace's own key takes its first bar's
    # colour, the paler one of a token not drawn
    fig.add_bar(x=[None], y=[None], row=1, col=1, name="q(x) of the drawn token", hoverinfo="skip",
                marker={"color": Q_COLOR, "line": {"color": U_COLOR, "width": 2}})
    fig.add_bar(x=[None], y=[None], row=1, col=1, name="q(x) of a token not drawn", hoverinfo="skip",
                marker={"color": UNDRAWN_FILL})
    widest = max(float(sc.q_dists[i][t]) for i, top in enumerate(tops) for t in top)
    fig.update_yaxes(range=[0, widest * 1.05], nticks=4)
    fig.update_yaxes(title_text="q(x)", row=1, col=1)
    picks = ", ".join(f"“{sc.label(t)}” ({prob_is('q', sc.q_dists[i][t])})"
                      for i, t in enumerate(sc.draft_tokens))
    alt = (f"{sc.drafter_label} drafted {sc.gamma} tokens one after another: {picks}.{_tail_picks(sc, tops)}"
           + _bytes_note([r["token"] for r in rows]))
    fig = _slanted_token_axis(base_layout(fig, f"{sc.drafter_label}'s guesses: q(x) at each drafted position",
                                          400))
    fig.update_layout(margin_r=30)  # the last panel's title, centred over it, may be wider than it
    return Chart(fig, rows, alt)


_BYTES_LABEL = re.compile(r"⟨[0-9A-F]{2}(·[0-9A-F]{2})*⟩")


def _bytes_note(labels: list[str]) -> str:
    """What a label such as ⟨E2·80⟩ stands for, where one is shown (lessons.text.token_text)."""
    if not any(_BYTES_LABEL.search(label) for label in labels):
        return ""
    return (" A name such as ⟨E2·80⟩ is a token that holds only some of a character's bytes, "
            "shown in hex: that character takes more than one token to write.")


def _tail_picks(sc, tops: list[list[int]]) -> str:
    """Drafts from outside the draft's likeliest tokens: a sampled guess can come from q's long
    tail, which the chart cannot show, and a pick with a small q is then no mistake."""
    notes = []
    for i, (chosen, top) in enumerate(zip(sc.draft_tokens, tops)):
        if chosen in np.argsort(-sc.q_dists[i], kind="stable")[:len(top)]:
            continue  # among the likeliest, as the chart shows them
        held = float(sc.q_dists[i][top[:-1]].sum())
        rest = share_text(1 - held)
        notes.append(f"at position {i + 1} the {len(top) - 1} likeliest tokens hold {share_text(held)} of "
                     f"q, and “{sc.label(chosen)}” came from the "
                     + (f"rest, {rest}" if rest[0].isalpha() else f"other {rest}"))
    if not notes:
        return ""
    return (" The draft samples its guesses rather than taking its favourites: " + "; ".join(notes)
            + (". That rest" if len(notes) == 1 else ". Such a rest") + " is spread over many tokens "
            "(all the others the draft can write), so a token drawn from it usually has a small q.")


def verify_chart(sc) -> Chart:
    """Step 2: p against q at every drafted position, with their overlap."""
    # the guess, its token and the overlap each on a line of its own, as at step 1: side by
    # side, five titles run into each other, on a phone and on a projector's large type
    titles = [f"guess {i + 1}<br>“{token_label(sc.label(t))}”<br>"
              + html.escape(prob_is("β", overlap(sc.p_dists[i], sc.q_dists[i])), quote=False)
              for i, t in enumerate(sc.draft_tokens)] + [f"slot {sc.gamma + 1}<br>bonus<br>p only"]
    fig = make_subplots(rows=1, cols=sc.gamma + 1, subplot_titles=titles, horizontal_spacing=0.04,
                        shared_yaxes=True)
    rows = []
    for i in range(sc.gamma + 1):
        drafted = sc.draft_tokens[i] if i < sc.gamma else None
        top = sc.top_tokens(i, 5) if drafted is None else _with(sc.top_tokens(i, 5), drafted)
        names = _names(top, sc.labels)
        p = np.array([sc.p_dists[i][t] for t in top])
        q = np.array([sc.q_dists[i][t] for t in top]) if i < sc.gamma else np.zeros(len(top))
        first = i == 0
        if i < sc.gamma:
            fig.add_bar(x=names, y=q, name="q (draft)", marker_color=Q_COLOR, row=1, col=i + 1,
                        showlegend=first, legendgroup="q")
        fig.add_bar(x=names, y=p, name="p (target)", marker_color=P_COLOR, row=1, col=i + 1,
                    showlegend=first, legendgroup="p")
        if i < sc.gamma:
            fig.add_bar(x=names, y=np.minimum(p, q), name="min(p, q)", marker_color=OVERLAP_COLOR,
                        row=1, col=i + 1, showlegend=first, legendgroup="o")
        # the bonus slot has no q: the draft never scored it
        # which token was drafted, as the chart's bold name says it
        rows += [{"position": i + 1, "token": sc.label(t), "drafted": "yes" if t == drafted else "",
                  "p": table_number(a), "q": table_number(b) if i < sc.gamma else None}
                 for t, a, b in zip(top, p, q)]
        # left alone, plotly names every other token on a narrow panel, and that may skip the
        # very guess being checked
        _bold_drawn(fig, top, names, drafted, row=1, col=i + 1)
    guesses = [f"“{sc.label(t)}”: {prob_is('p', sc.p_dists[i][t])}, {prob_is('q', sc.q_dists[i][t])}, "
               f"{prob_is('β', overlap(sc.p_dists[i], sc.q_dists[i]))}" for i, t in enumerate(sc.draft_tokens)]
    alt = ("One target pass scored all drafted positions. Each guess's p and q, and the overlap "
           "β = Σ min(p, q) at its position: " + "; ".join(guesses) + "; the last slot holds p for a bonus token. Each "
           "panel shows the tokens with the most probability under p or q there, so some differ "
           "from step 1's, which ranked by q alone."
           + _bytes_note([r["token"] for r in rows]))
    fig = _slanted_token_axis(base_layout(fig, "Nimbus-large checks every guess in one pass: p vs q", 440))
    fig.update_layout(margin={"t": 100})  # room for the two-line panel titles under the title
    return Chart(fig, rows, alt)


NO_FLIP = "—"  # the coin chart's table, where no coin flip is shown


def coin_chart(sc, reveal: int | None = None) -> Chart:
    """Step 3: each drafted token's acceptance chance and the uniform u that decided it.
    `reveal` limits how many coin flips are shown (for predict-first mode)."""
    checks = sc.record.checks
    shown = len(checks) if reveal is None else min(reveal, len(checks))
    # until the round's last flip is shown, no row may tell where it ends: a hidden row looks
    # like any other, with the chance its draft would have had
    ended = shown == len(checks)
    fig = go.Figure()
    labels, rows = [], []
    for i, t in enumerate(sc.draft_tokens):
        name = f"{i + 1}: “{token_label(sc.label(t))}”"
        labels.append(name)
        # p and q are known at every guess (one pass scored them all); u only where a coin
        # was flipped and is shown ("—" in the table, where None would read as a value)
        p_x, q_x = float(sc.p_dists[i][t]), float(sc.q_dists[i][t])
        a = acceptance_probability(p_x, q_x)
        row = {"position": i + 1, "token": sc.label(t), "p": table_number(p_x), "q": table_number(q_x),
               "min(1, p/q)": table_number(a)}
        if i >= len(checks) and ended:
            fig.add_bar(y=[name], x=[1.0], orientation="h", marker_color=UNCHECKED_FILL,
                        marker_line={"color": UNCHECKED_LINE, "width": 1},
                        name="never checked", showlegend=i == len(checks), legendgroup="n")
            rows.append(row | {"u": NO_FLIP, "verdict": "never checked"})
            continue
        fig.add_bar(y=[name], x=[a], orientation="h", marker_color=OVERLAP_COLOR,
                    name="keep if u < min(1, p/q)", showlegend=i == 0, legendgroup="a")
        fig.add_bar(y=[name], x=[1 - a], orientation="h", marker_color="#d9d9d9",
                    name="reject", showlegend=i == 0, legendgroup="r")
        c = checks[i] if i < shown else None
        rows.append(row | {"u": draw_text(c.u, 4) if c else NO_FLIP,
                           "verdict": ("kept" if c.accepted else "rejected") if c else "?"})
    flips = [c for c in checks[:shown]]
    fig.add_scatter(y=[labels[c.position] for c in flips], x=[c.u for c in flips], mode="markers+text",
                    marker={"symbol": "diamond", "size": 16, "color": U_COLOR}, name="coin flip u",
                    # as the chart's text alternative says it: with the decimals that tell u
                    # from its line where two would not ("u = 0.009" against 0.0107)
                    text=[f"u = {coin_pair(c.u, c.accept_prob)[0]}" for c in flips],
                    # each label on the side of the wider half: in instructor mode's large type
                    # on a phone, "u = 0.62" to the right of its mark ran past the axis
                    textposition=["middle left" if c.u > 0.5 else "middle right" for c in flips],
                    textfont={"color": U_COLOR, "size": 14},
                    cliponaxis=False)  # a label near 0 or 1 may reach past the plot area
    # a short title: the legend names the line and the flip, and a longer one was cut off on a
    # phone in instructor mode
    fig.update_xaxes(range=[0, 1.001], title="probability")
    fig.update_yaxes(autorange="reversed")
    fig = base_layout(fig, "Keep or reject: is the coin flip u below min(1, p/q)?", 330)
    fig.update_layout(barmode="stack")
    # the chances the chart shows before a coin is flipped, as it shows them: every guess's until
    # the round's end is shown, so that none tells where it ends
    waiting = [f"“{sc.label(t)}”: {prob_is('min(1, p/q)', acceptance_probability(sc.p_dists[i][t], sc.q_dists[i][t]))}, "
               "not flipped yet" for i, t in enumerate(sc.draft_tokens) if i >= shown and not ended]
    said = "; ".join([_verdict(sc, c) for c in flips] + waiting)
    return Chart(fig, rows, f"Coin flips, in draft order. {said}.")


def _verdict(sc, c) -> str:
    u, line = coin_pair(c.u, c.accept_prob)
    verdict = "kept" if c.accepted else "rejected"
    return f"“{sc.label(c.token)}”: {says('min(1, p/q)', line)}, u = {u}, {verdict}"


def correction_chart(sc) -> Chart:
    """Step 4: the leftover max(0, p - q), its normaliser Z, and the token drawn from it;
    or, when every draft was kept, the bonus token drawn from p."""
    rec, row = sc.record, sc.decided_row
    drawn = rec.last_token
    p = sc.p_dists[row]
    if rec.bonus:
        top = _with(sc.top_tokens(row, 6), drawn)
        names = _names(top, sc.labels)
        fig = go.Figure(go.Bar(x=names, y=[p[t] for t in top], marker_color=P_COLOR, name="p (target)",
                               marker_line=_drawn_outline(top, drawn, 3)))
        _bold_drawn(fig, top, names, drawn)
        fig.update_yaxes(title_text="p(x)")
        rows = [{"token": sc.label(t), "p": table_number(p[t]), "drawn": t == drawn} for t in top]
        alt = (f"All {sc.gamma} drafts were kept, so the target's pass already holds p for the next "
               f"position; the bonus token “{sc.label(drawn)}” was drawn from it "
               f"({prob_is('p', p[drawn])}).")
        return Chart(base_layout(fig, "Every draft kept: a bonus token from the same pass, drawn from p"), rows, alt)
    q = sc.q_dists[row]
    leftover = np.maximum(0.0, p - q)
    residual, z = residual_distribution(p, q)
    # the rejected draft (q > p there), then the tokens the draft under-offered most
    rejected = rec.checks[-1]
    under_sold = [t for t in under_offered(p, q, 5) if t != rejected.token]
    top = _with([rejected.token, *under_sold], drawn)
    names = _names(top, sc.labels)
    # two-line titles: on a phone's width the three panels are narrow
    # one scale for the three panels: dividing by Z visibly scales the leftover up into r, and
    # only the first panel carries numbers (on a phone, inner ones ran over the bars beside them)
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.04, subplot_titles=[
        f"p and q<br>at guess {rejected.position + 1}", f"leftover max(0, p − q)<br>{prob_is('Z', z)}",
        "residual r<br>= leftover / Z"])
    fig.add_bar(x=names, y=[q[t] for t in top], marker_color=Q_COLOR, name="q (draft)", row=1, col=1)
    fig.add_bar(x=names, y=[p[t] for t in top], marker_color=P_COLOR, name="p (target)", row=1, col=1)
    # the leftover paler than r, as a solid colour: a see-through bar's edge would fade with it
    fig.add_bar(x=names, y=[leftover[t] for t in top], marker_color=over_white(RESIDUAL_COLOR, 0.55),
                name="max(0, p − q)", row=1, col=2)
    fig.add_bar(x=names, y=[residual[t] for t in top], marker_color=RESIDUAL_COLOR, name="residual r",
                marker_line=_drawn_outline(top, drawn, 3),
                row=1, col=3)
    _bold_drawn(fig, top, names, drawn)
    rows = [{"token": sc.label(t), "p": table_number(p[t]), "q": table_number(q[t]),
             "max(0, p-q)": table_number(leftover[t]), "residual": table_number(residual[t]),
             "drawn": t == drawn} for t in top]
    alt = (f"“{sc.label(rejected.token)}” was rejected. The leftover mass, {prob_is('Z', z)}, is spread "
           f"over the tokens the target wanted more than the draft; normalised into r, it gave "
           f"“{sc.label(drawn)}” ({prob_is('r', residual[drawn])}).{_rest_of_r(residual, top)}")
    fig = _slanted_token_axis(base_layout(fig, "Correct: draw the replacement from what the draft under-offered", 440))
    fig.update_layout(margin={"t": 100})  # room for the two-line panel titles under the title
    return Chart(fig, rows, alt)


def _rest_of_r(residual: np.ndarray, shown: list[int]) -> str:
    """Where much of r lies off the chart: a draw that lands on a low bar is then no surprise."""
    held = float(residual[shown].sum())
    if held >= 0.9:
        return ""
    return (f" The {len(shown)} tokens shown hold {share_text(held)} of r; the other {share_text(1 - held)} is spread "
            "thinly over the rest of the vocabulary, so a draw often lands on a token of low "
            "probability, which the chart then shows with a low bar.")


def decomposition_chart(p, q, tokens, labels, position: int | None = None) -> Chart:
    """Step 5: q(x) min(1, p/q) + (1 − β) r(x) stacks up to exactly p(x)."""
    # in float64 and summing to 1, as the rule itself takes them (the models' float32 rows sum
    # to 1 only within about 1e-6)
    p, q = (np.asarray(d, np.float64) / np.sum(d, dtype=np.float64) for d in (p, q))
    kept, corrected = output_parts(p, q)  # min(p, q) and (1 − β) r
    names = _names(tokens, labels)
    fig = go.Figure()
    # each key on two lines: on one, a phone in instructor mode's large type cut it off
    fig.add_bar(x=names, y=[kept[t] for t in tokens], marker_color=OVERLAP_COLOR,
                name="drafted and kept:<br>q(x)·min(1, p/q)")
    fig.add_bar(x=names, y=[corrected[t] for t in tokens], marker_color=RESIDUAL_COLOR,
                name="rejected, then corrected:<br>(1 − β)·r(x)")
    fig.add_scatter(x=names, y=[p[t] for t in tokens], mode="markers", name="p(x), the target",
                    marker={"symbol": "line-ew", "size": 34, "line": {"width": 4, "color": P_COLOR}})
    where = f" at drafted position {position}" if position else ""
    fig = base_layout(fig, f"Why it is exact{where}: the two routes to x add up to p(x)")
    fig.update_layout(barmode="stack")
    rows = [{"token": visible(token_name(labels, t)), "kept": table_number(kept[t]),
             "corrected": table_number(corrected[t]), "sum": table_number(kept[t] + corrected[t]),
             "p": table_number(p[t])} for t in tokens]
    worst = float(np.max(np.abs(kept + corrected - p)))
    alt = (f"For every token the kept part plus the corrected part equals p; the largest difference "
           f"over the whole vocabulary is {tiny_text(worst)}, floating-point rounding.")
    return Chart(fig, rows, alt)


def monte_carlo_chart(p, freqs: dict[str, np.ndarray], tokens, labels, draws: int) -> Chart:
    """Step 5: empirical output frequencies of each rule after `draws` single-position draws, against p."""
    names = _names(tokens, labels)
    palette = {"accept-or-correct": OVERLAP_COLOR, "accept every draft": Q_COLOR,
               "resample from p on reject": REJECT_COLOR}
    # the two wrong rules' bars patterned, each its own way: to a red-green colour-blind eye the
    # rule's green and the grey are both greyish
    patterns = {"accept every draft": "/", "resample from p on reject": "."}
    # numbered slots named by their ticks, so that p can be drawn as a line across each token's
    # whole group of bars: it is what every bar of the group is measured against
    slots = list(range(len(tokens)))
    fig = go.Figure()
    for rule, f in freqs.items():
        fig.add_bar(x=slots, y=[f[t] for t in tokens], name=rule, marker_color=palette.get(rule, REJECT_COLOR),
                    marker_pattern={"shape": patterns.get(rule, ""), "fillmode": "overlay", "fgcolor": "white",
                                    "fgopacity": 0.7},
                    customdata=names, hovertemplate="%{customdata}: %{y:.3f}<extra>" + rule + "</extra>")
    reach = 0.45  # half a group's width: plotly's groups take 0.8 of a slot, a little more here
    fig.add_scatter(x=[x for i in slots for x in (i - reach, i + reach, None)],
                    y=[y for t in tokens for y in (p[t], p[t], None)], mode="lines", name="p(x), the target",
                    line={"width": 4, "color": P_COLOR}, hoverinfo="skip")
    fig.update_xaxes(tickmode="array", tickvals=slots, ticktext=names)
    # slanted to the left: the last name, slanted right, ran past a phone's edge and was dropped
    fig = _slanted_token_axis(base_layout(fig, f"{draws:,} simulated draws at this position: which rule "
                                               "reproduces p?", 380))
    rows = [{"token": visible(token_name(labels, t)), "p": table_number(p[t]),
             **{rule: table_number(f[t]) for rule, f in freqs.items()}} for t in tokens]
    tv = {rule: grouped_distance(f, p, tokens) for rule, f in freqs.items()}
    alt = (f"Total-variation distance to p after {draws:,} draws, over the tokens shown and "
           "everything else: " + "; ".join(f"{r}: {d:.3f}" for r, d in tv.items()) + ".")
    return Chart(fig, rows, alt)
