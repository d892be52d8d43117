"""What a screen reader hears of the parts Streamlit leaves unnamed, set by a script in the page.

- Charts: Plotly draws a chart as SVG, which a screen reader walks as loose tick labels and
  legend entries, and Streamlit gives a chart no name. Every chart becomes one image named by
  the title above it and described by the caption below it (its text alternative, see
  display.show_chart); the caption and the table view stay on the page for everyone.
- Progress bars: Streamlit names each one "progress". Each is named by its own text (a race's
  lane) or, without one, by the line above it (the walkthrough's "Step 2 of 5 · …").
- The walkthrough's takeaway: Streamlit's boxes are statuses, which a screen reader reads out
  when they change; the takeaway, which changes with every step, would then be read before the
  step's question. It is read where it stands instead. So are Predict first's verdict and
  question, which a flip's one announcement says (a status drawn with its text already in it,
  as both are at the first flip, is not read out at all).
- Help: the text of a (?) button, or of a button with help of its own (Roll again), shows in a
  box drawn apart from it, linked to nothing. When the box opens for the button the keyboard is
  on, its text is read out (a polite live region).
- Results: a race, a reply or a playground text arrives while the focus stays on the control
  that asked for it. A page says what came in a line of its own (`announce`), read out once:
  the same words again (the page visited again) are not read.
- Sliders: Streamlit names a slider's input twice over (its own label, then the group's, the
  same words), so that "γ" is read "γ γ": it keeps one.
- A heading's link to itself ("Link to heading", shown on hover) is one more Tab stop on every
  step, named by nothing it leads to: Tab and a screen reader pass it by, and a mouse still
  finds it. So does a screen reader plotly's off-screen drawing, an unnamed picture.
"""
from __future__ import annotations

import html

import streamlit as st

TAKEAWAY = "takeaway"  # the key of the walkthrough's container for its takeaway
# the keys of the containers whose boxes are read where they stand, never announced: the
# takeaway, and Predict first's verdict and question
VERDICT, QUESTION = "verdict", "predict_question"
QUIET = (TAKEAWAY, VERDICT, QUESTION)
RESULT = "run-result"  # the class of what `announce` writes, which the page never shows

# runs in the page itself, once per browser tab: it names charts and bars as they are drawn and
# renames them when a rerun changes their title, caption or text
_SCRIPT = """<script>
(() => {
  if (window.screenReader) return;
  const text = el => el ? el.innerText.trim() : "";
  const charts = () => {
    document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => {
      // the chart's own box, or the box of the two copies of one drawn also for a phone
      // (ui/display.py), each of which the title and caption around the two name
      const pair = chart.closest('[class*="st-key-panels_"]');
      const box = pair ? pair.closest('[data-testid="stLayoutWrapper"]') || pair
                       : chart.closest('[data-testid="stElementContainer"]');
      const title = box && box.previousElementSibling;
      const caption = box && box.nextElementSibling;
      const label = title && title.querySelector(".chart-title") ? text(title) : "";
      const describedBy = (caption && caption.id) || `chart-alt-${i}`;
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
  const bars = () => {
    document.querySelectorAll('[data-testid="stProgress"]').forEach(progress => {
      const bar = progress.querySelector('[role="progressbar"]');
      const box = progress.closest('[data-testid="stElementContainer"]');
      const label = (text(progress.querySelector('[data-testid="stMarkdownContainer"]'))
                     || text(box && box.previousElementSibling) || "progress").slice(0, 160);
      if (bar && bar.getAttribute("aria-label") !== label) bar.setAttribute("aria-label", label);
    });
  };
  const help = () => {
    const said = liveRegion("help-said");
    const shown = document.querySelector('[role="tooltip"] [data-testid="stTooltipContent"]');
    // a (?) button, or a button that carries its help itself (Roll again, Bonus round)
    const held = document.activeElement;
    const on = (held?.getAttribute("aria-label") || "").startsWith("Help for ")
               || (held?.tagName === "BUTTON" && !!held.closest('[data-testid="stTooltipHoverTarget"]'));
    const words = shown && on ? text(shown) : "";
    if (said.textContent !== words) said.textContent = words;
  };
  const liveRegion = id => {
    let region = document.getElementById(id);
    if (!region) {
      region = Object.assign(document.createElement("div"), {id, className: "sr-only"});
      region.setAttribute("aria-live", "polite");
      document.body.appendChild(region);
    }
    return region;
  };
  // read out once, when it differs from the last one read: the same text met again (a page
  // visited again, a rerun that moved nothing) is not news
  let lastResult = "";
  const results = () => {
    const source = document.querySelector('[data-testid="stMain"] .RESULT');
    const words = source ? source.textContent.trim() : "";
    if (!words || words === lastResult) return;
    liveRegion("result-said").textContent = words;
    lastResult = words;
  };
  const sliders = () => {
    document.querySelectorAll('input[type="range"][aria-label][aria-labelledby]').forEach(input => {
      const named = input.getAttribute("aria-labelledby").split(" ").map(id => document.getElementById(id));
      if (named.every(el => el && (el === input || el.getAttribute("aria-label") === input.getAttribute("aria-label"))))
        input.removeAttribute("aria-labelledby");
    });
  };
  const headingLinks = () => {
    document.querySelectorAll('[data-testid="stHeaderActionElements"] a[tabindex]:not([tabindex="-1"]), '
                              + '[data-testid="stHeaderActionElements"] a:not([tabindex]), '
                              + '[data-testid="stHeaderActionElements"] a:not([aria-hidden])')
      .forEach(link => { link.setAttribute("tabindex", "-1"); link.setAttribute("aria-hidden", "true"); });
    // plotly's own off-screen drawing, where it measures text: an unnamed picture at the page's foot
    const tester = document.getElementById("js-plotly-tester");
    if (tester && tester.getAttribute("aria-hidden") !== "true") tester.setAttribute("aria-hidden", "true");
  };
  const quiet = () => {
    document.querySelectorAll('QUIET').forEach(box => {
      if (box.getAttribute("aria-live") !== "off") box.setAttribute("aria-live", "off");
    });
  };
  const all = () => { charts(); bars(); quiet(); help(); results(); sliders(); headingLinks(); };
  // once per frame at most: a chart's hover and a streamed text change the page many times a second
  let queued = null;
  window.screenReader = new MutationObserver(() => {
    queued ??= requestAnimationFrame(() => { queued = null; all(); });
  });
  window.screenReader.observe(document.body, {childList: true, subtree: true, characterData: true});
  // the live regions first, empty: a screen reader reads out changes to a region it already knows
  liveRegion("help-said");
  liveRegion("result-said");
  requestAnimationFrame(all);
})();
</script>"""


def install() -> None:
    """Call on every page. The script goes at the foot of the sidebar, where the gap Streamlit
    leaves around any element is out of the way (it keeps to one copy per tab, and runs in
    instructor mode too, where the sidebar is hidden)."""
    with st.sidebar:
        quiet = ", ".join(f'.st-key-{key} [role="{role}"]' for key in QUIET for role in ("status", "alert"))
        st.html(_SCRIPT.replace("QUIET", quiet).replace("RESULT", RESULT), unsafe_allow_javascript=True)


def announce(words: str) -> None:
    """What a press brought, read out once by a screen reader (a polite live region) and shown
    to no one: the page shows it in its own way."""
    st.html(f'<div class="{RESULT}">{html.escape(words)}</div>')
