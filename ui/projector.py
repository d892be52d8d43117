"""How much larger than a 1280×720 projector's the screen in instructor mode is, for the charts.

The page's type grows with the screen's width past 1,571 pixels (`ui/style.py`), but plotly
sets a chart's type in pixels from the figure the server sends, so without this a 1080p
projector showed the charts' token names at two thirds of their size on a 720p one, beside text
that had grown. A component with no look of its own reports the screen's growth, rounded to a
tenth, when instructor mode starts and after the window is resized; the charts grow by it.
"""
from __future__ import annotations

import math

import streamlit as st

KEY = "screen_growth"
# instructor mode's page type: this many pixels, or this share of the window's width (in vw)
# where that is more (`ui/style.py`)
PRESENT_TYPE_PX, PRESENT_TYPE_VW = 22, 1.4
# 720 pixels is the height the charts are sized for (lessons.chart.PROJECTOR_HEIGHT)
BASE_HEIGHT = 720
# past this the page's own type has long stopped fitting: a value above it is not believed
MOST = 3.0

# the page type's growth, as the style computes it (max of a pixel size and a share of the
# width), and never more than the height's, so that a wide, short screen keeps the charts in view
_JS = f"""
export default function ({{ data, setStateValue }}) {{
  const report = () => {{
    const wide = window.innerWidth * {PRESENT_TYPE_VW / 100} / {PRESENT_TYPE_PX};
    const growth = Math.max(1, Math.round(Math.min(wide, window.innerHeight / {BASE_HEIGHT}) * 10) / 10);
    if (growth !== data.growth) setStateValue("growth", growth);
  }};
  report();
  let wait;
  const resized = () => {{ clearTimeout(wait); wait = setTimeout(report, 300); }};
  window.addEventListener("resize", resized);
  return () => {{ clearTimeout(wait); window.removeEventListener("resize", resized); }};
}}
"""

_reporter = st.components.v2.component("screen_growth", js=_JS)


def track() -> None:
    """Mount the reporter, in instructor mode; its container is hidden (`ui/style.py`)."""
    with st.container(key=f"{KEY}_box"):
        _reporter(key=KEY, data={"growth": growth()}, default={"growth": 1.0},
                  on_growth_change=lambda: None)


def growth() -> float:
    """The screen's growth over 1280×720 as last reported, 1 where none was."""
    state = st.session_state.get(KEY)
    return believed(state.get("growth") if hasattr(state, "get") else None)


def believed(value) -> float:
    """A reported growth as a number from 1 to MOST, to a tenth: the browser sends it, and a
    page can send anything (text, NaN, a huge number), which must not break a chart."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 1.0
    return round(min(MOST, max(1.0, float(value))), 1)
