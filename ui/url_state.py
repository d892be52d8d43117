"""Every control lives in the URL, so a link reproduces the screen.

Values from a link are validated once per session; anything out of range is replaced by its
default with a message that says what was ignored and why. After that, session state is the
truth and the URL follows it (parameters at their default are left out to keep links short),
with one exception: when the browser's Back or Forward brings back a link that this page
itself wrote, on this visit or an earlier one, its values are read again, so that Back goes
back a step, also after a visit to another page. A link the page did not write (the bare
address a switch between pages leaves in the history) changes nothing.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from lessons.style import visible
from specdec_core.inputs import is_blank, read_decimal, read_whole

MAX_SEED = 2**31 - 1
# {page: the links runs on it ended with, as frozensets of items, oldest first}
_WRITTEN = "_url_written"
# links kept per page: a session that types many prompts must not grow without bound, and the
# browser's Back goes to recent links
WRITTEN_KEPT = 64
_LAST = "_url_last"  # the link as save() last left it: the one the last run ended with
_SAVED = "_url_saved"  # {name: value} as save() last found them in session state
_PAGE = "_url_page"  # the page the link was last written on
_BACK = "_url_back"  # this run follows the browser's Back or Forward (see arrive)
_ARRIVED = "_url_arrived"  # the link a page was opened with from another page, in that run
_KEPT = "_url_kept"  # {name: value} of every setting as a run began or ended with it (see keep)


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    parse: Callable[[str], Any]  # raises ValueError for a bad value
    rule: str  # what a good value looks like, for the message
    limits: dict | None = None  # a number's min_value, max_value and step, for its widget
    # a text's value as the page takes it, and what to tell the reader where it had to be cut
    fit: Callable[[str], tuple[str, str | None]] | None = None


def _on_grid(value: float, lo: float, hi: float, step: float) -> bool:
    steps = (value - lo) / step  # nan stays nan and fails both tests
    return lo <= value <= hi and abs(steps - round(steps)) < 1e-6


def int_param(name: str, default: int, lo: int, hi: int, step: int = 1) -> Param:
    def parse(raw: str) -> int:
        value = read_whole(raw)
        if not _on_grid(value, lo, hi, step):
            raise ValueError
        return value
    rule = f"a whole number from {lo} to {hi}" + (f" in steps of {step}" if step > 1 else "")
    return Param(name, default, parse, rule, {"min_value": lo, "max_value": hi, "step": step})


def float_param(name: str, default: float, lo: float, hi: float, step: float) -> Param:
    """A slider's number: a link may set only the values the slider itself can show, so that
    1e-300 or 0.123456 never reaches the models."""
    def parse(raw: str) -> float:
        value = read_decimal(raw)
        if not _on_grid(value, lo, hi, step):
            raise ValueError
        return round(lo + round((value - lo) / step) * step, 6)
    return Param(name, default, parse, f"a number from {lo} to {hi} in steps of {step}",
                 {"min_value": lo, "max_value": hi, "step": step})


def choice_param(name: str, default: str, options: Callable[[], list[str]]) -> Param:
    def parse(raw: str) -> str:
        if raw not in options():
            raise ValueError
        return raw
    return Param(name, default, parse, "one of " + ", ".join(options()))


def int_choice_param(name: str, default: int, values: tuple[int, ...]) -> Param:
    """A whole number from a few offered, as a select slider offers them."""
    def parse(raw: str) -> int:
        value = read_whole(raw)
        if value not in values:
            raise ValueError
        return value
    return Param(name, default, parse, "one of " + ", ".join(map(str, values)))


ON_WORDS = ("1", "true", "on", "yes")  # how a link may switch a setting on, in any case
OFF_WORDS = ("0", "false", "off", "no")


def bool_param(name: str, default: bool = False) -> Param:
    def parse(raw: str) -> bool:
        if raw.lower() in ON_WORDS:
            return True
        if raw.lower() in OFF_WORDS:
            return False
        raise ValueError
    return Param(name, default, parse, "on or off (1 or 0)")


def text_param(name: str, default: str, fit: Callable[[str], tuple[str, str | None]]) -> Param:
    """Text that is not blank, which `fit` cuts to the page's limit as its box cuts a paste."""
    def parse(raw: str) -> str:
        if is_blank(raw):
            raise ValueError
        return raw
    return Param(name, default, parse, "text that is not blank", fit=fit)


