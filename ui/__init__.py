"""Streamlit glue shared by the pages: cached models, URL state, rendering helpers."""
