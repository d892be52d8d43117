"""What Nimbus-mini's one-token step (specdec_core/draft_step.py) buys, side by side in one run:
a draft step through the step and through transformers' forward, each over a target step
(c), and whole speculative generations with each, against Nimbus-large alone.

    .venv/bin/python benchmarks/draft_step.py [--gamma 4] [--repeats 2] [--prompts FILE]

The two ways give the same logits, so with the same seed they write the same tokens: the
generations differ only in time. The sides take turns to go first from one prompt to the next.
"""
from __future__ import annotations

import argparse
import statistics
import time

from common import add_prompts_option, chosen_prompts, cpu_products, run, write

from specdec_core.bench import BENCH_PROMPTS
from specdec_core.catalog import NIMBUS_MINI_NAMES
from specdec_core.engine import encode, generate
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair
from specdec_core.quality import step_seconds

WAYS = ("step", "forward")


def switch(pair, step, way: str) -> None:
    pair.drafter.one_token_step = step if way == "step" else None


def step_costs(pair, step, context: list[int], turns: int = 5) -> dict[str, float]:
    """c each way: the median over `turns` of a draft step's time over a target step's, the two
    ways timed in alternation."""
    ratios = {way: [] for way in WAYS}
    for _ in range(turns):
        for way in WAYS:
            switch(pair, step, way)
            seconds = step_seconds(pair, context, repeats=10)
            ratios[way].append(seconds["draft"] / seconds["target"])
    return {way: statistics.median(r) for way, r in ratios.items()}


def generations(pair, step, prompts, gamma: int, temperature: float, tokens: int,
                repeats: int) -> dict[str, float]:
    """Tokens a second: Nimbus-large alone, and speculative with each way of drafting."""
    sides = ("target", *WAYS)
    seconds, written = dict.fromkeys(sides, 0.0), dict.fromkeys(sides, 0)
    texts = {}
    for r in range(repeats):
        for i, prompt in enumerate(prompts):
            turn = (r * len(prompts) + i) % len(sides)
            for side in sides[turn:] + sides[:turn]:
                switch(pair, step, side if side in WAYS else "step")
                begin = time.perf_counter()
                out = generate(pair, prompt, tokens, "target" if side == "target" else "speculative",
                               gamma, temperature, seed=1000 * r + i, suppress_eos=True)
                seconds[side] += time.perf_counter() - begin
                written[side] += len(out.token_ids)
                if side in WAYS:
                    texts.setdefault((r, i), set()).add(tuple(out.token_ids))
    if any(len(t) != 1 for t in texts.values()):
        raise RuntimeError("the step and the forward wrote different texts from the same seed")
    return {side: written[side] / seconds[side] for side in sides}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gamma", type=whole_number(1), default=4)
    ap.add_argument("--temperatures", nargs="+", type=float, default=[0.0, 1.0])
    ap.add_argument("--tokens", type=whole_number(1), default=96)
    ap.add_argument("--repeats", type=whole_number(1), default=2)
    add_prompts_option(ap)
    args = ap.parse_args()
    prompts = chosen_prompts(ap, args, BENCH_PROMPTS)
    pair = load_pair(NIMBUS_MINI_NAMES[0])
    step = pair.drafter.one_token_step
    if step is None:
        ap.exit(0, "Nimbus-mini takes no one-token step here (it needs fbgemm's float16 product "
                   "on a CPU): nothing to compare\n")
    products = cpu_products(pair)
    generate(pair, prompts[0], 4, "speculative", args.gamma, 1.0)  # one-time setup, untimed
    costs = step_costs(pair, step, encode(pair, " ".join(prompts)))
    print(f"draft step / target step (c): {costs['step']:.3f} through the step, "
          f"{costs['forward']:.3f} through the forward")
    rows = []
    print(f"{'temperature':>11}{'alone':>9}{'forward':>9}{'step':>9}{'speed-up, forward':>19}"
          f"{'speed-up, step':>16}{'step / forward':>16}")
    for temperature in args.temperatures:
        speed = generations(pair, step, prompts, args.gamma, temperature, args.tokens, args.repeats)
        row = {"temperature": temperature, "gamma": args.gamma, "tokens_per_s": speed,
               "speedup_forward": speed["forward"] / speed["target"],
               "speedup_step": speed["step"] / speed["target"],
               "step_vs_forward": speed["step"] / speed["forward"]}
        rows.append(row)
        print(f"{temperature:>11g}{speed['target']:>9.1f}{speed['forward']:>9.1f}{speed['step']:>9.1f}"
              f"{row['speedup_forward']:>18.2f}x{row['speedup_step']:>15.2f}x{row['step_vs_forward']:>15.2f}x",
              flush=True)
    switch(pair, step, "step")
    if args.prompts:
        print(f"measured on {len(prompts)} prompts from {args.prompts}; draft_step.json is unchanged")
        return
    print("wrote", write("draft_step.json", {"cost_ratio": costs, "rows": rows, "cpu_products": products,
                                             "tokens": args.tokens, "repeats": args.repeats,
                                             "prompts": len(prompts)}))


if __name__ == "__main__":
    run(main)
