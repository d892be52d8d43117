"""The app in a real browser: the walkthrough by mouse and keyboard, links that reproduce a
screen, the playground and the race, instructor mode, and links that try to break things."""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from lessons.thread import QUESTIONS
from ui.focus import BUTTON_LABEL_JS

from harness import LAST_STEP, SCREENSHOTS, button, full_screenshot, running, step_pattern

FIRST_LOAD_MS = 180_000  # the first page of the session loads the models
RUN_MS = 90_000  # one rerun of a page on a busy two-core machine
NOTHING_STALE = "() => !document.querySelector('[data-testid=\"stMain\"] [data-stale=\"true\"]')"


def step_label(page: Page, k: int):
    return page.get_by_text(step_pattern(k)).first


def settled(page: Page, timeout: float = RUN_MS) -> None:
    """Wait until the script run has finished: the 'running' status widget is gone."""
    expect(running(page)).to_have_count(0, timeout=timeout)


def no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def at_step(page: Page, k: int, timeout: float = RUN_MS) -> None:
    """Step `k` is on screen and its run is over: nothing of the step before is left, marked
    stale (Streamlit's running figure shows only once a run has taken half a second)."""
    expect(step_label(page, k)).to_be_visible(timeout=timeout)
    page.wait_for_function(NOTHING_STALE, timeout=timeout)
    settled(page, timeout)
    expect(button(page, "Next")).to_be_visible(timeout=timeout)
    if k > 1:
        expect(page).to_have_url(re.compile(rf"[?&]step={k}(&|$)"), timeout=timeout)
    else:
        expect(page).not_to_have_url(re.compile(r"[?&]step="), timeout=timeout)
    no_exception(page)


def open_walkthrough(page: Page, query: str = "", step: int = 1) -> None:
    page.goto(f"/{query}")
    expect(step_label(page, step)).to_be_visible(timeout=FIRST_LOAD_MS)


def open_playground(page: Page, query: str = "") -> None:
    """The playground once its first text is written and the run is over."""
    page.goto(f"/playground{query}")
    # the caption under the charts comes last, once the whole text is written
    expect(page.get_by_text(re.compile(r"\d+ rounds to write \d+ tokens"))).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)


def start_race(page: Page, query: str) -> None:
    """The race page opened with `query`, and its race started once the page is drawn."""
    page.goto(f"/race{query}")
    start = button(page, "Start the race")
    expect(start).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    start.click()


def test_a_screen_reader_hears_the_race_finish_and_each_slider_named_once(page: Page):
    """The focus stays on Start while the race runs: its result is read out once it is in (a
    polite live region), not left for the reader to hunt for. A slider is named once: Streamlit
    names its input by its own label and then the group's, the same words twice."""
    page.add_init_script("""new MutationObserver((_, watcher) => {
      const region = document.getElementById("result-said");
      if (region && window.resultSaidAtFirst === undefined) { window.resultSaidAtFirst = region.textContent; watcher.disconnect(); }
    }).observe(document, {childList: true, subtree: true});""")
    start_race(page, "?tokens=8&temperature=0")
    said = page.locator("#result-said")
    expect(said).to_have_text(re.compile(r"^Race finished\. Nimbus-large alone: 8 tokens in [0-9.]+ s\. .+ "
                                         r"tokens per pass of Nimbus-large\. Speed-up [0-9.]+x\.$"),
                              timeout=RUN_MS)
    expect(said).to_have_attribute("aria-live", "polite")
    # the region was there, empty, before the result came: a screen reader reads out changes only
    # to a live region it already knows
    assert page.evaluate("window.resultSaidAtFirst") == ""
    expect(page.get_by_role("slider", name="γ", exact=True)).to_have_count(1)
    no_exception(page)


def test_the_main_area_shows_a_ring_when_tab_reaches_it(page: Page):
    """The main area is a scrolling box, and Tab stops on it (the arrow keys then scroll it):
    a ring marks it there, where the browser drew none."""
    open_walkthrough(page, "?step=2", step=2)
    settled(page)
    # the page's styles are in an HTML element, whose code a new browser loads on first use: the
    # step can be on screen a moment before they apply
    page.wait_for_function("() => [...document.querySelectorAll('style')]"
                           ".some(s => s.textContent.includes('stMain\"]:focus-visible'))", timeout=RUN_MS)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.getAttribute('data-testid')") == "stMain":
            break
    else:
        pytest.fail("Tab never reached the main area")
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") == "solid"


def test_a_screen_reader_hears_each_flip_a_new_round_and_new_draws(page: Page):
    """The focus stays on the control pressed while the walkthrough changes: Predict first's
    verdict and next question (the first flip's too, whose boxes are drawn with their text
    already in them, which a screen reader does not read), Roll again's new draft and step 5's
    distances at a new number of draws are each read out once, a token by its words, not "␣"."""
    page.goto("/?step=3&predict=1&seed=2")  # four flips, the last one rejected
    at_step(page, 3, timeout=FIRST_LOAD_MS)
    settled(page)
    said = page.locator("#result-said")
    button(page, "Predict keep").focus()
    page.keyboard.press("Enter")
    expect(said).to_have_text(re.compile(r"^(Right|Not this time): u = [0-9.]+ .+, so the draft is (kept|rejected)\. "
                                         r"Predict first: will [^␣“”]+ be kept\? The target gives it p = "),
                              timeout=RUN_MS)
    # the boxes themselves are read where they stand, so the flip is not said twice
    for box in (".st-key-verdict", ".st-key-predict_question"):
        expect(page.locator(f'{box} [role="status"], {box} [role="alert"]').first).to_have_attribute("aria-live", "off")
    for _ in range(3):
        # the run has drawn its buttons: while it redraws them, one given the focus by a script
        # (not a key, which would keep it there) can lose it to the control pressed before
        _drawn(page)
        before = said.text_content()
        button(page, "Flip the coin").focus()
        page.keyboard.press("Enter")
        expect(said).not_to_have_text(before, timeout=RUN_MS)
        expect(said).to_have_text(re.compile(r"^Flipped: "))
    expect(said).to_have_text(re.compile(r"rejected\. That was the round's last coin\.$"), timeout=RUN_MS)
    _drawn(page)
    button(page, "Roll again").focus()
    page.keyboard.press("Enter")
    expect(said).to_have_text(re.compile(r"^New round, seed \d+: Nimbus-mini guessed [^␣]+, [^␣]+, [^␣]+, [^␣]+\.$"),
                              timeout=RUN_MS)
    page.goto("/?step=5")
    at_step(page, LAST_STEP, timeout=RUN_MS)
    settled(page)
    page.get_by_role("slider", name="Simulated draws").focus()
    page.keyboard.press("ArrowLeft")
    expect(said).to_have_text(re.compile(r"^[0-9,]+ draws\. Distance to p: accept-or-correct 0\.\d{3}, "),
                              timeout=RUN_MS)
    no_exception(page)


def test_tab_passes_a_headings_link_to_itself(page: Page):
    """Each step's question carries Streamlit's "Link to heading", shown on hover: a Tab stop
    named by nothing it leads to, which Tab and a screen reader pass by."""
    open_walkthrough(page, "?step=2", step=2)
    settled(page)
    links = page.locator('[data-testid="stHeaderActionElements"] a')
    expect(links.first).to_have_attribute("tabindex", "-1", timeout=RUN_MS)
    assert all(link.get_attribute("tabindex") == "-1" for link in links.all())
    # nor does a screen reader stop at it, or at plotly's off-screen drawing
    expect(page.get_by_role("link", name="Link to heading")).to_have_count(0)
    expect(page.locator("#js-plotly-tester")).to_have_attribute("aria-hidden", "true", timeout=RUN_MS)


def test_five_steps_with_clicks(page: Page):
    open_walkthrough(page)
    at_step(page, 1)
    full_screenshot(page, SCREENSHOTS / "step1.png")
    expect(page).to_have_title("Step 1 of 5: Draft · Faster, not different")
    for k in range(2, LAST_STEP + 1):
        button(page, "Next").click()
        at_step(page, k)
        full_screenshot(page, SCREENSHOTS / f"step{k}.png")
    expect(page).to_have_title("Step 5 of 5: Why it's exact · Faster, not different")  # the tab names the step
    expect(button(page, "Next")).to_be_disabled()
    for k in range(LAST_STEP - 1, 0, -1):
        button(page, "Back").click()
        at_step(page, k)
    expect(button(page, "Back")).to_be_disabled()


def test_the_browsers_back_and_forward_change_the_step(page: Page):
    """Each step is an entry in the browser's history: Back goes back a step, not out of the
    lesson after several presses that did nothing."""
    open_walkthrough(page)
    at_step(page, 1)
    for k in (2, 3):
        button(page, "Next").click()
        at_step(page, k)
    page.go_back()
    at_step(page, 2)
    page.go_back()
    at_step(page, 1)
    page.go_forward()
    at_step(page, 2)


def test_back_still_walks_the_steps_after_a_visit_to_another_page(page: Page):
    """Back from another page comes to the step the lesson was left at, and further presses
    go back a step each, where they once found the lesson stuck at that step."""
    open_walkthrough(page)
    for k in (2, 3):
        button(page, "Next").click()
        at_step(page, k)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="So what").click()
    expect(page).to_have_url(re.compile(r"/so_what"), timeout=RUN_MS)
    settled(page)
    for k in (3, 2, 1):
        page.go_back()
        at_step(page, k)


def test_back_after_a_page_switch_keeps_the_settings(page: Page):
    """A click in the navigation menu leaves the page's bare address in the history; Back onto
    it must not put the settings back to their defaults."""
    page.goto("/?step=3&seed=130")
    at_step(page, 3, FIRST_LOAD_MS)
    for name in ("So what", "Walkthrough", "So what"):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
        settled(page)
    page.go_back()
    settled(page)
    expect(page).to_have_url(re.compile(r"[?&]seed=130(&|$)"), timeout=RUN_MS)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Walkthrough").click()
    at_step(page, 3)
    expect(page).to_have_url(re.compile(r"[?&]seed=130(&|$)"))


def test_a_link_rewritten_on_arrival_is_one_entry_in_the_history(page: Page):
    """A link that spells out five settings at their defaults is rewritten without them, as one
    change: the history holds the new tab, the link and the rewritten link, and Back leaves the
    page in two presses, where it once took six (an entry per setting)."""
    page.goto("/race?gamma=4&tokens=48&slow=0&stop=0&temperature=1")
    expect(button(page, "Start the race")).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    expect(page).to_have_url(re.compile(r"/race$"))
    assert page.evaluate("history.length") == 3


