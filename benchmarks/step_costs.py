"""What a draft step and a verification cost on this machine's device, and the speed-up the
closed form then promises for each drafter at its measured alpha.

c = one draft step / one target step, and v(gamma) = one target pass over gamma + 1 positions
/ one step, each timed side by side after the same cached 64-token context. Alpha does not
depend on the device; it is read from the drafter table (benchmarks/drafters.py).

    .venv/bin/python benchmarks/step_costs.py [--device cuda] [--shapes-only]

--shapes-only times seeded random weights of Nimbus-large's shapes, for a machine that has the
converted config and tokenizer but not the weights: a pass costs the same whatever the values.
"""
from __future__ import annotations

import argparse

import torch
from common import HELDOUT_PROMPTS, run, write

from specdec_core.inputs import whole_number
from specdec_core.catalog import drafter_names
from specdec_core.models import load_target, load_target_shapes, pair_with, resolve_device
from specdec_core.quality import COST_CONTEXT, best_gamma, drafter_table, step_seconds, verify_costs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--shapes-only", action="store_true")
    ap.add_argument("--repeats", type=whole_number(1), default=30)
    args = ap.parse_args()
    device = resolve_device(args.device)
    target, tokenizer = (load_target_shapes if args.shapes_only else load_target)(device)
    name = torch.cuda.get_device_name(device) if device.startswith("cuda") else "CPU"
    context = tokenizer(" ".join(HELDOUT_PROMPTS), add_special_tokens=False)["input_ids"][:COST_CONTEXT]
    alphas = {row.drafter: row.alpha for row in drafter_table()}

    pair = pair_with(target, tokenizer, drafter_names()[-1])
    verify = verify_costs(pair, context)
    print(f"{name}, {'random weights of the same shapes' if args.shapes_only else 'real weights'}")
    print("v(γ): " + ", ".join(f"{g}: {v:.2f}" for g, v in verify.items()))
    print(f"{'drafter':<20}{'target ms':>10}{'draft ms':>9}{'c':>7}{'alpha':>7}{'best γ':>8}"
          f"{'expected speed-up':>19}")
    rows = []
    for drafter in drafter_names():
        pair = pair_with(target, tokenizer, drafter)
        seconds = step_seconds(pair, context, repeats=args.repeats)
        c = seconds["draft"] / seconds["target"]
        alpha = alphas.get(drafter)
        g, speed = best_gamma(alpha, c, verify) if alpha is not None else (None, None)
        rows.append({"drafter": drafter, "target_step_ms": 1000 * seconds["target"],
                     "draft_step_ms": 1000 * seconds["draft"], "cost_ratio": c, "alpha": alpha,
                     "best_gamma": g, "expected_speedup": speed})
        print(f"{drafter:<20}{1000 * seconds['target']:>10.2f}{1000 * seconds['draft']:>9.2f}"
              f"{c:>7.3f}" + (f"{alpha:>7.3f}{g:>8}{speed:>19.2f}" if g else ""), flush=True)
    path = write(f"step_costs_{device.split(':')[0]}.json",
                 {"device": name, "shapes_only": args.shapes_only, "verify_cost": verify,
                  "drafters": rows})
    print("wrote", path)


if __name__ == "__main__":
    run(main)
