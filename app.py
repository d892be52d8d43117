"""Faster, not different: an interactive lesson on speculative decoding.

Run with `make run`. This file only declares the pages (in views/); each page draws the shared
frame (sidebar, instructor mode, link checks) through `ui.frame`. The folder is not called
pages/: Streamlit would then serve a fresh server's first deep link (say /playground) from its
older automatic page list instead of this navigation.
"""
import pandas  # noqa: F401  (see below)
import streamlit as st

from ui.frame import ICON

# Import pandas fully before any page draws a chart. Plotly asks "is pandas loaded?" by looking
# in sys.modules without importing it; when a class opens the app at once, one session can be
# importing pandas (for a table) while another's chart finds it half-initialised and fails with
# "partially initialized module 'pandas' has no attribute 'Series'".

# the project's own icon before the navigation's: a page's material icon as the tab's icon is
# fetched from Google's font servers, which a classroom without internet cannot reach
st.set_page_config(page_icon=ICON)

page = st.navigation({
    "Lesson": [
        st.Page("views/walkthrough.py", title="Walkthrough", icon=":material/explore:", default=True),
        st.Page("views/code.py", title="The code", icon=":material/code:", url_path="code"),
        st.Page("views/thread.py", title="The Nimbus thread", icon=":material/forum:", url_path="thread"),
        st.Page("views/so_what.py", title="So what", icon=":material/speed:", url_path="so-what"),
    ],
    "Explore": [
        st.Page("views/playground.py", title="Playground", icon=":material/tune:", url_path="playground"),
        st.Page("views/race.py", title="Race", icon=":material/sports_score:", url_path="race"),
    ],
})
page.run()