def test_pages_ask_no_other_host(page: Page):
    """Nothing but the app's own server: a classroom may have no internet (a page's material
    icon as the tab's icon would be fetched from Google's font servers)."""
    host = re.compile(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?/")
    elsewhere = []
    page.on("request", lambda r: None if host.match(r.url) or r.url.startswith(("data:", "blob:"))
            else elsewhere.append(r.url))
    open_walkthrough(page)
    settled(page)
    page.goto("/so_what")
    expect(page.get_by_role("heading", name="So what").first).to_be_visible(timeout=RUN_MS)
    settled(page)
    assert elsewhere == []


def test_five_steps_with_keyboard(page: Page):
    open_walkthrough(page)
    at_step(page, 1)
    title = page.get_by_role("heading", name="Faster, not different")
    # each key pressed once the step is drawn whole, as a reader sees it: a press while its
    # charts still arrive was lost once in a fresh run (← on step 5)
    for k in range(2, LAST_STEP + 1):
        _holds_still(page)
        title.click()  # a neutral spot: the key goes to the page, not to a widget
        page.keyboard.press("ArrowRight")
        at_step(page, k)
    for k in range(LAST_STEP - 1, 0, -1):
        _holds_still(page)
        title.click()
        page.keyboard.press("ArrowLeft")
        at_step(page, k)


def test_keyboard_focus_stays_on_the_buttons(page: Page):
    """A click that disables or replaces the button pressed would drop the focus to the page."""
    page.goto("/?step=4")
    at_step(page, 4, FIRST_LOAD_MS)
    button(page, "Next").focus()
    page.keyboard.press("Enter")
    at_step(page, LAST_STEP)
    # Next is disabled here: the focus goes to the step's question, where Enter does nothing
    question = page.locator("#step-question")
    expect(question).to_be_focused(timeout=RUN_MS)
    page.keyboard.press("Enter")
    settled(page)
    at_step(page, LAST_STEP)  # not back at step 4
    # and Tab reads on into the step, past the heading's own link: its first chart's table view
    page.keyboard.press("Tab")
    expect(page.locator("summary").filter(has_text="Table view").first).to_be_focused()
    button(page, "Back").focus()
    page.keyboard.press("Enter")
    at_step(page, LAST_STEP - 1)
    expect(button(page, "Back")).to_be_focused(timeout=RUN_MS)
    page.goto("/?step=3&predict=1&seed=2")  # predict first: four flips, the last one rejected
    at_step(page, 3)
    question = page.get_by_text(re.compile(r"^Predict first: will"))
    for flip in range(4):  # a guess flips its coin, as a flip without one does: one press each
        asked = question.inner_text()
        pressed = ("Predict keep", "Predict reject", "Flip the coin")[flip % 3]
        _drawn(page)  # the focus is moved by script, which a person could not do before then
        button(page, pressed).focus()
        page.keyboard.press("Enter")
        if flip < 3:  # on to the next guess, the focus on the same button, which says what was pressed
            expect(question).not_to_have_text(asked, timeout=RUN_MS)
            expect(button(page, pressed)).to_be_focused(timeout=RUN_MS)
            # and no help box over the next question
            expect(page.get_by_test_id("stTooltipContent")).to_have_count(0)
        else:  # every coin flipped: on to the next step
            expect(question).to_have_count(0, timeout=RUN_MS)
            expect(button(page, "Next")).to_be_focused(timeout=RUN_MS)
        # the verdict on the guess just made stays in view, the last one's too
        expect(page.locator(".st-key-verdict")).to_be_in_viewport(timeout=RUN_MS)
    no_exception(page)


# once the focus is back on the button `from` after a click (the page's focus script has run),
# a screen reader's cursor moves it at once to the button `to`, as its keys do, which the page
# never sees; window.focusHeld then says which button holds it 1.5 s later
_MOVE_ONCE_PLACED = """([from, to]) => {
  %s
  const script = window.focusAfterClick;
  const find = l => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .find(b => b.getClientRects().length > 0 && label(b) === l);
  window.focusHeld = null;
  const watch = setInterval(() => {
    const held = document.activeElement;
    if (window.focusAfterClick === script || !held || held.tagName !== "BUTTON" || label(held) !== from) return;
    clearInterval(watch);
    find(to).focus();
    setTimeout(() => { window.focusHeld = label(document.activeElement); }, 1500);
  }, 10);
}""" % BUTTON_LABEL_JS


def test_a_screen_readers_move_of_the_focus_is_not_undone_after_a_flip(page: Page):
    """After a guess the focus is put back on the button pressed for a few seconds while the
    run settles; a screen reader's cursor moving it to another button meanwhile is the reader's
    own move (its keys never reach the page) and must be kept."""
    page.goto("/?step=3&predict=1&seed=2")
    at_step(page, 3, FIRST_LOAD_MS)
    question = page.get_by_text(re.compile(r"^Predict first: will"))
    asked = question.inner_text()
    _drawn(page)
    button(page, "Predict keep").focus()
    page.evaluate(_MOVE_ONCE_PLACED, ["Predict keep", "Predict reject"])
    page.keyboard.press("Enter")
    expect(question).not_to_have_text(asked, timeout=RUN_MS)
    page.wait_for_function("() => window.focusHeld !== null", timeout=RUN_MS)
    assert page.evaluate("window.focusHeld") == "Predict reject"
    no_exception(page)


def test_tab_moves_on_from_the_buttons_right_after_a_step_change(page: Page):
    """The focus is watched for a few seconds after a click, as the rerun settles; a Tab
    pressed meanwhile is the reader's own move and must not be undone (Tab past the last button
    leaves the focus on the page, which the watch would take for a dropped focus)."""
    page.goto("/?step=2")
    at_step(page, 2, FIRST_LOAD_MS)
    button(page, "Next").focus()
    page.keyboard.press("Enter")
    at_step(page, 3)
    expect(button(page, "Next")).to_be_focused()
    seen = []
    for _ in range(6):
        page.keyboard.press("Tab")
        page.wait_for_timeout(300)
        seen.append(page.evaluate("document.activeElement.innerText || document.activeElement.tagName"))
    assert not any(s.startswith("Next") for s in seen), seen
    no_exception(page)


def test_a_new_step_opens_at_its_start(page: Page):
    """Next is pressed at the foot of a step; the next step must not open at its foot too, or a
    class watching a projector sees only its last lines."""
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto("/?step=1&present=true")
    at_step(page, 1, FIRST_LOAD_MS)
    page.mouse.move(512, 400)  # over the page's text, where a reader's pointer rests
    for k in (2, 3):
        page.mouse.wheel(0, 5000)  # down to the buttons, as a reader gets there
        expect(step_label(page, k - 1)).not_to_be_in_viewport()
        page.keyboard.press("ArrowRight")
        at_step(page, k)
        expect(step_label(page, k)).to_be_in_viewport(timeout=RUN_MS)
    no_exception(page)


def test_charts_are_named_images_for_screen_readers(page: Page):
    page.goto("/?step=2")
    at_step(page, 2, FIRST_LOAD_MS)
    chart = page.get_by_role("img", name=re.compile(r"^Nimbus-large checks every guess in one pass"))
    expect(chart).to_have_count(1, timeout=RUN_MS)
    expect(chart).to_have_accessible_description(re.compile(r"^One target pass scored"))  # its caption
    assert "\n" not in chart.aria_snapshot().strip()  # one image: no loose tick labels to walk through
    page.set_viewport_size(PHONE)  # the phone's copy, in rows of panels, is named alike
    expect(chart).to_have_count(1)
    expect(chart).to_have_attribute("aria-describedby", re.compile(".+"))
    expect(chart).to_have_accessible_description(re.compile(r"^One target pass scored"))
    assert page.locator('[data-testid="stPlotlyChart"]:visible').get_attribute("aria-label") == \
        page.locator(".chart-title").first.inner_text()
    page.set_viewport_size({"width": 1280, "height": 720})
    button(page, "Next").click()  # a rerun redraws the chart: it is named again
    at_step(page, 3)
    chart = page.get_by_role("img", name=re.compile(r"^Keep or reject"))
    expect(chart).to_have_count(1, timeout=RUN_MS)
    # and a swipe on a touch screen cannot zoom it: it has no drag mode, and no double click undoes one
    # (Streamlit's element, which the image role names, comes before plotly has laid the chart out)
    # (read in one step: a rerun can redraw the chart between two)
    layout = page.wait_for_function(
        "() => { const l = document.querySelector('[role=img][aria-label^=\"Keep or reject\"] "
        ".js-plotly-plot')?.layout; return l && l.xaxis && l.yaxis ? "
        "{dragmode: l.dragmode, x: l.xaxis.fixedrange, y: l.yaxis.fixedrange} : null; }",
        timeout=RUN_MS).json_value()
    assert layout["dragmode"] is False and layout["x"] and layout["y"], layout


def test_the_step_its_bar_and_the_help_are_told_to_a_screen_reader(page: Page):
    """The step line is a status, read out when Next changes it; the progress bar under it is
    named by it, not "progress"; and a (?) button's help, or a button's own, drawn in a box
    linked to nothing, is read out while the keyboard is on the button, and no longer once it
    moves on."""
    page.goto("/?step=2")
    at_step(page, 2, FIRST_LOAD_MS)
    expect(page.get_by_role("status").filter(has_text=step_pattern(2))).to_have_count(1, timeout=RUN_MS)
    expect(page.get_by_role("progressbar", name=step_pattern(2))).to_have_count(1, timeout=RUN_MS)
    said = page.locator("#help-said[aria-live=polite]")
    page.get_by_role("button", name="Help for Draft model").focus()
    expect(said).to_have_text(re.compile(r"^Ordered by acceptance rate"), timeout=RUN_MS)
    page.keyboard.press("Tab")
    expect(said).to_have_text("", timeout=RUN_MS)
    # a button whose help is its own, not a (?) beside it, is read the same way
    button(page, "Roll again").focus()
    expect(said).to_have_text(re.compile(r"^New coin flips and a new draft"), timeout=RUN_MS)
    button(page, "Next").click()
    at_step(page, 3)
    expect(page.get_by_role("progressbar", name=step_pattern(3))).to_have_count(1, timeout=RUN_MS)
    # the takeaway, which the new step changes, is not read out before the step's question
    expect(page.locator(".st-key-takeaway [role=status]")).to_have_attribute("aria-live", "off", timeout=RUN_MS)
    no_exception(page)


def test_a_press_on_a_switchs_help_opens_the_help_and_leaves_the_switch(new_context):
    """Streamlit draws a switch's (?) inside its label, where a click or a tap also flipped the
    switch: Instructor mode then hid the sidebar the reader was reading. By mouse and by touch
    (a phone's sidebar, opened first)."""
    for touch in (False, True):
        page = new_context(**({"viewport": {"width": 390, "height": 800}, "has_touch": True,
                               "is_mobile": True} if touch else {})).new_page()
        page.goto("/?step=3")
        at_step(page, 3, FIRST_LOAD_MS)
        if touch:
            page.get_by_test_id("stExpandSidebarButton").tap()
        for name, help_text in (("Predict first", "Predict keep or reject"), ("Instructor mode", "Large type")):
            help_button = page.get_by_role("button", name=f"Help for {name}")
            help_button.tap() if touch else help_button.click()
            expect(page.get_by_test_id("stTooltipContent").filter(has_text=help_text)).to_be_visible()
            page.wait_for_timeout(1_000)  # a flip would have started a run by now
            settled(page)
            expect(page.get_by_role("switch", name=name)).not_to_be_checked()
            expect(page).not_to_have_url(re.compile(r"[?&](predict|present)="))
            # the help's box away, as a reader moving on takes it (it covers the next switch)
            foot = page.get_by_test_id("stSidebar").bounding_box()  # nothing to press there
            x, y = foot["x"] + 10, foot["y"] + foot["height"] - 10
            page.touchscreen.tap(x, y) if touch else page.mouse.click(x, y)
            expect(page.get_by_test_id("stTooltipContent")).to_have_count(0)
        # the switch's label itself still flips it
        label = page.get_by_test_id("stSidebar").get_by_text("Predict first", exact=True)
        label.tap() if touch else label.click()
        expect(page).to_have_url(re.compile(r"[?&]predict=1(&|$)"), timeout=RUN_MS)
        expect(page.get_by_role("switch", name="Predict first")).to_be_checked()
        no_exception(page)
        page.context.close()


def test_scenario_link_reproduces_the_screen(new_context):
    seen = []
    for _ in range(2):
        page = new_context().new_page()  # a fresh context: no shared session, cookies or storage
        page.goto("/?step=3&seed=123")
        expect(step_label(page, 3)).to_be_visible(timeout=FIRST_LOAD_MS)
        at_step(page, 3)
        takeaway = page.get_by_test_id("stAlertContentSuccess")
        expect(takeaway).to_have_count(1)
        captions = page.get_by_test_id("stMain").get_by_test_id("stCaptionContainer").all_inner_texts()
        seen.append((takeaway.inner_text(), captions))
        page.context.close()
    (takeaway1, captions1), (takeaway2, captions2) = seen
    assert takeaway1.strip() and takeaway1 == takeaway2
    assert len(captions1) >= 2, "expected the page caption and the chart's text alternative"
    assert captions1 == captions2


def test_playground_slider_goes_into_the_link(page: Page):
    open_playground(page)
    gamma = page.get_by_role("slider", name="γ, drafted tokens per round")
    expect(gamma).to_have_attribute("aria-valuetext", "4")
    gamma.press("ArrowRight")
    expect(gamma).to_have_attribute("aria-valuetext", "5", timeout=RUN_MS)
    expect(page).to_have_url(re.compile(r"[?&]gamma=5(&|$)"), timeout=RUN_MS)
    settled(page)
    expect(page.get_by_text("Target passes").first).to_be_visible()
    no_exception(page)


def test_a_paste_over_the_limit_is_cut_with_a_message(page: Page):
    """A text area's own max_chars drops such a paste in the browser without a word."""
    open_playground(page)
    box = page.get_by_role("textbox", name="Prompt")
    box.click()
    page.keyboard.press("Control+A")
    pasted = "My export keeps failing at night. " * 15  # 510 characters
    page.keyboard.insert_text(pasted)  # as a paste does
    expect(box).to_have_value(re.compile(r"^My export .{300,}"))
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("The prompt had 510 characters")).to_be_visible(timeout=RUN_MS)
    settled(page)
    kept = box.input_value()
    assert 320 <= len(kept) <= 400 and pasted.startswith(kept) and pasted[len(kept)] == " "  # a whole word
    expect(page).to_have_url(re.compile(r"[?&]prompt=My"), timeout=RUN_MS)
    expect(page.get_by_text("Target passes").first).to_be_visible(timeout=RUN_MS)  # its new text
    no_exception(page)


