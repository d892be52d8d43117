"""Token pieces for coloured text: multi-byte characters split over tokens stay whole."""
from __future__ import annotations

import pytest

from lessons.thread import token_pieces


@pytest.mark.parametrize("text", ["Hello 😀 world", "ünïcödé 漢字 ok", "plain text", "<b>&amp;</b>"])
def test_pieces_join_to_the_text_without_replacement_characters(pair, text):
    ids = pair.tokenizer(text, add_special_tokens=False)["input_ids"]
    pieces = token_pieces(pair.tokenizer, ids)
    assert len(pieces) == len(ids)
    assert "".join(pieces) == text
    assert not any("\ufffd" in piece for piece in pieces)
