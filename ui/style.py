"""Page styles: instructor mode (large type and a wide page, with the sidebar tucked away) and
smaller chart labels on a phone."""
import streamlit as st

_PRESENT_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li,
[data-testid="stMarkdownContainer"] .tokens { font-size: 1.3rem; }
h1 { font-size: 3rem !important; } h2, h3 { font-size: 2.1rem !important; }
[data-testid="stSidebar"] { display: none; }
/* a metric, a slider's value and its ticks hold markdown too: size them after the rule above */
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 2.4rem; }
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p { font-size: 1rem; }
[data-testid="stSliderThumbValue"] [data-testid="stMarkdownContainer"] p,
[data-testid="stSliderTickBar"] [data-testid="stMarkdownContainer"] p { font-size: 0.8rem; }
</style>
"""


# Plotly sizes its labels in pixels whatever the screen: on a phone the panel titles of a chart
# with four or five panels side by side would run into each other
_NARROW_CSS = """
<style>
@media (max-width: 640px) {
  .js-plotly-plot .annotation-text { font-size: 9px !important; }
}
</style>
"""


def apply_narrow_screens() -> None:
    st.html(_NARROW_CSS)


def _leave() -> None:
    st.session_state.present = False


def apply_presentation(on: bool) -> None:
    if not on:
        return
    st.html(_PRESENT_CSS)
    st.button("Leave instructor mode", on_click=_leave, icon=":material/close:", type="tertiary", shortcut="Esc")
