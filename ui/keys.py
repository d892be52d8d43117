"""Keys that press a button of the page's main area where Streamlit's own shortcuts fall short:
they take one key per button, they fire even from a text box, and they do nothing while a
switch has the focus.
A presentation clicker sends Page Down and Page Up, which in instructor mode should move through
the walkthrough: a projector's short screen holds only part of a step in large type, and a
clicker has no other key to scroll with, so Page Down first reads on through the step a screen
at a time, and turns the step as → does once the step's buttons are in view; Page Up reads back
to the step's first line, then turns back as ← does. On a page with a box to type in, Esc must
leave instructor mode only when no box has the key (there Esc belongs to the box: it closes a
list or drops what was typed); and after a click on a switch of the sidebar (instructor mode,
predict first, or leaving instructor mode, which hands the focus to its switch), → and ← must
still turn the step.
A key pressed while the walkthrough is still being drawn (its buttons come after the step's
charts) waits a moment for its button, rather than being lost."""
from __future__ import annotations

import json

LEAVE = "Leave instructor mode"
# a clicker's forward and back, where a page has these buttons (the walkthrough)
CLICKER = {"PageDown": "Next", "PageUp": "Back"}
# the keys that read through a step before they press their button: down, or back up
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
  // a button's label is its markdown; an icon may come before it and a shortcut's key after
  const label = b => (b.querySelector('[data-testid="stMarkdownContainer"]') || b)
    .innerText.trim().split("\\n")[0].trim();
  const drawn = name => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .filter(b => b.getClientRects().length > 0 && label(b) === name);
  const button = name => drawn(name).find(b => !b.disabled);
  const scroller = () => document.querySelector('[data-testid="stMain"]');
  // how far to scroll before the key may press its button (0: press it): down until `anchor`
  // (the button) is in view, up until the step's first line is; at most 85 % of the view, so
  // nothing is skipped unseen
  const readOn = (way, anchor) => {{
    const main = scroller();
    if (!way || !main) return 0;
    const header = document.querySelector('[data-testid="stHeader"]');
    const top = header ? header.getBoundingClientRect().bottom : 0;
    const bottom = Math.min(window.innerHeight, main.getBoundingClientRect().bottom);
    const screen = 0.85 * (bottom - top);
    if (way < 0) {{
      const start = window.keysStepTop && document.querySelector(window.keysStepTop);
      const hidden = start ? top - start.getBoundingClientRect().top : 0;
      return hidden > 0 ? -Math.min(screen, hidden + 16) : 0;
    }}
    // the button counts as in view from its middle; nor can the view pass the page's end
    const box = anchor.getBoundingClientRect();
    if (box.top + box.height / 2 <= bottom) return 0;
    const below = Math.min(box.bottom + 16 - bottom, main.scrollHeight - main.clientHeight - main.scrollTop);
    if (below < 1) return 0;
    // the first element cut off at the bottom comes up to the top, so a chart is seen whole,
    // with its heading when one is right above it
    const parts = [...main.querySelectorAll('[data-testid="stElementContainer"]')]
      .filter(el => el.getBoundingClientRect().height > 0);
    const cut = parts.findIndex(el => {{
      const r = el.getBoundingClientRect();
      return r.top > top + 1 && r.bottom > bottom;
    }});
    const heading = cut > 0 && parts[cut - 1].querySelector('h1, h2, h3, [role="heading"]') && parts[cut - 1];
    const first = heading && heading.getBoundingClientRect().top > top + 1 ? heading : parts[cut];
    const lift = first ? first.getBoundingClientRect().top - top - 16 : 0;
    return Math.min(lift >= 0.25 * screen ? lift : screen, screen, below);
  }};
  // once the button is drawn: scroll on, or press it (a disabled one is not pressed)
  const act = (way, name) => {{
    const found = drawn(name);
    if (!found.length) return false;
    const by = readOn(way, found[0]);
    if (by) scroller().scrollBy(0, by);
    else if (button(name)) button(name).click();
    return true;
  }};
  // a button not drawn yet, on a page that draws it, is waited for; one drawn but disabled
  // (Back on the first step), with nothing left to read that way, leaves the key its own meaning
  const press = (e, name) => {{
    const way = window.keysReadThrough[e.key] || 0;
    const found = drawn(name);
    if (found.length ? !button(name) && !readOn(way, found[0]) : !window.keysStepTop) return;
    e.preventDefault();
    const until = Date.now() + 5000;
    const attempt = () => {{
      if (!act(way, name) && Date.now() < until) setTimeout(attempt, 100);
    }};
    attempt();
  }};
  window.addEventListener("keydown", e => {{
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    // a switch marks the arrow keys as handled, though it does nothing with them
    const onSwitch = e.target.matches && e.target.matches('input[type="checkbox"]');
    if (onSwitch && window.keysOnSwitches[e.key]) return press(e, window.keysOnSwitches[e.key]);
    const name = window.keysToButtons[e.key];
    if (!name || e.defaultPrevented) return;
    // a box owns every key it is given, and a slider Page Up and Page Down (its long steps)
    const boxes = 'input, textarea, select, [contenteditable="true"], [role="listbox"]';
    const owners = e.key.startsWith("Page") ? boxes + ', [role="slider"]' : boxes;
    if (e.target.closest && e.target.closest(owners)) return;
    if (button({leave})) press(e, name);
  }});
}})();
</script>"""


def script(keys: dict[str, str], step_top: str | None = None) -> str:
    """A script by which, while instructor mode is on, each key in `keys` (a KeyboardEvent.key
    such as "PageDown") presses the enabled button of the main area with that label, unless a
    box has the key, or a slider Page Up or Page Down; and, in either mode, each key of
    ON_SWITCHES does the same from a switch. A key of READ_THROUGH first scrolls the main area
    a screen at a time: down until its button is in view, or up until the element `step_top`
    (a CSS selector) is. `step_top` also says that the page draws those buttons, so a key
    pressed before its button is drawn waits up to five seconds for it. For `st.html` with
    `unsafe_allow_javascript=True`."""
    return _SCRIPT.format(keys=json.dumps(keys), switches=json.dumps(ON_SWITCHES),
                          read=json.dumps(READ_THROUGH), top=json.dumps(step_top),
                          leave=json.dumps(LEAVE))
