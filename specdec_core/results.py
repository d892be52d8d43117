"""The figures the benchmark scripts save under assets/benchmarks/, read back safely."""
from __future__ import annotations

import json
import logging
from contextlib import contextmanager
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


@contextmanager
def reading(path: Path):
    """Read the figures of `path` into rows or a chart inside this block (draw them after it):
    a file whose JSON parses but whose shape is not the one its script writes (a key missing,
    text where a number belongs) is a ResultsFileError too, which names its fix. The error's
    traceback goes to the log, for the rare case where the fault is in the reading code."""
    try:
        yield
    except ResultsFileError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as err:
        logging.getLogger(__name__).warning("reading %s failed", path, exc_info=True)
        raise ResultsFileError(path, f"{type(err).__name__}: {err}") from err
