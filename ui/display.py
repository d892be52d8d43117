"""Small rendering helpers: a chart with its table and text alternative, coloured tokens."""
from __future__ import annotations

import copy
import html
import re
import unicodedata
from contextlib import closing
from typing import Callable, Iterator, TypeVar

import pandas as pd
import streamlit as st

from lessons.chart import Chart, enlarged, fixed, legible, lifted_title, outlined, panel_count, regridded
from lessons.figures import NO_FLIP
from lessons.style import (BIDI_CONTROLS, HATCHED, ORIGIN_COLORS, ORIGIN_LABELS, ORIGIN_LINES, chip_fill, code_point,
                           hatch, line_color, marked_unseen, token_label, visible)

from . import projector
from .shared_stream import SharedStream

T = TypeVar("T")


_MARKDOWN = re.compile(r"([\\`*_$\[\]~<>#|])")


def plain_markdown(text: str) -> str:
    """Text shown as written where Streamlit reads markdown: a token such as “**” or “$” in a
    sentence must not turn the rest bold or into a formula."""
    return _MARKDOWN.sub(r"\\\1", text)


def show_chart(chart: Chart, key: str) -> None:
    """The chart (larger type in instructor mode) under its title, set as page text that wraps
    at any width; then its text alternative and its numbers."""
    present = st.session_state.get("present")
    spec = fixed(legible(outlined(enlarged(chart.figure, screen=projector.growth()) if present
                                  else chart.figure.to_dict())))
    title = lifted_title(spec)
    # a heading to a screen reader, so that a chart can be reached from the list of headings
    st.markdown(f'<p class="chart-title" role="heading" aria-level="3" style="font-weight:600;margin:0.5rem 0 0">'
                f'{html.escape(title)}</p>', unsafe_allow_html=True)
    _plot(spec, key)
    st.caption(spoken_text(chart.alt), unsafe_allow_html=True)
    # a plain table, every column of it in the page: a data frame draws its cells on a canvas
    # and gives a screen reader only the columns in view, which a half-width column cut to four
    with st.expander(f"Table view: {title}"):
        st.table(table_view(chart.rows), hide_index=True)


# the end of the key of what is drawn twice, once for a phone's narrow column (ui/style.py)
PHONE_COPY = "__phone"
# the most panels a phone's column shows side by side, and the fewest that are then laid out
# in rows on it: five panels in one row leave each one 60 pixels, where its bars and the token
# names under them run together
PHONE_COLUMNS = 2
PHONE_MOST_PANELS = 3


def _plot(spec: dict, key: str) -> None:
    """The plotly chart; one of four or more panels side by side also in rows of two, which the
    page's style shows instead in a column narrower than a phone's (`ui/style.py`, `panels_`).
    Not on a projector, whose column is always wide."""
    # no toolbar: it covered the panel titles on hover and added eight tab stops to every chart
    config = {"displayModeBar": False, "doubleClick": False}
    if st.session_state.get("present") or panel_count(spec) <= PHONE_MOST_PANELS:
        st.plotly_chart(spec, key=key, config=config)
        return
    narrow = regridded(copy.deepcopy(spec), PHONE_COLUMNS)
    with st.container(key=f"panels_{key}"):
        st.plotly_chart(spec, key=key, config=config)
        st.plotly_chart(narrow, key=f"{key}{PHONE_COPY}", config=config)


def table_view(rows: list[dict]):
    """The table under a chart: its cells as `table_cells` writes them, and a column of numbers
    set flush right, so that their digits line up (Streamlit sets text flush left, in the cell's
    own style, which only an important rule overrides)."""
    frame = pd.DataFrame(table_cells(rows))
    numbers = [i for i, k in enumerate(frame.columns) if _numeric(row.get(k) for row in rows)]
    right = "right !important"
    return (frame.style.set_properties(subset=frame.columns[numbers], **{"text-align": right})
            .set_table_styles([{"selector": f"th.col{i}", "props": [("text-align", right)]} for i in numbers]))


def _numeric(column) -> bool:
    """A column of numbers, or of numbers written out ("0.0217"), some of them perhaps missing
    (a blank or a dash)."""
    values = [v for v in column if v not in (None, "", NO_FLIP)]
    return bool(values) and all(_is_number(v) for v in values)


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def table_cells(rows: list[dict]) -> list[dict]:
    """A chart's numbers as a table shows them: a decimal to four significant digits (left as
    it was, a tiny q showed as 0.0000000000000002), a flag as yes or no, nothing as a blank."""
    def cell(value):
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return f"{value:.4g}"
        return "" if value is None else value
    return [{k: cell(v) for k, v in row.items()} for row in rows]