def test_a_message_typed_into_the_thread_is_answered_as_written(page: Page):
    """The thread's box takes a message of one's own: a long one is cut after a whole word,
    with a message, and markup in it is shown as the characters typed."""
    page.goto("/thread")
    expect(page.get_by_text("Target passes, speculative")).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.get_by_role("combobox", name="Customer message").click()
    typed = "My <b>invoice</b> shows the wrong company name. " * 8  # 384 characters
    page.keyboard.insert_text(typed.strip())
    page.keyboard.press("Enter")
    expect(page.get_by_text("The message had 383 characters")).to_be_visible(timeout=RUN_MS)
    settled(page)
    expect(page).to_have_url(re.compile(r"[?&]message=My(\+|%20)%3Cb%3Einvoice"))  # the link keeps it
    asked = page.get_by_test_id("stChatMessage").first
    expect(asked).to_contain_text("My <b>invoice</b> shows the wrong company name. My <b>")
    # its direction follows its own letters: a right-to-left message ends at its left edge
    expect(asked.locator('div[dir="auto"]')).to_contain_text("My <b>invoice</b>")
    expect(page.locator('[data-testid="stMain"] b', has_text="invoice")).to_have_count(0)
    expect(page.get_by_text("Target passes, speculative")).to_be_visible()
    no_exception(page)


# every change to the page, as (chips in Nimbus's bubble, the count of target passes under it)
WATCH_THE_REPLY = """
window.__reply = [];
new MutationObserver(() => {
  const bubbles = document.querySelectorAll('[data-testid="stChatMessage"]');
  if (bubbles.length < 2) return;
  const passes = [...document.querySelectorAll('[data-testid="stMetric"]')]
    .find(m => m.innerText.startsWith('Target passes, speculative'));
  window.__reply.push([bubbles[1].querySelectorAll('span.tok').length,
                       passes ? Number(passes.querySelector('[data-testid="stMetricValue"]').innerText) : null]);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def growing_counts(seen: list) -> tuple[int, list]:
    """The whole reply's chips, and (chips, passes) while it grew. Each pass writes at least
    one token, so a count of passes above the chips drawn is another reply's."""
    whole = seen[-1][0]
    growing = [(chips, passes) for chips, passes in seen if 0 < chips < whole]
    assert all(passes is None or passes <= chips for chips, passes in growing), growing
    return whole, growing


def test_a_new_reply_arrives_pass_by_pass(page: Page):
    """The first time a message is asked with a seed, Nimbus's bubble fills as each target
    pass adds its tokens, and the counts under it grow with it. A second message's reply starts
    from nothing: the first one's counts are not left standing under it. (The growth is checked
    on the second reply: a new browser draws its first chat bubble and its first metric only once
    Streamlit's code for them has loaded, which on a busy machine can take most of the first
    reply's passes.)"""
    page.add_init_script(WATCH_THE_REPLY)
    page.goto("/thread?seed=4711")  # a seed no other test asks for: its reply is not yet kept
    expect(page.get_by_text("Target passes, speculative")).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    no_exception(page)
    whole, growing = growing_counts(page.evaluate("window.__reply"))
    assert whole >= 20, (whole, growing)
    page.evaluate("window.__reply = []")
    page.get_by_role("combobox", name="Customer message").click()
    page.get_by_role("option", name=QUESTIONS[1]).click()
    expect(page.get_by_test_id("stChatMessage").first).to_contain_text(QUESTIONS[1], timeout=RUN_MS)
    # over the reply while it is written: not yet there at the first rerun, gone once it is whole
    writing = page.get_by_text("Written so far:")
    expect(writing).to_be_visible(timeout=RUN_MS)
    expect(writing).to_have_count(0, timeout=RUN_MS)
    settled(page)
    no_exception(page)
    whole, growing = growing_counts(page.evaluate("window.__reply"))
    assert whole >= 20 and len({chips for chips, _ in growing}) >= 3, (whole, growing)
    assert len({passes for _, passes in growing if passes}) >= 3, growing  # the counts grow too


WATCH_THE_PLAYGROUND = """
window.__play = [];
new MutationObserver(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return;
  const passes = [...main.querySelectorAll('[data-testid="stMetric"]')]
    .find(m => m.innerText.startsWith('Target passes for'));
  window.__play.push([main.querySelectorAll('.tokens span.tok').length,
                      passes ? passes.querySelector('[data-testid="stMetricValue"]').innerText : '',
                      main.querySelectorAll('[data-testid="stPlotlyChart"]').length,
                      document.querySelector('[data-testid="stStatusWidget"]') !== null]);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_a_new_playground_text_arrives_pass_by_pass(page: Page):
    """The first time the controls ask for a text, its figures and chips grow after each target
    pass, and the charts, which need the whole text, come last. Meanwhile Streamlit's running
    indicator, with its Stop button, says the page is still at work. (The playground is opened
    from step 5, which draws metrics: a browser draws its first metric only once Streamlit's code
    for metrics has loaded, which can take a text's first few passes.)"""
    page.add_init_script(WATCH_THE_PLAYGROUND)
    page.goto("/?step=5&seed=4712")  # a seed no other test asks for: its text is not yet kept
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.evaluate("window.__play = []")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Playground").click()
    expect(page).to_have_url(re.compile(r"/playground\?(.*&)?seed=4712(&|$)"), timeout=RUN_MS)
    expect(page.get_by_text(re.compile(r"\d+ rounds to write \d+ tokens"))).to_be_visible(timeout=RUN_MS)
    settled(page)
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(2)  # drawn once plotly has loaded
    no_exception(page)
    seen = page.evaluate("window.__play")
    chips, passes, charts, _ = seen[-1]
    assert charts == 2 and int(passes) >= 10, seen[-1]
    before_charts = [(c, int(p), busy) for c, p, n, busy in seen if n == 0 and p]
    growing = sorted({p for c, p, _ in before_charts if p < int(passes)})
    assert len(growing) >= 3, (passes, growing)
    assert len({c for c, _, _ in before_charts if c < chips}) >= 3, (chips, before_charts)  # the text grows too
    assert any(busy for _, _, busy in before_charts)


def test_race_at_temperature_zero_writes_the_same_text(page: Page):
    page.set_viewport_size({"width": 1024, "height": 768})  # a projector: the lanes start below the fold
    start_race(page, "?tokens=8&temperature=0&present=true")
    same = page.get_by_test_id("stMetric").filter(has_text="Same text?")
    expect(same.get_by_test_id("stMetricValue")).to_have_text("yes", timeout=RUN_MS)
    settled(page)
    main = page.get_by_test_id("stMain")
    # brought to the top of the view when the race started, the scoreboard first, with room
    # below for the lanes to stream into
    board = main.get_by_text(re.compile(r"^Nimbus-large alone: 8 of 8 tokens in \d\.\d\d s$"))
    expect(board).to_be_visible()
    assert 0 <= board.bounding_box()["y"] < 768 / 4, board.bounding_box()
    for lane in ("Nimbus-large alone", "Nimbus-mini drafts, Nimbus-large checks"):  # the default drafter
        lane_head = main.get_by_text(re.compile(rf"{lane}\s+8 tokens · \d+ target pass(es)?"))
        expect(lane_head).to_be_visible()
        assert 0 <= lane_head.bounding_box()["y"] < 768 / 2, lane_head.bounding_box()
    # the pair's longer name wraps in instructor mode's type: both texts still start level
    texts = main.locator(":is(.st-key-race_lanes, .st-key-last_race_lanes) [data-testid=stColumn] "
                         "[data-testid=stMarkdownContainer] > div")
    expect(texts).to_have_count(2)
    left, right = (box["y"] for box in (texts.nth(0).bounding_box(), texts.nth(1).bounding_box()))
    assert abs(left - right) < 1, (left, right)
    # on a 1080p projector's wider lanes the names fit one line each: no blank line under them
    page.set_viewport_size({"width": 1920, "height": 1080})
    heads = main.locator(":is(.st-key-race_lanes, .st-key-last_race_lanes) [data-testid=stColumn] [role=heading]")
    page.wait_for_function("els => els.every(h => h.getBoundingClientRect().height < "
                           "1.5 * parseFloat(getComputedStyle(h).lineHeight))", arg=heads.element_handles(),
                           timeout=RUN_MS)
    left, right = (box["y"] for box in (texts.nth(0).bounding_box(), texts.nth(1).bounding_box()))
    assert abs(left - right) < 1, (left, right)
    # per pass, so the sides compare whatever length each wrote; alone, always one token a pass
    per_pass = page.get_by_test_id("stMetric").filter(has_text="Tokens per target pass")
    expect(per_pass.get_by_test_id("stMetricValue")).to_have_text(re.compile(r"^\d\.\d\d vs 1\.00$"))
    no_exception(page)


def test_a_finished_race_quotes_its_prompt_as_written(page: Page):
    """Under the last race, its settings quote the prompt: a web address in it is not a link,
    and ":smile:" or ":material/home:" are not pictures."""
    prompt = "https://ev.il :smile: :material/home: x"
    start_race(page, "?tokens=8&temperature=0&prompt=" + quote(prompt))
    expect(page.get_by_text("Same text?")).to_be_visible(timeout=RUN_MS)
    settled(page)
    box = page.get_by_role("textbox", name="Prompt")
    box.fill(prompt + " y")
    box.press("Tab")  # the box hands its text over when it loses the focus: the page runs again
    quoted = page.get_by_text("The last race, with")
    expect(quoted).to_contain_text(f"the prompt “{prompt}”", timeout=RUN_MS)
    settled(page)
    main = page.get_by_test_id("stMain")
    expect(main.locator('a[href*="ev.il"]')).to_have_count(0)
    expect(main.get_by_role("img", name="home icon")).to_have_count(0)
    expect(main.get_by_text("😄")).to_have_count(0)
    no_exception(page)


def test_taking_the_race_advice_keeps_the_keyboard_focus(page: Page):
    page.goto("/race?gamma=8")
    advice = page.get_by_role("button", name=re.compile(r"^Use γ = \d$"))
    expect(advice).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    advice.focus()
    page.keyboard.press("Enter")
    expect(advice).to_have_count(0, timeout=RUN_MS)  # the advice is taken, its button gone
    expect(button(page, "Start the race")).to_be_focused(timeout=RUN_MS)
    expect(page).not_to_have_url(re.compile(r"gamma=8"))
    no_exception(page)


def test_a_slow_motion_race_comes_up_to_the_top_of_the_view_as_it_grows(page: Page):
    """Starting a race brings its lanes up to the top of the view, as far as the page under them
    lets it: in slow motion the page grows for many seconds, and the view follows it all the
    way, not only for the first few seconds."""
    page.set_viewport_size({"width": 1280, "height": 900})
    start_race(page, "?tokens=48&slow=1&seed=1302")
    expect(running(page)).to_have_count(1)
    settled(page)
    top = page.evaluate("() => document.querySelector('.st-key-race_lanes').getBoundingClientRect().top")
    assert top < 900 / 4, top
    # and the button that started it, which keeps the focus, stays clear of Streamlit's header
    header = page.evaluate(
        "() => document.querySelector('[data-testid=stHeader]').getBoundingClientRect().bottom")
    start = button(page, "Start the race").bounding_box()
    assert start["y"] >= header, (start, header)
    no_exception(page)


def test_a_wheel_turned_while_the_race_comes_into_view_is_not_undone(page: Page):
    """Starting a race brings its lanes into view, again and again while the page is still too
    short to; a reader who scrolls back up with the wheel meanwhile keeps the view they chose."""
    page.set_viewport_size({"width": 1280, "height": 900})
    start_race(page, "?tokens=160&seed=1301")
    scrolled = "document.querySelector('[data-testid=stMain]').scrollTop"
    page.wait_for_function(f"{scrolled} > 0", timeout=RUN_MS)  # the lanes are being brought up
    page.mouse.move(800, 500)
    for _ in range(5):  # turned again, as a reader would, until the page's top is in view
        page.mouse.wheel(0, -2000)
        try:
            page.wait_for_function(f"{scrolled} === 0", timeout=5_000)
            break
        except PlaywrightTimeoutError:
            pass
    page.wait_for_function(f"{scrolled} === 0", timeout=RUN_MS)
    page.wait_for_timeout(2000)  # time for the page to be pulled back down, which it must not be
    assert page.evaluate(scrolled) == 0
    expect(page.get_by_text("Same text?")).to_be_visible(timeout=RUN_MS)
    settled(page)
    no_exception(page)


def test_instructor_mode_hides_the_sidebar_until_left(page: Page):
    open_walkthrough(page, "?present=1")
    settled(page)
    leave = button(page, "Leave instructor mode")
    expect(leave).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    leave.click()
    expect(page.get_by_test_id("stSidebar")).to_be_visible(timeout=RUN_MS)
    expect(page.get_by_text("Leave instructor mode")).to_have_count(0)
    settled(page)
    expect(page).not_to_have_url(re.compile(r"[?&]present="))
    no_exception(page)


def test_instructor_mode_brings_each_new_step_to_the_top_of_a_projector(page: Page):
    """At 1366×768 in large type the title and the lesson's summary fill most of the screen: a
    step changed with the arrow keys starts at the top, so its chart comes into view."""
    page.set_viewport_size({"width": 1366, "height": 768})
    open_walkthrough(page, "?present=1")
    at_step(page, 1)
    for k in (2, 3):
        page.get_by_role("heading", name="Faster, not different").click()
        page.keyboard.press("ArrowRight")
        at_step(page, k)
        page.wait_for_function("() => { const s = document.querySelector('#step-top');"
                               " return s && s.getBoundingClientRect().top < 150; }", timeout=RUN_MS)
    no_exception(page)


# where the walkthrough's main area is scrolled to, whether all above Next is in view (the
# clicker's keys then press Next) and whether a chart is seen whole under Streamlit's header
_VIEW = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const next = [...main.querySelectorAll('button')].find(b => b.innerText.startsWith('Next'));
  // all of each element above Next, but for a tip box's padding under its last line, which
  // shows nothing
  const shown = el => (el.querySelector('[data-testid="stAlert"] [data-testid="stMarkdownContainer"]') || el)
    .getBoundingClientRect();
  const above = [...main.querySelectorAll('[data-testid="stElementContainer"]')]
    .filter(el => { const r = el.getBoundingClientRect(); return r.height > 0 && r.bottom <= next.getBoundingClientRect().top + 1; })
    .map(shown);
  const whole = [...main.querySelectorAll('.js-plotly-plot')].some(c => {
    const r = c.getBoundingClientRect();
    return r.height > 100 && r.top >= header && r.bottom <= window.innerHeight;
  });
  return {top: main.scrollTop, next: Math.max(0, ...above.map(r => r.bottom)) <= window.innerHeight, whole,
          view: window.innerHeight - header};
}"""


def _clicker_ready(page: Page, query: str = "?present=1", step: int = 1) -> None:
    open_walkthrough(page, query, step)
    at_step(page, step)
    _drawn(page)
    # the page's script that listens for the clicker runs a moment after the page is drawn
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    expect(page.get_by_test_id("stMain").locator(".js-plotly-plot").first).to_be_visible(timeout=RUN_MS)
    _holds_still(page)


def _drawn(page: Page) -> None:
    """The walkthrough's run has drawn the whole page (nothing of the run before is left, marked
    stale: Streamlit's running figure shows only once a run has taken a while), and a clicker
    press is taken again: one before then, or within 0.7 s of the press that turned the step,
    is let go, as a press made twice."""
    page.wait_for_function(NOTHING_STALE, timeout=RUN_MS)
    page.wait_for_timeout(800)


def _at_first_line(page: Page) -> None:
    """The step's first line is at the top of the view, under Streamlit's header."""
    page.wait_for_function("() => { const s = document.querySelector('#step-top').getBoundingClientRect().top;"
                           " return s > 0 && s < 200; }", timeout=5000)


def _page_down_once(page: Page) -> None:
    """A Page Down that must scroll on, by at most the view's height."""
    view = page.evaluate(_VIEW)
    page.keyboard.press("PageDown")
    page.wait_for_function("top => document.querySelector('[data-testid=\"stMain\"]').scrollTop !== top",
                           arg=view["top"], timeout=5000)
    moved = page.evaluate(_VIEW)["top"] - view["top"]
    assert 0 < moved <= view["view"], (view, moved)


