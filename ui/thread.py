"""The Nimbus thread: a support reply written by the pair, each token coloured by its origin."""
from __future__ import annotations

import streamlit as st

from lessons import thread as lesson
from lessons.thread import MAX_QUESTION, QUESTIONS, Reply, fit_question, write_reply

from .display import colored_text, html_block, metric_row, origin_legend
from .models import get_pair


@st.cache_resource(show_spinner="Drafting and verifying…", max_entries=64)
def cached_reply(drafter: str, question: str, seed: int) -> Reply:
    return write_reply(get_pair(drafter), question, seed)


def asked() -> str | None:
    """The customer message, picked or typed and cut to the page's limit; None when blank."""
    question = st.selectbox("Customer message", QUESTIONS, accept_new_options=True,
                            help=f"Pick one or type your own (up to {MAX_QUESTION} characters)")
    if not question or not question.strip():
        st.info("Type a customer message to see the reply.")
        return None
    question, cut_message = fit_question(question)
    if cut_message:
        st.warning(cut_message, icon=":material/content_cut:")
    return question


def show(reply: Reply) -> None:
    with st.chat_message("user"):
        st.text(reply.question)
    with st.chat_message("assistant"):
        # a reply cut at the length limit trails off, rather than seeming to end mid-sentence
        html_block(colored_text(list(reply.pieces)) + ("" if reply.complete else " …"))
    html_block(origin_legend())
    passes, tokens = reply.target_passes, reply.new_tokens
    metric_row({"label": "Target passes, speculative", "value": passes},
               {"label": "Target passes, Nimbus-large alone", "value": tokens, "help": "One pass per token"},
               {"label": "Tokens per target pass", "value": f"{tokens / passes:.2f}" if passes else "–"})
    s = st.session_state
    cut = "" if reply.complete else f", replies cut at {lesson.REPLY_TOKENS} tokens (…)"
    st.caption(f"γ = {lesson.REPLY_GAMMA}, temperature {lesson.REPLY_TEMPERATURE} for both models, "
               f"seed {s.seed}, drafter {s.drafter}{cut}. Nimbus-large kept {reply.kept} of the "
               f"{reply.checked} drafts it checked (α ≈ {reply.alpha:.2f} for this reply); a draft "
               "after a rejection is never checked. Green tokens (solid underline) are drafts that were kept, "
               "pink ones (dashed) corrections, blue ones (double) bonus tokens.")


def render() -> None:
    get_pair(st.session_state.drafter)  # a missing model file stops the page here, with its fix
    question = asked()
    if question is not None:
        show(cached_reply(st.session_state.drafter, question, int(st.session_state.seed)))
