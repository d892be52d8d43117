"""Nimbus-large passes with the library's nn.Linear product against the CPU products of
specdec_core/cpu_linear.py, side by side: the same cached context, 1, 2, 3, 5 and 9 new positions
(a step, and the checks of 1, 2, 4 and 8 drafted tokens) and a 30-token prefill, the two kernels timed
alternately. The weights are packed once when the pair loads, as in the app.

    .venv/bin/python benchmarks/cpu_linear.py [--repeats 15]
"""
from __future__ import annotations

import argparse
import torch
from common import cpu_products, run, write
from transformers import DynamicCache

from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.cpu_linear import use_cpu_kernels
from specdec_core.engine import crop
from specdec_core.inputs import whole_number
from specdec_core.models import load_pair
from specdec_core.timing import alternate_timings

CONTEXT = ("Your export failed because your account was locked after too many sign-in attempts, "
           "so the file could not be written to the shared folder before the deadline. Please "
           "sign in again, check that the folder still exists and that you may write to it, and "
           "then start the export once more from the same page.")
PREFILL = 30


@torch.inference_mode()
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=whole_number(1), default=15)
    args = ap.parse_args()
    pair = load_pair(DEFAULT_DRAFTER)
    products = cpu_products(pair)  # "ours" below: the products this load chose
    ids = pair.tokenizer(CONTEXT, add_special_tokens=False)["input_ids"]
    keep = len(ids) - PREFILL
    cache = DynamicCache()
    pair.target_logits(torch.tensor([ids[:keep]]), cache)
    rows = []
    print(f"{'positions':>9}{'library ms':>12}{'ours ms':>10}{'speed-up':>10}")
    for n in (1, 2, 3, 5, 9, PREFILL):
        new = torch.tensor([ids[keep:keep + n]])

        def one_pass(fast: bool):
            # the packed copies stay while nn.Linear runs, so the timing never includes packing
            use_cpu_kernels(pair.target, fast, drop_copies=False)
            pair.target_logits(new, cache)
            crop(cache, keep)

        medians = alternate_timings({k: (lambda k=k: one_pass(k)) for k in (False, True)}, args.repeats)
        lib, fast = medians[False] * 1e3, medians[True] * 1e3
        rows.append({"positions": n, "library_ms": lib, "ours_ms": fast, "speedup": lib / fast})
        print(f"{n:>9}{lib:>12.1f}{fast:>10.1f}{lib / fast:>9.2f}x", flush=True)
    use_cpu_kernels(pair.target)
    print("wrote", write("cpu_linear.json", {"threads": torch.get_num_threads(), "cpu_products": products,
                                       "rows": rows}))


if __name__ == "__main__":
    run(main)
