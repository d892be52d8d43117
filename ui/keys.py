"""Keys that press a button of the page's main area where Streamlit's own shortcuts fall short:
they take one key per button, they fire even from a text box, and they do nothing while a
switch has the focus.
A presentation clicker sends Page Down and Page Up, which in instructor mode should move through
the walkthrough: a projector's short screen holds only part of a step in large type, and a
clicker has no other key to scroll with, so Page Down first reads on through the step a screen
at a time, and turns the step as → does once the step's buttons are in view; Page Up reads back
to the step's first line, then turns back as ← does. On the other pages the two keys read on
and back through the page a screen at a time (the page's own scrolling needs a click in it
first), and at a page's foot, or once the walkthrough's last step has been read, Page Down
follows the link on to the next page (on the race, the last page, it starts a race). Esc must
leave instructor mode only when no box has the key (there Esc belongs to the box: it closes a
list or drops what was typed), and not while a help box is open (there Esc closes it, as a help
box's text must close without anything else moving); and after a click
on a switch of the sidebar (instructor mode, predict first, or leaving instructor mode, which
hands the focus to its switch), → and ← must still turn the step.
A key pressed while the walkthrough is still being drawn (its buttons come after the step's
charts) waits a moment for its button, rather than being lost."""
from __future__ import annotations

import json

from .focus import BUTTON_LABEL_JS

LEAVE = "Leave instructor mode"
# the container of what a clicker's Page Down does at a page's foot: the link on to the next
# page, which it follows, or on the last page the button that starts a race, which it presses
ONWARD_KEY = "onward"
# predict first's flip without a guess: a clicker cannot choose keep or reject
FLIP = "Flip the coin"
# a clicker's forward and back, where a page has these buttons (the walkthrough); a list: the
# first of them drawn and enabled (in predict first, the next coin before the next step)
CLICKER = {"PageDown": [FLIP, "Next"], "PageUp": "Back"}
# the keys that read through a step before they press their button, and through a page without
# such buttons: down, or back up
READ_THROUGH = {"PageDown": 1, "PageUp": -1}
# the walkthrough's shortcuts, which Streamlit ignores while a switch (a checkbox) has the focus
ON_SWITCHES = {"ArrowRight": "Next", "ArrowLeft": "Back"}

