"""In instructor mode, the link that opens the round on screen for the class."""
from __future__ import annotations

import ipaddress
from urllib.parse import urlencode, urlparse, urlunparse

import streamlit as st
from streamlit import net_util

# the addresses at which a server listens on every interface, as Streamlit reads them
EVERY_INTERFACE = ("", "0.0.0.0", "::")
ONLY_HERE = (" (this computer's own address: give the class its network name or IP address "
             "in place of the host)")
FOUND = (" (this computer's address on its network, as Streamlit gives it when it starts; if "
         "the class cannot open it, give them another of its names)")


def only_here(host: str | None) -> bool:
    """A name or address that reaches this computer from itself alone: localhost and its
    subdomains, a loopback address (127.0.1.1 on Debian) or the unspecified one (0.0.0.0)."""
    name = (host or "").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    address = getattr(address, "ipv4_mapped", None) or address
    return address.is_loopback or address.is_unspecified


def for_the_class(url: str, listens_on: str | None, network_ip: str | None) -> tuple[str, str]:
    """The address to give a class for a page the presenter opened at `url`, and a note on it.
    An address the presenter opened from this computer alone (localhost) reaches no student's
    machine: where the server listens on every interface (`listens_on` unset, Streamlit's
    default, or 0.0.0.0), it is swapped for the computer's network address, as Streamlit prints
    it as its "Network URL"; where the server listens on one address, it is swapped for that
    one, unless that too is this computer's alone, which the note then says."""
    parts = urlparse(url)
    if not only_here(parts.hostname):
        return url, ""
    listens_on = (listens_on or "").strip("[]")
    found = network_ip if listens_on in EVERY_INTERFACE else listens_on
    if not found or only_here(found):
        return url, ONLY_HERE
    host = f"[{found}]" if ":" in found else found
    host = f"{host}:{parts.port}" if parts.port else host
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