def _page_down_through_the_step(page: Page, k: int, check=None) -> list[dict]:
    """Page Down until the step turns from k to k + 1; each press that does not turn it must
    scroll on by at most the view's height (and pass `check`, where given, once it has).
    Returns the views before each press."""
    views = []
    for _ in range(12):
        view = page.evaluate(_VIEW)
        views.append(view)
        if view["next"]:
            page.keyboard.press("PageDown")
            at_step(page, k + 1)
            _drawn(page)
            return views
        _page_down_once(page)
        expect(step_label(page, k)).to_be_visible()
        if check:
            page.wait_for_timeout(400)  # the scroll comes to rest
            assert check(), (k, views, page.evaluate(_VIEW))
    raise AssertionError(f"Page Down never reached Next on step {k}: {views}")


def test_a_presentation_clicker_reads_through_a_step_then_turns_it(page: Page):
    """A clicker sends Page Down and Page Up, and a projector shows only part of a step in
    instructor mode's large type: Page Down reads on through the step (a chart cut off at the
    bottom comes up whole), then turns it once all above Next is shown; Page Up reads back to
    the step's first line, then turns back; once instructor mode is left they scroll again."""
    page.set_viewport_size({"width": 1280, "height": 720})
    _clicker_ready(page)
    views = _page_down_through_the_step(page, 1)
    assert len(views) >= 3 and any(v["whole"] for v in views[1:]), views
    _at_first_line(page)  # the new step opens there
    _page_down_once(page)
    expect(step_label(page, 2)).to_be_visible()
    page.keyboard.press("PageUp")  # back to the step's first line, not yet to step 1
    page.wait_for_timeout(1000)
    expect(step_label(page, 2)).to_be_visible()
    _at_first_line(page)
    page.keyboard.press("PageUp")
    at_step(page, 1)
    _drawn(page)
    button(page, "Leave instructor mode").click()
    expect(page.get_by_test_id("stSidebar")).to_be_visible(timeout=RUN_MS)
    settled(page)
    page.evaluate("document.activeElement.blur()")  # the focus off the switch, to the page
    page.keyboard.press("PageDown")
    page.wait_for_timeout(1500)  # time for a rerun it would wrongly start
    settled(page)
    at_step(page, 1)
    no_exception(page)


# the pieces of the main area (a CSS selector) that a line under the header would cut
# through, part above it, part below, by more than `slack` pixels either way
_CUT_UNDER_THE_HEADER = """([selector, slack]) => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  return [...document.querySelectorAll(`[data-testid="stMain"] ${selector}`)]
    .map(c => c.getBoundingClientRect()).filter(r => r.height > 0 && r.top < header - slack && r.bottom > header + slack)
    .map(r => [r.top, r.bottom]);
}"""


def _charts_cut(page: Page) -> list:
    return page.evaluate(_CUT_UNDER_THE_HEADER, [".js-plotly-plot", 2])


def _code_lines_cut(page: Page) -> list:
    return page.evaluate(_CUT_UNDER_THE_HEADER, ['[data-testid="stCode"] code > span', 1])


def test_a_clicker_never_leaves_a_chart_cut_through_under_the_header(page: Page):
    """On a 1080p projector the move that brings a step's buttons into view is short, and it
    used to stop with a chart already shown whole cut through under the header (its bars cut
    flat at the top, as if all the same height). Each press now ends at the top of an element,
    going on past such a chart, into blank space under the page where it needs the room."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    _clicker_ready(page)
    for k in (1, 2, 3):
        views = _page_down_through_the_step(page, k, check=lambda: _charts_cut(page) == [])
        assert len(views) >= 2, views  # a step on more than one screen, even here
    no_exception(page)


def test_a_clicker_reading_back_never_leaves_a_chart_cut_through_under_the_header(page: Page):
    """Page Up reads back through step 5 from its foot to its first line: where every move of
    85 % of the view would cut a chart through, it goes up to a whole view, to the chart's top."""
    page.set_viewport_size({"width": 1366, "height": 768})
    _clicker_ready(page, "?present=1&step=5", step=5)
    page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); m.scrollTop = m.scrollHeight; }")
    tops = [page.evaluate(_SCROLLED)]
    while tops[-1] > 0 and len(tops) < 20:
        before = page.evaluate(_VIEW)
        tops.append(_scrolled_by_key(page, "PageUp"))
        assert 0 < tops[-2] - tops[-1] <= before["view"], tops
        assert _charts_cut(page) == [], tops
        if page.evaluate("() => document.querySelector('#step-top').getBoundingClientRect().top") > 0:
            break
    assert len(tops) >= 4, tops  # a step on several screens
    expect(step_label(page, 5)).to_be_visible()
    no_exception(page)


# instructor mode's Leave button marked stale, as a run marks it until it draws it again, for as
# long as a busy machine's run may take to get there; released, it is no longer (the run, should
# it not have drawn it yet, marks it again and then not)
HOLD_LEAVE_STALE = """() => {
  const box = document.querySelector('.st-key-leave_presenting').closest('[data-testid="stElementContainer"]');
  const hold = () => { if (box.dataset.stale !== "true") box.dataset.stale = "true"; };
  const watch = new MutationObserver(hold);
  hold();
  watch.observe(box, {attributes: true, attributeFilter: ["data-stale"]});
  window.__releaseLeave = () => { watch.disconnect(); box.dataset.stale = "false"; };
}"""


def test_quick_arrow_presses_in_instructor_mode_turn_the_step_once(page: Page):
    """A presenter's remote may send → rather than Page Down: pressed twice in quick succession
    in instructor mode, it turns one step, as Page Down does, even where the second press finds
    instructor mode's Leave button marked stale, as the turn's run marks it on a busy machine
    until it draws it again."""
    page.set_viewport_size({"width": 1280, "height": 720})
    _clicker_ready(page)
    page.keyboard.press("ArrowRight")
    page.evaluate(HOLD_LEAVE_STALE)
    page.wait_for_timeout(150)
    page.keyboard.press("ArrowRight")
    page.evaluate("window.__releaseLeave()")
    at_step(page, 2)
    page.wait_for_timeout(1500)  # time for a second turn it would wrongly make
    _drawn(page)
    at_step(page, 2)
    page.keyboard.press("ArrowRight")  # once the turn is over, → turns the step again
    at_step(page, 3)
    no_exception(page)


def test_quick_presses_turn_the_step_once_and_show_the_new_one_from_its_start(page: Page):
    """Presses made while a step is turning (the old step's Next is still on screen, and the new
    step first draws where the old one was scrolled to) are let go: Page Down pressed three times
    in quick succession at the end of a step, or → and then Page Down, turns one step, and the
    new step is shown from its first line."""
    page.set_viewport_size({"width": 1280, "height": 720})
    _clicker_ready(page)
    for k in (1, 2):
        for _ in range(12):
            if page.evaluate(_VIEW)["next"]:
                break
            page.keyboard.press("PageDown")
            page.wait_for_timeout(200)
        else:
            raise AssertionError(f"Page Down never reached Next on step {k}")
        expect(step_label(page, k)).to_be_visible()
        if k == 1:
            for _ in range(3):
                page.keyboard.press("PageDown")
                page.wait_for_timeout(150)
        else:
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(150)
            page.keyboard.press("PageDown")
        at_step(page, k + 1)
        page.wait_for_timeout(1500)  # time for a second turn it would wrongly make
        _drawn(page)
        at_step(page, k + 1)
        _at_first_line(page)
    no_exception(page)


# whether the link on to the next page is in view: the lines of its text, as the clicker's
# script counts what has been shown (not the boxes around them, whose padding may be below);
# recorded as each Page Down goes down to the page, before the app's own handler acts on it, so
# that what is judged is the screen the press was made on; and which press the link was
# followed on (the script clicks it while it handles the press), as the page first scrolls or
# shrinks, and only then shows the new address
_RECORD_PRESSES = """() => {
  window.followedOn = null;
  if (window.pressesSeen) return;
  window.pressesSeen = [];
  window.addEventListener("keydown", e => {
    if (e.key !== "PageDown") return;
    const main = document.querySelector('[data-testid="stMain"]');
    const link = document.querySelector('[data-testid="stMain"] .st-key-onward a');
    let words = null;
    const texts = link ? document.createTreeWalker(link, NodeFilter.SHOW_TEXT) : null;
    for (let t = texts && texts.nextNode(); t; t = texts.nextNode()) {
      if (!t.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      const rects = [...range.getClientRects()].filter(r => r.height > 0);
      if (rects.length) words = Math.max(words ?? -Infinity, ...rects.map(r => r.bottom));
    }
    window.pressesSeen.push({top: main.scrollTop, words, screen: window.innerHeight,
                             shown: words !== null && words <= window.innerHeight});
  }, true);
  document.addEventListener("click", e => {
    if (e.target.closest && e.target.closest('.st-key-onward a')) window.followedOn = window.pressesSeen.length;
  }, true);
}"""