def _shown(value: Any) -> str:
    """A value from a link as it may sit in a message's code span: control, format and
    direction characters (which could reverse the message or break its line) become �, and a
    backtick, which would close the span and let the rest be read as markdown, becomes ˋ. A
    blank value shows its spaces, tabs and line ends as ␣, ⇥ and ↵ (or ∅ when empty): as it is,
    the span would look empty."""
    text = visible(str(value)) if is_blank(str(value)) else str(value)
    text = "".join("�" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c
                   for c in text).replace("`", "ˋ")
    return text if len(text) <= 40 else text[:37] + "…"


def _default_text(value: Any) -> str:
    """A default as a reader knows it: on or off, a number, or quoted text."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"“{_shown(value)}”" if isinstance(value, str) else _shown(value)


def keep(params: list[Param]) -> None:
    """Claim the values these parameters already have for session state. A widget's value is
    dropped after a run that does not draw it (the same widget on another page is another
    widget), so without this a visit to another page would reset the controls of this one.
    On a switch of page Streamlit also drops the state of every widget the browser's request
    did not name, which quick clicks in the navigation menu can leave out; a copy outside the
    widgets' state (see save) then brings the value back, where the bare link of the page
    opened would bring only its default."""
    s = st.session_state
    kept = s.setdefault(_KEPT, {})
    for p in params:
        if p.name in s:
            s[p.name] = kept[p.name] = s[p.name]
        elif p.name in kept:
            s[p.name] = kept[p.name]


def arrived() -> bool:
    """Whether this run draws its page for the first time since another page (or the session's
    first run): what changed since this page was last on screen did not change under the
    reader's focus."""
    return _ARRIVED in st.session_state


def arrive(page: str) -> None:
    """Note the page this run draws, and whether the browser's history brought its link, once
    per run before any load or save. On another page than the last run's, the link is the one
    that page was opened with, and session state, not the link, holds its settings."""
    s = st.session_state
    s.pop(_ARRIVED, None)
    written = s.setdefault(_WRITTEN, {})
    if s.get(_LAST) is not None:
        links = written.setdefault(s[_PAGE], {})  # a dict for its order: the newest last
        links.pop(s[_LAST], None)
        links[s[_LAST]] = None
        for old in list(links)[:-WRITTEN_KEPT]:
            del links[old]
    if s.get(_PAGE) != page:
        s[_PAGE], s[_LAST], s[_SAVED] = page, None, {}
        s[_ARRIVED] = _link()
        s[_BACK] = False
        return
    s[_BACK] = _went_back(written.get(page, {}))


def _link() -> frozenset:
    return frozenset(st.query_params.to_dict().items())


def _went_back(written: dict) -> bool:
    """Whether the browser went Back or Forward: the link is another one than the last run ended
    with, but one that a run on this page ended with, and no control of the page changed since.
    After a click the browser may not have caught up with the link the last run wrote, and a
    link it sends along is then only late, not chosen."""
    s = st.session_state
    clicked = any(s.get(n, value) != value for n, value in s.get(_SAVED, {}).items())
    link = _link()
    return not clicked and link != s.get(_LAST) and link in written


def load(params: list[Param]) -> list[str]:
    """Fill session state from the URL for parameters this session has not seen yet, or for all
    of them when the browser's history brought back an earlier link of this page (see arrive);
    return messages about the values that were ignored."""
    problems = []
    back = st.session_state.get(_BACK, False)
    for p in params:
        raw = st.query_params.get(p.name)
        if p.name in st.session_state and not back:
            continue
        value = p.default
        if raw is not None:
            problems.extend(_repeated(p.name))
            try:
                value = p.parse(raw)
            except (ValueError, TypeError, OverflowError):
                problems.append(f"Ignored `{p.name}={_shown(raw)}` from the link: it must be "
                                f"{p.rule}. Using {_default_text(p.default)} instead.")
            else:
                value, cut = p.fit(value) if p.fit else (value, None)
                problems.extend([cut] if cut else [])
        st.session_state[p.name] = value
    return problems


