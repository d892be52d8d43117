"""Keys that press a button of the page's main area where Streamlit's own shortcuts fall short:
they take one key per button, they fire even from a text box, and they do nothing while a
switch has the focus.
A presentation clicker sends Page Down and Page Up, which in instructor mode should turn the
walkthrough's step as → and ← do; on a page with a box to type in, Esc must leave instructor mode
only when no box has the key (there Esc belongs to the box: it closes a list or drops what was
typed); and after a click on a switch of the sidebar (instructor mode, predict first, or leaving
instructor mode, which hands the focus to its switch), → and ← must still turn the step.
A key pressed while the walkthrough is still being drawn (its buttons come after the step's
charts) waits a moment for its button, rather than being lost."""
from __future__ import annotations

import json

LEAVE = "Leave instructor mode"
# a clicker's forward and back, where a page has these buttons (the walkthrough)
CLICKER = {"PageDown": "Next", "PageUp": "Back"}
# the walkthrough's shortcuts, which Streamlit ignores while a switch (a checkbox) has the focus
ON_SWITCHES = {"ArrowRight": "Next", "ArrowLeft": "Back"}

# one listener per browser tab, reading the keys of the page that ran the script last; the
# instructor's keys act only while instructor mode's Leave button is drawn, so they go back to
# scrolling once instructor mode is left; a switch's keys act in either mode, from a switch only
_SCRIPT = """<script>
(() => {{
  window.keysToButtons = {keys};
  window.keysOnSwitches = {switches};
  window.keysAwait = {wait};  // this page draws the buttons the keys press
  if (window.keysToButtonsListening) return;
  window.keysToButtonsListening = true;
  // a button's label is its markdown; an icon may come before it and a shortcut's key after
  const label = b => (b.querySelector('[data-testid="stMarkdownContainer"]') || b)
    .innerText.trim().split("\\n")[0].trim();
  const drawn = name => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .filter(b => b.getClientRects().length > 0 && label(b) === name);
  const button = name => drawn(name).find(b => !b.disabled);
  // a button not drawn yet, on a page that draws it, is waited for; one drawn but disabled
  // (Back on the first step) leaves the key its own meaning
  const press = (e, name) => {{
    if (!button(name) && !(window.keysAwait && drawn(name).length === 0)) return;
    e.preventDefault();
    const until = Date.now() + 5000;
    const click = () => {{
      const target = button(name);
      if (target) target.click();
      else if (Date.now() < until) setTimeout(click, 100);
    }};
    click();
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


def script(keys: dict[str, str], wait: bool = False) -> str:
    """A script by which, while instructor mode is on, each key in `keys` (a KeyboardEvent.key
    such as "PageDown") presses the enabled button of the main area with that label, unless a
    box has the key, or a slider Page Up or Page Down; and, in either mode, each key of
    ON_SWITCHES does the same from a switch. `wait`: the page draws those buttons, so a key
    pressed before its button is drawn waits up to five seconds for it. For `st.html` with
    `unsafe_allow_javascript=True`."""
    return _SCRIPT.format(keys=json.dumps(keys), switches=json.dumps(ON_SWITCHES), leave=json.dumps(LEAVE),
                          wait=json.dumps(wait))
