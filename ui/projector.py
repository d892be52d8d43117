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
# width), and never more than the height's, so that a wide, short screen keeps the charts in
# view. One resize listener a browser tab: Streamlit runs this function again each time its
# data changes, without the cleanup of the run before, which would leave a listener a run; it
# reports through the component drawn last, and not at all once that one is gone (instructor
# mode left), and only a growth other than the one last sent or given
_JS = f"""
export default function ({{ data, setStateValue }}) {{
  const tab = window.screenGrowth || (window.screenGrowth = {{}});
  tab.set = setStateValue;
  tab.sent = data.growth;
  if (!tab.report) {{
    tab.report = () => {{
      const wide = window.innerWidth * {PRESENT_TYPE_VW / 100} / {PRESENT_TYPE_PX};
      const tall = window.innerHeight / {BASE_HEIGHT};
      const growth = Math.min({MOST}, Math.max(1, Math.round(Math.min(wide, tall) * 10) / 10));
      if (tab.set && growth !== tab.sent) {{
        tab.sent = growth;
        tab.set("growth", growth);
      }}
    }};
    window.addEventListener("resize", () => {{ clearTimeout(tab.wait); tab.wait = setTimeout(tab.report, 300); }});
  }}
  tab.report();
  const mine = setStateValue;
  return () => {{ if (tab.set === mine) tab.set = null; }};
}}
"""

_reporter = st.components.v2.component("screen_growth", js=_JS)

# the growth believed, kept apart from the component's own state: Streamlit names a component
# anew on each page, and a new page's would start from its default, not from the screen's
BELIEVED = "screen_growth_believed"


def track() -> None:
    """Mount the reporter, in instructor mode; its container is hidden (`ui/style.py`)."""
    now = growth()
    with st.container(key=f"{KEY}_box"):
        _reporter(key=KEY, data={"growth": now}, default={"growth": now}, on_growth_change=_believe)


def _believe() -> None:
    state = st.session_state.get(KEY)
    st.session_state[BELIEVED] = believed(state.get("growth") if hasattr(state, "get") else None)


def growth() -> float:
    """The screen's growth over 1280×720 as last reported, 1 where none was."""
    return st.session_state.get(BELIEVED, 1.0)


def believed(value) -> float:
    """A reported growth as a number from 1 to MOST, to a tenth: the browser sends it, and a
    page can send anything (text, NaN, a huge number), which must not break a chart."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 1.0
    if isinstance(value, float) and not math.isfinite(value):
        return 1.0
    return round(float(min(MOST, max(1.0, value))), 1)  # clamped first: 10**400 is no float