# one listener per browser tab, reading the keys of the page that ran the script last; the
# instructor's keys act only while instructor mode's Leave button is drawn, so they go back to
# scrolling once instructor mode is left; a switch's keys act in either mode, from a switch only
_SCRIPT = """<script>
(() => {{
  window.keysToButtons = {keys};
  window.keysOnSwitches = {switches};
  window.keysReadThrough = {read};
  window.keysStepTop = {top};  // a step's first line, on a page that draws the keys' buttons
  if (window.keysToButtonsListening) return;
  window.keysToButtonsListening = true;
  {label_js}
  // drawn by the page's latest run: while a run redraws the page, what it has not reached yet
  // is the run before's, marked stale
  const drawn = name => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .filter(b => b.getClientRects().length > 0 && !b.closest('[data-stale="true"]') && label(b) === name);
  const button = name => drawn(name).find(b => !b.disabled);
  const scroller = () => document.querySelector('[data-testid="stMain"]');
  const stepTop = () => window.keysStepTop && document.querySelector(window.keysStepTop);
  // the main area's view: the header's bottom, the view's bottom, and a screen's move (85 %)
  const view = () => {{
    const main = scroller();
    const header = document.querySelector('[data-testid="stHeader"]');
    const top = header ? header.getBoundingClientRect().bottom : 0;
    const bottom = Math.min(window.innerHeight, main.getBoundingClientRect().bottom);
    return {{main, top, bottom, screen: 0.85 * (bottom - top)}};
  }};
  // how far a screen's move down (way 1) or up (-1) goes: it ends with the top of an element, a
  // paragraph, a list's item or a table's row under the header (and no more of what comes before
  // it than the gap between them), the furthest such end in the move's last three quarters, so
  // that no line is left half under the header; a whole screen where there is none. Down, it
  // goes further where that reaches the first piece not yet seen whole
  const gapAbove = el => {{
    // what comes before it: its previous sibling, or its parent's, and so on up (a table's
    // first row follows the header row, which sits in another part of the table)
    let up = el, before = el.previousElementSibling;
    while (!before && up.parentElement && up.parentElement !== scroller()) {{
      up = up.parentElement;
      before = up.previousElementSibling;
    }}
    const gap = before ? el.getBoundingClientRect().top - before.getBoundingClientRect().bottom : 16;
    return Math.min(16, Math.max(0, gap));
  }};
  const heading = el => el && el.querySelector('h1, h2, h3, [role="heading"]');
  // the elements, expanders, paragraphs (captions' too), list items, table rows, a code
  // block's lines and a text's token chips (each row of them a line) shown on the page (not
  // what a closed expander holds)
  const pieces = main => [...main.querySelectorAll(
      '[data-testid="stElementContainer"], [data-testid="stExpander"], tr, [data-testid="stCode"] code > span, .tok, '
      + ':is([data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]) :is(p, li):not(td *, th *)')]
    .filter(el => el.getBoundingClientRect().height > 0 && (!el.checkVisibility || el.checkVisibility()));
  // those a move may end at the top of: not an element right under a heading (a chart under its
  // title), which goes with its heading
  const stopping = main => pieces(main)
    .filter(el => !(el.matches('[data-testid="stElementContainer"]') && heading(el.previousElementSibling)));
  // where a piece starts: the first paragraph of an element where the element starts (a
  // caption's first, a pixel below its box; a tip's, inside the box's padding), so that a move
  // to it leaves no box cut through above its text
  const topOf = el => {{
    const own = el.getBoundingClientRect().top;
    const box = el.matches('p, li') && el.closest('[data-testid="stElementContainer"]');
    const start = box ? box.getBoundingClientRect().top : own;
    const first = box && box.querySelector('p, li') === el;
    return own - start < 3 || (first && own - start < 40) ? Math.min(own, start) : own;
  }};
  // how far down (way 1) or up (-1) each would take its top to just under the header
  const stops = (way, main, top) => stopping(main).map(el => way * (topOf(el) - top - gapAbove(el)));
  // how far down a move may go and pass over nothing unseen: to the top of the first piece not
  // yet shown whole, which may start below the view (0 where there is none)
  const reach = ({{main, top, bottom}}) => {{
    // not past the view where a piece begun above it goes on below it
    if (pieces(main).some(el => {{
      const r = el.getBoundingClientRect();
      return r.top <= top + 1 && r.bottom > bottom + 1;
    }})) return 0;
    const unseen = stopping(main).filter(el => {{
      const r = el.getBoundingClientRect();
      return r.top > top + 1 && r.bottom > bottom + 1;
    }}).map(el => topOf(el) - top - gapAbove(el));
    return unseen.length ? Math.min(...unseen) : 0;
  }};
  // whether a move by `by` (down, or up where negative) would leave one of `els` cut through
  // under the header
  const cutThrough = (els, by, top) => els.some(el => {{
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top - top < by - 1 && r.bottom - top > by + 1;
  }});
  // (a chart in a column beside the text, say)
  const cutsAChart = (by, main, top) => cutThrough([...main.querySelectorAll('.js-plotly-plot')], by, top);
  const screenMove = (way, seen) => {{
    const {{main, top, bottom, screen}} = seen;
    const view = Math.floor(bottom - top);  // scrolled in whole pixels
    const ends = stops(way, main, top).filter(d => d >= 0.25 * screen && d <= screen);
    const whole = ends.filter(d => !cutsAChart(way * d, main, top));
    // down, further where that reaches the first piece not yet seen whole (below the view
    // there is only the gap above it)
    const further = way > 0 ? reach(seen) : 0;
    if (further > screen && !cutsAChart(further, main, top)) return Math.min(further, view);
    if (!whole.length && way < 0) {{
      // up, where each move of a screen would cut a chart through, up to a view to its top
      // (its title just above: all of it was read on the way down)
      const back = pieces(main).map(el => topOf(el) - top - gapAbove(el))
        .map(d => -d).filter(d => d > screen && d <= view && !cutsAChart(-d, main, top));
      if (back.length) return -Math.min(...back);
    }}
    return way * (whole.length ? Math.max(...whole) : ends.length ? Math.max(...ends) : screen);
  }};
  // a move down cut short (to stop at the button) goes on to the nearest top of an element, no
  // further than `limit` (a view coordinate), so that nothing already shown, a chart above all, is
  // left cut through under the header; nothing unseen is passed over
  const onToATop = (by, limit, seen) => {{
    const {{main, top, bottom}} = seen;
    const cut = cutThrough(pieces(main), by, top);
    const first = reach(seen), view = Math.floor(bottom - top);  // scrolled in whole pixels
    const ends = stops(1, main, top).filter(d => d >= by && d <= Math.min(limit - top, first || view, view));
    // the first piece not yet seen whole may start just below the view: as near it as a view goes
    if (first >= by && first <= limit - top) ends.push(Math.min(first, view));
    return cut && ends.length ? Math.min(...ends) : by;
  }};
  // a move down past the page's foot: blank space under the page makes room for it, so that the
  // last screen too can start at the top of an element; kept for this address (a page, a step)
  // only
  const block = () => scroller() && scroller().querySelector('[data-testid="stMainBlockContainer"]');
  const dropRoom = () => {{
    const b = block();
    if (b && b.dataset.roomFor && b.dataset.roomFor !== location.href) {{
      b.style.paddingBottom = "";
      delete b.dataset.roomFor;
    }}
  }};
  const scrollOn = by => {{
    dropRoom();
    const main = scroller(), b = block();
    const room = main.scrollHeight - main.clientHeight - main.scrollTop;
    if (by > room && b) {{
      b.style.paddingBottom = `${{parseFloat(getComputedStyle(b).paddingBottom) + by - room}}px`;
      b.dataset.roomFor = location.href;
    }}
    main.scrollBy(0, by);
  }};
  // how far down an element shows anything: its last line of text, or the foot of a chart,
  // picture, table or control in it; below that is padding (a tip box's, under its last line),
  // which a press that brought only it into view would move the page for nothing
  const inkBottom = el => {{
    const ink = [...el.querySelectorAll('svg, canvas, img, iframe, table, button, input, textarea, select, '
                                        + 'hr, [role="slider"], [role="progressbar"], .tok')]
      .map(x => x.getBoundingClientRect()).filter(r => r.height > 0).map(r => r.bottom);
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = texts.nextNode(); t; t = texts.nextNode()) {{
      if (!t.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      ink.push(...[...range.getClientRects()].filter(r => r.height > 0).map(r => r.bottom));
    }}
    return ink.length ? Math.max(...ink) : el.getBoundingClientRect().bottom;
  }};
  // how far to scroll before the key may press its button (0: press it): down until `anchor`
  // (the button) is in view, up until the step's first line is; never past anything unseen.
  // `shown`: a button that leaves the step as it is (a coin's flip) is first shown whole, so
  // that the class sees what is pressed before it is
  const readOn = (way, anchor, shown = false) => {{
    if (!way || !scroller()) return 0;
    const seen = view(), {{main, top, bottom, screen}} = seen;
    if (way < 0) {{
      const start = stepTop();
      const hidden = start ? top - start.getBoundingClientRect().top : 0;
      // back to it in one move where it is less than a view away, as a move down may have gone
      return hidden <= 0 ? 0 : hidden + 16 <= bottom - top ? -(hidden + 16) : screenMove(-1, seen);
    }}
    // done once all above the button has been seen (the button itself may still be below), as
    // far down as each element shows anything; nor can the view pass the page's end
    const parts = [...main.querySelectorAll('[data-testid="stElementContainer"]')]
      .filter(el => el.getBoundingClientRect().height > 0 && (!el.checkVisibility || el.checkVisibility()));
    const box = anchor.getBoundingClientRect();
    const read = Math.max(top, ...parts.filter(el => el.getBoundingClientRect().bottom <= box.top + 1)
      .map(inkBottom), shown ? box.bottom : top);
    if (read <= bottom) return 0;
    const below = Math.min(box.bottom + 16 - bottom, main.scrollHeight - main.clientHeight - main.scrollTop);
    if (below < 1) return 0;
    // the first element cut off at the bottom, where it holds a chart, a table or a picture (or
    // is the heading right above one), comes up to the top, so that it is seen whole, with its
    // heading, where it fits the view; lifting what is already in view skips nothing; anything
    // else (text, which reads on from its first paragraph not yet shown) moves by a screen
    const cut = parts.findIndex(el => {{
      const r = el.getBoundingClientRect();
      return r.top > top + 1 && r.bottom > bottom;
    }});
    const holds = el => el && el.querySelector('.js-plotly-plot, canvas, img, iframe, table');
    // the chart cut off, or the one under a heading that is
    const whole = holds(parts[cut]) ? cut : heading(parts[cut]) && holds(parts[cut + 1]) ? cut + 1 : -1;
    const title = whole > 0 && heading(parts[whole - 1]) && parts[whole - 1];
    const first = title && title.getBoundingClientRect().top > top + 1 ? title : parts[whole];
    const at = first ? first.getBoundingClientRect().top : Infinity;
    const lift = at - top - 16;
    const fits = whole >= 0 && parts[whole].getBoundingClientRect().bottom - at <= bottom - top - 16;
    const move = Math.min(at < bottom && fits && lift >= 8 ? lift : screenMove(1, seen), below);
    return move < below ? move : onToATop(move, box.top - 16, seen);
  }};
  // what a page's foot leads on to (a page's foot in instructor mode, or the first of the
  // walkthrough's links on from its last step): a clicker's Page Down follows the link, or
  // presses the button, once there is nothing left to read or press, so that a clicker alone
  // can present the whole lesson; a button only while the page is at rest, since a press
  // while it runs would start its work over
  const goOn = () => {{
    const running = document.querySelector('[data-testid="stStatusWidget"]');
    const onward = [...document.querySelectorAll('[data-testid="stMain"] .st-key-{onward} :is(a, button)')]
      .find(el => el.getClientRects().length > 0 && !el.closest('[data-stale="true"]') && !el.disabled
                  && !(running && el.matches("button")));
    if (onward) onward.click();
    return Boolean(onward);
  }};
  // on a page without the step's buttons, a clicker's key reads on or back through the page
  const endless = {{getBoundingClientRect: () => ({{top: Infinity, bottom: Infinity}})}};
  const pageBy = way => {{
    if (!scroller()) return 0;
    if (way > 0) return readOn(1, endless);
    const seen = view(), scrolled = seen.main.scrollTop;
    return scrolled <= seen.screen ? -scrolled : screenMove(-1, seen);
  }};
  // a step turned by a key: until the new step is drawn down to its buttons, and for a moment
  // after the press, further presses are let go, so that a press made twice turns one step
  // (the old step's Next stays on screen while the new step is drawn) and does not then
  // scroll the new step on before the class has seen its start
  let turn = null;
  const line = () => {{ const s = stepTop(); return s ? s.parentElement.innerText : null; }};
  const turning = () => {{
    if (turn && Date.now() > turn.at + 10000) turn = null;
    if (!turn) return false;
    if (!turn.shown) {{
      if (line() === turn.line || !drawn(turn.name).length) return true;
      // as a click's turn does (ui/focus.py), which a key pressed meanwhile stops
      stepTop().style.scrollMarginTop = "4.5rem";
      stepTop().scrollIntoView({{block: "start"}});
      turn.shown = true;
    }}
    if (Date.now() < turn.at + 700) return true;
    turn = null;
    return false;
  }};
  const beginTurn = name => {{
    if (!window.keysStepTop) return;
    // in instructor mode or not, as the press found the page: once the run starts, its Leave
    // button is marked stale until the run draws it again
    turn = {{name, line: line(), at: Date.now(), presenting: Boolean(button({leave}))}};
    const watch = setInterval(() => {{ if (!turning()) clearInterval(watch); }}, 100);
  }};
  // Next and Back turn the step; another button (a coin's flip) leaves the step as it is
  const turnsStep = name => Object.values(window.keysOnSwitches).includes(name);
  // once the button is drawn: scroll on, or press it (a disabled one is not pressed)
  const act = (way, name) => {{
    const found = drawn(name);
    if (!found.length) return false;
    const by = readOn(way, found[0], !turnsStep(name));
    const target = button(name);
    if (by) scrollOn(by);
    else if (target) {{
      if (turnsStep(name)) beginTurn(name);
      target.click();
    }}
    return true;
  }};
  // a button not drawn yet, on a page that draws it, is waited for; one drawn but disabled
  // (Back on the first step), with nothing left to read that way, leaves the key its own meaning
  const press = (e, name) => {{
    dropRoom();
    if (turning()) return e.preventDefault();
    const way = window.keysReadThrough[e.key] || 0;
    const found = drawn(name);
    if (!found.length && !window.keysStepTop) {{
      const by = way && pageBy(way);
      if (by) {{ e.preventDefault(); scrollOn(by); }}
      else if (way > 0 && goOn()) e.preventDefault();
      return;
    }}
    if (found.length && !button(name) && !readOn(way, found[0], !turnsStep(name))) {{
      if (way > 0 && goOn()) e.preventDefault();
      return;
    }}
    e.preventDefault();
    const until = Date.now() + 5000;
    const attempt = () => {{
      if (!act(way, name) && Date.now() < until) setTimeout(attempt, 100);
    }};
    attempt();
  }};
  // in instructor mode → and ← pressed again while their step turns are let go, as a clicker's
  // keys are (a presenter's remote may send them): before Streamlit's own shortcut sees them
  window.addEventListener("keydown", e => {{
    if (!window.keysOnSwitches[e.key] || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const typing = e.target.closest && e.target.closest('input:not([type="checkbox"]), textarea, select, '
                                                        + '[contenteditable="true"], [role="slider"]');
    // (only until the new step is drawn: once it is, the next press turns it again)
    if (!typing && turning() && turn.presenting && !turn.shown) {{
      e.preventDefault();
      e.stopImmediatePropagation();
    }}
  }}, true);
  // a help box open as Esc goes down, before the box's own handler closes it
  const helpOpen = () => document.querySelector('[data-testid="stTooltipContent"]') !== null;
  let helpWasOpen = false;
  window.addEventListener("keydown", e => {{ if (e.key === "Escape") helpWasOpen = helpOpen(); }}, true);
  window.addEventListener("keydown", e => {{
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key === "Escape" && helpWasOpen) return;  // the key closed the help box
    // a switch marks the arrow keys as handled, though it does nothing with them
    const onSwitch = e.target.matches && e.target.matches('input[type="checkbox"]');
    if (onSwitch && window.keysOnSwitches[e.key]) return press(e, window.keysOnSwitches[e.key]);
    // a box owns every key it is given, and a slider its arrows, Page Up and Page Down (Esc goes
    // by a slider and a switch, which are inputs too)
    const boxes = 'input:not([type="range"]):not([type="checkbox"]), textarea, select, [contenteditable="true"], '
                  + '[role="listbox"]';
    const owned = e.target.closest && e.target.closest(boxes + (e.key === "Escape" ? "" : ', input, [role="slider"]'));
    // Streamlit's own shortcut turns the step on → and ←: a turn, as one by a clicker's key
    const shortcut = window.keysOnSwitches[e.key];
    if (shortcut && !owned && !turning() && button(shortcut)) beginTurn(shortcut);
    const wanted = window.keysToButtons[e.key];
    // of several, the first drawn and enabled, else the last (a button that will be drawn)
    const name = Array.isArray(wanted) ? (wanted.find(n => button(n)) || wanted[wanted.length - 1]) : wanted;
    if (!name || e.defaultPrevented || owned) return;
    if (button({leave}) || (turning() && turn.presenting)) press(e, name);
  }});
}})();
</script>"""


def script(keys: dict[str, str], step_top: str | None = None) -> str:
    """A script by which, while instructor mode is on, each key in `keys` (a KeyboardEvent.key
    such as "PageDown") presses the enabled button of the main area with that label (of a list
    of labels, the first drawn and enabled), unless a
    box has the key, or a slider Page Up or Page Down; and, in either mode, each key of
    ON_SWITCHES does the same from a switch. A key of READ_THROUGH first scrolls the main area
    a screen at a time: down until its button is in view, or up until the element `step_top`
    (a CSS selector) is; on a page without its button, it only scrolls, to either end of the
    page. `step_top` also says that the page draws those buttons, so a key pressed before its
    button is drawn waits up to five seconds for it. For `st.html` with
    `unsafe_allow_javascript=True`."""
    return _SCRIPT.format(label_js=BUTTON_LABEL_JS, keys=json.dumps(keys), switches=json.dumps(ON_SWITCHES),
                          read=json.dumps(READ_THROUGH), top=json.dumps(step_top),
                          leave=json.dumps(LEAVE), onward=ONWARD_KEY)
