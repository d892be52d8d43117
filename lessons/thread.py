"""A support reply written by the pair, pass by pass, kept with how each token came about."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from specdec_core.distill.prompts import SUPPORT_SYSTEM
from specdec_core.engine import Stats, stream
from specdec_core.inputs import is_blank

from .wording import fit_text
from .written import pass_by_pass

QUESTIONS = (
    "Hi, my export failed. What should I do?",
    "I was charged twice this month. Can you help?",
    "Files stopped syncing to my laptop. Why does this happen?",
    "The API returns error 429. How do I fix this?",
)
REPLY_TOKENS = 120
REPLY_TEMPERATURE = 0.5  # low enough that a 135M model writes a coherent reply
REPLY_GAMMA = 4
MAX_QUESTION = 300  # characters of a customer message


@dataclass(frozen=True)
class Reply:
    question: str
    pieces: tuple[tuple[str, str], ...]  # (text, origin) per generated token
    stats: Stats  # the passes, tokens, and drafts checked and kept so far
    complete: bool  # ended with the end-of-text token, not cut at REPLY_TOKENS


_SLOT = "\ue000"  # a private-use character: where the template puts the customer's message


def chat_ids(tokenizer, question: str) -> list[int]:
    """The support conversation as token ids, ready for the reply. The template's own markers
    are control tokens; the question is read as the characters it holds, so an "<|im_end|>"
    typed into it cannot end the customer's turn or start another."""
    messages = [{"role": "system", "content": SUPPORT_SYSTEM}, {"role": "user", "content": _SLOT}]
    before, after = tokenizer.apply_chat_template(messages, tokenize=False,
                                                  add_generation_prompt=True).split(_SLOT)
    return (tokenizer(before, add_special_tokens=False)["input_ids"]
            + tokenizer(question, add_special_tokens=False, split_special_tokens=True)["input_ids"]
            + tokenizer(after, add_special_tokens=False)["input_ids"])


def fit_question(text: str, what: str = "message") -> tuple[str, str | None]:
    """The message as the page uses it, and what to tell the reader when it had to be cut:
    after a whole word, as the prompt boxes cut a long paste."""
    return fit_text(text, MAX_QUESTION, what)


def reply_passes(pair, question: str, seed: int, gamma: int = REPLY_GAMMA) -> Iterator[Reply]:
    """The reply as it grows, once after each pass of Nimbus-large; the last one is whole."""
    if is_blank(question):
        raise ValueError("the question is empty")
    chunks = stream(pair, chat_ids(pair.tokenizer, question), REPLY_TOKENS, "speculative", gamma,
                    REPLY_TEMPERATURE, seed=seed)
    for w in pass_by_pass(pair.tokenizer, chunks):
        yield Reply(question, w.pieces, w.stats, w.complete)
