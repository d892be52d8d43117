"""Faster, not different: an interactive lesson on speculative decoding.

Run with `make run`. This file only declares the pages; each page draws the shared frame
(sidebar, instructor mode, link checks) through `ui.frame`.
"""
import pandas  # noqa: F401  (see below)
import streamlit as st

# Import pandas fully before any page draws a chart. Plotly asks "is pandas loaded?" by looking
# in sys.modules without importing it; when a class opens the app at once, one session can be
# importing pandas (for a table) while another's chart finds it half-initialised and fails with
# "partially initialized module 'pandas' has no attribute 'Series'".

page = st.navigation({
    "Lesson": [
        st.Page("pages/walkthrough.py", title="Walkthrough", icon=":material/explore:", default=True),
        st.Page("pages/code.py", title="The code", icon=":material/code:", url_path="code"),
        st.Page("pages/thread.py", title="The Nimbus thread", icon=":material/forum:", url_path="thread"),
        st.Page("pages/so_what.py", title="So what", icon=":material/speed:", url_path="so-what"),
    ],
    "Explore": [
        st.Page("pages/playground.py", title="Playground", icon=":material/tune:", url_path="playground"),
        st.Page("pages/race.py", title="Race", icon=":material/sports_score:", url_path="race"),
    ],
})
page.run()
