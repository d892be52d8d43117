"""Keyboard focus and the view across a rerun. A rerun can redraw the button that was just
pressed: it is disabled (Next on the last step), replaced (a coin once flipped) or drawn anew at
another place in the page, and the focus drops to the page. A keyboard user would then have to
tab through the sidebar and every chart to get back. After such a click the focus goes to the
first of a few controls that is there and enabled, and only if nothing else holds it. A click
that opens new content (the next step) can also bring its start into view: the page would
otherwise stay scrolled down at the buttons, and a class in front of a projector would see only
the end of the new step."""
from __future__ import annotations

import json

import streamlit as st

# a button's label is its markdown; an icon may come before it and a shortcut's key after (shared
# with ui/keys.py's script, which finds buttons by label too)
BUTTON_LABEL_JS = """const label = b => (b.querySelector('[data-testid="stMarkdownContainer"]') || b)
    .innerText.trim().split("\\n")[0].trim();"""
_PENDING = "after_click"  # (labels, show, to_top, always, then) of the last click, for its rerun
_COUNT = "focus_clicks"
# runs in the page itself, and watches it for five seconds: the rerun's elements settle
# over that time (charts are drawn after the buttons around them); longer to bring an element
# into view while the run still streams content in under it
_SCRIPT = """<script>
(() => {{
  const labels = {labels};
  const show = {show}, toTop = {to_top}, always = {always}, then = {then};
  window.focusAfterClick = {nonce};  // a later click's script takes over from this one
  let ticks = 0, shown = !show, placed = null, steady = 0, user = false;
  // a key pressed or a click made meanwhile is the reader's own move: from then on the focus
  // and the view are theirs (a Tab past the last button would otherwise be sent back to it);
  // a scroll by wheel or touch takes only the view (a wheel turned up while a race starts was
  // pulled back down), and the focus still goes where it should
  const yieldTo = () => {{ user = true; }};
  const keepView = () => {{ shown = true; }};
  // so is a focus moved by anything but this script: a screen reader's cursor moves it with
  // keys the page never sees
  let placing = false;
  const moved = () => {{ if (!placing) user = true; }};
  const moves = [["keydown", yieldTo], ["pointerdown", yieldTo], ["focusin", moved],
                 ["wheel", keepView], ["touchmove", keepView]];
  moves.forEach(([m, f]) => window.addEventListener(m, f, {{capture: true, passive: true}}));
  const stop = () => {{
    moves.forEach(([m, f]) => window.removeEventListener(m, f, {{capture: true}}));
    clearInterval(timer);
  }};
  const timer = setInterval(() => {{
    if (window.focusAfterClick !== {nonce} || user) return stop();
    const start = !shown && document.querySelector(show);
    if (start) {{
      start.style.scrollMarginTop = "4.5rem";  // clear of Streamlit's header
      const margin = parseFloat(getComputedStyle(start).scrollMarginTop);
      const top = start.getBoundingClientRect().top;
      // scrolled past it, or (toTop) below the top; again on the next tick while the page
      // under it is still too short to scroll that far
      if (top < 0 || (toTop && top > margin + 40)) start.scrollIntoView({{block: "start"}});
      else shown = true;
    }}
    const main = document.querySelector('[data-testid="stMain"]');
    const held = document.activeElement;
    // dropped: to the page itself, or to one of the app's containers around the main area
    // once placed, it must stay: a button of the run before may still be drawn for a moment
    const kept = placed && placed.isConnected && held === placed;
    steady = kept ? steady + 1 : 0;
    const dropped = main && !kept && (always || !held || held === document.body || held.contains(main));
    const buttons = dropped ? [...main.querySelectorAll("button")] : [];
    {label_js}
    // Streamlit keeps hidden copies of buttons with a tooltip: only a drawn one
    const usable = b => !b.disabled && b.getClientRects().length > 0;
    let found = labels.map(l => buttons.find(b => usable(b) && label(b) === l)).find(b => b);
    // none of them: the element `then` names, anywhere in the page, once drawn and in view (a
    // collapsed sidebar keeps its controls off to the left); it may be no control
    const other = dropped && !found && then && document.querySelector(then);
    const box = other && other.getBoundingClientRect();
    if (box && box.width > 0 && box.right > 0) {{
      other.tabIndex = Math.max(other.tabIndex, -1);  // a heading too can then hold the focus
      found = other;
    }}
    if (found) {{
      placing = true;
      found.focus({{preventScroll: Boolean(show)}});
      placing = false;
      placed = found;
    }}
    const done = (!labels.length && !then) || steady >= 3;
    // after five seconds, it goes on only to bring `show` up, while the run still draws the
    // page under it (a slow race's lanes), and never past two minutes
    const running = document.querySelector('[data-testid="stStatusWidget"]') !== null;
    if ((done && shown) || (++ticks > 50 && (shown || !running)) || ticks > 1200) stop();
  }}, 100);
}})();
</script>"""


def after_click(*labels: str, show: str | None = None, to_top: bool = False, always: bool = False,
                then: str | None = None) -> None:
    """Call from a click's callback: after the rerun, should the focus have dropped (or
    `always`), it goes to the first enabled button in the page's main area whose text is one
    of `labels`, or else to the element the CSS selector `then` names.
    `show`: a CSS selector of the element to scroll to the top of the view if the page is
    scrolled past it; a page that shows it already keeps its title in view, unless `to_top`
    (a projector's short screen, where the title would leave no room for the new content)."""
    st.session_state[_PENDING] = (labels, show, to_top, always, then)


def restore() -> None:
    """Call once a run: carries out the last after_click (its script waits up to five seconds
    for the buttons it may focus to be drawn)."""
    pending = st.session_state.pop(_PENDING, None)
    if pending:
        labels, show, to_top, always, then = pending
        _run(labels, show, to_top=to_top, always=always, then=then)


def show_now(selector: str) -> None:
    """Scroll the element `selector` names to the top of the view as soon as it is drawn, in
    this run: for content that streams in below the button that started it."""
    _run((), selector, to_top=True, always=False)


def to_element(selector: str) -> None:
    """Give the focus, if it dropped to the page, to the element `selector` names once it is
    drawn in this run: for a click whose button this run no longer draws at all."""
    _run((), None, to_top=False, always=False, then=selector)


def _run(labels, show: str | None, to_top: bool, always: bool, then: str | None = None) -> None:
    # the count makes each script new to the page, which is what makes it run again
    st.session_state[_COUNT] = st.session_state.get(_COUNT, 0) + 1
    script = _SCRIPT.format(nonce=st.session_state[_COUNT], label_js=BUTTON_LABEL_JS,
                            labels=json.dumps(list(labels)),
                            show=json.dumps(show), to_top=json.dumps(to_top),
                            always=json.dumps(always), then=json.dumps(then))
    st.html(script, unsafe_allow_javascript=True)
