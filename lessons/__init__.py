"""The teaching layer: scenarios, figure builders and lesson prose. No Streamlit here."""
