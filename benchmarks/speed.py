"""Target-only vs speculative vs transformers' assisted generation, side by side in one run.

    .venv/bin/python benchmarks/speed.py [--drafters nimbus-mini early-exit-12]
                                         [--settings 4 1 4@0.5 8@0.5] [--prompts FILE]

A setting is γ, or γ@P: draft up to γ tokens and stop a round's draft early after a token the
drafter gave less than P (transformers' assistant_confidence_threshold, set alike there).
"""
from __future__ import annotations

import argparse
import json
import time

from common import RESULTS, add_prompts_option, chosen_prompts, run, write

from specdec_core.bench import BENCH_PROMPTS, compare_methods
from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair


def setting(text: str) -> tuple[int, float]:
    """"4" -> (4, 0.0); "8@0.5" -> (8, 0.5)."""
    gamma, _, stop = text.partition("@")
    try:
        return int(gamma), float(stop or 0.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a setting is γ or γ@P, such as 4 or 8@0.5; got {text!r}")


def _key(row: dict) -> tuple:
    """A row's setting: a run replaces the saved rows of the settings it measures, and only those."""
    return row["drafter"], row["gamma"], row.get("stop_below", 0.0), row["temperature"]


def merged(saved: list[dict], rows: list[dict]) -> list[dict]:
    """The saved rows of the settings this run did not measure, which stay, then this run's."""
    measured = {_key(r) for r in rows}
    return [r for r in saved if _key(r) not in measured] + rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafters", nargs="+", default=[DEFAULT_DRAFTER])
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.0, 1.0])
    ap.add_argument("--settings", nargs="+", type=setting, default=[(4, 0.0), (1, 0.0), (4, 0.5), (8, 0.5)],
                    metavar="γ[@P]", help="4 as in the lesson; 1, a short draft, which pays off best "
                    "on a CPU beside 2 (see the drafter table's best γ); γ@P stops a draft early below P")
    ap.add_argument("--tokens", type=whole_number(1), default=96)
    ap.add_argument("--repeats", type=whole_number(1), default=2)
    add_prompts_option(ap)
    args = ap.parse_args()
    prompts = chosen_prompts(ap, args, BENCH_PROMPTS)
    rows = []
    run_id = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # rows kept from earlier runs keep theirs
    for drafter in args.drafters:
        pair = load_pair(drafter)
        for (gamma, stop_below), temperature in ((g, t) for g in args.settings for t in args.temperatures):
            report = compare_methods(pair, gamma, temperature, args.tokens, args.repeats, prompts,
                                     stop_below=stop_below)
            print(report.table(), "\n", flush=True)
            t = report.totals
            rows.append({"drafter": drafter, "temperature": temperature, "gamma": gamma,
                         "stop_below": stop_below,
                         "tokens": args.tokens, "repeats": args.repeats, "run": run_id,
                         "cpu_products": report.settings["cpu_products"],
                         "target_tokens_per_s": t["target"].tokens_per_second,
                         "speculative_tokens_per_s": t["speculative"].tokens_per_second,
                         "hf_assisted_tokens_per_s": t["hf-assisted"].tokens_per_second,
                         "speedup": report.ratio("speculative", "target"),
                         "ours_vs_hf": report.ratio("speculative", "hf-assisted"),
                         "tokens_per_target_pass": t["speculative"].tokens / t["speculative"].target_passes})
    if args.prompts:
        print(f"measured on {len(prompts)} prompts from {args.prompts}; speed.json is unchanged")
        return
    saved = json.loads((RESULTS / "speed.json").read_text()) if (RESULTS / "speed.json").is_file() else []
    print("wrote", write("speed.json", merged(saved, rows)))


if __name__ == "__main__":
    run(main)
