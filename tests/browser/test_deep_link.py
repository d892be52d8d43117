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


def test_a_link_into_instructor_mode_hides_the_sidebar_while_a_fresh_server_starts(browser):
    """A projector opening `?present=1` on a server nobody has visited shows instructor mode's
    layout from the first moment, while the libraries load ("Starting the lesson…"), not the
    ordinary page with its sidebar until the lesson first draws."""
    with AppServer() as server:
        context = browser.new_context(base_url=server.url)
        page = context.new_page()
        page.goto("/?present=1")
        expect(page.get_by_text("Starting the lesson…")).to_be_visible(timeout=60_000)
        assert not page.get_by_test_id("stSidebar").is_visible()
        expect(page.get_by_role("button", name="Leave instructor mode")).to_be_visible(timeout=120_000)
        assert not page.get_by_test_id("stSidebar").is_visible()
        context.close()
