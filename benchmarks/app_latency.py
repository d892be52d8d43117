"""Server time of Next and Back in the walkthrough once the models are loaded, and the time of
the very first page (models loaded in this process), measured with Streamlit's AppTest.

    .venv/bin/python benchmarks/app_latency.py [--rounds 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

from common import ROOT, run, write
from streamlit.testing.v1 import AppTest

from specdec_core.inputs import whole_number


def click(at: AppTest, label: str) -> float:
    button = next(b for b in at.button if b.label == label)
    begin = time.perf_counter()
    button.click().run()
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return time.perf_counter() - begin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=whole_number(1), default=5, help="walks 1 -> 5 -> 1 per seed")
    args = ap.parse_args()
    at = AppTest.from_file(str(ROOT / "pages" / "walkthrough.py"), default_timeout=600)
    begin = time.perf_counter()
    at.run()
    first = time.perf_counter() - begin
    times = []
    for seed in range(args.rounds):
        at.session_state["seed"] = seed
        at.run()
        for label in ["Next"] * 4 + ["Back"] * 4:
            times.append(click(at, label))
    # every click counts: the round for each seed is built by the run before its first click
    result = {"first_page_s": first, "step_median_ms": 1000 * statistics.median(times),
              "step_p95_ms": 1000 * sorted(times)[int(0.95 * (len(times) - 1))],
              "clicks": len(times)}
    print(f"first page, models loaded in this process: {first:.1f} s")
    print(f"Next/Back server time over {len(times)} clicks: median {result['step_median_ms']:.0f} ms, "
          f"p95 {result['step_p95_ms']:.0f} ms")
    print("wrote", write("app_latency.json", result))


if __name__ == "__main__":
    run(main)
