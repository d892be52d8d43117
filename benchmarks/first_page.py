"""Cold start of the app: seconds from launching `streamlit run app.py` to the first
walkthrough step on screen in headless Chromium, with the bundled pair. Measured twice: with
the converted model already on disk (every start after the first), and with an empty model
cache (the very first start, which also converts the bundled GGUF).

    .venv/bin/python benchmarks/first_page.py
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))

from common import run, write  # noqa: E402
from harness import LAUNCH, AppServer, step_pattern  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def first_page_seconds(cache: str | None) -> float:
    if cache:
        os.environ["NIMBUS_MODEL_CACHE"] = cache
    else:
        os.environ.pop("NIMBUS_MODEL_CACHE", None)
    begin = time.perf_counter()
    with AppServer() as server, sync_playwright() as p:
        browser = p.chromium.launch(**LAUNCH)
        page = browser.new_page()
        page.goto(server.url)
        page.get_by_text(step_pattern(1)).wait_for(timeout=300_000)
        seconds = time.perf_counter() - begin
        browser.close()
    return seconds


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    warm = first_page_seconds(None)
    with tempfile.TemporaryDirectory() as cache:
        empty = first_page_seconds(cache)
    print(f"first page, converted model on disk: {warm:.1f} s")
    print(f"first page, empty model cache:       {empty:.1f} s")
    print("wrote", write("first_page.json", {"converted_on_disk_s": warm, "empty_cache_s": empty}))


if __name__ == "__main__":
    run(main)
