"""Text and prompts read from a user's files, for checks on text that is not in the project."""
from __future__ import annotations

from pathlib import Path


def read_text(path: str | Path) -> str:
    """The whole of a UTF-8 text file; a clear ValueError when it is missing, unreadable,
    not UTF-8 or blank."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text (byte {err.start}); save it as UTF-8") from None
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    if not text.strip():
        raise ValueError(f"{path} is empty: give it some text")
    return text


def read_prompts(path: str | Path) -> tuple[str, ...]:
    """One prompt per non-blank line of a UTF-8 text file, surrounding spaces removed."""
    return tuple(line.strip() for line in read_text(path).splitlines() if line.strip())
