"""A wrapped line of code goes on under its own indentation, not at the block's margin.

The code page wraps its lines where a class cannot scroll sideways (instructor mode) and where
the column is too narrow for this round's values (a phone, a page zoomed in). A browser starts a
wrapped line's rest at the block's left edge, so on a phone half the lines seemed to leave the
function and the nesting of the loop was lost. A script in the page gives each line of a wrapped
block a hanging indent: its first row where it was, the rows it wraps onto HANG columns further
in than its own indentation, as editors do.
"""
from __future__ import annotations

import streamlit as st

# columns a wrapped line's further rows stand in from the line's own indentation
HANG = 4

# once per browser tab, on every code block that wraps, as it is drawn and each time its lines
# change (another round, another seed). Streamlit's highlighter writes one span a line, each
# ending in its newline; a block written otherwise is left as it is
_SCRIPT = """<script>
(() => {
  if (window.codeWrap) return;
  const oneSpanALine = code => [...code.childNodes].every(node =>
    node.nodeType === Node.ELEMENT_NODE && node.tagName === "SPAN"
    && !node.textContent.slice(0, -1).includes("\\n"));
  const hang = () => {
    document.querySelectorAll('[data-testid="stCode"] code').forEach(code => {
      if (getComputedStyle(code).whiteSpace !== "pre-wrap" || !oneSpanALine(code)) return;
      for (const line of code.children) {
        const columns = line.textContent.match(/^ */)[0].length + HANG;
        if (line.style.paddingLeft === `${columns}ch`) continue;
        Object.assign(line.style, {display: "block", paddingLeft: `${columns}ch`, textIndent: `-${columns}ch`});
      }
    });
  };
  let queued = null;
  window.codeWrap = new MutationObserver(() => {
    queued ??= requestAnimationFrame(() => { queued = null; hang(); });
  });
  window.codeWrap.observe(document.body, {childList: true, subtree: true, characterData: true});
  requestAnimationFrame(hang);
})();
</script>"""


def install() -> None:
    """Call on a page with code that may wrap: at the foot of the sidebar, as
    `screen_reader.install` does (one copy per tab; it outlives the page)."""
    with st.sidebar:
        st.html(_SCRIPT.replace("HANG", str(HANG)), unsafe_allow_javascript=True)