def _page_down_until_the_page_is(page: Page, path: str, presses: int = 20) -> int:
    """Page Down, one press at a time, until one follows the link on to `path`; how many presses
    it took. Each press before then must scroll on, and the press that follows the link must
    come with the link in view: no page is left before its end has been shown."""
    page.evaluate(_RECORD_PRESSES)
    before = page.evaluate("() => window.pressesSeen.length")
    main = "document.querySelector('[data-testid=\"stMain\"]')"
    for n in range(1, presses + 1):
        top = page.evaluate(f"() => {main}.scrollTop")
        page.keyboard.press("PageDown")
        page.wait_for_function(f"top => window.followedOn !== null || {main}.scrollTop !== top",
                               arg=top, timeout=RUN_MS)
        followed = page.evaluate("() => window.followedOn")
        if followed is not None:
            assert followed == before + n, f"the link was followed on press {followed - before}, not {n}"
            seen = page.evaluate("k => window.pressesSeen[k - 1]", followed)
            assert seen["shown"], f"press {n} followed the link on to /{path} before it was shown: {seen}"
            expect(page).to_have_url(re.compile(rf"/{path}\?(.*&)?present=1"), timeout=RUN_MS)
            return n
        page.wait_for_timeout(400)  # the scroll comes to rest
    raise AssertionError(f"{presses} presses of Page Down never opened /{path}")


def test_a_clicker_alone_presents_the_lesson_from_page_to_page(page: Page):
    """In instructor mode the sidebar is hidden, and a clicker sends only Page Down: once the
    last step has been read, Page Down opens the page the walkthrough's links lead to first,
    The code, in instructor mode, from its top; at the foot of that page it opens the next."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/?present=1&step=5")
    expect(step_label(page, 5)).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _drawn(page)
    assert _page_down_until_the_page_is(page, "code") > 1  # the step is read first
    expect(page.get_by_role("heading", name="The code", level=1)).to_be_in_viewport(timeout=RUN_MS)
    settled(page)
    expect(button(page, "Leave instructor mode")).to_be_visible()
    link = page.get_by_test_id("stMain").locator(".st-key-onward a")
    expect(link).to_have_text(re.compile("Next: The Nimbus thread"))
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _holds_still(page)
    assert _page_down_until_the_page_is(page, "thread") > 1
    expect(page.get_by_role("heading", name="The Nimbus thread", level=1)).to_be_visible(timeout=RUN_MS)
    no_exception(page)


def test_a_clicker_flips_predict_firsts_coins_before_it_turns_the_step(page: Page):
    """A class votes by hand, and a clicker cannot choose keep or reject: in predict first its
    Page Down flips the next coin without a guess, and only once every coin is flipped reads on
    through the step and turns it."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/?present=1&predict=1&step=3&seed=11")  # two coins, the second rejected
    at_step(page, 3, FIRST_LOAD_MS)
    _drawn(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    question = page.get_by_text(re.compile(r"^Predict first: will "))
    asked = lambda: question.first.inner_text().split("?")[0] if question.count() else ""  # noqa: E731
    states = [asked()]
    scrolled = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"
    for _ in range(30):
        top = page.evaluate(scrolled)
        page.keyboard.press("PageDown")
        page.wait_for_timeout(700)
        # a press reads on through the step, or flips the next coin: then its rerun is waited
        # for, however slow, so that the next press is not made on the buttons of the run before
        for _ in range(RUN_MS // 200):
            if (not states[-1] or page.evaluate(scrolled) != top or step_label(page, 4).is_visible()
                    or _asked_now(asked) != states[-1]):
                break
            page.wait_for_timeout(200)
        if step_label(page, 4).is_visible():
            break
        settled(page)
        _drawn(page)
        if asked() != states[-1]:
            states.append(asked())
            if not states[-1]:  # every coin flipped: the last one's outcome, with no guess
                expect(page.locator(".st-key-verdict").get_by_text(re.compile(r"^Flipped: u = "))).to_be_visible()
    else:
        raise AssertionError(f"Page Down never turned step 3: {states}")
    at_step(page, 4)
    # a question a coin, each flipped by a press of its own, then none before the turn
    assert len(states) == 3 and len(set(states)) == 3 and states[-1] == "", states
    no_exception(page)


# the coin flips drawn on step 3's chart (its diamonds) that are not wholly in view under the header
_COINS_OUT_OF_VIEW = """() => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const coins = [...document.querySelectorAll('.st-key-coins .scatterlayer .point')];
  return [coins.length, coins.map(c => c.getBoundingClientRect())
    .filter(r => r.top < header || r.bottom > window.innerHeight).length];
}"""


# whether the button that flips a coin without a guess is wholly in the view under the header
_FLIP_IN_VIEW = """() => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const flip = [...document.querySelectorAll('[data-testid="stMain"] button')]
    .find(b => b.innerText.includes('Flip the coin') && b.getClientRects().length);
  if (!flip) return null;
  const r = flip.getBoundingClientRect();
  return r.top >= header && r.bottom <= window.innerHeight;
}"""


def test_on_a_projector_each_coin_flipped_shows_on_the_chart_under_the_next_guess(page: Page):
    """In instructor mode on a 1080p projector the chart of coin flips stands below the next
    guess: each flip brings its verdict to the top of the view, so that the chart's new diamond
    shows, rather than leaving it below the screen's edge."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto("/?present=1&predict=1&step=3&seed=2")  # four flips, the last one rejected
    at_step(page, 3, FIRST_LOAD_MS)
    _drawn(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _holds_still(page)
    seen, shown = [], []
    for _ in range(12):  # a clicker: reads on to the first guess, then flips a coin a press
        flip_in_view = page.evaluate(_FLIP_IN_VIEW)
        page.keyboard.press("PageDown")
        page.wait_for_timeout(700)
        settled(page)
        _drawn(page)
        flips, out = page.evaluate(_COINS_OUT_OF_VIEW)
        if flips > len(seen):
            shown.append(flip_in_view)
            page.wait_for_timeout(800)  # the scroll to the verdict comes to rest
            seen.append(page.evaluate(_COINS_OUT_OF_VIEW)[1])
        if flips == 3:
            break
    assert seen == [0, 0, 0], seen  # each flip's diamonds all in view
    assert shown == [True, True, True], shown  # and the buttons whole in view before each flip
    no_exception(page)


def _asked_now(asked) -> str | None:
    """`asked()`, or None while its question is being redrawn (it can go between a count and
    a read)."""
    try:
        return asked()
    except PlaywrightTimeoutError:
        return None


def test_a_clicker_turns_a_step_that_fits_the_screen_at_once(page: Page):
    """On a screen that shows the whole step, Page Down turns the step at the first press, and
    Page Up turns it back."""
    page.set_viewport_size({"width": 1280, "height": 3200})
    _clicker_ready(page)
    for key, k in (("PageDown", 2), ("PageDown", 3), ("PageUp", 2)):
        page.keyboard.press(key)
        at_step(page, k)
        _drawn(page)
    no_exception(page)


def test_a_clicker_press_before_next_is_drawn_waits_for_it(page: Page):
    """The step's buttons are drawn after its charts: a clicker's Page Down pressed while the
    page is still being drawn does what it would have done once Next is there (here, with the
    whole step on the screen, turns the step), rather than being lost."""
    page.set_viewport_size({"width": 1280, "height": 3200})
    _clicker_ready(page)
    hide = "shown => { for (const b of document.querySelectorAll('[data-testid=\"stMain\"] button'))" \
           " if (b.innerText.startsWith('Next')) b.style.display = shown ? '' : 'none'; }"
    page.evaluate(hide, False)  # as before the page has drawn it
    page.keyboard.press("PageDown")
    page.wait_for_timeout(1000)
    expect(step_label(page, 1)).to_be_visible()  # held until Next is drawn
    page.evaluate(hide, True)
    at_step(page, 2)


# the ring the focused question shows: drawn by its ::after (within its own height), or else
# its outline's style ("none" where nothing marks it)
_RING = """() => {
  const el = document.activeElement, after = getComputedStyle(el, "::after");
  return after.display !== "none" && after.borderTopStyle === "solid" ? "ring"
    : getComputedStyle(el).outlineStyle;
}"""


def test_the_last_steps_question_takes_the_focus_without_a_ring_on_the_projector(page: Page):
    """The focus the last step's question takes is marked for a keyboard reader, and not on the
    projector in instructor mode, where the class would see a box round the heading."""
    for query, ring in (("?step=4", "ring"), ("?step=4&present=1", "none")):
        page.goto(f"/{query}")
        at_step(page, 4, FIRST_LOAD_MS)
        button(page, "Next").focus()
        page.keyboard.press("Enter")
        at_step(page, LAST_STEP)
        expect(page.locator("#step-question")).to_be_focused(timeout=RUN_MS)
        assert page.evaluate(_RING) == ring, query
    no_exception(page)


_SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


# the tops of the elements, paragraphs and list items that sit just under Streamlit's header,
# their first line half hidden by it
_HALF_HIDDEN = """() => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  // (what a closed "Table view" holds is laid out, under its label, but not shown)
  return [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"], '
                                       + '[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li)')]
    .filter(el => el.checkVisibility()).map(el => el.getBoundingClientRect()).filter(r => r.height > 0 && r.top > header - 20 && r.top < header - 1)
    .map(r => r.top);
}"""


def _holds_still(page: Page) -> None:
    """Until the page's fonts and its elements' code are in, and the main area's height has held
    for a second: a late reflow (a web font swapped in, a chart drawn in its placeholder's place,
    a table drawn in its final widths) would move lines under the header after a key had
    scrolled to them."""
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=RUN_MS)
    page.wait_for_function("""() => {
      const main = document.querySelector('[data-testid="stMain"]');
      // an element whose code is still loading (a chart's, a code block's) holds a placeholder
      if (main.querySelector('[data-testid="stSkeleton"]')) { window.heldHeight = null; return false; }
      const height = main.scrollHeight;
      if (window.heldHeight !== height) { window.heldHeight = height; window.heldSince = Date.now(); }
      return Date.now() - window.heldSince > 1000;
    }""", timeout=RUN_MS, polling=200)


def _scrolled_by_key(page: Page, key: str) -> float:
    """Where the main area rests after `key`: once it has moved (or 3 s without a move, on a
    busy machine) and then held still for 0.3 s."""
    before = page.evaluate(_SCROLLED)
    page.keyboard.press(key)
    try:
        page.wait_for_function(f"top => ({_SCROLLED})() !== top", arg=before, timeout=3000)
    except PlaywrightTimeoutError:
        return before
    now = page.evaluate(_SCROLLED)
    for _ in range(20):
        page.wait_for_timeout(300)
        now, last = page.evaluate(_SCROLLED), now
        if now == last:
            break
    return now


# token chips cut through by the header's foot
_CHIPS_CUT = """() => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  return [...document.querySelectorAll('[data-testid="stMain"] .tok')].map(t => t.getBoundingClientRect())
    .filter(r => r.height > 0 && r.top < header - 1 && r.bottom > header + 1).map(r => [r.top, r.bottom]);
}"""


def test_a_clicker_leaves_no_row_of_token_chips_cut_through_under_the_header(page: Page):
    """The playground's text is rows of token chips in one block: a clicker's Page Down stopped
    inside it, leaving a row's lower half under the header; each move now ends between rows."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/playground?present=1")
    expect(page.get_by_text(re.compile(r"\d+ rounds to write \d+ tokens"))).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _holds_still(page)
    tops = [page.evaluate(_SCROLLED)]
    for _ in range(12):
        tops.append(_scrolled_by_key(page, "PageDown"))
        assert page.evaluate(_CHIPS_CUT) == [], tops
        if tops[-1] == tops[-2] or "/playground" not in page.url:
            break
    assert len(set(tops)) >= 3, tops  # it read on through the page
    no_exception(page)


