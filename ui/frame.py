"""What every page draws first: page setup, the shared sidebar, instructor mode, and
messages about link parameters that were ignored."""
from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from . import chart_names, settings, url_state
from .style import apply_base_styles, apply_presentation

# a file of our own: a material icon as the page icon is fetched from Google's font servers,
# which a classroom without internet cannot reach
ICON = str(Path(__file__).resolve().parent.parent / "assets" / "favicon.png")
APP = Path(__file__).resolve().parent.parent / "app.py"


def _run_by_file_listing() -> bool:
    """Whether Streamlit ran this page from its automatic listing of pages/ rather than from
    app.py's navigation. It does so until some session has run app.py: on a fresh server whose
    first visitor follows a link to a page (say /so_what)."""
    return bool(PagesManager.uses_pages_directory)


def _hand_over_to_navigation() -> None:
    """Run app.py instead, which declares the navigation (and so ends the file listing for every
    session) and runs the page the link asked for, then end this run."""
    runpy.run_path(str(APP), run_name="__main__")
    st.stop()


def begin(title: str, caption: str = "", drafter_in_sidebar: bool = True, typing: bool = False) -> None:
    """`typing`: the page has a box to type in, where Esc must not leave instructor mode."""
    if _run_by_file_listing():
        _hand_over_to_navigation()
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
    st.title(title)
    if caption:
        st.caption(caption)
    # under the title, where each page shows what its own link parameters got wrong
    settings.show_problems(problems)
