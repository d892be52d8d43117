"""What the browser tests and benchmarks/classroom.py share: starting the app, launching
Debian's Chromium, measuring the server's memory, and a class of students stepping through
the walkthrough at once.

Only ever talks to 127.0.0.1. Imported by tests/browser/conftest.py (pytest puts this folder on
sys.path) and by benchmarks/classroom.py (which adds it itself).
"""
from __future__ import annotations

import asyncio
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = "/usr/bin/chromium"
# Playwright's own browser download cannot work here: always Debian's Chromium, these flags.
LAUNCH = {"executable_path": CHROMIUM,
          "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync"]}
STARTUP_TIMEOUT_S = 180  # first start may convert the bundled model
LAST_STEP = 5


def chromium_missing_message() -> str | None:
    if os.access(CHROMIUM, os.X_OK):
        return None
    return (f"{CHROMIUM} is missing: the browser tests need Debian's Chromium. "
            "Run `make test` (its `browser` target installs it), or `make browser`.")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


class AppServer:
    """`streamlit run app.py` on a free local port, as a context manager yielding itself."""

    def __init__(self, port: int | None = None, log: Path | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log or ARTIFACTS / f"streamlit-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = STARTUP_TIMEOUT_S) -> "AppServer":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        python = ROOT / ".venv" / "bin" / "python"
        cmd = [str(python if python.exists() else sys.executable), "-m", "streamlit", "run", "app.py",
               "--server.headless", "true", "--server.port", str(self.port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}; log:\n{self.log()}")
            if _healthy(self.url):
                return self
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"streamlit did not answer {self.url}/_stcore/health within {timeout:.0f} s; "
                           f"log:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text()[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:  # its own session: the signal reaches streamlit and anything it started
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
        self._log.close()

    def __enter__(self) -> "AppServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def full_screenshot(page, path: Path, max_height: int = 8000) -> Path:
    """A screenshot of the whole page (sync Playwright). Streamlit scrolls inside its main
    container, not the document, so Playwright's full_page alone stops at the viewport: grow
    the viewport to the content's height for the shot, then put it back."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.evaluate("""() => document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')
        .forEach(e => e.scrollTo(0, 0))""")
    height = page.evaluate("""() => Math.max(document.documentElement.scrollHeight,
        ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"], section.main')]
            .map(e => e.scrollHeight))""")
    if size and height > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": min(int(height), max_height)})
        page.wait_for_timeout(400)  # let the charts relayout
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        if size and height > size["height"]:
            page.set_viewport_size(size)
    return path


# --- memory --------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def tree_rss_kib(pid: int) -> int:
    """VmRSS of a process and all its descendants, in KiB (0 once it is gone)."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
        todo += _children(p)
    return total


class RssSampler(threading.Thread):
    """Samples tree_rss_kib(pid) every `every` seconds; `peak_kib` is the largest seen."""

    def __init__(self, pid: int, every: float = 0.5):
        super().__init__(daemon=True)
        self.pid, self.every, self.peak_kib, self.samples = pid, every, 0, 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.peak_kib = max(self.peak_kib, tree_rss_kib(self.pid))
            self.samples += 1
            self._halt.wait(self.every)

    def stop(self) -> int:
        self._halt.set()
        self.join(timeout=5)
        return self.peak_kib


# --- a class of students -------------------------------------------------------------------

def step_pattern(k: int) -> re.Pattern:
    return re.compile(rf"^\s*Step {k} of {LAST_STEP}\b")


def button(page, name: str):
    """A button by the start of its accessible name (a shortcut hint may follow it). Streamlit
    keeps an invisible copy of buttons that have a tooltip, so only a visible one (the first,
    should both show for a moment while the page redraws). For sync and async pages alike."""
    return page.get_by_role("button", name=re.compile(rf"^\W*{re.escape(name)}")).filter(visible=True).first


def running(page):
    """Streamlit's 'running' indicator: present while a script run is in progress."""
    return page.get_by_test_id("stStatusWidget")


@dataclass
class Student:
    name: str
    seed: int
    latencies: dict[str, list[float]] = field(default_factory=dict)  # "1->2": [seconds]
    errors: list[str] = field(default_factory=list)
    reached: int = 0  # the highest step seen on screen
    opened_s: float | None = None  # from opening the link to 'Step 1 of 5' on screen


async def _wait_step(page, k: int, timeout_ms: float) -> None:
    await page.get_by_text(step_pattern(k)).first.wait_for(state="visible", timeout=timeout_ms)


async def _wait_settled(page, timeout_ms: float) -> None:
    """The run has finished: no 'running' indicator and the Next button is drawn."""
    deadline = time.monotonic() + timeout_ms / 1000
    while await running(page).count() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    await button(page, "Next").wait_for(state="visible", timeout=timeout_ms)


async def _click_and_time(page, student: Student, label: str, frm: int, to: int, timeout_ms: float) -> None:
    """Click, time until 'Step `to` of 5' is on screen, then let the run finish."""
    begin = time.perf_counter()
    await button(page, label).click(timeout=timeout_ms)
    await _wait_step(page, to, timeout_ms)
    student.latencies.setdefault(f"{frm}->{to}", []).append(time.perf_counter() - begin)
    student.reached = max(student.reached, to)
    await _wait_settled(page, timeout_ms)


async def run_student(browser, base_url: str, student: Student, back: bool,
                      timeout_ms: float = 120_000, open_timeout_ms: float = 300_000) -> Student:
    """One student in a fresh browser context: open the walkthrough with their own seed, step
    1 -> 5 (and back to 1 when `back`). Errors are recorded, not raised. Opening gets its own,
    longer timeout: a class that opens the app at once queues behind the model's first load
    and every other student's first page."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.on("pageerror", lambda exc: student.errors.append(f"page error: {exc}"))
    try:
        begin = time.perf_counter()
        await page.goto(f"{base_url}/?seed={student.seed}", timeout=open_timeout_ms)
        await _wait_step(page, 1, max(1.0, open_timeout_ms - 1000 * (time.perf_counter() - begin)))
        student.opened_s = time.perf_counter() - begin
        student.reached = 1
        await _wait_settled(page, timeout_ms)
        for k in range(1, LAST_STEP):
            await _click_and_time(page, student, "Next", k, k + 1, timeout_ms)
        if back:
            for k in range(LAST_STEP, 1, -1):
                await _click_and_time(page, student, "Back", k, k - 1, timeout_ms)
        shown = await page.get_by_test_id("stException").count()
        if shown:
            student.errors.append(f"{shown} exception box(es) on screen")
    except Exception as exc:  # noqa: BLE001 - a failed student is a result, not a crash
        lines = str(exc).splitlines()
        waited = next((line.strip() for line in lines if "waiting for" in line), "")
        student.errors.append(f"at step {student.reached}: {type(exc).__name__}: "
                              f"{lines[0] if lines else ''} {waited}".strip())
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SCREENSHOTS / f"{student.name}-failed.png"))
        except Exception:  # noqa: BLE001 - the error above is the one that matters
            pass
    finally:
        await context.close()
    return student


async def run_class(base_url: str, n: int, back: bool = False, first_seed: int = 1000,
                    timeout_s: float = 600, per_action_ms: float = 120_000,
                    open_ms: float = 300_000) -> list[Student]:
    """n students at once, each in their own context of one shared headless Chromium; each
    click may take `per_action_ms`, opening the walkthrough `open_ms`."""
    from playwright.async_api import async_playwright

    students = [Student(f"student{i + 1}", first_seed + i) for i in range(n)]
    async with async_playwright() as p:
        browser = await p.chromium.launch(**LAUNCH)
        try:
            tasks = [asyncio.create_task(run_student(browser, base_url, s, back, per_action_ms, open_ms))
                     for s in students]
            done, pending = await asyncio.wait(tasks, timeout=timeout_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for s, task in zip(students, tasks):
                if task in pending:
                    s.errors.append(f"did not finish within {timeout_s:.0f} s (reached step {s.reached})")
        finally:
            await browser.close()
    return students


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def latencies_by_step(students: list[Student]) -> dict[str, list[float]]:
    """Every student's click latencies per transition ("1->2": [seconds]), in the order the
    transitions happened."""
    by_step: dict[str, list[float]] = {}
    for s in students:
        for key, values in s.latencies.items():
            by_step.setdefault(key, []).extend(values)
    return by_step


def latency_table(students: list[Student]) -> str:
    """Per transition (in the order they happened): count, p50, p95, max in seconds, and 'all'."""
    by_step = latencies_by_step(students)
    rows = list(by_step.items()) + [("all", [v for vs in by_step.values() for v in vs])]
    lines = [f"{'step':>6} {'n':>4} {'p50 s':>7} {'p95 s':>7} {'max s':>7}"]
    for key, vs in rows:
        lines.append(f"{key:>6} {len(vs):>4} {percentile(vs, 50):>7.2f} {percentile(vs, 95):>7.2f} "
                     f"{max(vs) if vs else float('nan'):>7.2f}")
    return "\n".join(lines)