def test_a_clicker_reads_through_a_page_without_steps(page: Page):
    """On a page with no Next and Back (So what), a clicker's Page Down reads on through the page
    in instructor mode, without a click in the page first: each press by at most the view (a
    move lifts what is already in view whole to the top, or goes 85 % of the view, or on to the
    first piece not yet shown whole), leaving no line half under the header, until the page's
    end is in view (a press there opens the next page: see
    test_a_clicker_alone_presents_the_lesson_from_page_to_page); and Page Up reads back, 85 % of
    the view at a time, or up to the whole view where that would cut a chart through, to the
    top."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/so_what?present=1")
    expect(button(page, "Leave instructor mode")).to_be_visible(timeout=FIRST_LOAD_MS)
    expect(page.get_by_role("heading", name="The drafter family")).to_be_visible(timeout=RUN_MS)
    settled(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    # every chart laid out, so that nothing above the view changes height while the keys read on
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
                           ".every(c => c.querySelector('.js-plotly-plot')?.layout)", timeout=RUN_MS)
    _holds_still(page)
    view = page.evaluate("() => window.innerHeight - document.querySelector('[data-testid=\"stHeader\"]')"
                         ".getBoundingClientRect().bottom")
    # how far down the page's last element ends (what a closed "Table view" holds is laid out
    # below it, but not shown)
    last = ("() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"] "
            "[data-testid=\"stElementContainer\"]')].filter(el => el.checkVisibility())"
            ".map(el => el.getBoundingClientRect().bottom))")
    tops = [page.evaluate(_SCROLLED)]
    assert tops == [0]
    while page.evaluate(last) > page.viewport_size["height"] and len(tops) < 40:
        tops.append(_scrolled_by_key(page, "PageDown"))
        assert page.evaluate(_HALF_HIDDEN) == [], tops
    steps = [b - a for a, b in zip(tops, tops[1:])]
    assert len(steps) >= 4 and all(0 < d <= view for d in steps), tops
    expect(page).to_have_url(re.compile(r"/so_what\?"))
    back = [tops[-1]]
    while back[-1] > 0 and len(back) < 40:
        back.append(_scrolled_by_key(page, "PageUp"))
        assert 0 < back[-2] - back[-1] <= view, back
        assert _charts_cut(page) == [], back
    assert back[-1] == 0, back
    no_exception(page)


def test_a_clicker_reads_a_code_block_taller_than_the_screen_a_whole_line_at_a_time(page: Page):
    """On a 1080p projector the code page's round is one block taller than the screen: each of
    a clicker's moves through it ends at the top of a line, not with a line cut in half under
    the header."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto("/code?present=1")
    expect(page.get_by_role("heading", name="The code", level=1)).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _holds_still(page)
    code = "() => document.querySelector('[data-testid=\"stMain\"] [data-testid=\"stCode\"]').getBoundingClientRect()"
    tops = [page.evaluate(_SCROLLED)]
    while page.evaluate(code)["bottom"] > page.viewport_size["height"] and len(tops) < 10:
        tops.append(_scrolled_by_key(page, "PageDown"))
        assert _code_lines_cut(page) == [], tops
        assert page.evaluate(_HALF_HIDDEN) == [], tops
    assert len(tops) >= 3, tops  # the block itself took more than one move
    no_exception(page)


def test_a_clicker_starts_a_race_at_the_foot_of_the_race_page(page: Page):
    """The race is the last page, with no page after it: in instructor mode a clicker's Page
    Down reads down to its foot, then presses "Start the race" (a clicker has no other way to),
    and a press while the race runs does not start it over."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/race?present=1&tokens=16&temperature=0&slow=1")  # ten seconds or more
    expect(button(page, "Start the race")).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.wait_for_function("() => window.keysToButtons", timeout=RUN_MS)
    _holds_still(page)
    lanes = page.locator(".st-key-race_lanes")
    presses = 0
    while not lanes.count() and presses < 12:
        page.keyboard.press("PageDown")
        presses += 1
        page.wait_for_timeout(800)
    assert lanes.count(), f"{presses} presses of Page Down never started the race"
    assert presses > 1  # the page is read first
    expect(running(page)).to_have_count(1)
    for _ in range(4):  # read on, then at the foot again, while the race runs
        page.keyboard.press("PageDown")
        page.wait_for_timeout(500)
    expect(running(page)).to_have_count(1)
    expect(page.get_by_text("Same text?")).to_be_visible(timeout=RUN_MS)
    settled(page)
    expect(page.get_by_text("Your races so far")).to_have_count(0)  # one race, not two
    no_exception(page)


# the type sizes of a chart's tick labels and legend entries, in pixels as drawn
_TEXT_SIZES = """key => [...document.querySelectorAll(`.st-key-${key} .xtick text, .st-key-${key} .legendtext`)]
  .map(t => parseFloat(getComputedStyle(t).fontSize))"""


def test_leaving_instructor_mode_gives_back_the_ordinary_charts_and_arrows(page: Page):
    """Esc out of instructor mode: step 2's chart draws its ticks and legend at the size of the
    ordinary page again (a chart redrawn in place kept the projector's), and → still turns the
    step while the focus is on the instructor-mode switch, where leaving put it."""
    page.goto("/?step=2")
    at_step(page, 2, FIRST_LOAD_MS)
    page.locator(".st-key-verify .xtick text").first.wait_for(timeout=RUN_MS)
    ordinary = sorted(set(page.evaluate(_TEXT_SIZES, "verify")))
    page.goto("/?step=2&present=1")
    at_step(page, 2)
    page.locator(".st-key-verify .xtick text").first.wait_for(timeout=RUN_MS)
    settled(page)
    assert min(page.evaluate(_TEXT_SIZES, "verify")) > max(ordinary), ordinary
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("stSidebar")).to_be_visible(timeout=RUN_MS)
    settled(page)
    page.wait_for_function(f"() => {{ const s = ({_TEXT_SIZES})('verify');"
                           f" return s.length && s.every(x => {ordinary}.includes(x)); }}",
                           timeout=RUN_MS)
    page.wait_for_function("() => document.activeElement.closest('.st-key-present')", timeout=RUN_MS)
    page.keyboard.press("ArrowRight")
    at_step(page, 3)
    no_exception(page)


def test_instructor_mode_shows_the_round_s_link_for_the_class(page: Page):
    """The address bar's link carries present=1; the one shown for the class must not."""
    page.goto("/?step=3&seed=130&present=1")
    at_step(page, 3, FIRST_LOAD_MS)
    shown = page.get_by_text(re.compile(r"^This round for the class: ")).inner_text()
    # the test's server is on 127.0.0.1, which no student's machine can reach: the page says so
    assert shown.endswith("(this computer's own address: give the class its network name or IP "
                          "address in place of the host)"), shown
    link = shown.split(": ", 1)[1].split(" (this computer", 1)[0].strip()
    assert "present" not in link and "/?" in link and "step=3" in link and "seed=130" in link, link
    page.goto(link)
    at_step(page, 3)
    expect(page.get_by_test_id("stSidebar")).to_be_visible()  # not in instructor mode
    expect(page.get_by_text("Leave instructor mode")).to_have_count(0)


# counts every click on the "Leave instructor mode" button, however it is dispatched
_COUNT_LEAVE_CLICKS = """() => {
  window.leaveClicks = 0;
  document.addEventListener("click", e => {
    const b = e.target.closest && e.target.closest("button");
    if (b && b.innerText.includes("Leave instructor mode")) window.leaveClicks += 1;
  }, true);
}"""


def test_esc_leaves_instructor_mode_except_from_a_text_box(page: Page):
    """The page's Esc handler clicks the Leave button inside the keydown itself, so a wrong
    click has been counted by the time the key press returns: no wait for a rerun. The button
    names the key, as Streamlit names a shortcut."""
    page.goto("/playground?present=1")
    prompt = page.get_by_role("textbox", name="Prompt")
    expect(prompt).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    # the key shows beside the button, as Streamlit shows a shortcut
    shown_after = button(page, "Leave instructor mode").locator("p").evaluate(
        "p => getComputedStyle(p, '::after').content")
    assert shown_after.startswith('"Esc"'), shown_after
    page.evaluate(_COUNT_LEAVE_CLICKS)
    prompt.click()
    page.keyboard.press("Escape")  # the box's key: instructor mode stays
    assert page.evaluate("window.leaveClicks") == 0
    page.get_by_role("heading", name="Playground").click()  # a neutral spot
    page.keyboard.press("Escape")
    assert page.evaluate("window.leaveClicks") == 1  # the counter does see the handler's click
    expect(page.get_by_text("Leave instructor mode")).to_have_count(0, timeout=RUN_MS)
    expect(page.get_by_test_id("stSidebar")).to_be_visible(timeout=RUN_MS)
    # the button is gone, so the focus goes to the switch that brings instructor mode back
    switch = page.get_by_role("switch", name="Instructor mode")
    expect(switch).to_be_focused(timeout=RUN_MS)
    page.keyboard.press(" ")
    expect(button(page, "Leave instructor mode")).to_be_visible(timeout=RUN_MS)
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    # and the switch, hidden with the sidebar, hands the focus to the way out
    expect(button(page, "Leave instructor mode")).to_be_focused(timeout=RUN_MS)
    no_exception(page)


def test_esc_that_closes_a_help_box_stays_in_instructor_mode(page: Page):
    """Esc is the way to close a help box's text (WCAG 1.4.13): it closes the box, and only the
    next Esc leaves instructor mode."""
    page.goto("/?step=5&present=1")
    expect(button(page, "Leave instructor mode")).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    page.evaluate(_COUNT_LEAVE_CLICKS)
    page.get_by_role("button", name="Help for Simulated draws").focus()
    help_text = page.get_by_test_id("stTooltipContent")
    expect(help_text).to_be_visible(timeout=RUN_MS)
    page.keyboard.press("Escape")
    expect(help_text).to_have_count(0, timeout=RUN_MS)
    assert page.evaluate("window.leaveClicks") == 0
    expect(button(page, "Leave instructor mode")).to_be_visible()
    # no help box open now; and a slider, an input too, takes no Esc of its own
    page.get_by_role("slider", name="Simulated draws").focus()
    page.keyboard.press("Escape")
    assert page.evaluate("window.leaveClicks") == 1
    expect(page.get_by_test_id("stSidebar")).to_be_visible(timeout=RUN_MS)
    no_exception(page)


# the sizes of the page's root, its body text, the thread's customer message and the message box
_PRESENTED_SIZES = """() => {
  const size = selector => parseFloat(getComputedStyle(document.querySelector(selector)).fontSize);
  return {root: size("html"), text: size('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p'),
          message: size('[data-testid="stChatMessage"] [dir="auto"]'),
          box: size('[data-testid="stMain"] [data-testid="stSelectbox"] input')};
}"""


_ROOT_AT_LEAST = "size => parseFloat(getComputedStyle(document.documentElement).fontSize) >= size"


def test_instructor_mode_grows_with_a_wider_projector(page: Page):
    """The same page on a 1920-pixel projector shows its text larger than on a 1280-pixel one,
    as the screen is the same size; the thread's customer message is as large as the text, and
    its message box as large as other boxes to type in (1.1 of the root's size)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/thread?present=1")
    main = page.get_by_test_id("stMain")
    for part in (main.get_by_test_id("stSelectbox").locator("input"),
                 page.get_by_test_id("stChatMessage").locator('[dir="auto"]').first,
                 main.get_by_test_id("stMarkdownContainer").locator("p").first):
        expect(part).to_be_visible(timeout=FIRST_LOAD_MS)
    # the mode's style comes with the run, which may draw the page a moment before it
    settled(page)
    page.wait_for_function(_ROOT_AT_LEAST, arg=22, timeout=RUN_MS)
    narrow = page.evaluate(_PRESENTED_SIZES)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_function(_ROOT_AT_LEAST, arg=26, timeout=RUN_MS)
    wide = page.evaluate(_PRESENTED_SIZES)
    assert narrow["root"] == 22 and wide["root"] > 26, (narrow, wide)
    for sizes in (narrow, wide):
        assert sizes["message"] == sizes["text"] and abs(sizes["text"] - 1.3 * sizes["root"]) < 0.01, sizes
        assert abs(sizes["box"] - 1.1 * sizes["root"]) < 0.01, sizes
    no_exception(page)


def test_a_tables_toolbar_on_a_touch_screen_leaves_the_heading_above_it_clear(new_context):
    """A touch screen shows a table's toolbar at all times, above the table: it must not cover
    the heading before it (it covered "by side" of So what's first heading on a phone, which now
    shows a plain table instead; a tablet still shows the sortable frame)."""
    page = new_context(viewport={"width": 768, "height": 1024}, has_touch=True, is_mobile=True).new_page()
    page.goto("/so_what")
    heading = page.get_by_role("heading", name="Speed, measured side by side")
    expect(heading).to_be_visible(timeout=FIRST_LOAD_MS)
    toolbar = page.get_by_test_id("stElementToolbar").first
    expect(toolbar).to_be_visible(timeout=RUN_MS)
    heading.scroll_into_view_if_needed()
    # the foot of the heading's text (its element's box takes in the space below it)
    text_foot = heading.evaluate("h => { const r = document.createRange(); r.selectNodeContents(h); "
                                 "return r.getBoundingClientRect().bottom; }")
    assert toolbar.bounding_box()["y"] >= text_foot, (toolbar.bounding_box(), text_foot)
    no_exception(page)


def test_a_select_box_shows_the_keyboards_focus_after_a_choice(page: Page):
    """The thread's message box keeps a ring while it holds the focus: Streamlit marks it only
    while its list is open, so a choice made with the keyboard left no trace of the focus."""
    page.goto("/thread")
    box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox")
    expect(box).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    box.locator("input").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]message="), timeout=RUN_MS)
    settled(page)
    expect(box.locator("input")).to_be_focused()
    ring = box.evaluate("b => getComputedStyle(b.querySelector(':scope > div:has(input)')).outlineStyle")
    assert ring == "solid", ring
    no_exception(page)


# the ring of the element that shows a control's keyboard focus, by the control's key
_RINGS = """() => Object.fromEntries([
  ['gamma', '.st-key-gamma [role="group"] > div > div:has(> div > input[type="range"])'],
  ['prompt', '[data-testid="stTextAreaRootElement"]'],
  ['seed', '[data-testid="stNumberInputContainer"]'],
].map(([key, selector]) => {
  const shown = document.querySelector(selector);  // none while a rerun draws it anew
  return [key, shown ? getComputedStyle(shown).outlineStyle : "missing"];
}))"""


def _rings(page: Page) -> dict[str, str]:
    page.wait_for_function(f"() => !Object.values(({_RINGS})()).includes('missing')", timeout=RUN_MS, polling=200)
    return page.evaluate(_RINGS)


def test_a_slider_and_the_boxes_to_type_in_show_the_keyboards_focus(page: Page):
    """Streamlit marks a focused slider by a faint halo and a box by a 1 px border: each gets the
    page's ring while Tab has put the focus there, and only then."""
    open_playground(page)
    settled(page)
    assert set(_rings(page).values()) == {"none"}
    for key, control in (("gamma", page.get_by_role("slider", name="γ, drafted tokens per round")),
                         ("prompt", page.get_by_role("textbox", name="Prompt")),
                         ("seed", page.get_by_role("spinbutton", name="Seed"))):
        control.focus()
        page.keyboard.press("Shift+Tab")  # focus by the keyboard, as :focus-visible asks
        page.keyboard.press("Tab")
        rings = _rings(page)
        assert rings[key] == "solid", (key, rings)
        assert [k for k, ring in rings.items() if ring == "solid"] == [key], rings
    no_exception(page)


def test_tampered_link_falls_back_with_a_warning(page: Page):
    open_walkthrough(page, "?step=99&seed=abc")
    at_step(page, 1)
    warnings = page.get_by_test_id("stAlertContentWarning")
    expect(warnings.filter(has_text="step=99")).to_be_visible()
    expect(warnings.filter(has_text="seed=abc")).to_be_visible()
    no_exception(page)


def test_html_prompt_is_shown_not_run(page: Page):
    """The playground shows the prompt only in its text box today; this guards a later change
    that would put it into the page's HTML. Markup that got in would leave an element with an
    onerror attribute (React sets its own handlers as properties, never as attributes)."""
    payload = "<img src=x onerror=alert(1)>"
    open_playground(page, "?prompt=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    expect(page.get_by_role("textbox", name="Prompt")).to_have_value(payload)
    expect(page.locator('img[src="x"], [onerror]')).to_have_count(0)
    no_exception(page)


PHONE = {"width": 390, "height": 844}

# for every chart on the page, the on-screen boxes of its panel titles (Plotly annotations) and
# axis titles
_LABEL_BOXES = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .map(chart => [...chart.querySelectorAll('.annotation-text, .infolayer text[class$="title"]')]
    .map(t => t.getBoundingClientRect())
    .filter(r => r.width > 0)
    .map(r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom})))"""


# the type size of a chart's panel titles, in pixels as drawn
_TITLE_SIZES = """key => [...document.querySelectorAll(`.st-key-${key} .annotation-text`)]
  .map(t => parseFloat(getComputedStyle(t).fontSize))"""
# step: (its chart, how many panel titles, the least type size on a phone, in pixels); step 1's
# titles are as large as the axis's tick labels
TITLE_SIZES = {1: ("draft", 4, 12), 2: ("verify", 5, 11)}


def assert_labels_apart(page: Page, where: str, least: int) -> None:
    """No two titles of one chart overlap, on any chart of the page."""
    charts = page.evaluate(_LABEL_BOXES)
    assert sum(map(len, charts)) >= least, (where, charts)
    for boxes in charts:
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                apart = (a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5
                         or a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5)
                assert apart, (where, a, b)


# the type sizes of the token names under the bars of every chart, in pixels as drawn
_TICK_SIZES = """() => [...document.querySelectorAll('[data-testid="stMain"] .xaxislayer-above text')]
  .map(t => parseFloat(getComputedStyle(t).fontSize))"""


def test_chart_titles_do_not_overlap_on_a_phone(new_context):
    """Steps 1, 2 and 4 set four, five and three panels side by side, and So what two; on a
    390-pixel screen every panel's titles stay clear of their neighbours', in instructor mode's
    large type too, and the token names under the bars keep the ordinary page's size (the
    projector's, stood on end under bars a few pixels apart, touched)."""
    page = new_context(viewport=PHONE).new_page()
    for k, present in ((1, "0"), (2, "0"), (4, "0"), (1, "1"), (2, "1"), (4, "1")):
        page.goto(f"/?step={k}&present={present}")
        at_step(page, k, timeout=FIRST_LOAD_MS)
        page.locator('[data-testid="stMain"] .js-plotly-plot:visible .annotation-text').first.wait_for()
        assert_labels_apart(page, f"step {k}, instructor mode {present}", least=3)
        if k in TITLE_SIZES:  # each part of a title on a line of its own, in legible type
            chart, count, least = TITLE_SIZES[k]
            # the phone's copy in rows of two, where the ordinary type leaves one
            sizes = page.evaluate(_TITLE_SIZES, chart if present == "1" else f"{chart}__phone")
            assert len(sizes) == count and min(sizes) >= least, (k, present, sizes)
        ticks = page.evaluate(_TICK_SIZES)
        assert ticks and max(ticks) <= 12, (k, present, ticks)
    page.goto("/so_what")
    expect(page.get_by_text("What the early stop buys").first).to_be_visible(timeout=RUN_MS)
    settled(page)
    expect(page.locator('[data-testid="stMain"] .js-plotly-plot')).to_have_count(2)
    no_exception(page)
    assert_labels_apart(page, "so what", least=6)


