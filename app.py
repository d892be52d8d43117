"""Faster, not different: an interactive lesson on speculative decoding.

Run with `make run`. This file only declares the pages; each page draws the shared frame
(sidebar, instructor mode, link checks) through `ui.frame`.
"""
import streamlit as st

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
