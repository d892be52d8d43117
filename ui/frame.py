"""What every page draws first: page setup, the shared sidebar, instructor mode, and
messages about link parameters that were ignored; and last, in instructor mode, the link on to
the next page."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from . import help_icons, screen_reader, settings, url_state
from .icon import ICON
from .keys import ONWARD_KEY
from .page_list import next_page
from .style import apply_base_styles, apply_presentation


APP_NAME = "Faster, not different"


def tab_title(part: str) -> str:
    """The browser tab's title: what is on screen, then the app's name (once)."""
    return part if part == APP_NAME else f"{part} · {APP_NAME}"


def begin(title: str, caption: str = "", drafter_in_sidebar: bool = True,
          step_top: str | None = None) -> None:
    """`step_top`: the page has Next and Back buttons, which the keyboard and a clicker press,
    and this CSS selector names a step's first line."""
    settings.keep_all()
    url_state.arrive(title)
    problems = settings.load_shared()
    st.set_page_config(page_title=tab_title(title), page_icon=ICON, layout="wide")
    settings.sidebar(drafter_in_sidebar)
    settings.save_shared()  # the link follows the sidebar on every page
    apply_base_styles()
    screen_reader.install()
    help_icons.install()
    apply_presentation(st.session_state.present, step_top=step_top)
    st.title(title, anchor=False)  # a link to the page's own top would be one more stop for Tab
    if caption:
        st.caption(caption)
    # under the title, where each page shows what its own link parameters got wrong
    settings.show_problems(problems)


def end(page_file: str) -> None:
    """A page's foot: a link on to the next page of the lesson, in the sidebar's order
    (`page_file`: the page's own file, its `__file__`), which instructor mode's hidden sidebar
    would keep out of reach. There a clicker's Page Down follows it from the foot of the page
    (see ui/keys.py)."""
    following = next_page(f"pages/{Path(page_file).name}")
    if not following:
        return
    path, title, icon = following

    def link() -> None:
        with st.container(key=ONWARD_KEY):
            st.page_link(path, label=f"Next: {title}", icon=icon)

    page_links(link)


def page_links(draw: Callable[[], None]) -> None:
    """Links to other pages, drawn by `draw`; nothing where the page's file runs on its own,
    outside app.py's navigation, where `st.page_link` finds no pages to link to."""
    slot = st.empty()
    try:
        with slot.container():
            draw()
    except StreamlitPageNotFoundError:
        slot.empty()
