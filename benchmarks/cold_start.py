"""Cold start and memory: the first load (de-quantising the bundled GGUF) against later loads,
and the peak resident memory of a process that loads a pair (its weights packed for the CPU
products of specdec_core/cpu_linear.py while the load times them), measured once the load is
done and again after a first generation. Each load runs in a fresh process.

    .venv/bin/python benchmarks/cold_start.py
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from common import ROOT, run, write

from specdec_core.catalog import DEFAULT_DRAFTER, validate_drafter_name

PROBE = """
import json, resource, time
t = time.perf_counter()
from specdec_core.models import load_pair
pair = load_pair({drafter!r}, device="cpu")
seconds = time.perf_counter() - t
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from specdec_core.engine import generate
generate(pair, "Your export failed because your", max_new_tokens=8, gamma=4)
used = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": seconds, "max_rss_mb": loaded, "used_rss_mb": used}}))
"""


def probe(cache: str, drafter: str) -> dict:
    env = {**os.environ, "NIMBUS_MODEL_CACHE": cache}
    out = subprocess.run([sys.executable, "-c", PROBE.format(drafter=drafter)], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("drafter", nargs="?", default=DEFAULT_DRAFTER, help=f"a drafter's name (default {DEFAULT_DRAFTER})")
    drafter = ap.parse_args().drafter
    validate_drafter_name(drafter)
    with tempfile.TemporaryDirectory() as cache:
        first = probe(cache, drafter)
        later = [probe(cache, drafter) for _ in range(2)]
    result = {"drafter": drafter, "first_load_s": first["seconds"],
              "later_load_s": min(r["seconds"] for r in later),
              "first_load_rss_mb": first["max_rss_mb"],
              "loaded_rss_mb": max(r["max_rss_mb"] for r in later),
              "used_rss_mb": max(r["used_rss_mb"] for r in later)}
    print(f"first load (converts the GGUF): {result['first_load_s']:.1f} s")
    print(f"later loads (safetensors copy): {result['later_load_s']:.1f} s")
    print(f"peak memory, first load:        {result['first_load_rss_mb']:.0f} MB")
    print(f"peak memory, later loads:       {result['loaded_rss_mb']:.0f} MB")
    print(f"peak, after a first generation: {result['used_rss_mb']:.0f} MB")
    print("wrote", write("cold_start.json", result))


if __name__ == "__main__":
    run(main)
