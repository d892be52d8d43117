"""The Nimbus thread: a support reply written by the pair, each token coloured by its origin,
streamed pass by pass the first time it is asked for."""
from __future__ import annotations

import streamlit as st

from lessons import thread as lesson
from lessons.thread import MAX_QUESTION, QUESTIONS, Reply, fit_question, reply_passes
from lessons.wording import OTHER_MACHINES, counted, passes_said
from specdec_core.catalog import drafter_label
from specdec_core.inputs import is_blank

from . import screen_reader, settings
from .display import colored_text, draw_as_written, html_block, metric_row, origin_legend, plain_text, so_far
from .models import get_pair
from .shared_stream import SharedStream


@st.cache_resource(show_spinner=False, max_entries=64)
def reply_stream(drafter: str, question: str, seed: int) -> SharedStream[Reply]:
    """The reply to one message, for every session: the first to ask watches it being written,
    any who ask meanwhile watch the same writing, and later ones get it whole at once."""
    return SharedStream()


def _draw_reply(slot, reply: Reply, whole: bool) -> None:
    with slot.container():
        # a reply cut at the length limit trails off, rather than seeming to end mid-sentence
        # a heading only a screen reader has, to find the reply by
        html_block('<span role="heading" aria-level="2" class="sr-only">The reply</span>'
                   + colored_text(list(reply.pieces)) + (" …" if whole and not reply.complete else ""))


def _draw_figures(slot, reply: Reply, whole: bool) -> None:
    """The reply's counts so far, under its bubble: they grow with it, where the last reply's
    would stand greyed below the new one until it was written."""
    passes, tokens = reply.stats.target_passes, reply.stats.new_tokens
    s = st.session_state
    cut = "" if reply.complete or not whole else f", replies cut at {lesson.REPLY_TOKENS} tokens (…)"
    with slot.container():
        so_far(counted(tokens, "token"), whole)
        metric_row({"label": "Target passes, speculative", "value": passes},
                   {"label": "Target passes, Nimbus-large alone", "value": tokens,
                    "help": "Counted, not run: alone, Nimbus-large makes one pass per token"},
                   {"label": "Tokens per target pass", "value": f"{tokens / passes:.2f}" if passes else "–"})
        st.caption(f"γ = {lesson.REPLY_GAMMA}, temperature {lesson.REPLY_TEMPERATURE} for both models, "
                   f"seed {s.seed}, drafter {drafter_label(s.drafter)}{cut}. Nimbus-large kept "
                   f"{reply.stats.accepted} of "
                   f"the {counted(reply.stats.checked, 'draft')} it checked (an acceptance rate of "
                   f"{reply.stats.alpha:.2f} for this reply; it depends on the temperature, and the "
                   "drafter table on the So what page measured α at temperature 1). A draft after a "
                   "rejection is never checked; the key "
                   "under the reply names each token's colour. A model this small sometimes repeats "
                   "itself; such a loop comes from Nimbus-large's own distribution, which the pair "
                   "samples exactly. "
                   f"{OTHER_MACHINES}")


def reply_to(question: str, bubble, figures) -> Reply:
    """The reply, drawn in `bubble` with its counts in `figures` as each target pass adds its
    tokens, unless it is whole."""
    s = st.session_state
    drafter, seed = s.drafter, int(s.seed)

    def draw(reply: Reply, whole: bool = False) -> None:
        _draw_figures(figures, reply, whole)  # first: the counts never run ahead of the text
        _draw_reply(bubble, reply, whole)

    reply = draw_as_written(reply_stream(drafter, question, seed),
                            lambda: reply_passes(get_pair(drafter), question, seed), draw)
    draw(reply, whole=True)
    # the focus stays on the message box
    screen_reader.announce(passes_said("Reply written", reply.stats.new_tokens, reply.stats.target_passes))
    return reply


def _fit_message() -> None:
    s = st.session_state
    if s.message:
        s.message, s.message_cut = fit_question(s.message)


def asked() -> str | None:
    """The customer message, picked or typed (kept in the link, cut to the page's limit after a
    whole word); None when blank."""
    s = st.session_state
    mine = [s.message] if s.get("message") and s.message not in QUESTIONS else []
    st.selectbox("Customer message: pick one, or type your own", [*QUESTIONS, *mine], key="message",
                 accept_new_options=True, on_change=_fit_message,
                 help=f"Type your own and press Enter (up to {MAX_QUESTION} characters). "
                      "Each message gets a reply of its own: Nimbus does not see earlier ones. The "
                      "models write English.")
    cut = s.pop("message_cut", None)
    if cut:
        st.warning(cut, icon=":material/content_cut:")
    if is_blank(s.message or ""):
        st.info("Type a customer message to see the reply.")
        return None
    return s.message


def show(question: str) -> None:
    """The question at once, then the reply in its bubble, streamed there as it is written."""
    with st.chat_message("user"):
        st.markdown(plain_text(question), unsafe_allow_html=True)
    with st.chat_message("assistant"):
        bubble = st.empty()
    html_block(origin_legend())
    st.space("small")  # the key belongs to the reply above, not to the figures below
    reply_to(question, bubble, st.empty())


def render() -> None:
    settings.show_problems(settings.load_thread())
    get_pair(st.session_state.drafter)  # a missing model file stops the page here, with its fix
    question = asked()
    settings.save_thread()  # a blank message leaves the link
    if question is not None:
        show(question)
