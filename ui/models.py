"""Models and scenarios loaded once per server and shared read-only by every session."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from lessons.scenario import Scenario, build_scenario, first_bonus_seed, pass_seconds
from specdec_core.catalog import ModelFileError
from specdec_core.engine import encode
from specdec_core.models import load_target, pair_with, resolve_device

from .server_load import TARGET_PASSES


@st.cache_resource(show_spinner="Loading Nimbus-large (first start converts the bundled model)…")
def _target():
    model, tokenizer = load_target(resolve_device("auto"))
    TARGET_PASSES.attach(model)  # a race tells from it whether it had the machine to itself
    return model, tokenizer


@st.cache_resource(show_spinner="Loading the drafter…", max_entries=8)
def _pair(drafter: str):
    target, tokenizer = _target()
    return pair_with(target, tokenizer, drafter)


def get_pair(drafter: str):
    """The shared pair, or a clear error on the page (with the fixing command) and a stop."""
    try:
        _target()  # on its own first, so that its longer load shows its own message
        return _pair(drafter)
    except ModelFileError as err:
        st.error(str(err), icon=":material/error:")
        st.stop()


# step 2's timings are taken afresh after this long, so that one taken while the machine was
# busy (a class opening the app at once, say) is not what the server shows for its whole life
TIMING_TTL = "15m"


@st.cache_resource(show_spinner=False, max_entries=16, ttl=TIMING_TTL)
def _pass_costs(_pair, prompt: str, gamma: int) -> tuple[float, float]:
    """Step 2's timings: a new seed drafts other tokens, not longer passes, and they time only
    Nimbus-large, which every drafter's pair shares (so `_pair`, with its leading underscore,
    is not part of the cache's key)."""
    ids = encode(_pair, prompt)
    return pass_seconds(_pair, ids, ids[-1:] * gamma)


# each round holds the pair's distributions at its five positions, about 3.5 MB: 64 rounds
# cover a class of 30 that rolls again now and then
@st.cache_resource(show_spinner="Drafting and verifying…", max_entries=64)
def _round(drafter: str, prompt: str, gamma: int, seed: int) -> Scenario:
    pair = _pair(drafter)
    return build_scenario(pair, prompt, gamma, seed, pass_costs=_pass_costs(pair, prompt, gamma))


def get_scenario(drafter: str, prompt: str, gamma: int, seed: int) -> Scenario:
    """One frozen round, identical for everyone asking with the same arguments, with step 2's
    latest timings."""
    verify, single = _pass_costs(_pair(drafter), prompt, gamma)
    return replace(_round(drafter, prompt, gamma, seed), verify_seconds=verify, single_pass_seconds=single)


@st.cache_resource(show_spinner="Looking for a round that keeps every guess…", max_entries=8)
def bonus_seed(drafter: str, prompt: str, gamma: int) -> int | None:
    """The first seed whose round keeps every guess (see `first_bonus_seed`), found once per server."""
    return first_bonus_seed(_pair(drafter), prompt, gamma)
