"""The code: the round function as it runs, annotated with the round on screen."""
from __future__ import annotations

import streamlit as st

from lessons import code_lesson
from lessons.scenario import WALKTHROUGH_GAMMA, WALKTHROUGH_PROMPT

from . import code_wrap
from .models import get_pair, get_scenario
from .settings import in_the_sidebar


def render() -> None:
    s = st.session_state
    get_pair(s.drafter)
    sc = get_scenario(s.drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, int(s.seed))
    st.markdown(f"One round of speculative decoding (also called speculative sampling), from "
                f"`specdec_core/sampling.py`. The comments marked ◀ are this round's values (drafter "
                f"**{sc.drafter_label}**, seed **{sc.seed}**){_follows_the_seed()}. Every row of "
                "`p_dists` it reads, one per guess and one for the bonus slot, came from a single pass "
                "of Nimbus-large (step 2); the function itself only flips the coins and draws."
                "\n\nAs in the two papers that introduced the method (Leviathan, Kalman and Matias, "
                "*Fast Inference from Transformers via Speculative Decoding*; Chen et al., "
                "*Accelerating Large Language Model Decoding with Speculative Sampling*; both 2023), "
                "the function keeps the **bonus token**, which some tutorials drop: when every draft "
                "survives, the target's extra distribution gives one more token instead of going to "
                f"waste.{_bonus_pointer(sc)} Leviathan et al. write p for the target and q for the "
                "draft, as here; Chen et al. swap the two letters.")
    # a wrapped line, even hung under its own indentation (ui/code_wrap.py), reads as more
    # lines than the source has, so only a projector, where a class cannot scroll sideways, gets
    # them (and a narrow column, for the round: see round_code); elsewhere a long line scrolls
    wrap = bool(s.present)
    code_wrap.install()
    round_code(code_lesson.annotated_source(sc), code_lesson.annotated_source(sc, apart=True), wrap)
    with st.expander("The helpers it calls"):
        for source in code_lesson.helper_sources():
            st.code(source, language="python", wrap_lines=wrap)
    with st.expander("The loop around it: drafting, the one target pass, rolling the caches back"):
        st.markdown("From `specdec_core/engine.py`: each round the draft writes its tokens one at a "
                    "time, one target pass scores them all, the function above decides, and both "
                    "models' key-value caches (what each layer computed for the tokens already read, "
                    "kept so that a pass computes only the new positions) are cut back to the tokens "
                    "that stand, so that the next round reads only what is new.")
        for source in code_lesson.loop_sources():
            st.code(source, language="python", wrap_lines=wrap)
    st.markdown("**Beyond this project.** The same rule runs in transformers' `generate(..., "
                "assistant_model=...)` and in serving systems such as vLLM. A server that batches many "
                "users into each pass has less idle capacity to spare, so checking costs more and the "
                "gain shrinks. Medusa and EAGLE replace the separate draft model with a few light "
                "layers that read the target's own hidden states, and check a tree of alternative "
                "drafts in one pass to keep more tokens per pass (Medusa's faster *typical "
                "acceptance* gives up exactness; the rule above does not).")


def _follows_the_seed() -> str:
    """Where the reader sets the seed the values follow; not said on a projector, where the class
    cannot reach the sidebar and the presenter would have to explain it away."""
    return "" if st.session_state.get("present") else f"; they follow the seed you set {in_the_sidebar()}"


def _bonus_pointer(sc) -> str:
    """Where to find a round that reaches the bonus line, for a round that does not."""
    return ("" if sc.record.bonus else
            " This round rejects a draft, so it never reaches the bonus line below; the "
            "walkthrough's Bonus round button opens a round that does.")


def round_code(beside: str, apart: str, wrap: bool) -> None:
    """The round's source with its values: `beside`, with a lone note at the end of its line,
    where the page is wide enough for it; `apart`, with every note on a line of its own (few
    lines long enough to wrap), wrapped, on a projector and in a narrow column, such as a
    phone's or a page zoomed in, where this round's values would otherwise hide past the edge,
    a long block's height away from its sideways scroll bar. Both are sent and the page's
    style shows the one that fits (`ui/style.py`, `round_code`)."""
    if wrap:
        st.code(apart, language="python", wrap_lines=True)
        return
    with st.container(key="round_code"):
        with st.container(key="round_code_beside"):
            st.code(beside, language="python")
        with st.container(key="round_code_apart"):
            st.code(apart, language="python", wrap_lines=True)