# for each chart, each x axis that names its bars: (axis, names set, names drawn); plotly
# drops a name that would run past the chart's edge
_BAR_NAMES = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter(gd => gd.getBoundingClientRect().width > 0).flatMap(gd =>
  Object.entries(gd._fullLayout)
    .filter(([key, ax]) => /^xaxis\\d*$/.test(key) && ax.tickmode === "array" && ax.tickvals)
    .map(([key, ax]) => [key, ax.tickvals.length, [...gd.querySelectorAll(`.${ax._id}tick text`)]
      .filter(t => t.getBoundingClientRect().width > 0 && getComputedStyle(t).display !== "none").length]))"""


def test_every_bar_is_named_on_a_phone(new_context):
    page = new_context(viewport=PHONE).new_page()
    for k, charts in ((1, 1), (2, 1), (4, 1), (5, 2)):
        page.goto(f"/?step={k}")
        at_step(page, k, timeout=FIRST_LOAD_MS)
        plots = page.locator('[data-testid="stMain"] .js-plotly-plot:visible')
        expect(plots).to_have_count(charts, timeout=RUN_MS)
        for i in range(charts):  # every chart laid out, so that each has the layout the script reads
            plots.nth(i).locator(".xtick").first.wait_for()
        axes = page.evaluate(_BAR_NAMES)
        assert axes and all(drawn == named for _, named, drawn in axes), (k, axes)
    no_exception(page)


# the visible charts' panels: for each, its panels' left edges, top edges and widths in pixels
_PANEL_GRID = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter(gd => gd.getBoundingClientRect().width > 0)
  .map(gd => Object.entries(gd._fullLayout).filter(([key]) => /^xaxis\\d*$/.test(key))
    .map(([, x]) => [Math.round(x._offset), Math.round(x._anchorAxis._offset), Math.round(x._length)]))"""


# in the visible chart, the token names under the bars that overlap a panel title
_NAMES_ON_TITLES = """() => {
  const gd = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .find(g => g.getBoundingClientRect().width > 0);
  const boxes = sel => [...gd.querySelectorAll(sel)].map(t => t.getBoundingClientRect()).filter(r => r.width > 0);
  const titles = boxes('.annotation-text');
  return boxes('.xtick text').filter(n => titles.some(t =>
    n.left < t.right && t.left < n.right && n.top < t.bottom && t.top < n.bottom)).length;
}"""


def _panels_in(page: Page, columns: int, rows: int) -> None:
    """The visible chart's panels stand in `columns` columns and `rows` rows, once laid out."""
    page.wait_for_function(f"() => {{ const c = ({_PANEL_GRID})(); return c.length === 1 && "
                           f"new Set(c[0].map(p => p[0])).size === {columns} && "
                           f"new Set(c[0].map(p => p[1])).size === {rows}; }}", timeout=RUN_MS)


def test_a_chart_of_many_panels_stands_in_rows_on_a_phone(new_context):
    """Step 2's five panels side by side leave a phone 60 pixels for each one's fifteen bars:
    there they stand in rows of two, each at least 140 pixels wide, the token names under one
    row clear of the titles over the next; on a laptop in one row, and the layout follows the
    window as it narrows to a phone's width and grows back."""
    page = new_context(viewport={"width": 1366, "height": 844}).new_page()
    page.goto("/?step=2")
    at_step(page, 2, timeout=FIRST_LOAD_MS)
    page.locator('[data-testid="stMain"] .js-plotly-plot:visible .xtick').first.wait_for()
    _panels_in(page, 5, 1)
    page.set_viewport_size(PHONE)
    _panels_in(page, 2, 3)
    (panels,) = page.evaluate(_PANEL_GRID)
    assert len(panels) == 5 and min(w for _, _, w in panels) >= 140, panels
    assert page.evaluate(_NAMES_ON_TITLES) == 0
    page.set_viewport_size({"width": 1366, "height": 844})
    _panels_in(page, 5, 1)
    no_exception(page)


def test_so_whats_tables_show_every_column_on_a_phone(new_context):
    """A sortable frame on a phone showed four of its columns and hid the rest past its edge
    with nothing to say so: there the plain copy shows instead, every column in view; a
    laptop keeps the frames."""
    page = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto("/so_what")
    expect(page.get_by_text("What the early stop buys").first).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    frames, tables = page.get_by_test_id("stDataFrame"), page.locator('[class*="st-key-numbers_"] [data-testid="stTable"]')
    expect(tables).to_have_count(2)
    for i in range(2):
        expect(tables.nth(i)).to_be_visible()
        expect(frames.nth(i)).to_be_hidden()
        width, room = tables.nth(i).evaluate("t => [t.querySelector('table').scrollWidth, t.clientWidth]")
        assert width <= room, (i, width, room)
    page.set_viewport_size({"width": 1366, "height": 844})
    for i in range(2):
        expect(frames.nth(i)).to_be_visible()
        expect(tables.nth(i)).to_be_hidden()
    no_exception(page)


def test_a_touch_screen_is_not_told_to_press_ctrl_enter(new_context):
    """A phone has no Ctrl+Enter: the prompt box's hint is hidden there (a tap outside the box
    applies the text), and kept where a keyboard is the way to apply it."""
    for touch, shown in ((True, False), (False, True)):
        page = new_context(viewport=PHONE, has_touch=touch, is_mobile=touch).new_page()
        open_playground(page)
        page.get_by_role("textbox", name="Prompt").click()
        page.keyboard.type(" now")
        hint = page.get_by_test_id("InputInstructions")
        expect(hint).to_have_text(re.compile("Ctrl\\+Enter"))
        if shown:
            expect(hint).to_be_visible()
        else:
            expect(hint).to_be_hidden()
        page.close()


# in instructor mode: a table heading's colour against its cells', and the size of code in a
# sentence against the sentence's
_PRESENT_TEXT = """() => {
  const th = document.querySelector('[data-testid="stTable"] th'), td = document.querySelector('[data-testid="stTable"] td');
  const code = [...document.querySelectorAll('[data-testid="stMain"] code')].find(c => !c.closest('pre'));
  const size = e => parseFloat(getComputedStyle(e).fontSize);
  return [getComputedStyle(th).color === getComputedStyle(td).color, size(code) / size(code.parentElement)];
}"""


def test_instructor_modes_table_headings_and_code_in_sentences_read_from_the_back(new_context):
    """So what on a projector: its tables' headings (α, c, table's v) as dark as their cells, not
    faded to 70 %, and code in a sentence (`make bench`) at 0.9 of the sentence's type, not 0.75."""
    page = new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto("/so_what?present=1")
    expect(page.locator('[data-testid="stTable"]').first).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    same_colour, code = page.evaluate(_PRESENT_TEXT)
    assert same_colour and code == pytest.approx(0.9, abs=0.01), (same_colour, code)


