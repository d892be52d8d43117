"""One colour per quantity across the app (Okabe-Ito, safe for colour-blind viewers), and
token labels that are safe to show anywhere."""
from __future__ import annotations

import html
import unicodedata
from functools import cache

P_COLOR = "#0072B2"  # p, the target (Nimbus-large): blue
Q_COLOR = "#E69F00"  # q, the draft (Nimbus-mini): orange
OVERLAP_COLOR = "#009E73"  # min(p, q), the part of q that is kept: bluish green
RESIDUAL_COLOR = "#CC79A7"  # max(0, p - q) / Z, the leftover: reddish purple
REJECT_COLOR = "#6E6E6E"  # a rejected or unchecked draft: grey
U_COLOR = "#000000"  # the coin flip u: black
# a draft never checked (after a rejection): pale, with a grey outline, in a chart and as a chip
# (the outline 3:1 against the fill, as a line that carries meaning needs)
UNCHECKED_FILL, UNCHECKED_LINE = "#f0f0f0", "#898989"

# the colour of a token is the colour of the distribution it was finally drawn from; beside the
# pair's text, Nimbus-large's own (every token from p) is neutral, so that the bonus tokens
# stand out against it rather than looking like all of it
TARGET_ALONE_COLOR = "#8C8C8C"
ORIGIN_COLORS = {"accepted": OVERLAP_COLOR, "correction": RESIDUAL_COLOR, "bonus": P_COLOR,
                 "target": TARGET_ALONE_COLOR}
ORIGIN_LABELS = {"accepted": "accepted draft", "correction": "correction (from the residual)",
                 "bonus": "bonus (from p)", "target": "Nimbus-large alone (from p)"}
# and its underline, so that colour is not the only cue: solid, dashed, double or dotted
ORIGIN_LINES = {"accepted": "solid", "correction": "dashed", "bonus": "double", "target": "dotted"}
# and a correction's chip hatched: to a red-green colour-blind eye its pale fill and a kept
# draft's look the same, and a dashed line under a one-character chip is one dash
HATCHED = "correction"
# a token's chip is its colour at this opacity over the page's white; its line in full
CHIP_FILL_ALPHA = 0x33


def _channels(color: str) -> list[int]:
    return [int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]


def _hex(channels) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in channels)


def luminance(color: str) -> float:
    """WCAG's relative luminance of a #rrggbb colour."""
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in _channels(color))]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours, from 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over_white(color: str, opacity: float) -> str:
    """What `color` at `opacity` looks like over the white page, as a colour of its own."""
    return _hex(c * opacity + 255 * (1 - opacity) for c in _channels(color))


@cache
def chip_fill(color: str) -> str:
    """What a chip's `color` at CHIP_FILL_ALPHA looks like over white."""
    return over_white(color, CHIP_FILL_ALPHA / 255)


# WCAG's 3:1, the contrast a line that carries meaning needs against what it sits on
LINE_CONTRAST = 3.0


@cache
def hatch(color: str) -> str:
    """A CSS background image of thin diagonal lines in `color`'s underline colour, over a
    chip's fill: a pattern the eye tells apart without the hue."""
    r, g, b = _channels(line_color(color))
    return f"repeating-linear-gradient(135deg,transparent 0 4px,rgba({r},{g},{b},0.35) 4px 5.5px)"


@cache
def line_color(color: str) -> str:
    """`color`, darkened just enough that a line of it stands out from its chip's fill by
    LINE_CONTRAST: the same hue, as in the charts. Black where no shade of it reaches that."""
    fill, shade = chip_fill(color), 1.0
    while shade > 0 and contrast(_hex(c * shade for c in _channels(color)), fill) < LINE_CONTRAST:
        shade = max(0.0, shade - 0.01)
    return _hex(c * shade for c in _channels(color))


FONT = "Inter, Segoe UI, Helvetica, Arial, sans-serif"
# chart text (ticks, axis and panel titles): Streamlit's chart theme greys it to 3.7:1 against
# white, under the 4.5:1 small text needs; this reaches 7.6:1
CHART_TEXT = "#4A4D57"


_WHITESPACE = {" ": "␣", "\n": "↵", "\t": "⇥"}
_UNSEEN = ("Zs", "Zl", "Zp", "Cc", "Cf")  # spaces, line ends, control and format characters


def code_point(c: str) -> str:
    """A character as its code point, ⟨U+2001⟩: how the app writes one that prints nothing."""
    return f"⟨U+{ord(c):04X}⟩"


def marked_unseen(text: str) -> str:
    """`text` with every character that prints nothing, other than a plain space, a newline or
    a tab (another space such as U+2001, a zero-width or a direction character, a control
    character), written as its code point, ⟨U+2001⟩; and a combining mark that opens it set on
    a dotted circle, ◌́. Without this, a token made of such characters is an empty box."""
    shown = "".join(code_point(c) if unicodedata.category(c) in _UNSEEN and c not in _WHITESPACE
                    else c for c in text)
    return "◌" + shown if shown and unicodedata.combining(shown[0]) else shown


# the characters that reorder the text around them (embeddings, overrides, isolates): in someone's
# own text they could show a message, or a prompt in a shared link, reversed
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str) -> str:
    """A token's text with everything in it visible: spaces as '␣', newlines as '↵', tabs as
    '⇥', and other characters that print nothing as in `marked_unseen`; nothing at all as '∅'."""
    return "".join(_WHITESPACE.get(c, c) for c in marked_unseen(text)) or "∅"


def token_label(text: str) -> str:
    """A token's visible text, HTML-escaped for charts and for text inside HTML blocks. Quotes
    stay as they are: plotly shows "&quot;" as written, and no caller puts a label inside an
    attribute (a chip escapes its title itself)."""
    return html.escape(visible(text), quote=False)
