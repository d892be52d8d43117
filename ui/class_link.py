"""In instructor mode, the link that opens the round on screen for the class."""
from __future__ import annotations

from urllib.parse import urlencode, urlparse, urlunparse

import streamlit as st
from streamlit import net_util

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
ONLY_HERE = (" (this computer's own address: give the class its network name or IP address "
             "in place of the host)")
FOUND = (" (this computer's address on its network, as Streamlit found it when it started; if "
         "the class cannot open it, give them another of its names)")


def for_the_class(url: str, listens_on: str | None, network_ip: str | None) -> tuple[str, str]:
    """The address to give a class for a page the presenter opened at `url`, and a note on it.
    An address the presenter opened from this computer alone (localhost) reaches no student's
    machine: where the server listens on every interface (`listens_on` empty, Streamlit's
    default), it is swapped for the computer's network address, as Streamlit prints it as its
    "Network URL"; where the server listens on this computer alone, the note says so."""
    parts = urlparse(url)
    if parts.hostname not in LOCAL_HOSTS:
        return url, ""
    if listens_on or not network_ip or network_ip in LOCAL_HOSTS:
        return url, ONLY_HERE
    host = f"{network_ip}:{parts.port}" if parts.port else network_ip
    return urlunparse(parts._replace(netloc=host)), FOUND


def show() -> None:
    """The link with this page's settings, less instructor mode: the address bar's link would
    open it in instructor mode, with large type and no sidebar."""
    if not st.session_state.get("present") or not st.context.url:
        return
    base, note = for_the_class(st.context.url, st.get_option("server.address"), net_util.get_internal_ip())
    base = base if urlparse(base).path else base + "/"
    query = {k: v for k, v in st.query_params.to_dict().items() if k != "present"}
    # in the body's type, not a caption's: on a projector it is what the class must copy
    st.markdown(f"This round for the class: `{base}{'?' + urlencode(query) if query else ''}`{note}")
