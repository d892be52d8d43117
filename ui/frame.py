"""What every page draws first: page setup, the shared sidebar, instructor mode, and
messages about link parameters that were ignored."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import chart_names, settings, url_state
from .style import apply_base_styles, apply_presentation

# a file of our own: a material icon as the page icon is fetched from Google's font servers,
# which a classroom without internet cannot reach
ICON = str(Path(__file__).resolve().parent.parent / "assets" / "favicon.png")


def begin(title: str, caption: str = "", drafter_in_sidebar: bool = True, typing: bool = False) -> None:
    """`typing`: the page has a box to type in, where Esc must not leave instructor mode."""
    settings.keep_all()
    url_state.arrive(title)
    problems = settings.load_shared()
    st.set_page_config(page_title=f"{title} · Faster, not different", page_icon=ICON,
                       layout="wide")
    settings.sidebar(drafter_in_sidebar)
    settings.save_shared()  # the link follows the sidebar on every page
    apply_base_styles()
    chart_names.install()
    apply_presentation(st.session_state.present, esc=not typing)
    settings.show_problems(problems)
    st.title(title)
    if caption:
        st.caption(caption)