# metric labels and values that a metric cuts off with an ellipsis at its column's edge
_CUT_METRICS = """() => [...document.querySelectorAll('[data-testid="stMetric"] *')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


# legend entries that run past the right edge of their chart
_CUT_LEGENDS = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .flatMap(chart => [...chart.querySelectorAll('.legend .legendtext')]
    .filter(t => t.getBoundingClientRect().right > chart.getBoundingClientRect().right + 1)
    .map(t => t.textContent))"""


def test_step_5_metrics_fit_a_phone_in_instructor_mode(new_context):
    """Instructor mode's large type on a 390-pixel screen: no metric is cut off, and no chart's
    key runs past its edge."""
    page = new_context(viewport=PHONE).new_page()
    page.goto("/?step=5&present=1")
    at_step(page, 5, timeout=FIRST_LOAD_MS)
    expect(page.get_by_test_id("stMetric")).to_have_count(5)
    assert page.evaluate(_CUT_METRICS) == []
    page.locator('[data-testid="stMain"] .js-plotly-plot .legendtext').first.wait_for()
    assert page.evaluate(_CUT_LEGENDS) == []


# tokens drawn over more than one line box: a chip broken inside, such as a leading space left
# alone at the end of a line (the prompt before them is a phrase, which may break)
_SPLIT_CHIPS = """() => [...document.querySelectorAll('[data-testid="stMain"] .tokens span.tok')]
  .filter(s => !s.closest('.prompt') && s.getClientRects().length > 1).map(s => s.textContent)"""


def test_tokens_wrap_between_chips_on_a_phone(new_context):
    """γ 8 at seed 16 writes code: long runs of tokens with no space between them, and
    indentation after newlines."""
    page = new_context(viewport=PHONE).new_page()
    page.goto("/playground?gamma=8")
    chips = page.locator('[data-testid="stMain"] .tokens span.tok')
    expect(chips.nth(48)).to_be_visible(timeout=FIRST_LOAD_MS)  # the 48 tokens and the colour key
    settled(page)
    assert page.evaluate(_SPLIT_CHIPS) == []
    no_exception(page)


# each open table view's width beside the width it has, and its last column's heading
_TABLE_VIEWS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stTableStyledTable"]')]
  .filter(t => t.offsetParent !== null)
  .map(t => [t.scrollWidth, t.parentElement.clientWidth, [...t.querySelectorAll('th')].pop().innerText])"""


def test_a_table_view_shows_its_outcome_column_on_a_phone(new_context):
    """Steps 3 and 4's table views end with the outcome (each coin's verdict; whether the
    correction was drawn there): on a phone they fit the width, none of it scrolled out of view."""
    page = new_context(viewport=PHONE).new_page()
    for step, last in ((3, "verdict"), (4, "drawn")):
        open_walkthrough(page, f"?step={step}", step=step)
        at_step(page, step, FIRST_LOAD_MS)
        page.locator('[data-testid="stMain"] summary', has_text="Table view").first.click()
        expect(page.get_by_test_id("stTableStyledTable").first).to_be_visible()
        (width, room, heading), *_ = page.evaluate(_TABLE_VIEWS)
        assert heading == last and width <= room, (step, width, room, heading)
    no_exception(page)


# the round's code block that shows, its text and whether it scrolls sideways
_ROUND_CODE = """() => [...document.querySelectorAll('.st-key-round_code pre')]
  .filter(pre => pre.offsetParent !== null)
  .map(pre => [pre.innerText, pre.scrollWidth > pre.clientWidth])"""


def test_the_code_pages_values_never_hide_past_the_edge(new_context):
    """A phone, a page zoomed in and a laptop with the sidebar open get the round's notes on
    lines of their own, wrapped, so that none hides past the block's edge; a wide column gets
    each lone note that fits at the end of its line, and still no line past the edge."""
    for viewport, apart in ((PHONE, True), ({"width": 1024, "height": 768}, True),
                            ({"width": 1440, "height": 900}, False)):
        page = new_context(viewport=viewport).new_page()
        page.goto("/code")
        expect(page.locator(".st-key-round_code pre").first).to_be_attached(timeout=FIRST_LOAD_MS)
        settled(page)
        (text, scrolls), = page.evaluate(_ROUND_CODE)  # one of the two copies shows
        assert not scrolls, viewport
        lines = text.splitlines()
        assert any("# ◀ #1 " in line and "min(1, " in line for line in lines)  # the first coin flip
        beside = [line for line in lines if "# ◀" in line and not line.lstrip().startswith("# ◀")]
        assert bool(beside) != apart, (viewport, beside)
        page.close()


# for each line of the round's shown code block that wraps: where its first printed character
# stands, where its further rows start, and one column's width, in pixels
_WRAPPED_LINES = """() => {
  const code = [...document.querySelectorAll('.st-key-round_code pre code')].find(c => c.offsetParent !== null);
  const rangeOver = (node, start, end) => { const r = document.createRange(); r.setStart(node, start); r.setEnd(node, end); return r; };
  const out = [];
  for (const line of code.children) {
    const whole = document.createRange(); whole.selectNodeContents(line);
    const rows = [...whole.getClientRects()].filter(r => r.width > 0);
    const firstTop = Math.min(...rows.map(r => r.top));
    const further = rows.filter(r => r.top > firstTop + 2);
    if (!further.length) continue;
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let node, first = null;
    while (!first && (node = walker.nextNode())) {
      const at = node.textContent.search(/\\S/);
      if (at >= 0) first = rangeOver(node, at, at + 1).getBoundingClientRect();
    }
    out.push([first.left, Math.min(...further.map(r => r.left)), first.width, line.textContent.trim().slice(0, 40)]);
  }
  return out;
}"""


def test_a_wrapped_line_of_code_goes_on_under_its_own_indentation(new_context):
    """On a phone the round's lines wrap; each goes on a few columns in from its own first
    character, as in an editor, not back at the block's margin, where the nesting was lost."""
    page = new_context(viewport=PHONE).new_page()
    page.goto("/code")
    expect(page.locator(".st-key-round_code pre").first).to_be_attached(timeout=FIRST_LOAD_MS)
    settled(page)
    page.wait_for_function("() => window.codeWrap", timeout=RUN_MS)
    wrapped = page.evaluate(_WRAPPED_LINES)
    assert len(wrapped) >= 5, wrapped  # a phone's column wraps the notes and the long calls
    for first, further, column, line in wrapped:
        assert further >= first + 3.5 * column, (line, first, further, column)
    no_exception(page)


# the type size of the first token name under a bar, in pixels
_FIRST_TICK = ("() => { const t = document.querySelector('[data-testid=\"stMain\"] .js-plotly-plot .xtick text'); "
               "return t && parseFloat(getComputedStyle(t).fontSize); }")


def test_instructor_modes_charts_grow_with_a_1080p_projector(new_context):
    """The page's type grows on a screen wider than a 720p projector's; the charts' type grows
    by as much (1.2 at 1920×1080: a token name of 21.6 pixels, not 18), on the next page of
    the lesson too, and back when the window is made smaller again, with nothing of the
    reporter on screen."""
    page = new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"/?step={LAST_STEP}&present=1")
    at_step(page, LAST_STEP, timeout=FIRST_LOAD_MS)
    page.wait_for_function(f"({_FIRST_TICK})() === 21.6", timeout=RUN_MS)
    box = page.locator(".st-key-screen_growth_box")
    expect(box).to_be_attached()
    expect(box).to_be_hidden()
    page.get_by_role("link", name=re.compile("^So what")).click()  # another page, the same session
    expect(page.get_by_role("heading", name="The drafter family")).to_be_visible(timeout=RUN_MS)
    page.wait_for_function(f"({_FIRST_TICK})() === 21.6", timeout=RUN_MS)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_function(f"({_FIRST_TICK})() === 18", timeout=RUN_MS)
    # out of instructor mode, the reporter is gone, and a resize reports nothing
    button(page, "Leave instructor mode").click()
    expect(button(page, "Leave instructor mode")).to_have_count(0, timeout=RUN_MS)
    page.wait_for_function("() => window.screenGrowth && window.screenGrowth.set === null", timeout=RUN_MS)
    no_exception(page)


# whether a code block's copy button shows: it and every element up to its code block fully
# opaque and visible, and the button the element at its own centre
_COPY_SHOWN = """b => {
  for (let e = b; e && e.getAttribute('data-testid') !== 'stCode'; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (style.opacity !== '1' || style.visibility !== 'visible') return false;
  }
  const r = b.getBoundingClientRect();
  return b.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
}"""


def test_a_code_blocks_copy_button_is_in_reach_of_the_keyboard_and_a_touch_screen(new_context):
    """Streamlit shows a code block's copy button only under the pointer; Tab reaches it here,
    and it shows while it has the focus, and always on a screen that cannot hover."""
    page = new_context(viewport={"width": 1440, "height": 900}).new_page()
    page.goto("/code")
    expect(page.locator(".st-key-round_code pre").first).to_be_attached(timeout=FIRST_LOAD_MS)
    settled(page)
    page.locator('[data-testid="stMain"] p').first.click()  # the focus in the page, then on by Tab
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('aria-label')") == "Copy to clipboard":
            break
    # shown once it has faded in
    page.wait_for_function(f"({_COPY_SHOWN})(document.activeElement)", timeout=5_000)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Copy to clipboard"
    phone = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    phone.goto("/code")
    copy = phone.locator('[data-testid="stCode"]:visible').first.get_by_role("button", name="Copy to clipboard")
    expect(copy).to_be_visible(timeout=FIRST_LOAD_MS)
    copy.scroll_into_view_if_needed()
    copy.evaluate("b => new Promise(done => setTimeout(done, 1000))")  # any fade-in over
    assert copy.evaluate(_COPY_SHOWN)


# each sidebar switch's track: its border's width and its fill
_SWITCH_TRACKS = """() => ['present', 'predict'].map(key => {
  const track = document.querySelector(`.st-key-${key} label > div:not([data-testid])`);
  const style = getComputedStyle(track);
  return [style.borderTopWidth, style.backgroundColor];
})"""


def test_the_switches_and_sliders_show_in_high_contrast(new_context):
    """Forced colours drop a switch's painted track and a slider's knob; the page draws them
    again, a switch filled when on, a knob greyed when disabled."""
    page = new_context(forced_colors="active").new_page()
    open_walkthrough(page, "?predict=1")
    settled(page)
    # the style sheet and the switches' states may land a moment after the run ends
    page.wait_for_function(f"() => {{ try {{ const [off, on] = ({_SWITCH_TRACKS})(); "
                           "return off[0] === '2px' && off[1] !== on[1]; } catch (e) { return false; } }", timeout=RUN_MS, polling=200)
    off, on = page.evaluate(_SWITCH_TRACKS)  # instructor mode off, predict first on
    assert off[0] == on[0] == "2px"
    assert off[1] != on[1]
    # and the sliders' knobs, greyed where disabled (top-p at temperature 0)
    open_playground(page, "?temperature=0")
    page.wait_for_function(f"() => {{ const k = ({_SLIDER_KNOBS})(); "
                           "return k.top_p !== k.gamma && k.gamma === k.noise; }", timeout=RUN_MS, polling=200)
    knobs = page.evaluate(_SLIDER_KNOBS)
    assert "rgba(0, 0, 0, 0)" not in knobs.values(), knobs
    assert knobs["top_p"] != knobs["gamma"] == knobs["noise"], knobs
    # and the walkthrough's step bar, its track outlined and its fill drawn
    open_walkthrough(page, "?step=2", step=2)
    track = page.get_by_test_id("stProgressBarTrack").first
    expect(track).to_be_visible(timeout=RUN_MS)
    page.wait_for_function("() => getComputedStyle(document.querySelector('[data-testid=\"stProgressBarTrack\"]'))"
                           ".borderTopWidth === '1px'", timeout=RUN_MS, polling=200)
    fill = track.evaluate("t => getComputedStyle(t.firstElementChild).backgroundColor")
    assert fill not in ("rgba(0, 0, 0, 0)", track.evaluate("t => getComputedStyle(t).backgroundColor")), fill


# each playground slider's knob: its fill
_SLIDER_KNOBS = """() => Object.fromEntries(['noise', 'gamma', 'top_p'].map(key => {
  const input = document.querySelector(`.st-key-${key} input[type="range"]`);
  return [key, getComputedStyle(input.parentElement.parentElement).backgroundColor];
}))"""
