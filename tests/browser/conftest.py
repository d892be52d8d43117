"""Real-browser fixtures: one Streamlit server for the whole session, Debian's Chromium, and a
screenshot of the page under artifacts/screenshots/ whenever a test fails."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from harness import LAUNCH, SCREENSHOTS, AppServer, chromium_missing_message, full_screenshot

VIEWPORT = {"width": 1280, "height": 900}
# Playwright's expect waits 5 s by default: on a busy two-core machine an element whose code
# loads on first use (a chart, a metric) can take longer to appear after its run
expect.set_options(timeout=30_000)


@pytest.fixture(scope="session")
def app_server():
    with AppServer() as server:
        yield server


@pytest.fixture(scope="session")
def base_url(app_server) -> str:
    return app_server.url


@pytest.fixture(scope="session")
def playwright_instance():
    problem = chromium_missing_message()
    if problem:
        pytest.fail(problem, pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = playwright_instance.chromium.launch(**LAUNCH)
    yield browser
    browser.close()


@pytest.fixture
def new_context(browser, base_url):
    """A factory for fresh, isolated browser contexts on the app (closed after the test):
    `page.goto("/race")` opens the app's race page; keyword arguments (a viewport, say) go to
    Playwright's new_context."""
    contexts = []

    def make(**kwargs):
        context = browser.new_context(**{"base_url": base_url, "viewport": VIEWPORT, **kwargs})
        context.set_default_timeout(60_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(request, new_context):
    page = new_context().new_page()
    request.node._browser_page = page  # for the failure screenshot
    yield page


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        page = getattr(item, "_browser_page", None)
        if page is not None and not page.is_closed():
            path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", item.name) + ".png")
            try:
                full_screenshot(page, path)
                report.sections.append(("screenshot", str(path)))
            except Exception as exc:  # noqa: BLE001 - never hide the real failure
                report.sections.append(("screenshot", f"could not be saved: {exc}"))
    return report
