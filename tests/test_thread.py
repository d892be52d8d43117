"""Token pieces for coloured text: multi-byte characters split over tokens stay whole."""
from __future__ import annotations

import pytest

from lessons.thread import REPLY_TOKENS, token_pieces, write_reply


@pytest.mark.parametrize("text", ["Hello 😀 world", "ünïcödé 漢字 ok", "plain text", "<b>&amp;</b>"])
def test_pieces_join_to_the_text_without_replacement_characters(pair, ids_of, text):
    ids = ids_of(pair, text)
    pieces = token_pieces(pair.tokenizer, ids)
    assert len(pieces) == len(ids)
    assert "".join(pieces) == text
    assert not any("\ufffd" in piece for piece in pieces)


@pytest.mark.parametrize("step", [1, 2, 3])
def test_pieces_worked_out_as_tokens_arrive_are_the_same(pair, ids_of, step):
    """The race extends its pieces as chunks arrive; a chunk may end inside a character."""
    ids = ids_of(pair, "Hi 😀😀 ünï 漢字 done")
    pieces: list[str] = []
    for end in range(step, len(ids) + step, step):
        pieces = token_pieces(pair.tokenizer, ids[:end], pieces)
    assert pieces == token_pieces(pair.tokenizer, ids)


def test_reply_counts_every_check_once(pair):
    """Each round ends in one correction or one bonus token (unless the token limit cuts the last
    round short), and the checked drafts are the kept ones plus one per correction."""
    reply = write_reply(pair, "Hi, my export failed. What should I do?", seed=3)
    origins = [origin for _, origin in reply.pieces]
    assert reply.kept == origins.count("accepted")
    assert reply.checked == reply.kept + origins.count("correction")
    assert reply.new_tokens == len(origins)
    assert reply.new_tokens <= reply.kept + reply.target_passes <= reply.new_tokens + 1
    assert 0.0 < reply.alpha == reply.kept / reply.checked < 1.0
    # short of the limit only at the end-of-text token (which shows as no text)
    assert reply.complete == (reply.new_tokens < REPLY_TOKENS)
    assert not reply.complete or reply.pieces[-1][0] == ""


def test_a_long_message_is_cut_after_a_whole_word():
    from lessons.thread import MAX_QUESTION, fit_question
    short = "My export failed again"
    assert fit_question(short) == (short, None)
    long = "My export failed again " * 15  # 345 characters
    used, message = fit_question(long)
    assert len(used) <= MAX_QUESTION and long.startswith(used + " ")  # whole words only
    assert message == (f"The message had 345 characters, more than the {MAX_QUESTION} this page takes, "
                       f"so it keeps the first {len(used)} characters.")
