"""A whole class in real browsers: N students open the walkthrough at once, each with their
own seed, step 1 -> 5 and back to 1. Reports how long opening took until step 1 was on
screen, click-to-screen latency per step (p50/p95), errors, and the server's peak resident
memory (its whole process tree, sampled every 0.5 s).

    .venv/bin/python benchmarks/classroom.py [--students 30] [--timeout 600] [--url http://127.0.0.1:8501]

Without --url it starts its own server on a free local port and stops it at the end. The
students share one headless Chromium (Debian's /usr/bin/chromium), so on a small machine the
browsers compete with the server for CPU: read the latencies as an upper bound. Results also
go to assets/benchmarks/classroom.json, the record README's figures come from.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))

from common import write  # noqa: E402
from harness import (AppServer, RssSampler, chromium_missing_message,  # noqa: E402
                     latencies_by_step, latency_table, percentile, run_class)

MAX_STUDENTS = 60


def _latency_figures(values: list[float], unit: str = "clicks") -> dict:
    """Count, p50 and p95 (None, valid JSON, where nothing was measured)."""
    def share(q):
        return round(percentile(values, q), 2) if values else None
    return {unit: len(values), "p50_s": share(50), "p95_s": share(95)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, default=30, help=f"1 to {MAX_STUDENTS} (default 30)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds for the whole class (default 600)")
    ap.add_argument("--url", help="a running app on this machine (127.0.0.1/localhost); default: start one")
    ap.add_argument("--first-seed", type=int, default=1000, help="student i gets seed first_seed + i")
    args = ap.parse_args()
    if not 1 <= args.students <= MAX_STUDENTS:
        ap.error(f"--students must be from 1 to {MAX_STUDENTS}")
    if args.url and not args.url.startswith(("http://127.0.0.1", "http://localhost")):
        ap.error("--url must point at this machine (http://127.0.0.1:PORT or http://localhost:PORT)")
    problem = chromium_missing_message()
    if problem:
        print(problem, file=sys.stderr)
        return 2

    server = None if args.url else AppServer().start()
    url = args.url.rstrip("/") if args.url else server.url
    sampler = None
    if server:
        sampler = RssSampler(server.proc.pid)
        sampler.start()
    try:
        print(f"{args.students} students against {url}, at most {args.timeout:.0f} s …", flush=True)
        begin = time.perf_counter()
        students = asyncio.run(run_class(url, args.students, back=True, first_seed=args.first_seed,
                                         timeout_s=args.timeout, open_ms=min(300, args.timeout) * 1000))
        wall = time.perf_counter() - begin
    finally:
        try:
            peak_kib = sampler.stop() if sampler else None
        finally:
            if server:
                server.stop()

    latencies = [v for s in students for vs in s.latencies.values() for v in vs]
    opened = [s.opened_s for s in students if s.opened_s is not None]
    failed = [s for s in students if s.errors]
    finished = sum(1 for s in students if not s.errors and s.reached == 5)
    print()
    print(latency_table(students))
    print()
    print(f"students finished      {finished} / {len(students)}")
    where = "a server started just before, nothing loaded" if server else "a running server"
    print(f"opening to step 1      p50 {percentile(opened, 50):.1f} s, p95 {percentile(opened, 95):.1f} s, "
          f"max {max(opened, default=float('nan')):.1f} s ({len(opened)} students, {where})")
    print(f"step latency p50 / p95 {percentile(latencies, 50):.2f} s / {percentile(latencies, 95):.2f} s "
          f"({len(latencies)} clicks)")
    print(f"errors                 {sum(len(s.errors) for s in students)}")
    for s in failed[:10]:
        print(f"  {s.name} (seed {s.seed}, reached step {s.reached}): {'; '.join(s.errors)[:300]}")
    if peak_kib is not None:
        print(f"server peak RSS        {peak_kib / 1024:.0f} MiB (process tree, {sampler.samples} samples)")
    else:
        print("server peak RSS        not measured (--url: the server is not ours)")
    print(f"wall time              {wall:.1f} s")
    out = write("classroom.json", {
        "command": " ".join(["benchmarks/classroom.py", *sys.argv[1:]]),
        "students": len(students), "finished": finished, "wall_s": round(wall, 1),
        "server_peak_rss_mib": round(peak_kib / 1024) if peak_kib else None,
        "opening": {**_latency_figures(opened, "students"),
                    "max_s": round(max(opened), 2) if opened else None,
                    "from_cold_server": server is not None},
        "all_steps": _latency_figures(latencies),
        "by_step": {key: _latency_figures(vs) for key, vs in latencies_by_step(students).items()},
        "errors": {s.name: s.errors for s in failed}})
    print("wrote", out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
