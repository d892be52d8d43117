"""Shared bits of the benchmark scripts: held-out text and where results go."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specdec_core.engine import generate  # noqa: E402

RESULTS = ROOT / "assets" / "benchmarks"

# prompts that are not in the distillation corpus's templates
HELDOUT_PROMPTS = (
    "Hello, I cannot find the button to share my board with a client. Where is it?",
    "The nightly backup job reported an error code 17 this morning.",
    "Write a short note to a customer explaining a delayed refund.",
    "The lighthouse keeper climbed the stairs one last time and",
    "Three reasons why teams should document their decisions:",
    "After the update, my notifications arrive in the wrong language because",
    "A beginner's guide to watering houseplants:",
    "We regret to inform you that your subscription",
)


def heldout_texts(pair, new_tokens: int = 96, seed: int = 2026) -> list[tuple[list[int], int]]:
    """Continuations the target writes itself at temperature 1 from held-out prompts:
    (prompt + continuation ids, index of the first continuation token)."""
    texts = []
    for i, prompt in enumerate(HELDOUT_PROMPTS):
        ids = pair.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        out = generate(pair, prompt, new_tokens, "target", temperature=1.0, seed=seed + i)
        texts.append((ids + out.token_ids, len(ids)))
    return texts


def greedy_texts(pair, new_tokens: int = 96) -> list[tuple[list[int], int]]:
    """The target's own greedy continuations of the held-out prompts."""
    texts = []
    for prompt in HELDOUT_PROMPTS:
        ids = pair.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        out = generate(pair, prompt, new_tokens, "target", temperature=0.0)
        texts.append((ids + out.token_ids, len(ids)))
    return texts


def write(name: str, payload) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2))
    return path
