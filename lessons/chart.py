"""What every chart of the app is: a plotly figure, the numbers behind it and a text alternative,
with the layout they share and the two edits a page makes before drawing one (large type for a
projector, the title lifted out as text)."""
from __future__ import annotations

import copy
from dataclasses import dataclass

import plotly.graph_objects as go

from .style import CHART_TEXT, FONT, LINE_CONTRAST, contrast, line_color


# the most an enlarged chart grows to: with its title and Streamlit's header it fits a
# 1280×720 projector's view
PROJECTOR_HEIGHT = 560


@dataclass(frozen=True)
class Chart:
    figure: go.Figure
    rows: list[dict]  # the numbers behind the chart, for a table view
    alt: str  # text alternative


def base_layout(fig: go.Figure, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(title={"text": title, "x": 0.01}, height=height, font={"family": FONT, "size": 14},
                      margin={"l": 10, "r": 10, "t": 70, "b": 10}, barmode="group",
                      # the legend at the foot of the whole figure: plotly then makes room for
                      # it below the axis titles and token names at any width or type size
                      legend={"orientation": "h", "x": 0, "y": 0, "yref": "container",
                              "yanchor": "bottom"}, plot_bgcolor="white",
                      # token labels such as "1" or "2" must stay categories: left to guess, plotly
                      # makes the axis numeric when most labels look like numbers and drops the rest
                      autotypenumbers="strict",
                      # a line's whole name beside its hovered value, not its first 15 characters
                      hoverlabel={"namelength": -1})
    # a tapped or hovered value to three significant digits, as the page writes numbers, not
    # the stored 0.5769231 (an error bar's ends too)
    fig.update_yaxes(gridcolor="#e5e5e5", hoverformat=".3~g")
    return fig


def target_alone_line(fig: go.Figure) -> go.Figure:
    """A dotted line at 1×, the speed of Nimbus-large alone, drawn over the lines: one of them
    may run along it."""
    return fig.add_hline(y=1, line={"color": "#bbbbbb", "dash": "dot"}, layer="above")


Y_TITLE = "tokens per pass<br>or speed-up (×)"


# the closed forms' lines, alike on every chart against γ: a measured line is solid; a closed
# form is dash-dotted for tokens per pass, and for the speed-up dotted where a check costs one
# step and dashed at the measured cost of checking (each told from the others without colour)
TOKENS_CLOSED_FORM = "tokens per pass, closed form"
ONE_STEP_CHECK = "speed-up, closed form:<br>a check costs one step"
MEASURED_CHECK = "speed-up, closed form:<br>measured verify cost"
CLOSED_FORM_DASHES = {TOKENS_CLOSED_FORM: "dashdot", ONE_STEP_CHECK: "dot", MEASURED_CHECK: "dash"}


def add_closed_form(fig: go.Figure, gammas: list[int], values: list[float], name: str, color: str) -> None:
    """One closed form's line against γ, in the dashes CLOSED_FORM_DASHES gives its name."""
    fig.add_scatter(x=gammas, y=values, name=name, line={"color": color, "dash": CLOSED_FORM_DASHES[name]})


def gamma_axes(fig: go.Figure) -> go.Figure:
    """The axes of tokens per pass and speed-up against γ, with the target-alone line at 1×."""
    target_alone_line(fig)
    fig.update_xaxes(title="γ, drafted tokens per round", dtick=1)
    # on two lines: in a projector's large type, above a long legend, one line ran past the
    # plot's height and lost its end
    fig.update_yaxes(title=Y_TITLE)
    return fig


def _axes(layout: dict) -> set[str]:
    """The keys of a figure dict's axes, the first ones too where the figure never set them
    (layout then holds no "xaxis"): a set, complete before a caller's loop adds them to it."""
    return {"xaxis", "yaxis", *(k for k in layout if k.startswith(("xaxis", "yaxis")))}


def enlarged(fig: go.Figure, scale: float = 1.5, screen: float = 1.0) -> dict:
    """`fig` for a projector, as a plain figure dict: every text and the height grown by
    `scale`, and all of it again by `screen`, how much larger than 1280×720 the screen is
    (ui/projector.py). Edited as a dict, which costs a millisecond or two where plotly's
    validated setters cost tens on every rerun; the caller's figure stays as it was."""
    big = fig.to_dict()  # a deep copy
    layout = big["layout"]
    scale *= screen
    size = layout.setdefault("font", {}).get("size", 12)
    layout["font"]["size"] = size * scale
    # grown less past a height that, with the title above it, fills a 720-pixel projector
    # (a taller one by as much more)
    height = layout.get("height", 450)
    layout["height"] = min(height * scale, max(height, PROJECTOR_HEIGHT * screen))
    # Streamlit's chart theme sizes ticks and legends itself (12 px), so they are set here too;
    # the legend a little larger again, as it names what every colour means (larger ticks would
    # make plotly drop every other token name on a narrow panel)
    layout.setdefault("title", {}).setdefault("font", {})["size"] = 17 * scale
    layout.setdefault("legend", {}).setdefault("font", {})["size"] = 14 * scale
    for key in _axes(layout):
        axis = layout.setdefault(key, {})
        axis.setdefault("tickfont", {})["size"] = 12 * scale
        axis.setdefault("title", {}).setdefault("font", {})["size"] = 14 * scale
    for note in layout.get("annotations", []):  # subplot titles carry a size of their own
        note.setdefault("font", {})["size"] = note["font"].get("size", size) * scale
    for trace in big["data"]:
        if trace.get("textfont", {}).get("size"):
            trace["textfont"]["size"] *= scale
    return big


def legible(spec: dict) -> dict:
    """A figure dict with its ticks, axis titles and panel titles in CHART_TEXT, edited in place:
    Streamlit's chart theme greys them. As a dict, like `enlarged`: plotly's validated setters
    took 26 ms for a five-panel chart, on every rerun. Ticks, axis titles and the legend get
    the theme's own sizes where `enlarged` has not set theirs: the theme sizes them in rem, and a
    chart redrawn on leaving instructor mode, while its larger page type was still in place,
    kept that type's sizes."""
    layout = spec["layout"]
    layout.setdefault("legend", {}).setdefault("font", {}).setdefault("size", 12)
    for key in _axes(layout):
        axis = layout.setdefault(key, {})
        axis.setdefault("tickfont", {})["color"] = CHART_TEXT
        axis["tickfont"].setdefault("size", 12)
        axis.setdefault("title", {}).setdefault("font", {})["color"] = CHART_TEXT
        axis["title"]["font"].setdefault("size", 14)
    for note in layout.get("annotations", []):  # panel titles
        note.setdefault("font", {})["color"] = CHART_TEXT
    return spec


def outlined(spec: dict) -> dict:
    """A figure dict whose bars too pale to stand out from the white page by WCAG's 3:1 (q's
    orange, a coin's reject side, step 1's undrawn candidates) are edged in their own hue,
    darkened as a chip's underline is, edited in place. A bar with a visible edge of its own (a
    drawn token's ring) keeps it."""
    for trace in spec["data"]:
        if trace.get("type") != "bar":
            continue
        marker = trace.setdefault("marker", {})
        fills, line = marker.get("color"), marker.get("line", {})
        n = len(fills) if isinstance(fills, (list, tuple)) else 1
        colors, widths = _per_bar(line.get("color"), n), _per_bar(line.get("width") or 0, n)
        edged = False
        for i, fill in enumerate(_per_bar(fills, n)):
            edge = _edge(fill)
            if edge and (not widths[i] or colors[i] in (None, _CLEAR)):
                colors[i], widths[i], edged = edge, 1, True
        if edged:
            single = n == 1 and not isinstance(fills, (list, tuple))
            marker["line"] = {**line, "color": colors[0] if single else colors,
                              "width": widths[0] if single else widths}
    return spec


_CLEAR = "rgba(0,0,0,0)"  # a bar's edge that is not drawn


def _per_bar(value, n: int) -> list:
    """A bar trace's property, given once for all its bars or once each, as a list of n."""
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


def _edge(fill) -> str | None:
    """The edge a bar of this #rrggbb fill needs against white, or None where it needs none."""
    if not (isinstance(fill, str) and fill.startswith("#") and len(fill) == 7):
        return None
    return line_color(fill) if contrast(fill, "#ffffff") < LINE_CONTRAST else None


def fixed(spec: dict) -> dict:
    """A figure dict no drag or swipe can zoom or pan, edited in place: on a phone a swipe that
    starts on a chart would otherwise zoom it (cutting its bars off from zero), with only a
    double click, which a touch screen lacks, to undo it. A tap still shows a bar's value."""
    layout = spec["layout"]
    layout["dragmode"] = False
    for key in _axes(layout):
        layout.setdefault(key, {})["fixedrange"] = True
    return spec


def panel_count(spec: dict) -> int:
    """How many panels (x axes) a figure dict has side by side."""
    return sum(1 for key in spec["layout"] if key.startswith("xaxis")) or 1


def regridded(spec: dict, columns: int, panel_height: int = 150, gap: int = 140) -> dict:
    """A one-row figure dict of panels (make_subplots with rows=1) laid out again as rows of
    `columns` panels, for a phone's narrow column, edited in place. Each panel keeps its axes,
    bars and title; where the panels share one y scale (`matches`), a row's first panel shows
    its ticks, and takes the first panel's axis title. Sizes are in pixels: each row's plot
    `panel_height` tall, and `gap` between rows for the token names slanted under one row and
    the panel titles (up to three lines) over the next. Meant for more panels than `columns`:
    fewer stay as narrow as a full row's."""
    layout = spec["layout"]
    n = panel_count(spec)
    rows = -(-n // columns)
    spacing = 0.08  # between columns, as a share of the width
    width = (1 - spacing * (columns - 1)) / columns
    plot = rows * panel_height + (rows - 1) * gap
    notes = _panel_titles(layout)
    for i in range(n):
        suffix = str(i + 1) if i else ""
        row, col = divmod(i, columns)
        left, top = col * (width + spacing), 1 - row * (panel_height + gap) / plot
        x, y = layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"]
        title = _title_over(notes, x["domain"])
        x["domain"], y["domain"] = [left, left + width], [top - panel_height / plot, top]
        if "matches" in y:  # a shared scale: its numbers at each row's start only
            y["showticklabels"] = col == 0
            if col == 0 and "title" in layout["yaxis"]:
                y["title"] = copy.deepcopy(layout["yaxis"]["title"])
        if title is not None:
            title.update(x=left + width / 2, y=top)
    margin = layout.setdefault("margin", {})
    # below the last row: its token names and the legend, which plotly's automatic margin
    # would otherwise take out of the rows' own height
    layout["height"] = plot + margin.get("t", 70) + 150
    return spec


def _panel_titles(layout: dict) -> list[dict]:
    """The notes that may be make_subplots' panel titles: over the plot, at its top edge."""
    return [note for note in layout.get("annotations", [])
            if note.get("xref") == "paper" and note.get("yref") == "paper" and note.get("y") == 1
            and note.get("yanchor") == "bottom"]


def _title_over(notes: list[dict], domain: list[float]) -> dict | None:
    """The first of `notes` centred over a panel that spans `domain`, taken out of `notes` so
    that no other panel takes it too."""
    centre = (domain[0] + domain[1]) / 2
    for i, note in enumerate(notes):
        if abs(note["x"] - centre) < 1e-6:
            return notes.pop(i)
    return None


def lifted_title(spec: dict) -> str:
    """Take the title out of a figure dict and return it, for the page to set as text that wraps
    at any width (plotly cuts a long title at a phone's edge). The top margin then keeps only
    the room the panel titles need, at their own type size."""
    layout = spec["layout"]
    title = layout.pop("title", {}).get("text", "")
    size = layout.get("font", {}).get("size", 12)
    lines = [note.get("text", "").count("<br>") + 1 for note in layout.get("annotations", [])
             if note.get("yref") == "paper" and note.get("y") == 1 and note.get("yanchor") == "bottom"]
    note_size = max((note.get("font", {}).get("size", size) for note in layout.get("annotations", [])),
                    default=size)
    layout.setdefault("margin", {})["t"] = round(max(lines, default=0) * note_size * 1.3) + 10
    return title