def number_table(rows: list[dict], key: str, formats: dict[str, str], helps: dict[str, str],
                 titles: dict[str, str] | None = None, wide: tuple[str, ...] = ()) -> None:
    """A table of measured numbers. `formats`: printf formats by column ("%.2fx"); `helps`:
    a column's tooltip; `titles`: a header longer than the column's key. On screen it is a
    sortable data frame. In instructor mode it is a plain table, whose text grows with the page
    (a data frame draws a canvas at its own small size), without the columns named in `wide`,
    so that it fits a projector's width; and so it is on a phone, where the frame showed four
    of its columns and hid the rest past the edge with nothing to say so (both are sent, and the
    page's style shows the one that fits: `ui/style.py`, `numbers_`). `key`: the table's name,
    unique on its page."""
    titles = titles or {}
    plain = [{titles.get(k, k): (formats[k] % v if k in formats else v)
              for k, v in row.items() if k not in wide} for row in rows]
    if st.session_state.get("present"):
        st.table(plain, hide_index=True)
        return
    config = {k: st.column_config.NumberColumn(titles.get(k), format=formats.get(k), help=helps.get(k))
              if k in formats else st.column_config.Column(titles.get(k), help=helps.get(k))
              for k in {*formats, *helps, *titles}}
    # rounded as shown: a screen reader reads the frame's cells as stored, all 16 digits
    shown = [{k: _as_shown(v, formats.get(k)) for k, v in row.items()} for row in rows]
    with st.container(key=f"numbers_{key}"):
        st.dataframe(shown, hide_index=True, column_config=config)
        with st.container(key=f"numbers_{key}{PHONE_COPY}"):
            st.table(plain, hide_index=True)


def _as_shown(value, fmt: str | None):
    digits = re.search(r"%\.(\d+)f", fmt or "")
    return round(value, int(digits[1])) if digits and isinstance(value, float) else value


def metric_row(*metrics: dict, gap: str = "medium") -> None:
    """Metrics side by side while they fit and on the next line when they do not, each as wide
    as its label and value: columns of a fixed share cut both off at a projector's width."""
    with st.container(horizontal=True, gap=gap):
        for metric in metrics:
            st.metric(width="content", **metric)


def chip(text: str, color: str | None = None, style: str = "", title: str = "",
         visible_space: bool = True, line: str = "solid", spoken: str = "", hatched: bool = False,
         markup: bool = False) -> str:
    """One token as an HTML span; `text` is escaped here, unless `markup` says it is HTML
    already. `style` comes last, so it can override the chip's own. `spoken`: words only a
    screen reader reads, after the token. `hatched`: its fill crossed by thin lines (a
    correction's, see lessons.style.HATCHED)."""
    # (the chips are separate words to a screen reader anyway)
    shown = text if markup else mute_marks(token_label(text)) if visible_space else html.escape(text)
    bg = (f"background:{chip_fill(color)};border-bottom:3px {line} {line_color(color)};" if color else "")
    if color and hatched:  # clear of the underline by its width: the line stands against the fill
        bg += f"background-image:{hatch(color)};background-size:100% calc(100% - 3px);background-repeat:no-repeat;"
    said = f'<span class="sr-only"> ({html.escape(spoken)})</span>' if spoken else ""
    return (f'<span class="tok" title="{html.escape(title)}" style="{bg}padding:1px 3px;margin:0 1px;'
            f'border-radius:4px;font-family:monospace;white-space:break-spaces;{style}">{shown}</span>{said}')


def prompt_chip(prompt: str, most: int = 160) -> str:
    """The prompt a text continues, as the walkthrough's "Continuing" line shows it: a plain chip
    on one line before the text's coloured ones, its start cut to `most` characters; someone's
    own text, so escaped as `plain_text` escapes it (nothing read as markdown, a direction
    character shown as its code point, which would otherwise turn the text after it)."""
    line = " ".join(prompt.split())
    shown = chip(_escaped(line if len(line) <= most else "…" + line[1 - most:]), markup=True)
    return f'<span class="prompt">{shown}</span>'  # a phrase, not a token: it may break across lines


