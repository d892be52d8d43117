"""Why the γ sweep's measured tokens per pass stand above its closed form at large γ.

The sweep (gamma_sweep.py) prices its closed form at α measured on the drafter table's held-out
prompts, but times its generations on the four speed prompts (specdec_core.bench.BENCH_PROMPTS).
This script measures α on text Nimbus-large writes itself from those four prompts (temperature
1, `--seeds` texts of 96 tokens per prompt) and prints, beside the saved sweep's measured tokens
per pass, the closed form at both α: how much of the gap is the prompts' α, and how much is
left for keeps that come in runs, which the closed form's independent coins miss.

    .venv/bin/python benchmarks/sweep_alpha.py [--drafter nimbus-mini] [--seeds 4]
"""
from __future__ import annotations

import argparse

import numpy as np
from common import RESULTS, own_texts, run

from specdec_core.bench import BENCH_PROMPTS
from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair
from specdec_core.quality import text_overlap
from specdec_core.results import read_results, reading
from specdec_core.sampling import expected_tokens_per_round


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drafter", default=DEFAULT_DRAFTER)
    ap.add_argument("--seeds", type=whole_number(1), default=4, help="texts per prompt (default 4)")
    args = ap.parse_args()
    path = RESULTS / "gamma_sweep.json"
    sweep = read_results(path)
    if sweep is None:
        ap.error(f"no {path}: run benchmarks/gamma_sweep.py first")
    with reading(path):
        held_out = float(sweep["alpha"])
        measured = {int(r["gamma"]): float(r["tokens_per_pass"]) for r in sweep["rows"]}
    if args.drafter != sweep["drafter"]:
        ap.error(f"the saved sweep is of {sweep['drafter']}, not {args.drafter}")
    pair = load_pair(args.drafter)
    betas = []
    for k in range(args.seeds):  # the i-th prompt's draws from seed + i, so seeds 4 apart
        for ids, start in own_texts(pair, 1.0, BENCH_PROMPTS, seed=3000 + len(BENCH_PROMPTS) * k):
            betas.append(text_overlap(pair, ids, start)[0])
    beta = np.concatenate(betas)
    alpha = float(beta.mean())
    print(f"α on the held-out prompts (the sweep's closed form): {held_out:.3f}")
    print(f"α on Nimbus-large's own text from the sweep's {len(BENCH_PROMPTS)} prompts: {alpha:.3f} "
          f"({len(beta)} positions, {len(betas)} texts)")
    print(f"{'γ':>3}{'measured':>10}{'at held-out α':>15}{'at these prompts α':>20}")
    for gamma, tokens in sorted(measured.items()):
        print(f"{gamma:>3}{tokens:>10.2f}{expected_tokens_per_round(held_out, gamma):>15.2f}"
              f"{expected_tokens_per_round(alpha, gamma):>20.2f}")


if __name__ == "__main__":
    run(main)
