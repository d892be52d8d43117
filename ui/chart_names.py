"""Charts as named images for screen readers. Plotly draws a chart as SVG, which a screen reader
walks as loose tick labels and legend entries, and Streamlit gives a chart no name. In the
page, every chart becomes one image named by the title above it and described by the caption
below it (its text alternative, see display.show_chart); the caption and the table view stay
on the page for everyone."""
from __future__ import annotations

import streamlit as st

# runs in the page itself, once per browser tab: it names charts as they are drawn and renames
# them when a rerun changes their title or caption
_SCRIPT = """<script>
(() => {
  if (window.chartNames) return;
  const text = el => el ? el.innerText.trim() : "";
  const name = () => {
    document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => {
      const box = chart.closest('[data-testid="stElementContainer"]');
      const title = box && box.previousElementSibling;
      const caption = box && box.nextElementSibling;
      const label = title && title.querySelector(".chart-title") ? text(title) : "";
      const describedBy = `chart-alt-${i}`;
      if (caption && caption.querySelector('[data-testid="stCaptionContainer"]')) {
        caption.id = describedBy;
        if (chart.getAttribute("aria-describedby") !== describedBy)
          chart.setAttribute("aria-describedby", describedBy);
      }
      if (chart.getAttribute("role") !== "img") chart.setAttribute("role", "img");
      // what is drawn inside is the picture, not text to walk through
      for (const part of chart.children)
        if (part.getAttribute("aria-hidden") !== "true") part.setAttribute("aria-hidden", "true");
      if (chart.getAttribute("aria-label") !== (label || "chart"))
        chart.setAttribute("aria-label", label || "chart");
    });
  };
  window.chartNames = new MutationObserver(name);
  window.chartNames.observe(document.body, {childList: true, subtree: true, characterData: true});
  name();
})();
</script>"""


def install() -> None:
    """Call on every page. The script goes at the foot of the sidebar, where the gap Streamlit
    leaves around any element is out of the way (it keeps to one copy per tab, and runs in
    instructor mode too, where the sidebar is hidden)."""
    with st.sidebar:
        st.html(_SCRIPT, unsafe_allow_javascript=True)
