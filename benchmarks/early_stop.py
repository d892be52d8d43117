"""Which early stop pays: rounds counted, costs measured, for γ up to 8 and several thresholds.

A round that drafts n tokens costs n draft steps and one target pass over n + 1 positions, that
is n·c + v(n) target steps, with the draft step's cost c and the checking pass's cost v(n)
timed here: before the rounds are counted, between the temperatures and after, each figure the
median of those timings, because one timing of v can be off by a fifth on a busy machine. The
modelled speed-up of a setting is the tokens it wrote over the steps its rounds cost, every
setting priced at the same costs. Counting rounds rather than timing whole generations keeps
the machine's noise out of the comparison between settings; benchmarks/speed.py times the ones
worth timing.

    .venv/bin/python benchmarks/early_stop.py [--temperatures 0 1] [--prompts FILE]
"""
from __future__ import annotations

import argparse
import statistics

from common import HELDOUT_PROMPTS, add_prompts_option, chosen_prompts, cpu_products, run, write

from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.engine import encode, generate
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair
from specdec_core.quality import step_cost, verify_costs

GAMMAS = (1, 2, 4, 6, 8)
THRESHOLDS = (0.0, 0.3, 0.5, 0.7)


def modelled_speedup(results, cost: float, verify: dict[int, float]) -> float:
    """Tokens written over the target steps the rounds cost (target alone: one per token)."""
    tokens = sum(r.stats.new_tokens for r in results)
    spent = sum(round_.gamma * cost + verify[round_.gamma] for r in results for round_ in r.rounds)
    return tokens / spent


def timed_costs(pair, context: list[int]) -> tuple[float, dict[int, float]]:
    """(c, v) timed once after `context`: a draft step and the passes that check 1 to 8 drafts,
    in target steps."""
    return step_cost(pair, context), verify_costs(pair, context, range(1, max(GAMMAS) + 1))


def median_costs(timings: list[tuple[float, dict[int, float]]]) -> tuple[float, dict[int, float]]:
    """The median c and, n by n, the median v(n) of several timed_costs."""
    cost = statistics.median(c for c, _ in timings)
    return cost, {n: statistics.median(v[n] for _, v in timings) for n in timings[0][1]}


def count_rounds(pair, prompts, tokens: int, temperature: float) -> list[tuple]:
    """(gamma, stop, results) for every setting at one temperature, with a progress line each."""
    counted = []
    for gamma in GAMMAS:
        for stop in THRESHOLDS if gamma > 1 else (0.0,):  # one draft a round cannot stop earlier
            counted.append((gamma, stop, [generate(pair, p, tokens, "speculative", gamma, temperature,
                                                   seed=i, stop_below=stop)
                                          for i, p in enumerate(prompts)]))
            print(f"  counted temperature {temperature:g}, γ {gamma}, stop below {stop:g}", flush=True)
    return counted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafter", default=DEFAULT_DRAFTER)
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.0, 1.0])
    ap.add_argument("--tokens", type=whole_number(1), default=96)
    add_prompts_option(ap)
    args = ap.parse_args()
    prompts = chosen_prompts(ap, args, HELDOUT_PROMPTS[:4])
    pair = load_pair(args.drafter)
    products = cpu_products(pair)
    first = encode(pair, prompts[0])
    context = first + generate(pair, prompts[0], 48, "target", temperature=0.0).token_ids
    timings, counted = [timed_costs(pair, context)], {}
    for temperature in args.temperatures:
        counted[temperature] = count_rounds(pair, prompts, args.tokens, temperature)
        timings.append(timed_costs(pair, context))
    cost, verify = median_costs(timings)
    print(f"c = {cost:.3f} (timed {len(timings)} times: "
          + ", ".join(f"{c:.3f}" for c, _ in timings) + ")")
    print("v(n), median: " + ", ".join(f"{n}: {v:.2f}" for n, v in verify.items()))
    print("v(n), each timing: " + "; ".join(
        " ".join(f"{v[n]:.2f}" for n in sorted(v)) for _, v in timings))
    rows = []
    for temperature, settings in counted.items():
        print(f"\ntemperature {temperature:g}\n{'γ':>3}{'stop':>6}{'drafts/round':>14}"
              f"{'tokens/pass':>13}{'speed-up':>10}")
        for gamma, stop, results in settings:
            rounds = [round_ for r in results for round_ in r.rounds]
            row = {"temperature": temperature, "gamma": gamma, "stop_below": stop,
                   "drafts_per_round": sum(r.gamma for r in rounds) / len(rounds),
                   "tokens_per_pass": sum(r.stats.new_tokens for r in results) / len(rounds),
                   "modelled_speedup": modelled_speedup(results, cost, verify)}
            rows.append(row)
            print(f"{gamma:>3}{stop:>6.1f}{row['drafts_per_round']:>14.2f}"
                  f"{row['tokens_per_pass']:>13.2f}{row['modelled_speedup']:>9.2f}x")
    for temperature in args.temperatures:
        best = max((r for r in rows if r["temperature"] == temperature), key=lambda r: r["modelled_speedup"])
        print(f"best at temperature {temperature:g}: γ {best['gamma']}, stop below "
              f"{best['stop_below']:g}, {best['modelled_speedup']:.2f}x")
    if args.prompts:
        print(f"measured on {len(prompts)} prompts from {args.prompts}; early_stop.json is unchanged")
        return
    print("wrote", write("early_stop.json", {"drafter": args.drafter, "cost_ratio": cost,
                                             "verify_cost": verify, "cost_timings": timings,
                                             "cpu_products": products,
                                             "prompts": len(prompts),
                                             "tokens": args.tokens, "rows": rows}))


if __name__ == "__main__":
    run(main)
