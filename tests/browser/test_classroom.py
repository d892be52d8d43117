"""A small class at once: three students, each in their own browser context with their own
seed, step through the walkthrough together against one server. The latency of every step is
printed (run with -s to see it), never asserted: it depends on the machine. The limits
(ten minutes for the class, two for a click, five to open the walkthrough) only catch a class
that hangs, and hold even on a cold server on a busy machine."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from harness import LAST_STEP, latency_table, run_class

STUDENTS = 3


def test_three_students_step_through_at_once(playwright_instance, app_server):
    # playwright_instance: fails early with the fixing command when Chromium is missing.
    # The async API runs in its own thread so it never meets the session's sync Playwright loop.
    with ThreadPoolExecutor(1) as pool:
        students = pool.submit(asyncio.run, run_class(app_server.url, STUDENTS, back=False,
                                                      first_seed=123, timeout_s=600,
                                                      per_action_ms=120_000)).result()
    print(f"\n{STUDENTS} students, seconds from click to 'Step k of {LAST_STEP}':")
    print(latency_table(students))
    problems = {s.name: s.errors for s in students if s.errors}
    assert not problems, problems
    assert [s.reached for s in students] == [LAST_STEP] * STUDENTS
