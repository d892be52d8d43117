import streamlit as st

from lessons.thread import (MAX_QUESTION, QUESTIONS, REPLY_GAMMA, REPLY_TEMPERATURE, REPLY_TOKENS,
                            fit_question, write_reply)
from ui import frame
from ui.display import colored_text, html_block, metric_row, origin_legend
from ui.models import get_pair


@st.cache_resource(show_spinner="Drafting and verifying…", max_entries=64)
def cached_reply(drafter: str, question: str, seed: int):
    return write_reply(get_pair(drafter), question, seed)


frame.begin("The Nimbus thread", "Nimbus, a support assistant, writes its replies with a small draft "
            "model proposing tokens (Nimbus-mini, or the one picked in the sidebar) and Nimbus-large "
            "checking them. Each reply is a fair sample of what "
            "Nimbus-large alone would have written; it just took fewer passes of the big model.",
            typing=True)
get_pair(st.session_state.drafter)
question = st.selectbox("Customer message", QUESTIONS, accept_new_options=True,
                        help=f"Pick one or type your own (up to {MAX_QUESTION} characters)")
if not question or not question.strip():
    st.info("Type a customer message to see the reply.")
    st.stop()
question, cut_message = fit_question(question)
if cut_message:
    st.warning(cut_message, icon=":material/content_cut:")
reply = cached_reply(st.session_state.drafter, question, int(st.session_state.seed))
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
cut = "" if reply.complete else f", replies cut at {REPLY_TOKENS} tokens (…)"
st.caption(f"γ = {REPLY_GAMMA}, temperature {REPLY_TEMPERATURE} for both models, seed {st.session_state.seed}, "
           f"drafter {st.session_state.drafter}{cut}. Nimbus-large kept {reply.kept} of the "
           f"{reply.checked} drafts it checked (α ≈ {reply.alpha:.2f} for this reply); a draft after a "
           "rejection is never checked. Green tokens (solid underline) are drafts that were kept, "
           "purple ones (dashed) corrections, blue ones (double) bonus tokens.")
