"""Faster, not different: an interactive lesson on speculative decoding.

Run with `make run`. This file only declares the pages (in pages/); each page draws the shared
frame (sidebar, instructor mode, link checks) through `ui.frame`. Every page's address is the
one Streamlit derives from its file name (/so_what for pages/so_what.py), so that a fresh
server's first visit, which Streamlit still serves from its automatic listing of pages/, finds
the same page there and `ui.navigation` can hand it over to this navigation.

The navigation is declared before anything heavy is imported: on a fresh server the first
visitor otherwise sees Streamlit's raw listing of file names over an empty page while PyTorch
and transformers load.
"""
import streamlit as st

from ui.icon import ICON
from ui.page_list import DEFAULT_PAGE, SECTIONS
from ui.style import present_while_starting

st.set_page_config(page_icon=ICON, layout="wide")  # as every page sets it: no jump when one draws

page = st.navigation({section: [st.Page(path, title=title, icon=icon, default=path == DEFAULT_PAGE)
                                 for path, title, icon in pages]
                       for section, pages in SECTIONS.items()})

present_while_starting()
with st.spinner("Starting the lesson…"):
    # Import pandas fully before any page draws a chart. Plotly asks "is pandas loaded?" by
    # looking in sys.modules without importing it; when a class opens the app at once, one
    # session can be importing pandas (for a table) while another's chart finds it
    # half-initialised and fails with "partially initialized module 'pandas' has no attribute
    # 'Series'".
    import pandas  # noqa: F401
    import ui.frame  # noqa: F401  (PyTorch and transformers: seconds, once per server)
    import ui.models  # noqa: F401  (transformers' model classes: seconds more)
from specdec_core.results import ResultsFileError  # noqa: E402  (light, but after the navigation)

try:
    page.run()
except ResultsFileError as err:  # a damaged file of measured figures: its fix, not a traceback
    st.error(str(err), icon=":material/error:")
