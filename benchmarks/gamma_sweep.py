"""Gamma 1..8: measured tokens per target pass and speed-up, next to the closed forms
(1 - alpha^(gamma+1)) / (1 - alpha) and that divided by (gamma c + 1), and divided by
(gamma c + v) where v is the measured cost of the target's pass over gamma + 1 positions in
single steps (v = 1 is the ideal the plain closed form assumes).

    .venv/bin/python benchmarks/gamma_sweep.py [--drafter nimbus-mini] [--temperature 1.0]
                                               [--prompts FILE]
    .venv/bin/python benchmarks/gamma_sweep.py --redraw

--redraw measures nothing: it draws gamma_sweep.html again from the saved gamma_sweep.json, as
the So what page now draws it (after a change to the chart's code).
"""
from __future__ import annotations

import argparse

from common import (HELDOUT_PROMPTS, RESULTS, add_prompts_option,
                    chosen_prompts, cpu_products, own_texts, run, write)

from lessons.speed_charts import sweep_chart
from specdec_core.bench import BENCH_PROMPTS, compare_methods
from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair
from specdec_core.quality import cost_context, measure, verify_costs
from specdec_core.results import read_results, reading
from specdec_core.sampling import GAMMAS, expected_speedup, expected_tokens_per_round


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafter", default=DEFAULT_DRAFTER)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--tokens", type=whole_number(1), default=96)
    add_prompts_option(ap)
    ap.add_argument("--redraw", action="store_true",
                    help="draw gamma_sweep.html again from the saved gamma_sweep.json; measure nothing")
    args = ap.parse_args()
    if args.redraw:
        return redraw(ap, args)
    custom = chosen_prompts(ap, args, ())  # else held-out prompts for alpha, bench prompts for speed
    pair = load_pair(args.drafter)
    products = cpu_products(pair)
    texts = own_texts(pair, 1.0, custom or HELDOUT_PROMPTS)
    verify = verify_costs(pair, cost_context(texts))
    quality = measure(pair, texts, verify=verify)
    alpha, cost = quality.alpha, quality.cost_ratio
    print(f"alpha {alpha:.3f}, cost ratio {cost:.3f}")
    print(f"{'γ':>3}{'tok/pass':>10}{'closed':>8}{'verify':>8}{'speed-up':>10}{'closed':>8}{'with v':>8}")
    rows = []
    for gamma in GAMMAS:
        v = verify[gamma]
        report = compare_methods(pair, gamma, args.temperature, args.tokens, repeats=1,
                                 prompts=custom or BENCH_PROMPTS, reference=False)
        spec = report.totals["speculative"]
        row = {"gamma": gamma, "tokens_per_pass": spec.tokens / spec.target_passes,
               "tokens_per_pass_closed_form": expected_tokens_per_round(alpha, gamma),
               "speedup": report.ratio("speculative", "target"),
               "speedup_closed_form": expected_speedup(alpha, gamma, cost),
               "verify_cost": v,
               "speedup_closed_form_measured_verify": expected_speedup(alpha, gamma, cost, v)}
        rows.append(row)
        print(f"{gamma:>3}{row['tokens_per_pass']:>10.2f}{row['tokens_per_pass_closed_form']:>8.2f}"
              f"{v:>8.2f}{row['speedup']:>10.2f}{row['speedup_closed_form']:>8.2f}"
              f"{row['speedup_closed_form_measured_verify']:>8.2f}", flush=True)
    if args.prompts:
        print(f"measured on {len(custom)} prompts from {args.prompts}; the shipped sweep is unchanged")
        return
    payload = {"drafter": args.drafter, "temperature": args.temperature, "alpha": alpha, "cost_ratio": cost,
               "cpu_products": products, "rows": rows}
    print("wrote", write("gamma_sweep.json", payload))
    save_page(sweep_chart(payload))


def redraw(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--redraw: the saved sweep drawn again; a damaged file is named with its fix, as the So
    what page names it."""
    if any(getattr(args, option) != ap.get_default(option)
           for option in ("drafter", "temperature", "tokens", "prompts")):
        ap.error("--redraw measures nothing and takes no other option")
    path = RESULTS / "gamma_sweep.json"
    saved = read_results(path)
    if saved is None:
        ap.error(f"no {path} to redraw: run the sweep first")
    with reading(path):
        chart = sweep_chart(saved)
    save_page(chart)


def save_page(chart) -> None:
    """The sweep's chart as So what draws it, saved as a page of its own."""
    chart.figure.write_html(RESULTS / "gamma_sweep.html", include_plotlyjs=True)
    print("wrote", RESULTS / "gamma_sweep.html")


if __name__ == "__main__":
    run(main)
