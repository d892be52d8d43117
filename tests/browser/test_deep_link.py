"""A shared link that points below the root must work on a server nobody has visited yet."""
from __future__ import annotations

from playwright.sync_api import expect

from harness import AppServer


def test_first_visit_to_a_fresh_server_can_be_a_deep_link(browser):
    with AppServer() as server:
        context = browser.new_context(base_url=server.url)
        page = context.new_page()
        page.goto("/so_what")
        expect(page.get_by_role("heading", name="So what")).to_be_visible(timeout=120_000)
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_text("Walkthrough")).to_be_visible()  # the app's own navigation
        expect(nav.get_by_text("app", exact=True)).to_have_count(0)  # not a file listing
        expect(page.get_by_text("Page not found")).to_have_count(0)
        context.close()
