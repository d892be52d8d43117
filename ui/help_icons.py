"""A (?) help button inside a switch's label. Streamlit draws a switch's help in its label, so
a click or a tap on the (?) also flips the switch: Predict first, or Instructor mode, which
then hides the sidebar the reader was reading. A script in the page keeps the press to the
(?): its help still opens (on a tap as on hovering), and the switch stays as it was. A (?) in
another widget's label is kept to itself the same way (there a press would only have moved the
focus into the widget)."""
from __future__ import annotations

import streamlit as st

# runs in the page itself, once per browser tab; a listener on the window, in the capture
# phase, hears a press before the label's handlers (which listen at the page's root) can
_SCRIPT = """<script>
(() => {
  if (window.helpIconsKept) return;
  window.helpIconsKept = true;
  const keep = e => {
    if (!e.target.closest || !e.target.closest('label [data-testid="stTooltipIcon"]')) return;
    e.stopPropagation();
    if (e.type === "click") e.preventDefault();  // a label's own click would flip its switch
  };
  ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "touchstart", "touchend"]
    .forEach(type => window.addEventListener(type, keep, {capture: true}));
})();
</script>"""


def install() -> None:
    """Call on every page: at the foot of the sidebar, as `screen_reader.install` does."""
    with st.sidebar:
        st.html(_SCRIPT, unsafe_allow_javascript=True)
