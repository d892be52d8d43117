"""Shared fixtures for the torch-side tests: one real model pair for the whole session."""
from __future__ import annotations

import dataclasses

import pytest

from self_drafter import TargetAsDrafter
from specdec_core.models import load_pair, pair_with


@pytest.fixture(scope="session")
def pair():
    """Nimbus-large with the early-exit-6 drafter (a real but poor draft), on the CPU."""
    return load_pair("early-exit-6", device="cpu")


@pytest.fixture(scope="session")
def pair_named(pair):
    """pair_named(drafter): the session's Nimbus-large with another drafter (made once per
    name), instead of a second load of the target (about 4.5 s and 1.6 GB each)."""
    made = {}

    def make(drafter: str):
        if drafter not in made:
            made[drafter] = pair_with(pair.target, pair.tokenizer, drafter)
        return made[drafter]
    return make


def token_ids(pair, text: str) -> list[int]:
    return pair.tokenizer(text, add_special_tokens=False)["input_ids"]


@pytest.fixture(scope="session")
def ids_of():
    """ids_of(pair, text): the token ids the engine reads `text` as (no special tokens)."""
    return token_ids


@pytest.fixture(scope="session")
def self_pair(pair):
    """The same target, drafting for itself (shares all weights; costs no extra load)."""
    return dataclasses.replace(pair, drafter=TargetAsDrafter(pair), drafter_name="target-itself")


@pytest.fixture(scope="session")
def chat_ids(pair):
    """chat_ids(question): a chat-formatted prompt as token ids, ready for the reply."""
    def make(question: str) -> list[int]:
        enc = pair.tokenizer.apply_chat_template([{"role": "user", "content": question}],
                                                 add_generation_prompt=True, tokenize=True)
        return [int(t) for t in (enc["input_ids"] if hasattr(enc, "keys") else enc)]
    return make
