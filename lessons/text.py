"""Generated token ids as pieces of text that can be shown one token at a time."""
from __future__ import annotations

import os


def token_pieces(tokenizer, ids: list[int], done: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Each token's share of the decoded text. A character split over several tokens is
    given whole to the token that completes it, so the pieces join to the decoded text.
    `done`: what this function returned for a shorter prefix of `ids`, so that a stream works
    out only its new tokens (and the last one before them, which may end in half a character)."""
    start = max(0, len(done) - 1)
    pieces = list(done[:start])
    before = "".join(pieces)
    for i in range(start, len(ids)):
        text = tokenizer.decode(ids[: i + 1], skip_special_tokens=True)
        if text.endswith("\ufffd") and i + 1 < len(ids):  # an incomplete character so far
            pieces.append("")
            continue
        shared = len(os.path.commonprefix([before, text]))
        pieces.append(text[shared:])
        before = text
    return pieces
