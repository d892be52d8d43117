"""The hand-over from Streamlit's automatic listing of pages/ to app.py's navigation.

Streamlit runs a page file straight from its listing of pages/ until some session has run
app.py: on a fresh server whose first visitor follows a link to a page (say /so_what). Each
page calls `follow_app` first, before importing anything heavy, so that such a visitor sees the
app's own navigation at once rather than the raw file names while PyTorch loads."""
from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

APP = Path(__file__).resolve().parent.parent / "app.py"


def _run_by_file_listing() -> bool:
    """Whether Streamlit ran this page from its automatic listing of pages/ rather than from
    app.py's navigation."""
    return bool(PagesManager.uses_pages_directory)


def follow_app() -> None:
    """When run from the listing: run app.py instead, which declares the navigation (and so
    ends the listing for every session) and runs the page the link asked for, then end this
    run. Otherwise nothing."""
    if _run_by_file_listing():
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()
