"""Keys that press a button of the page's main area in instructor mode, where Streamlit's own
shortcuts fall short: they take one key per button, and they fire even from a text box.
A presentation clicker sends Page Down and Page Up, which should turn the walkthrough's step as
→ and ← do; and on a page with a box to type in, Esc must leave instructor mode only when no box
has the key (there Esc belongs to the box: it closes a list or drops what was typed)."""
from __future__ import annotations

import json

LEAVE = "Leave instructor mode"
# a clicker's forward and back, where a page has these buttons (the walkthrough)
CLICKER = {"PageDown": "Next", "PageUp": "Back"}

# one listener per browser tab, reading the keys of the page that ran the script last; it acts
# only while instructor mode's Leave button is drawn, so the keys go back to scrolling once
# instructor mode is left
_SCRIPT = """<script>
(() => {{
  window.keysToButtons = {keys};
  if (window.keysToButtonsListening) return;
  window.keysToButtonsListening = true;
  // a button's label is its markdown; an icon may come before it and a shortcut's key after
  const label = b => (b.querySelector('[data-testid="stMarkdownContainer"]') || b)
    .innerText.trim().split("\\n")[0].trim();
  const button = name => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .find(b => !b.disabled && b.getClientRects().length > 0 && label(b) === name);
  window.addEventListener("keydown", e => {{
    const name = window.keysToButtons[e.key];
    if (!name || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    // a box owns every key it is given, and a slider Page Up and Page Down (its long steps)
    const boxes = 'input, textarea, select, [contenteditable="true"], [role="listbox"]';
    const owners = e.key.startsWith("Page") ? boxes + ', [role="slider"]' : boxes;
    if (e.target.closest && e.target.closest(owners)) return;
    if (!button({leave})) return;
    const target = button(name);
    if (target) {{ e.preventDefault(); target.click(); }}
  }});
}})();
</script>"""


def script(keys: dict[str, str]) -> str:
    """A script by which, while instructor mode is on, each key in `keys` (a KeyboardEvent.key
    such as "PageDown") presses the enabled button of the main area with that label, unless a
    box has the key, or a slider Page Up or Page Down. For `st.html` with
    `unsafe_allow_javascript=True`."""
    return _SCRIPT.format(keys=json.dumps(keys), leave=json.dumps(LEAVE))