def origin_legend(with_target: bool = False) -> str:
    """The key to the token colours and underlines, in the page's own type: its labels are
    words, not tokens. `with_target` adds the tokens Nimbus-large wrote alone. A screen reader
    hears it as a list ("Colour key: accepted draft, correction…")."""
    entries = [chip(label, ORIGIN_COLORS[o], visible_space=False, line=ORIGIN_LINES[o], hatched=o == HATCHED,
                    style="font-family:inherit;white-space:nowrap")  # an entry never splits
               for o, label in ORIGIN_LABELS.items() if with_target or o != "target"]
    return '<span class="sr-only">Colour key: </span>' + '<span class="sr-only">,</span> '.join(entries)


def colored_text(pieces: list[tuple[str, str]]) -> str:
    """(text, origin) pairs as coloured spans; the colour is the distribution a token came from,
    and the underline tells the same apart without colour. A newline inside a token shows as ↵
    in its chip and breaks the line after the chip, so a token that is only a newline is still
    seen, and a character that prints nothing shows its code point (`marked_unseen`). A token with
    no text of its own still gets a chip, so that the chips add up to the
    counts beside them: a narrow one for part of a character the next token completes (an emoji
    can take several tokens), and "end" for the end of the text. Lines break between tokens,
    never inside one: a token's leading space wrapped alone onto a line would show as an empty
    sliver. A screen reader skips the chips, which split words, and hears the text whole, then
    how many tokens came each way."""
    chips = "<wbr>".join(_token_chip(text, origin, last=i == len(pieces) - 1)
                         for i, (text, origin) in enumerate(pieces))
    # on one line: a blank line ("\r" ends a line too) would end the HTML block, and markdown
    # would take what follows
    said = re.sub(r"\s*[\r\n]\s*", " ", "".join(text for text, _ in pieces))
    spoken = f"{said} ({origin_counts([o for _, o in pieces])}{_which_were(pieces)})"
    return f'<span aria-hidden="true">{chips}</span><span class="sr-only">{html.escape(spoken)}</span>'


def _token_chip(text: str, origin: str, last: bool) -> str:
    """One generated token's chip in colored_text."""
    color, line = ORIGIN_COLORS.get(origin), ORIGIN_LINES.get(origin, "solid")
    kind, hatched = ORIGIN_LABELS.get(origin, ""), origin == HATCHED
    if not text and last:
        return chip("end", color, title=f"{kind}: the end of the text", visible_space=False, line=line,
                    hatched=hatched, style="font-family:inherit;font-size:0.8em;font-style:italic")
    if not text:
        return chip("", color, title=f"{kind}: part of the character the next token completes",
                    visible_space=False, line=line, hatched=hatched,
                    style="display:inline-block;width:0.5em;padding:1px 0")
    # no padding at the sides: the 2 px between two chips of one word stay narrower than the
    # space a word's first token carries, so the words still read as words ("troublesh" "oot")
    return (chip(_line_ends_shown(marked_unseen(text)), color, title=kind, visible_space=False, line=line,
                 hatched=hatched, style="white-space:pre;padding:1px 0") + "<br>" * text.count("\n"))


_COUNTED = {"accepted": ("kept draft", "kept drafts"), "correction": ("correction", "corrections"),
            "bonus": ("bonus token", "bonus tokens"),
            "target": ("token Nimbus-large wrote alone", "tokens Nimbus-large wrote alone")}


def origin_counts(origins: list[str]) -> str:
    """'74 kept drafts, 36 corrections, 10 bonus tokens': how the tokens came, in words."""
    counts = [(origins.count(o), names) for o, names in _COUNTED.items() if o in origins]
    return ", ".join(f"{n} {one if n == 1 else many}" for n, (one, many) in counts) or "no tokens"


# the tokens a screen reader hears named after the text: those that did not come as kept drafts
_NAMED = {"correction": "corrections", "bonus": "bonus tokens"}


def _which_were(pieces: list[tuple[str, str]]) -> str:
    """'; corrections: our, here; bonus tokens: !': which tokens came other than as kept drafts,
    in order, for a reader who cannot see their colours."""
    last = len(pieces) - 1
    named = [f"{kind}: " + ", ".join(spoken_token(t, i == last) for i, (t, o) in enumerate(pieces) if o == origin)
             for origin, kind in _NAMED.items() if origin in (o for _, o in pieces)]
    return "".join(f"; {part}" for part in named)


