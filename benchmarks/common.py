"""Shared bits of the benchmark scripts: held-out text and where results go."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specdec_core.cpu_linear import row_products_of  # noqa: E402
from specdec_core.engine import encode, generate  # noqa: E402
from specdec_core.catalog import ModelFileError  # noqa: E402
from specdec_core.inputs import read_prompts  # noqa: E402

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


def add_prompts_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--prompts", metavar="FILE",
                    help="UTF-8 file, one prompt per line, instead of the built-in prompts; "
                         "figures on your prompts are printed, not saved")


def chosen_prompts(ap: argparse.ArgumentParser, args, default: tuple[str, ...]) -> tuple[str, ...]:
    """The prompts of --prompts FILE, or `default`; a bad file ends the script with its reason."""
    if not args.prompts:
        return default
    try:
        return read_prompts(args.prompts)
    except ValueError as err:
        ap.error(str(err))


def run(main) -> None:
    """Run a script's main; bad input found on the way (a prompt too long for the model, say)
    or a missing model file ends it with one error line, naming the fix, instead of a traceback."""
    try:
        main()
    except (ValueError, ModelFileError) as err:
        sys.exit(f"error: {err}")


def cpu_products(pair) -> dict[int, str] | None:
    """The CPU products the target's passes took in this run, printed and returned for the
    results: which is fastest is timed when the target loads, so it can differ between runs."""
    chosen = row_products_of(pair.target)
    if chosen:
        print("target's CPU products, from this many positions on:", chosen, flush=True)
    return chosen


def own_texts(pair, temperature: float, prompts: tuple[str, ...] = HELDOUT_PROMPTS, new_tokens: int = 96,
              seed: int = 2026) -> list[tuple[list[int], int]]:
    """Continuations the target writes itself from held-out prompts, at `temperature` (0: its
    greedy text; the i-th prompt's draws from seed + i): (prompt + continuation ids, index of
    the first continuation token). A continuation that ends early is said so: it gives the
    figures fewer positions, none where the target ends the text at once (as it may after a
    question, which it reads as plain text to continue, not as a chat turn)."""
    texts = []
    for i, prompt in enumerate(prompts):
        ids = encode(pair, prompt)
        out = generate(pair, prompt, new_tokens, "target", temperature=temperature, seed=seed + i)
        if len(out.token_ids) < new_tokens:
            print(f"prompt {i + 1} at temperature {temperature:g}: Nimbus-large ended the text after "
                  f"{len(out.token_ids)} of {new_tokens} tokens", flush=True)
        texts.append((ids + out.token_ids, len(ids)))
    return texts


def write(name: str, payload) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2))
    return path
