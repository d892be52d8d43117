"""The figures the benchmark scripts save under assets/benchmarks/, read back safely."""
from __future__ import annotations

import json
from pathlib import Path

from .catalog import ROOT


class ResultsFileError(ValueError):
    """A shipped file of measured figures is damaged; the message names the commands that fix it."""

    def __init__(self, path: Path, why: str):
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        super().__init__(f"The measured figures in {shown} are damaged ({why}). Restore them with "
                         f"`git checkout -- {shown}`, or measure them again with `make bench`.")


def read_results(path: Path):
    """The figures a benchmark script saved as JSON, or None where it has saved none yet."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as err:  # cut short, say, or not text
        raise ResultsFileError(path, str(err)) from None
