"""The drafter family's quality table: alpha on held-out text at temperature 1, greedy
agreement on the target's own greedy continuations, cost of a draft step relative to a
target step (timed side by side), and the best gamma by the closed form.

    .venv/bin/python benchmarks/drafters.py [--prompts FILE]
"""
from __future__ import annotations

import argparse

from common import (HELDOUT_PROMPTS, add_prompts_option, chosen_prompts,
                    cpu_products, own_texts, run)

from specdec_core.catalog import drafter_names
from specdec_core.models import load_pair, pair_with
from specdec_core.quality import QUALITY_FILE, cost_context, measure, save_table, verify_costs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    add_prompts_option(ap)
    args = ap.parse_args()
    prompts = chosen_prompts(ap, args, HELDOUT_PROMPTS)
    rows = []
    base = load_pair(drafter_names()[0])
    cpu_products(base)  # the target's, which every drafter's cost is measured against
    texts, greedy = own_texts(base, 1.0, prompts), own_texts(base, 0.0, prompts)
    verify = verify_costs(base, cost_context(texts))  # the target's alone: the same for every drafter
    print(f"{'drafter':<20}{'alpha':>7}{'greedy agree':>14}{'cost':>7}{'best γ':>8}{'v':>6}{'exp. speed-up':>15}")
    for name in drafter_names():
        pair = pair_with(base.target, base.tokenizer, name)  # the one target, loaded once
        q = measure(pair, texts, greedy, verify)
        rows.append(q)
        print(f"{q.drafter:<20}{q.alpha:>7.3f}{q.greedy_agreement:>14.3f}{q.cost_ratio:>7.3f}"
              f"{q.best_gamma:>8}{q.verify_cost:>6.2f}{q.expected_speedup:>15.2f}", flush=True)
    if args.prompts:
        print(f"measured on {len(prompts)} prompts from {args.prompts}; the shipped table is unchanged")
        return
    save_table(rows)
    print("wrote", QUALITY_FILE)


if __name__ == "__main__":
    run(main)
