"""Target-only vs speculative vs transformers' assisted generation, side by side in one run.

    .venv/bin/python benchmarks/speed.py [--drafters nimbus-mini early-exit-12] [--gammas 4 1]
                                         [--prompts FILE]
"""
from __future__ import annotations

import argparse
import json

from common import RESULTS, add_prompts_option, chosen_prompts, run, write

from specdec_core.bench import BENCH_PROMPTS, compare_methods
from specdec_core.models import load_pair


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafters", nargs="+", default=["nimbus-mini"])
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.0, 1.0])
    ap.add_argument("--gammas", nargs="+", type=int, default=[4, 1],
                    help="4 as in the lesson; 1 is where Nimbus-mini pays off most on a CPU")
    ap.add_argument("--tokens", type=int, default=96)
    ap.add_argument("--repeats", type=int, default=2)
    add_prompts_option(ap)
    args = ap.parse_args()
    prompts = chosen_prompts(ap, args, BENCH_PROMPTS)
    rows = []
    for drafter in args.drafters:
        pair = load_pair(drafter)
        for gamma, temperature in ((g, t) for g in args.gammas for t in args.temperatures):
            report = compare_methods(pair, gamma, temperature, args.tokens, args.repeats, prompts)
            print(report.table(), "\n", flush=True)
            t = report.totals
            rows.append({"drafter": drafter, "temperature": temperature, "gamma": gamma,
                         "tokens": args.tokens, "repeats": args.repeats,
                         "target_tokens_per_s": t["target"].tokens_per_second,
                         "speculative_tokens_per_s": t["speculative"].tokens_per_second,
                         "hf_assisted_tokens_per_s": t["hf-assisted"].tokens_per_second,
                         "speedup": report.ratio("speculative", "target"),
                         "ours_vs_hf": report.ratio("speculative", "hf-assisted"),
                         "tokens_per_target_pass": t["speculative"].tokens / t["speculative"].target_passes})
    if args.prompts:
        print(f"measured on {len(prompts)} prompts from {args.prompts}; speed.json is unchanged")
        return
    measured = {(r["drafter"], r["gamma"]) for r in rows}
    kept = [r for r in json.loads((RESULTS / "speed.json").read_text())
            if (r["drafter"], r["gamma"]) not in measured] if (RESULTS / "speed.json").is_file() else []
    print("wrote", write("speed.json", kept + rows))  # rows not measured now stay


if __name__ == "__main__":
    run(main)
