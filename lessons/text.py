"""Generated token ids as pieces of text that can be shown one token at a time."""
from __future__ import annotations

import os

REPLACEMENT = "\ufffd"  # what decoding writes for bytes that are not (yet) a whole character


def token_pieces(tokenizer, ids: list[int], done: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Each token's share of the decoded text. A character split over several tokens is
    given whole to the token that completes it, so the pieces join to the decoded text; a
    replacement character the text really holds is a character like any other.
    `done`: what this function returned for a shorter prefix of `ids`, so that a stream works
    out only its new tokens. Its pieces are kept up to the last that ends in a whole character:
    a piece that is empty or holds a replacement character may have been half of one."""
    start = min(len(done), len(ids))
    while start and (not done[start - 1] or REPLACEMENT in done[start - 1]):
        start -= 1
    pieces = list(done[:start])
    before = "".join(pieces)
    whole = tokenizer.decode(ids, skip_special_tokens=True)
    for i in range(start, len(ids)):
        text = tokenizer.decode(ids[: i + 1], skip_special_tokens=True)
        if i + 1 < len(ids) and not whole.startswith(text):  # ends in half a character
            pieces.append("")
            continue
        shared = len(os.path.commonprefix([before, text]))
        pieces.append(text[shared:])
        before = text
    return pieces
