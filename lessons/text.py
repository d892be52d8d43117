"""Generated token ids as pieces of text that can be shown one token at a time, and one
token's text as a label."""
from __future__ import annotations

import codecs
import os
import re

from transformers.convert_slow_tokenizer import bytes_to_unicode

REPLACEMENT = "\ufffd"  # what decoding writes for bytes that are not (yet) a whole character
# a byte-level BPE token's characters, back to the bytes they stand for
_BYTE_OF = {char: byte for byte, char in bytes_to_unicode().items()}
# bytes that are no whole UTF-8 character, as Python's "surrogateescape" keeps them
_LOOSE_BYTES = re.compile("[\udc80-\udcff]+")


def token_text(tokenizer, token: int) -> str:
    """One token's text, as a label. A token that holds only part of a character's UTF-8
    bytes decodes to "�", whatever the bytes, so such bytes are written in hex instead,
    "⟨E2·80⟩" (a dot between them: a space would be shown as "␣"): tokens that differ then
    read apart."""
    text = tokenizer.decode([int(token)])
    if REPLACEMENT not in text:
        return text
    try:
        raw = bytes(_BYTE_OF[char] for char in tokenizer.convert_ids_to_tokens(int(token)))
    except (KeyError, TypeError):  # not a byte-level token: its text as decoding gives it
        return text
    return _LOOSE_BYTES.sub(lambda m: "⟨" + "·".join(f"{ord(c) - 0xDC00:02X}" for c in m[0]) + "⟩",
                            raw.decode("utf-8", errors="surrogateescape"))


def token_pieces(tokenizer, ids: list[int], done: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Each token's share of the decoded text. A character split over several tokens is
    given whole to the token that completes it, so the pieces join to the decoded text; a
    replacement character the text really holds is a character like any other.
    `done`: what this function returned for a shorter prefix of `ids`, so that a stream works
    out only its new tokens. Its pieces are kept up to the last that ends in a whole character:
    a piece that is empty or holds a replacement character may have been half of one.
    Where `ids` end inside a character (a stream between two passes, or a text whose token limit
    fell inside one), the tokens that hold its first bytes have empty pieces: a half character
    has nothing to show, where decoding would end the text in "�"."""
    start = min(len(done), len(ids))
    while start and (not done[start - 1] or REPLACEMENT in done[start - 1]):
        start -= 1
    pieces = list(done[:start])
    before = "".join(pieces)
    whole = tokenizer.decode(ids, skip_special_tokens=True)
    if _ends_in_half_character(tokenizer, ids):
        whole = whole.removesuffix(REPLACEMENT)
    for i in range(start, len(ids)):
        text = tokenizer.decode(ids[: i + 1], skip_special_tokens=True)
        if not whole.startswith(text):  # ends in half a character
            pieces.append("")
            continue
        shared = len(os.path.commonprefix([before, text]))
        pieces.append(text[shared:])
        before = text
    return pieces


def _ends_in_half_character(tokenizer, ids: list[int]) -> bool:
    """Whether the text's last tokens' bytes stop inside a UTF-8 character (one is at most 4
    bytes, so the last 4 tokens hold all of it); special tokens (end-of-text) are no text, and a
    character cut before one stays cut. A token that is not byte-level ends no character."""
    special = set(tokenizer.all_special_ids)
    text = [int(t) for t in ids if int(t) not in special]
    try:
        raw = b"".join(bytes(_BYTE_OF[char] for char in token)
                       for token in tokenizer.convert_ids_to_tokens(text[-4:]))
    except (KeyError, TypeError):
        return False
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    decoder.decode(raw, final=False)
    return bool(decoder.getstate()[0])  # the bytes it holds back, waiting for the rest
