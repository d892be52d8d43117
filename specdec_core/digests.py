"""A weights file's SHA-256, recorded when the file is written and checked when it is read.
Damage inside a tensor that leaves finite numbers (zeros over part of the file, say) still
loads, and would show only as a drafter that guesses badly or a target that writes nonsense."""
from __future__ import annotations

import hashlib
from pathlib import Path


def file_digest(path: Path) -> str:
    """The SHA-256 of the file at `path`, in hex (about 0.4 s for the target's 538 MB)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def check_digest(path: Path, recorded: str | None) -> None:
    """A ValueError unless the file at `path` has the SHA-256 `recorded` when it was written."""
    if not recorded:
        raise ValueError(f"no SHA-256 of {Path(path).name} was recorded when it was written")
    if file_digest(path) != recorded:
        raise ValueError(f"{Path(path).name} is damaged: its SHA-256 is not the one recorded when "
                         "it was written")
