"""Text and prompts from users: read from their files for checks on text that is not in the
project, or cut to fit when typed or pasted into the app; and the limits of the numbers they
set, light to import, so that a command's help can quote them."""
from __future__ import annotations

import argparse
import math
import re
import unicodedata
from pathlib import Path

SCORE_MAX_TOKENS = 8192  # how much of a user's text quality.score_text reads unless told otherwise
MAX_GAMMA = 16  # drafts per round
MAX_TEMPERATURE = 10.0
# below this a positive temperature is greedy in all but name, and dividing float32 logits by
# it would overflow (1e-300 is 0 in float32): such a request is refused, not turned into NaN
MIN_TEMPERATURE = 0.01


def is_blank(text: str) -> bool:
    """Whether `text` shows nothing: it has no character outside the separators (spaces, line
    ends) and the control and format characters (a zero-width space, say)."""
    return all(unicodedata.category(c)[0] in "ZC" for c in text)


def read_text(path: str | Path) -> str:
    """The whole of a UTF-8 text file; a clear ValueError when it is missing, unreadable,
    not UTF-8 or blank."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a text file")
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is not text
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text (byte {err.start}); save it as UTF-8") from None
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    if is_blank(text):
        raise ValueError(f"{path} is empty: give it some text")
    return text


def read_prompts(path: str | Path) -> tuple[str, ...]:
    """One prompt per line of a UTF-8 text file that shows something, surrounding spaces removed."""
    return tuple(line.strip() for line in read_text(path).splitlines() if not is_blank(line))


def clip_prompt(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters; else its start, cut after the last whole word
    when one ends in the last fifth of the limit, and without trailing spaces."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if not text[limit].isspace():
        word_end = re.search(r"\s\S*\Z", cut)
        if word_end and word_end.start() >= limit * 4 // 5:
            cut = cut[:word_end.start()]
    return cut.rstrip()


# numbers as a person writes them: Python also reads other scripts' digits (٣ as 3), digits
# grouped by underscores (0_3), a plus sign and blanks around, which a reader would not take
# for the number then used
_WHOLE = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


def read_whole(raw: str) -> int:
    """A whole number written in ASCII digits, a minus sign at most; else a ValueError."""
    if not _WHOLE.fullmatch(raw):
        raise ValueError(f"{raw!r} is not a whole number")
    return int(raw)


def read_decimal(raw: str) -> float:
    """A finite number written in ASCII digits, a point and an exponent at most; else a
    ValueError (so "nan", "inf" and 1e999 are refused too)."""
    if not _DECIMAL.fullmatch(raw):
        raise ValueError(f"{raw!r} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise ValueError(f"{raw!r} is too large a number")
    return value


def whole_argument(raw: str) -> int:
    """An argparse type: a whole number as `read_whole` reads it (its range is checked later)."""
    try:
        return read_whole(raw)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def number_argument(raw: str) -> float:
    """An argparse type: a number as `read_decimal` reads it (its range is checked later)."""
    try:
        return read_decimal(raw)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def whole_number(lo: int, hi: int | None = None):
    """An argparse type: a whole number from `lo` (to `hi`), refused with a clear usage error."""
    def parse(raw: str) -> int:
        value = whole_argument(raw)
        if value < lo or (hi is not None and value > hi):
            span = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
            raise argparse.ArgumentTypeError(f"{value} is out of range: give a whole number {span}")
        return value
    return parse


def positive_number(raw: str) -> float:
    """An argparse type: a finite number above 0."""
    return _finite_number(raw, 0.0, above=True)


def non_negative_number(raw: str) -> float:
    """An argparse type: a finite number from 0 up."""
    return _finite_number(raw, 0.0, above=False)


def _finite_number(raw: str, lo: float, above: bool) -> float:
    value = number_argument(raw)  # finite, as read_decimal reads it
    if not (value > lo if above else value >= lo):
        raise argparse.ArgumentTypeError(f"{raw} is out of range: give a number "
                                         f"{'above' if above else 'from'} {lo:g}{'' if above else ' up'}")
    return value