def spoken_token(text: str, last: bool) -> str:
    """A token as a screen reader hears it in a list: its words; punctuation by its names, which
    a reader may skip and which a list's own commas would hide ("comma", "full stop"); or what
    it is when it has no words (as its chip shows it: see `_token_chip`)."""
    if words := re.sub(r"\s+", " ", text).strip():
        marks = words.replace(" ", "")
        if len(marks) <= 3 and all(unicodedata.category(c).startswith("P") for c in marks):
            return " ".join(unicodedata.name(c, c).lower() for c in marks)
        return words
    if text:
        return "line break" if "\n" in text or "\r" in text else "space"
    return "end of text" if last else "part of a character"


def _line_ends_shown(text: str) -> str:
    """A newline as ↵, and the indentation after it as ␣: raw spaces there would wrap onto a
    line of their own and show as an empty bar."""
    return re.sub(r"\n[ \t]*", lambda m: visible(m.group()), text)


# one pass over someone's text: HTML's characters escaped; a line end (markdown reads "\r" as
# one too) and the characters markdown reads as syntax within a line, written as character
# references, which markdown reads as text; a colon too, which Streamlit reads before markdown
# does, as the start of an icon such as ":material/home:"
_PLAIN = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;",
                        "\n": "&#10;", **{c: f"&#{ord(c)};" for c in "\\`*_[]$~:"}})
_LINE_END = re.compile(r"\r\n?")


_MARKS = re.compile("[␣↵⇥]")


def mute_marks(markup: str) -> str:
    """HTML with the marks that show a space, a line end or a tab hidden from a screen reader:
    they are for the eye, and one would be read as "open box"."""
    return _MARKS.sub(lambda m: f'<span aria-hidden="true">{m.group()}</span>', markup)


def spoken_text(text: str) -> str:
    """Text that names tokens (a chart's text alternative) as HTML for a caption: escaped as
    `plain_text` escapes it, with its visible-whitespace marks muted."""
    return mute_marks(_escaped(text))


def _escaped(text: str) -> str:
    kept = _LINE_END.sub("\n", text).translate(_PLAIN)
    return "".join(f'<span dir="ltr">{code_point(c)}</span>' if c in BIDI_CONTROLS else c for c in kept)


def plain_text(text: str) -> str:
    """Someone's own text as HTML: escaped, its line breaks and runs of spaces kept, and its
    direction taken from its first letters (dir="auto"), so that a right-to-left message ends
    at its left edge with its punctuation there. Nothing in it is read as markdown: a blank
    line would end the HTML block and let markdown take what follows (a link, a picture from
    another site), so line ends are written as character references, and so are markdown's own
    characters. A character that would reorder the text around it shows as its code point,
    ⟨U+202E⟩ (a link could otherwise show a whole class a message reversed), set left to right
    on its own so that its Latin letter does not decide the direction of the text."""
    return f'<div dir="auto" style="white-space:pre-wrap">{_escaped(text)}</div>'


def html_div(body: str) -> str:
    """Tokens and their key in the block that spaces their lines for the chips' underlines."""
    return f'<div class="tokens" style="line-height:2.1">{body}</div>'


def html_block(body: str) -> None:
    st.markdown(html_div(body), unsafe_allow_html=True)


def draw_as_written(shared: SharedStream[T], make: Callable[[], Iterator[T]], draw: Callable[[T], None]) -> T:
    """A text the pair writes, drawn after each target pass while it is written (by this session,
    or by another that this one watches); returned whole. A text already whole is returned at
    once, for the caller to draw. `draw` marks a text as written so far itself, in the same
    element: a spinner would keep turning after Streamlit's Stop, which cuts a run off before
    it can take the spinner away."""
    if not shared.done:
        texts = shared.follow(make)
        with closing(texts):  # a rerun lets the next one write
            for text in texts:
                draw(text)
    return shared.latest


def so_far(counted: str, whole: bool) -> None:
    """The line over a text still being written (or one a Stop cut off), `counted` telling how
    far it got; an empty element in its place once the text is whole, so that every draw into a
    slot writes as many elements and none of a partial draw's is left standing after the last."""
    if whole:
        st.empty()
    else:
        st.caption(f"Written so far: {counted}, one target pass at a time.")