def _repeated(name: str) -> list[str]:
    """A message where the link names `name` more than once: only the last value counts."""
    others = st.query_params.get_all(name)[:-1]
    if not others:
        return []
    dropped = ", ".join(f"`{name}={_shown(v)}`" for v in others)
    return [f"The link sets `{name}` more than once, and only the last counts: ignored {dropped}."]


# parameters Streamlit itself reads from a link
_STREAMLIT_OWN = ("embed", "embed_options")


# what sites and mail add to a link they pass on (campaign and click ids): dropped silently
_TRACKING = re.compile(r"^(utm_\w*|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|igshid|yclid)$", re.IGNORECASE)

# unknown parameters one message names; it counts the rest
NAMED_UNKNOWN = 5


def drop_unknown(params: list[Param]) -> list[str]:
    """Take out of the link the parameters that are none of `params` (a misspelt one, say),
    which would otherwise ride along unread; return one message that names them (the first
    NAMED_UNKNOWN, and how many more). Tracking parameters go without a word."""
    known = {p.name for p in params} | set(_STREAMLIT_OWN)
    unknown = [n for n in st.query_params if n not in known]
    if not unknown:
        return []
    spoken = [n for n in unknown if not _TRACKING.match(n)]
    named = []
    for name in spoken[:NAMED_UNKNOWN]:
        close = _meant(name, [p.name for p in params])
        guess = f" (the link's name for it may be `{close}`)" if close else ""
        named.append((f"`{_shown(name)}={_shown(st.query_params.get(name, ''))}`", guess))
    # the link rewritten once: one by one, each would send the whole link to the browser again
    st.query_params.from_dict({n: st.query_params.get_all(n) for n in st.query_params if n in known})
    if not named:
        return []
    if len(spoken) == 1:
        ((pair, guess),) = named
        return [f"Ignored {pair} from the link: the app has no setting of that name{guess}."]
    more = len(spoken) - NAMED_UNKNOWN
    listed = ", ".join(pair + guess for pair, guess in named) + (f" and {more} more" if more > 0 else "")
    return [f"Ignored {len(spoken)} parameters from the link that the app has no setting of: {listed}."]


def _meant(name: str, names: list[str]) -> str | None:
    """The setting a misspelt or reworded name most likely means: one whose name holds it or is
    held in it ("early_stop": stop, "temp": temperature), else one spelt nearly alike, two
    letters swapped first ("stpe": step)."""
    lower = name.lower()
    held = [n for n in names if n in lower or (len(lower) >= 3 and lower in n)]
    if held:
        return max(held, key=len)
    close = difflib.get_close_matches(lower, names, n=3, cutoff=0.75)
    # two letters swapped score no higher than one letter changed ("stpe": step and stop alike)
    swapped = [n for n in close if sorted(n) == sorted(lower)]
    return (swapped or close or [None])[0]


def save(params: list[Param]) -> None:
    """Write the current values into the URL, each parameter once. Blank text is left out: a
    link cannot carry it (see text_param); so is no value at all (a cleared select box), which
    would otherwise be written as the word None."""
    saved = st.session_state.setdefault(_SAVED, {})
    kept = st.session_state.setdefault(_KEPT, {})
    before = {n: st.query_params.get_all(n) for n in st.query_params}
    after = dict(before)
    for p in params:
        value = st.session_state.get(p.name, p.default)
        saved[p.name] = kept[p.name] = value
        if value is None or value == p.default or (isinstance(value, str) and is_blank(value)):
            after.pop(p.name, None)
        else:
            # one value, also where the link repeated it (?step=2&step=3)
            after[p.name] = [str(int(value)) if isinstance(value, bool) else str(value)]
    if after != before:
        # written whole, once: each change of the link is an entry in the browser's history, and
        # one per setting would take as many presses of Back to leave the page
        st.query_params.from_dict(after)
    link = st.session_state[_LAST] = _link()
    arrived = st.session_state.get(_ARRIVED)
    if arrived is not None and arrived != link:
        # the address a click in the navigation left in the history, which this run wrote over:
        # Back onto it is no step of this page, though a run at the defaults writes the same
        st.session_state[_WRITTEN].get(st.session_state[_PAGE], {}).pop(arrived, None)


def show_problems(problems: list[str]) -> None:
    for message in problems:
        st.warning(message, icon=":material/link_off:")
