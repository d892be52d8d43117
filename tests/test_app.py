"""The Streamlit app, driven headless with streamlit.testing (AppTest) on the real model pair.

Pages are tested one file at a time (each page draws the shared sidebar itself through
ui.frame.begin); the whole app is run once through app.py's st.navigation as well.
Models and scenarios live in st.cache_resource, which is process-wide, so only the first test
that needs a model pays for loading it.
"""
from __future__ import annotations

import html
import importlib.util
import inspect
import json
import re
import time
import unicodedata
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from streamlit.testing.v1 import AppTest

import lessons.race_notes
import lessons.race_record
import lessons.scenario
import lessons.speed_story
import lessons.thread
import lessons.wording
import specdec_core.models
import specdec_core.quality
import ui.class_link
import ui.display
import ui.keys
import ui.models
import ui.playground
import ui.projector
import ui.race
import ui.round_line
import ui.settings
import ui.so_what
import ui.walkthrough
from lessons.scenario import WALKTHROUGH_GAMMA, WALKTHROUGH_PROMPT
from lessons import code_lesson
from lessons.speed_story import saved_verify_costs
from specdec_core import catalog, engine
from specdec_core.catalog import default_drafter, drafter_label, drafter_names, drafter_vocabulary
from specdec_core.inputs import is_blank
from specdec_core.quality import best_gamma, drafter_quality, drafter_table
from specdec_core.sampling import expected_speedup, speculative_round
from specdec_core.warping import Sampling
from lessons.style import ORIGIN_COLORS, ORIGIN_LABELS, chip_fill, contrast, line_color, visible
from ui.display import chip, colored_text, html_div, origin_legend, plain_markdown, plain_text, prompt_chip, spoken_text
from ui.settings import DEFAULT_PROMPT, DEFAULT_SEED, MAX_PROMPT_CHARS, THREAD

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300
STEPS = 5


def page(name: str, run: bool = True, **params: str) -> AppTest:
    """A fresh session on pages/<name>.py, opened with `params` as the link's query string."""
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run() if run else at


def no_exception(at: AppTest) -> None:
    assert not at.exception, "\n".join(e.value + "\n" + "\n".join(e.stack_trace) for e in at.exception)


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert len(found) == 1, f"{len(found)} buttons labelled {label!r}: {[b.label for b in at.button]}"
    return found[0]


def has_button(at: AppTest, label: str) -> bool:
    return any(b.label == label for b in at.button)


def step_shown(at: AppTest) -> int:
    headers = [m.value.removeprefix(ui.walkthrough.STEP_STATUS) for m in at.markdown
               if m.value.startswith(ui.walkthrough.STEP_STATUS + "**Step ")]
    assert len(headers) == 1, headers
    number, total = headers[0].removeprefix("**Step ").split("**")[0].split(" of ")
    assert int(total) == STEPS
    return int(number)


def html_texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


# --- the whole app -------------------------------------------------------------------------

def test_whole_app_first_run_and_every_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    no_exception(at)
    assert step_shown(at) == 1
    assert [s.label for s in at.sidebar.selectbox] == ["Draft model"]
    assert at.session_state["drafter"] == default_drafter()
    for name in ("code", "thread", "so_what", "race", "playground", "walkthrough"):
        at.query_params.clear()  # as a click in the navigation menu does
        at.switch_page(f"pages/{name}.py").run()
        no_exception(at)
        assert at.title, name
        for chart in at.get("plotly_chart"):  # a swipe on a phone scrolls the page, never zooms
            layout = json.loads(chart.proto.spec)["layout"]
            axes = [v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
            assert layout["dragmode"] is False and axes and all(a["fixedrange"] for a in axes), name
            assert json.loads(chart.proto.config)["doubleClick"] is False, name
        if name == "playground":  # its controls share their keys with the race's
            assert (at.session_state["gamma"], at.session_state["top_p"]) == (4, 1.0)
            assert at.session_state["prompt"] == DEFAULT_PROMPT and len(at.metric) == 5


def test_shared_settings_survive_a_page_switch():
    """Every page draws its own sidebar, and a widget on another page is another widget:
    the values must still carry over, on the first run of the new page."""
    drafter = drafter_names()[0]
    assert drafter != default_drafter()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in {"seed": "77", "drafter": drafter, "present": "1", "predict": "1"}.items():
        at.query_params[key] = value
    at.run()
    no_exception(at)
    for name in ("code", "so_what", "race", "walkthrough"):
        at.query_params.clear()
        at.switch_page(f"pages/{name}.py").run()
        no_exception(at)
        state = {k: at.session_state[k] for k in ("seed", "drafter", "present", "predict")}
        assert state == {"seed": 77, "drafter": drafter, "present": True, "predict": True}, name
        assert at.sidebar.number_input[0].value == 77 and at.sidebar.selectbox[0].value == drafter
        assert has_button(at, "Leave instructor mode"), name
        if name == "code":
            assert any(f"drafter **{drafter}**, seed **77**" in m.value for m in at.markdown)
    assert at.query_params["seed"] == "77" and at.query_params["drafter"] == drafter


def _settings_round_trip() -> None:
    """A page run in miniature: keep, load from the link, save (the seed as a plain value)."""
    import streamlit as st
    from ui import settings, url_state
    url_state.keep(settings.SHARED)
    url_state.arrive("a page")
    url_state.load(settings.SHARED)
    url_state.save(settings.SHARED)
    st.write(f"seed {st.session_state.seed}")


def test_a_setting_streamlit_drops_comes_back_from_the_session():
    """On a switch of page Streamlit drops the state of every widget the browser's request does
    not name, which quick clicks in the navigation menu can leave out. The setting must come
    back as it was, not as the default of the bare link the click opened."""
    at = AppTest.from_function(_settings_round_trip, default_timeout=TIMEOUT)
    at.query_params["seed"] = "130"
    at.run()
    no_exception(at)
    assert at.markdown[0].value == "seed 130"
    del at.session_state["seed"]  # what Streamlit's page switch does to the widget's state
    at.query_params.clear()  # the bare link the navigation menu opens
    at.run()
    no_exception(at)
    assert at.markdown[0].value == "seed 130" and at.query_params["seed"] == "130"


def test_the_links_a_session_keeps_for_back_and_forward_are_bounded():
    """Every link a run ends with is kept to tell the browser's Back from a click: a session that
    writes many (a seed typed again and again, a prompt edited) keeps the newest 64."""
    at = AppTest.from_function(_settings_round_trip, default_timeout=TIMEOUT)
    for seed in range(ui.url_state.WRITTEN_KEPT + 6):
        at.session_state["seed"] = seed
        at.run()
    no_exception(at)
    links = at.session_state["_url_written"]["a page"]
    assert len(links) == ui.url_state.WRITTEN_KEPT
    seeds = [dict(link).get("seed") for link in links]
    assert seeds[-1] == str(ui.url_state.WRITTEN_KEPT + 4) and "3" not in seeds  # the newest kept


def _thread_message_saved() -> None:
    """The thread's message saved into the link, as its page saves it."""
    from ui import settings, url_state
    url_state.save(settings.THREAD)


def test_a_cleared_message_leaves_the_link_rather_than_reading_none():
    """A select box cleared by the reader holds None, which the link must not carry as the word
    None (a reload would then ask Nimbus "None")."""
    at = AppTest.from_function(_thread_message_saved, default_timeout=TIMEOUT)
    at.session_state["message"] = "Refund please"
    at.run()
    assert at.query_params["message"] == "Refund please"
    at.session_state["message"] = None
    at.run()
    no_exception(at)
    assert "message" not in at.query_params


@pytest.mark.parametrize("name, mine", [
    ("playground", {"gamma": "2", "noise": "0.5", "temperature": "0.5", "prompt": "Dear customer,"}),
    ("race", {"gamma": "2", "stop": "0.5", "tokens": "32", "prompt": "Dear customer,"}),
    ("thread", {"message": "Refund please"}),
])
def test_explore_settings_survive_a_visit_to_other_pages(name, mine):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(f"pages/{name}.py")
    for key, value in mine.items():
        at.query_params[key] = value
    at.run()
    no_exception(at)
    # no page between draws them
    for other in [p for p in ("so_what", "thread", "walkthrough") if p != name] + ["code", name]:
        at.query_params.clear()  # as a click in the navigation menu does
        at.switch_page(f"pages/{other}.py").run()
        no_exception(at)
    for key, value in mine.items():
        widget = at.text_area(key=key) if key == "prompt" else \
            at.selectbox(key=key) if key == "message" else \
            at.select_slider(key=key) if key == "stop" else at.slider(key=key)
        assert str(widget.value) == value, key
    assert {k: at.query_params[k] for k in mine} == mine  # and the link says so again


# --- walkthrough ---------------------------------------------------------------------------

def test_next_and_back_walk_the_five_steps():
    at = page("walkthrough")
    no_exception(at)
    for k in range(1, STEPS + 1):
        assert step_shown(at) == k
        assert [p.value for p in at.progress] == [round(100 * k / STEPS)]
        assert at.query_params.get("step") == (None if k == 1 else str(k))  # default left out
        assert button(at, "Back").disabled == (k == 1)
        assert button(at, "Next").disabled == (k == STEPS)
        assert len(at.success) == 1  # the step's takeaway
        if k < STEPS:
            button(at, "Next").click().run()
            no_exception(at)
    for k in range(STEPS, 1, -1):
        button(at, "Back").click().run()
        no_exception(at)
        assert step_shown(at) == k - 1
        assert at.query_params.get("step") == (None if k - 1 == 1 else str(k - 1))
    assert button(at, "Back").disabled


def test_a_link_opens_its_step():
    at = page("walkthrough", step="4")
    no_exception(at)
    assert step_shown(at) == 4 and not at.warning


def test_a_round_that_keeps_every_draft_shows_a_bonus_token():
    """README's seed 130 keeps all four drafts: step 4 marks the fifth token as the bonus, not a
    correction, and the takeaway counts the five tokens the one pass bought."""
    at = page("walkthrough", step="4", seed="130")
    no_exception(at)
    (sentence,) = [t for t in html_texts(at) if "<b>Continuing:</b>" in t]
    assert sentence.count('title="kept"') == WALKTHROUGH_GAMMA
    assert 'title="bonus"' in sentence and "← bonus" in sentence and "correction" not in sentence
    (takeaway,) = at.success.values
    assert takeaway.startswith(f"This round gets {WALKTHROUGH_GAMMA + 1} tokens from one pass of Nimbus-large")
    # the step's title says so too, where another round's says "Correct"
    status = ui.walkthrough.STEP_STATUS
    assert any(m.value.startswith(f"{status}**Step 4 of 5** · A bonus instead of a correction") for m in at.markdown)
    assert any(m.value.startswith(f"{status}**Step 4 of 5** · Correct<") for m in page("walkthrough", step="4").markdown)


def test_a_correction_takes_the_rejected_guess_s_place_in_the_sentence():
    """The worked example keeps two guesses and rejects the third: from step 4 the sentence reads
    on from the struck guess to its correction, and the guess never checked, shown on step 3,
    is left out (after the correction it read as a word of the text)."""
    for number in ("4", "5"):
        at = page("walkthrough", step=number)
        no_exception(at)
        (sentence,) = [t for t in html_texts(at) if "<b>Continuing:</b>" in t]
        order = [sentence.index(f'title="{how}"') for how in ("kept", "rejected", "correction")]
        assert order == sorted(order), order
        assert 'title="never checked"' not in sentence
        assert sentence.rstrip().endswith("← correction</small></span></div>")
    (step_3,) = [t for t in html_texts(page("walkthrough", step="3")) if "<b>Continuing:</b>" in t]
    assert step_3.count('title="never checked"') == 1


def test_step_5_says_when_chance_hides_a_shortcuts_error():
    """With the early exit, seed 16's decided position has beta about 0.005: resampling from p is
    then nearly exact, and its simulated distance can beat the rule's. The page says why; with
    Nimbus-mini (beta 0.495 there) the shortcuts stand out and nothing needs saying."""
    poor = page("walkthrough", step="5", seed="16", drafter="early-exit-4")
    good = page("walkthrough", step="5", seed="16")
    for at in (poor, good):
        no_exception(at)
        assert step_shown(at) == 5 and not at.warning
    (note,) = [i.value for i in poor.info if "cannot rank" in i.value]
    assert "hardly ever kept" in note and "“resample from p on reject”'s true distance (0.00" in note
    assert "10,000 draws" in note
    assert not [i.value for i in good.info if "cannot rank" in i.value]
    # the chance range beside the rules' distances: at 10,000 draws the rule's own lands inside
    # it, and each shortcut far above it
    shown = {m.label: m.value for m in good.metric}
    low, high = map(float, shown["chance alone, 9 runs in 10"].split("–"))
    assert low < float(shown["accept-or-correct"]) < high
    assert min(float(shown["accept every draft"]), float(shown["resample from p on reject"])) > 3 * high
    assert not [i.value for i in good.info if "lands above" in i.value]
    # where the rule's own run lands above the range (1 run in 20), the page says so, once
    poor_shown = {m.label: m.value for m in poor.metric}
    poor_high = float(poor_shown["chance alone, 9 runs in 10"].split("–")[1])
    above = [i.value for i in poor.info if "accept-or-correct itself lands above" in i.value]
    assert len(above) == (float(poor_shown["accept-or-correct"]) > poor_high)
    # at 100 draws the worked example's own shortcuts can hide in the noise: then the draws are
    # named as the reason, not beta (0.495 there)
    good.select_slider(key="draws").set_value(100).run()
    no_exception(good)
    assert good.query_params["draws"] == "100"  # a link shows the same draws
    (few,) = [i.value for i in good.info if "cannot rank" in i.value]
    assert few.startswith("At 100 draws perfect samples of p land") and "β =" not in few


def draws(at: AppTest) -> tuple:
    """Everything on step 3 that depends on the coin flips: takeaway, chart caption, table."""
    rows = [table.value.to_dict("records") for table in at.table]
    return tuple(s.value for s in at.success), tuple(c.value for c in at.caption), repr(rows)


def test_the_seed_in_the_link_reproduces_the_draws():
    ui.models._round.clear()  # the second session must rebuild the round, not reuse it
    first = page("walkthrough", step="3", seed="123")
    ui.models._round.clear()
    second = page("walkthrough", step="3", seed="123")
    other = page("walkthrough", step="3", seed="124")
    for at in (first, second, other):
        no_exception(at)
        assert step_shown(at) == 3 and not at.warning
    assert first.session_state["seed"] == 123 and other.session_state["seed"] == 124
    assert "u = " in " ".join(first.caption.values)  # the caption lists the coin flips
    assert draws(first) == draws(second)
    assert draws(first) != draws(other)
    # the box turns red past its limit without saying it: its help says it
    assert "from 0 to 2,147,483,647" in first.number_input(key="seed").help


def test_roll_again_changes_the_seed_and_the_worked_example_is_one_click_back():
    at = page("walkthrough", step="3")
    before = draws(at)
    assert at.session_state["seed"] == DEFAULT_SEED and "seed" not in at.query_params
    assert not has_button(at, "Worked example")
    button(at, "Roll again").click().run()
    no_exception(at)
    seed = at.session_state["seed"]
    assert seed != DEFAULT_SEED and 0 <= seed < ui.walkthrough.ROLLED_SEEDS  # a short seed to read out
    assert at.query_params["seed"] == str(seed)
    assert at.sidebar.number_input[0].value == seed
    assert step_shown(at) == 3
    assert draws(at) != before
    button(at, "Worked example").click().run()
    no_exception(at)
    assert at.session_state["seed"] == DEFAULT_SEED and "seed" not in at.query_params
    assert step_shown(at) == 3 and draws(at) == before
    assert not has_button(at, "Worked example")
    # another drafter on seed 16 is not the worked example either: the button brings back both
    other = page("walkthrough", step="3", drafter="early-exit-4")
    button(other, "Worked example").click().run()
    no_exception(other)
    assert other.session_state["drafter"] == default_drafter() and "drafter" not in other.query_params
    said = [c.value for c in other.caption]
    assert "“Worked example” switched the draft model to Nimbus-mini, from early-exit-4." in said
    other.run()  # said once: then the screen is the worked example's own
    assert draws(other) == before and not has_button(other, "Worked example")


def test_bonus_round_opens_nimbus_minis_first_round_that_keeps_every_guess():
    """From another drafter's round on step 4: Nimbus-mini, at the first seed whose checking pass
    adds a bonus token; step 4 then tells of the bonus, and the button goes away."""
    at = page("walkthrough", step="4", drafter="early-exit-4")
    button(at, "Bonus round").click().run()
    no_exception(at)
    seed, drafter = at.session_state["seed"], at.session_state["drafter"]
    assert drafter == default_drafter() and at.query_params["seed"] == str(seed)
    # said, as instructor mode hides the sidebar's draft model
    note = "“Bonus round” switched the draft model to Nimbus-mini, from early-exit-4."
    assert note in [c.value for c in at.caption]
    shown = ui.models.get_scenario(drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, seed).record
    assert shown.bonus and len(shown.checks) == WALKTHROUGH_GAMMA and all(c.accepted for c in shown.checks)
    # the first such seed: the rounds of the seeds below it, run as the engine runs a first round
    # (not through the walkthrough's cache of rounds, which other tests' rounds would leave)
    pair = ui.models.get_pair(drafter)
    ids = engine.encode(pair, WALKTHROUGH_PROMPT)
    assert not any(engine.first_round(pair, ids, WALKTHROUGH_GAMMA, Sampling(),
                                      np.random.default_rng(n)).record.bonus for n in range(seed))
    assert step_shown(at) == 4
    assert "Nothing was rejected: where does the extra token come from?" in [h.value for h in at.header]
    assert not has_button(at, "Bonus round") and has_button(at, "Worked example")
    button(at, "Worked example").click().run()
    assert has_button(at, "Bonus round") and note not in [c.value for c in at.caption]  # said once


def test_bonus_round_says_so_when_no_seed_keeps_every_guess(monkeypatch):
    monkeypatch.setattr(ui.walkthrough, "bonus_seed", lambda *args: None)
    at = page("walkthrough", step="4")
    button(at, "Bonus round").click().run()
    no_exception(at)
    assert at.session_state["seed"] == DEFAULT_SEED  # the round stays
    (warning,) = at.warning
    assert warning.value.startswith(f"No seed from 0 to {lessons.scenario.BONUS_TRIES - 1} keeps all "
                                    "four of Nimbus-mini's guesses here")
    at.run()
    assert not at.warning  # said once


def test_no_bonus_round_without_nimbus_mini(monkeypatch):
    """Where Nimbus-mini is not shipped, the default drafter is an early exit, which keeps all
    four guesses too rarely for the search to find a round."""
    monkeypatch.setattr(ui.walkthrough, "default_drafter", lambda: "early-exit-12")
    at = page("walkthrough", step="4")
    no_exception(at)
    assert has_button(at, "Roll again") and not has_button(at, "Bonus round")


def test_bonus_round_with_a_broken_drafter_leaves_its_error_to_the_page(monkeypatch):
    def broken(*args):
        raise catalog.ModelFileError("Nimbus-mini's weights are damaged. Fix it with: `make setup`")
    monkeypatch.setattr(ui.walkthrough, "bonus_seed", broken)
    at = page("walkthrough", step="4", drafter="early-exit-4")
    button(at, "Bonus round").click().run()
    no_exception(at)  # no traceback from the button's callback
    assert at.session_state["drafter"] == default_drafter() and at.session_state["seed"] == DEFAULT_SEED


def test_a_link_sets_the_sliders_to_values_they_can_show():
    """A slider's value from a link is the slider's own grid point, even written with the
    rounding noise of a float ("0.30000000000000004" is 0.3)."""
    at = page("playground", temperature="0.30000000000000004", top_p="0.9", noise="0.05", gamma="2")
    no_exception(at)
    assert not at.warning
    assert at.slider(key="temperature").value == 0.3 and at.slider(key="top_p").value == 0.9
    assert at.slider(key="noise").value == 0.05 and at.slider(key="gamma").value == 2
    assert at.query_params["temperature"] == "0.3"
    race = page("race", tokens="16", stop="0.7")
    assert not race.warning and race.slider(key="tokens").value == 16
    assert race.select_slider(key="stop").value == 0.7
    # no early stop reads as such, not as a threshold of 0.0
    assert race.select_slider(key="stop").options[:2] == ["off", "0.1"]
    tiny = page("playground", temperature="1e-300")  # 0 give or take rounding: 0 reaches the models
    assert not tiny.warning and tiny.slider(key="temperature").value == 0.0


TAMPERED = [
    ("walkthrough", "step", "99", 1),
    ("walkthrough", "step", "\u0663", 1),  # an Arabic-Indic 3, which Python's int() would read
    ("walkthrough", "step", "0_3", 1),  # digits grouped as Python reads them
    ("walkthrough", "step", " 3", 1),
    ("playground", "temperature", "0_5", 1.0),
    ("walkthrough", "draws", "5000", 10_000),  # not one the slider offers
    ("playground", "temperature", "\uff10.5", 1.0),  # a full-width 0
    ("walkthrough", "seed", "abc", DEFAULT_SEED),
    ("walkthrough", "seed", "-5", DEFAULT_SEED),
    ("walkthrough", "drafter", "evil", None),  # None: default_drafter(), known only at run time
    ("walkthrough", "present", "maybe", False),
    ("playground", "gamma", "-3", 4),
    ("playground", "temperature", "nan", 1.0),
    ("playground", "temperature", "0.001", 1.0),  # in range, but no slider shows it
    ("playground", "top_p", "0.123", 1.0),
    ("race", "tokens", "9", 48),
    ("race", "stop", "2", 0.0),
    ("walkthrough", "seed", str(2**31), DEFAULT_SEED),  # one above the largest seed
    ("walkthrough", "step", "0", 1),
    ("walkthrough", "predict", "2", False),
    ("playground", "gamma", "2.5", 4),  # a whole number only
    ("playground", "prompt", "  ", DEFAULT_PROMPT),  # blank
    ("playground", "noise", "1.5", 0.0),
    ("playground", "noise", "0.33", 0.0),  # in range, but no slider shows it
    ("thread", "message", " ", lessons.thread.QUESTIONS[0]),
    ("thread", "message", "\n\t\n", lessons.thread.QUESTIONS[0]),  # line ends and a tab only
    ("playground", "prompt", "\r\n", DEFAULT_PROMPT),
    ("thread", "message", "\u200b\u200b", lessons.thread.QUESTIONS[0]),  # zero-width spaces only
    ("playground", "prompt", "\u2001\u202e", DEFAULT_PROMPT),  # an em quad and a direction mark
]


def test_a_setting_the_link_repeats_says_which_value_counts():
    """Only the last of a repeated parameter counts, and the page says which it ignored, whether
    or not the last is good."""
    for values, shown in ((["2", "3"], 3), (["2", "9"], 1)):
        at = page("walkthrough", run=False)
        at.query_params["step"] = values
        at.run()
        no_exception(at)
        assert step_shown(at) == shown
        warnings = [w.value for w in at.warning]
        assert "The link sets `step` more than once, and only the last counts: ignored `step=2`." in warnings
        assert any(w.startswith("Ignored `step=9`") for w in warnings) == (shown == 1)


@pytest.mark.parametrize("name", ["race", "walkthrough"])
def test_a_setting_no_page_has_leaves_the_link_with_a_message(name):
    """A misspelt parameter would ride along in every link unread; Streamlit's own stay."""
    at = page(name, early_stop="abc", xyz="1", gamma="8", embed="true")
    no_exception(at)
    warnings = [w.value for w in at.warning]
    assert warnings == ["Ignored 2 parameters from the link that the app has no setting of: "
                        "`early_stop=abc` (the link's name for it may be `stop`), `xyz=1`."]
    assert not {"early_stop", "xyz"} & set(at.query_params) and at.query_params["gamma"] == "8"
    assert at.query_params["embed"] == "true"
    one = page(name, early_stop="abc")
    assert [w.value for w in one.warning] == [
        "Ignored `early_stop=abc` from the link: the app has no setting of that name (the link's name for it "
        "may be `stop`)."]


def test_a_link_full_of_unknown_or_tracking_parameters_gets_one_message():
    """A link passed on by a site or a mail carries utm_* and click ids: they go silently. A
    flood of unknown names is one message that names five and counts the rest, not a screen of
    boxes above the lesson."""
    tracked = page("walkthrough", step="2", utm_source="moodle", utm_medium="email", fbclid="IwAR0abc")
    no_exception(tracked)
    assert not tracked.warning and set(tracked.query_params) == {"step"}
    flood = page("walkthrough", **{f"p{i}": "v" for i in range(150)})
    no_exception(flood)
    (message,) = [w.value for w in flood.warning]
    assert message.startswith("Ignored 150 parameters from the link that the app has no setting of: `p0=v`")
    assert message.endswith("`p4=v` and 145 more.") and not set(flood.query_params)


def test_unknown_parameters_leave_the_link_in_one_rewrite(monkeypatch):
    """Each rewrite of the link sends the whole of it to the browser: taken out one by one,
    a thousand unknown names cost a million characters and seconds of the server's time."""
    from streamlit.runtime.state.query_params import QueryParams

    sent = []
    real = QueryParams._send_query_param_msg
    monkeypatch.setattr(QueryParams, "_send_query_param_msg", lambda self: (sent.append(1), real(self)))
    flood = page("so_what", **{f"p{i}": "v" for i in range(40)})
    no_exception(flood)
    assert not set(flood.query_params) and len(sent) <= 2, len(sent)


def test_a_misspelt_setting_is_matched_to_the_one_it_likely_means():
    from ui.url_state import _meant
    names = [p.name for p in ui.settings.EVERY_PAGE]
    assert {n: _meant(n, names) for n in ("early_stop", "temp", "topp", "gama", "Seed", "draft", "stpe",
                                            "stoq")} == {
        "early_stop": "stop", "temp": "temperature", "topp": "top_p", "gama": "gamma", "Seed": "seed",
        "draft": "drafter", "stpe": "step", "stoq": "stop"}
    assert _meant("p", names) is _meant("abc", names) is _meant("embed_x", names) is None


def test_a_page_leaves_a_setting_it_has_no_control_for_unread():
    """The race has no draft-noise slider: a noise in its link is the playground's to read,
    not the race's to refuse or to write."""
    at = page("race", noise="0.33")
    no_exception(at)
    assert not at.warning and at.query_params.get("noise") == "0.33"
    assert "Ignored `noise=0.33`" in page("playground", noise="0.33").warning[0].value


@pytest.mark.parametrize("name, param, raw, default", TAMPERED,
                         ids=[f"{n}-{p}={r[:8]}" for n, p, r, _ in TAMPERED])
def test_a_tampered_link_falls_back_with_a_warning(name, param, raw, default):
    default = default_drafter() if default is None else default
    at = page(name, **{param: raw})
    no_exception(at)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1, warnings
    assert f"`{param}=" in warnings[0] and "Ignored" in warnings[0]
    if is_blank(raw):  # a blank value is seen, not an empty box
        assert f"`{param}={visible(raw)}`" in warnings[0]
    said = {False: "off", True: "on"}.get(default) if isinstance(default, bool) else \
        f"“{default}”" if isinstance(default, str) else str(default)
    assert f"Using {said} instead." in warnings[0]  # the default as the reader knows it
    assert at.session_state[param] == default
    assert param not in at.query_params  # the bad value is gone from the link
    if name == "walkthrough":
        assert step_shown(at) == 1 and not has_button(at, "Leave instructor mode")
    elif name == "race":
        slider = at.select_slider(key=param) if param == "stop" else at.slider(key=param)
        assert slider.value == default and has_button(at, "Start the race")
        if param == "stop":  # in the words of its slider
            assert "must be 0 (off) or a number from 0.1 to 0.9" in warnings[0]
    elif name == "thread":
        assert at.selectbox(key=param).value == default and len(at.metric) == 3  # replied
    else:
        assert len(at.metric) == 5  # the playground still ran, on the defaults
        if param == "prompt":
            assert at.text_area[0].value == DEFAULT_PROMPT


def test_the_browsers_back_button_goes_back_a_step_and_a_roll():
    """Next and Roll again write the link; the browser's Back brings the earlier link back, and
    the page follows it instead of writing its own value over it."""
    at = page("walkthrough", step="1", seed="130")
    for _ in range(2):
        button(at, "Next").click().run()
    assert step_shown(at) == 3 and at.query_params["step"] == "3"
    at.query_params["step"] = "2"  # Back: the browser restores the link of step 2
    at.run()
    no_exception(at)
    assert step_shown(at) == 2 and at.query_params["step"] == "2" and not at.warning
    at.query_params["step"] = "3"  # Forward
    at.run()
    assert step_shown(at) == 3
    # a click that reaches the server with a link the browser had not yet brought up to date
    # is a click, not a trip back through the history
    at.query_params["step"] = "2"
    button(at, "Next").click().run()
    assert step_shown(at) == 4 and at.query_params["step"] == "4"
    at.query_params["step"] = "3"
    at.run()
    assert step_shown(at) == 3
    button(at, "Roll again").click().run()
    rolled = at.query_params["seed"]
    assert rolled != "130"
    at.query_params["seed"] = "130"  # Back over the roll
    at.run()
    assert at.session_state["seed"] == 130 and at.query_params["seed"] == "130"
    # a link this page never wrote, such as the bare address a switch between pages leaves in
    # the history, is not a trip back: nothing returns to its default
    for key in ("seed", "step"):
        del at.query_params[key]
    at.run()
    assert at.session_state["seed"] == 130 and step_shown(at) == 3
    assert at.query_params["seed"] == "130" and at.query_params["step"] == "3"


def test_back_onto_the_bare_address_of_a_page_switch_keeps_the_settings():
    """A click in the navigation menu leaves the page's bare address in the history, and the
    page then writes its settings over it. Back onto that bare address is not a trip back to
    the defaults: γ stays 5."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/race.py").run()
    at.slider(key="gamma").set_value(5).run()
    for name in ("walkthrough", "race"):
        at.query_params.clear()  # as a click in the navigation menu does
        at.switch_page(f"pages/{name}.py").run()
    assert at.query_params["gamma"] == "5"
    at.query_params.clear()  # Back: the bare /race the menu click left
    at.run()
    no_exception(at)
    assert at.session_state["gamma"] == 5 and at.query_params["gamma"] == "5"


def test_a_blank_prompt_leaves_the_link():
    """Clearing the prompt must not write a link that the app would refuse when opened."""
    at = page("playground", prompt="Once upon a time")
    at.text_area[0].set_value("  \n").run()
    no_exception(at)
    assert "prompt" not in at.query_params and at.session_state["prompt"] == "  \n"
    assert any("Type a prompt" in i.value for i in at.info)


def test_the_link_follows_the_sidebar_away_from_the_walkthrough():
    at = page("code", seed="5")
    at.sidebar.number_input(key="seed").set_value(123).run()
    no_exception(at)
    assert at.query_params["seed"] == "123"
    at.sidebar.toggle(key="predict").set_value(True).run()
    assert at.query_params["predict"] == "1"
    at.sidebar.number_input(key="seed").set_value(DEFAULT_SEED).run()
    assert "seed" not in at.query_params  # a default is left out of the link


def test_a_parameter_given_twice_is_written_back_once():
    at = AppTest.from_file(str(ROOT / "pages" / "walkthrough.py"), default_timeout=TIMEOUT)
    at.query_params["step"] = ["2", "3"]
    at.run()
    no_exception(at)
    assert step_shown(at) == 3  # the last one counts, as in Streamlit
    assert at.query_params["step"] == "3"


@pytest.mark.parametrize("raw", ["x`[click me](https://evil.example)`", "x`![t](https://evil.example/t.png)`",
                                 "3\u202e is 1", "x\n\n[click me](https://evil.example)"])
def test_a_warning_shows_a_bad_value_as_inert_text(raw):
    """The ignored value sits in one code span: a backtick cannot close it early (the rest would
    be read as markdown, links and images included), and no control or direction character
    can break or reverse the message."""
    at = page("walkthrough", drafter=raw)
    no_exception(at)
    (message,) = [w.value for w in at.warning]
    assert message.count("`") == 2, message
    assert not any(unicodedata.category(c) in ("Cc", "Cf") for c in message), message


def test_predict_first_hides_the_coin_until_flipped():
    at = page("walkthrough", step="3", predict="1", seed="11")
    no_exception(at)
    checks = ui.models.get_scenario(at.session_state["drafter"], WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA,
                                    11).record.checks
    flips = 0
    while True:
        shown = " ".join(at.caption.values + at.success.values + at.warning.values + html_texts(at))
        (coin,) = [s for s in chart_specs(at) if any(t.get("name") == "coin flip u" for t in s["data"])]
        (u_trace,) = [t for t in coin["data"] if t.get("name") == "coin flip u"]
        assert len(u_trace.get("x", [])) == flips
        seen = {f"{c.u:.2f}" for c in checks[:flips]}
        for c in checks[flips:]:  # nothing on the page gives away a flip not yet revealed
            if f"{c.u:.2f}" not in seen:
                assert f"u = {c.u:.2f}" not in shown
        if flips == len(checks):
            break
        assert has_button(at, "Predict keep") and has_button(at, "Predict reject")
        assert not at.success  # no takeaway yet: it would name the verdict
        assert shown.count('title="kept"') + shown.count('title="rejected"') == flips  # the sentence too
        assert shown.count("> (kept)<") + shown.count("> (rejected)<") == flips  # and what is read aloud
        guess = "keep" if flips % 2 else "reject"  # both kinds of guess, right or wrong
        button(at, f"Predict {guess}").click().run()
        no_exception(at)
        flips += 1
        assert at.session_state["revealed"] == flips
        c = checks[flips - 1]
        feedback = " ".join(at.info.values + at.warning.values)
        sign, verdict = ("<", "kept") if c.accepted else ("≥", "rejected")
        said = f"u = {c.u:.2f} {sign} min(1, p/q) = {c.accept_prob:.2f}, so the draft is {verdict}"
        assert said in feedback
        right = (guess == "keep") == c.accepted
        told = "Right:" if right else "It could not be rejected:" if c.accept_prob >= 1 else "Not this time:"
        assert feedback.count(told) == 1, feedback
        infos = list(at.info.values)
        if right and c.accepted and flips < len(checks):  # the verdict reads before the next question
            first = [i for i, v in enumerate(infos) if v.startswith(("Right", "Predict first: will"))]
            assert infos[first[0]].startswith("Right") and infos[first[1]].startswith("Predict first: will")
        assert f"u = {checks[flips - 1].u:.2f}" in " ".join(at.caption.values)
    assert not has_button(at, "Predict keep") and not has_button(at, "Predict reject")
    assert any(" kept. " in s or "survived" in s for s in at.success.values)  # the takeaway
    # every coin flipped: the sentence marks the guesses as the ordinary view does, those after
    # the rejection never checked
    assert len(checks) < WALKTHROUGH_GAMMA and not checks[-1].accepted
    ordinary = page("walkthrough", step="3", seed="11")
    assert [h for h in html_texts(at) if "Continuing:" in h] == \
        [h for h in html_texts(ordinary) if "Continuing:" in h]
    shown = " ".join(html_texts(at))
    assert shown.count('title="never checked"') == WALKTHROUGH_GAMMA - len(checks)
    # a rejected guess is struck through; one never checked had no coin flip, so it is not
    styles = dict(re.findall(r'title="(rejected|never checked)" style="([^"]*)"', shown))
    assert "line-through" in styles["rejected"] and "line-through" not in styles["never checked"]


def test_predict_first_flips_a_coin_without_a_guess():
    """A class that voted by hand, or a presenter with a clicker, flips the coin without a guess:
    the outcome is shown, with no "Right" or "Not this time", and the next question follows."""
    at = page("walkthrough", step="3", predict="1", seed="11")
    checks = ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, 11).record.checks
    button(at, ui.keys.FLIP).click().run()
    no_exception(at)
    assert at.session_state["revealed"] == 1
    c = checks[0]
    said = " ".join(at.info.values)
    assert f"Flipped: u = {c.u:.2f} {'<' if c.accepted else '≥'} min(1, p/q) = {c.accept_prob:.2f}, so the draft is" in said
    assert not any(v.startswith(("Right", "Not this time")) for v in at.info.values + at.warning.values)
    if len(checks) > 1:
        assert has_button(at, ui.keys.FLIP) and any(v.startswith("Predict first: will") for v in at.info.values)


def test_predict_first_says_where_no_coin_can_reject_the_draft():
    """Where p ≥ q the keep is certain: the question says so, as the rule's first lesson, and
    only there. Seed 16 (the worked example) has both kinds of check among its first three."""
    at = page("walkthrough", step="3", predict="1", seed="16")
    checks = ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, 16).record.checks
    kinds = [c.accept_prob >= 1 for c in checks[:3]]
    assert True in kinds and False in kinds
    for shown, sure in enumerate(kinds):
        asked = [v for v in at.info.values if v.startswith("Predict first: will")]
        assert len(asked) == 1
        assert ("no coin can reject it" in asked[0]) == sure, asked[0]
        # how to flip is said once, at the first coin
        assert (f"“{ui.keys.FLIP}” flips it without one" in asked[0]) == (shown == 0)
        if not checks[shown].accepted:
            break
        button(at, ui.keys.FLIP).click().run()
        no_exception(at)


def test_predict_first_does_not_call_a_sure_keep_bad_luck():
    """A guess of reject where p ≥ q was not unlucky: the coin could not reject that draft, and
    the verdict says so instead of "Not this time". Seed 16 has such a check among its first three."""
    at = page("walkthrough", step="3", predict="1", seed="16")
    checks = ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, 16).record.checks
    sure = next(k for k, c in enumerate(checks) if c.accept_prob >= 1)
    for _ in range(sure):
        button(at, ui.keys.FLIP).click().run()
    button(at, "Predict reject").click().run()
    no_exception(at)
    said = " ".join(at.warning.values)
    assert said.startswith("It could not be rejected: p ≥ q, so every coin keeps it. u = ")
    assert "so the draft is kept." in said and "Not this time" not in said


def test_predict_first_moving_on_shows_every_coin():
    """Next from step 3 before every coin is flipped: steps 4 and 5 tell what the coins did,
    so back on step 3 they are shown too, with no question left open about them."""
    at = page("walkthrough", step="3", predict="1", seed="11")
    button(at, "Predict reject").click().run()
    assert any("press Next: it flips the rest and goes on to step 4" in v for v in at.info.values)
    button(at, "Next").click().run()
    button(at, "Back").click().run()
    no_exception(at)
    assert at.session_state["step"] == 3
    assert not has_button(at, "Predict keep") and not any(v.startswith("Predict first: will") for v in at.info.values)
    assert not any(v.startswith(("Right", "Not this time")) for v in at.info.values + at.warning.values)
    ordinary = page("walkthrough", step="3", seed="11")
    assert [h for h in html_texts(at) if "Continuing:" in h] == \
        [h for h in html_texts(ordinary) if "Continuing:" in h]
    assert at.success.values == ordinary.success.values  # the takeaway


def test_predict_first_starts_afresh_for_a_new_round():
    at = page("walkthrough", step="3", predict="1", seed="11")
    button(at, "Predict reject").click().run()
    assert at.session_state["revealed"] == 1
    at.sidebar.number_input[0].set_value(12).run()
    no_exception(at)
    assert at.session_state["revealed"] == 0
    assert not any(v.startswith(("Right", "Not this time")) for v in at.info.values + at.warning.values)


@pytest.mark.parametrize("name", ["walkthrough", "code", "thread", "so_what", "playground", "race"])
def test_instructor_mode_can_be_left(name):
    at = page(name, present="1")
    no_exception(at)
    assert at.session_state["present"] is True
    # Esc leaves it through the page's own script, never Streamlit's shortcut, which would fire
    # from a text box and as Esc closes a help box
    assert button(at, "Leave instructor mode").proto.shortcut == ""
    assert any('"Escape": "Leave instructor mode"' in h.value for h in at.get("html"))
    assert at.query_params["present"] == "1"
    assert any("font-size" in h.value for h in at.get("html"))  # the large-type CSS
    button(at, "Leave instructor mode").click().run()
    no_exception(at)
    assert at.session_state["present"] is False
    assert not has_button(at, "Leave instructor mode")
    assert "present" not in at.query_params
    assert at.sidebar.toggle(key="present").value is False


def test_next_and_back_reuse_one_round_and_one_timing(monkeypatch, capsys):
    """Next/Back must reuse the cached round, and a new seed the timed pass costs. Times are
    printed, never asserted."""
    calls, timings = [], []
    real, real_timing = ui.models.build_scenario, ui.models.pass_seconds

    def counting(*args, **kwargs):
        calls.append(args[1:4])
        return real(*args, **kwargs)

    def counting_timing(*args, **kwargs):
        timings.append(args[1:])
        return real_timing(*args, **kwargs)

    monkeypatch.setattr(ui.models, "build_scenario", counting)
    monkeypatch.setattr(ui.models, "pass_seconds", counting_timing)
    monkeypatch.setattr(lessons.scenario, "pass_seconds", lambda *a, **k: pytest.fail("timed per round"))
    ui.models._round.clear()
    ui.models._pass_costs.clear()
    at = page("walkthrough", seed="4242")
    no_exception(at)
    assert len(calls) == 1
    times = []
    for label in ["Next"] * (STEPS - 1) + ["Back"] * (STEPS - 1):
        begin = time.perf_counter()
        button(at, label).click().run()
        times.append(time.perf_counter() - begin)
        no_exception(at)
    assert step_shown(at) == 1
    assert len(calls) == 1, calls
    button(at, "Roll again").click().run()  # a new seed: a new round, the same pass costs
    no_exception(at)
    assert len(calls) == 2 and len(timings) == 1
    with capsys.disabled():
        print("\n[walkthrough] server-side run per Next/Back click: "
              + ", ".join(f"{t * 1000:.0f} ms" for t in times))


def test_a_round_is_kept_and_its_timing_taken_afresh(monkeypatch):
    """A round is drawn once for everyone; step 2's timing, refreshed every TIMING_TTL, follows
    the latest one, so that one taken while the machine was busy does not stay for good."""
    timings = iter([(0.05, 0.04), (0.06, 0.05)])
    monkeypatch.setattr(ui.models, "pass_seconds", lambda *args: next(timings))
    ui.models._pass_costs.clear()
    first = ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, 4243)
    ui.models._pass_costs.clear()  # as the time to live does
    again = ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, 4243)
    assert (first.verify_seconds, first.single_pass_seconds) == (0.05, 0.04)
    assert (again.verify_seconds, again.single_pass_seconds) == (0.06, 0.05)
    assert again.record is first.record and again.p_dists is first.p_dists  # the same round
    ui.models._pass_costs.clear()


# --- the other pages -----------------------------------------------------------------------

@pytest.mark.parametrize("present", [False, True])
def test_code_keeps_its_indentation_except_on_a_projector(present):
    at = page("code", present=str(int(present)))
    no_exception(at)
    wrapped = [c.value for c in at.code if c.proto.wrap_lines]
    assert len(at.code) > 1
    if present:
        assert len(wrapped) == len(at.code)
    else:  # only the copy of the round with its notes apart, which a narrow column shows
        (apart,) = wrapped
        assert apart == at.code[1].value != at.code[0].value
        assert not any("# ◀" in line and not line.lstrip().startswith("# ◀") for line in apart.splitlines())
    # the seed is the reader's to set; on a projector the class cannot reach it
    assert any("they follow the seed you set in the sidebar." in m.value for m in at.markdown) == (not present)
    assert not any("after leaving instructor mode" in m.value for m in at.markdown)


def test_code_page_shows_the_running_round_function():
    at = page("code")
    no_exception(at)
    shown = at.code[0].value.splitlines()
    source = inspect.getsource(speculative_round).splitlines()
    code = [line for line in shown if not line.lstrip().startswith("# ◀ ")]  # notes of their own
    assert len(code) == len(source)
    for line, original in zip(code, source):
        assert line == original or line.startswith(original + "    # ◀ ")
    notes = [line for line in shown if "# ◀" in line]
    assert len(notes) >= 4
    at_check = next(i for i, line in enumerate(shown) if "= check_draft(" in line)
    assert "u = " in shown[at_check + 1] and "# ◀ #1 " in shown[at_check + 1]  # the first coin flip
    # the same round with every note on a line of its own, for a narrow column
    assert at.code[1].value == code_lesson.annotated_source(
        ui.models.get_scenario(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, ui.settings.DEFAULT_SEED),
        apart=True)
    # the loop around the function, as the engine runs it: drafting, one target pass, the caches
    # cut back to what stands
    loop = [c.value.strip() for c in at.code[len(code_lesson.SHOWN) + 1:]]  # after the round's two copies
    assert loop == [inspect.getsource(fn).strip() for fn in (engine.iter_speculative, engine.run_round,
                                                             engine.propose, engine.verify, engine.crop)]
    assert "crop(target_cache, len(context) - 1)" in loop[0]


def test_the_code_page_points_to_a_round_that_reaches_the_bonus_line():
    seed = ui.models.bonus_seed(default_drafter(), WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA)
    for shown, points in ((DEFAULT_SEED, True), (seed, False)):  # a rejection, then every draft kept
        at = page("code", seed=str(shown))
        no_exception(at)
        bonus_line = next(line for line in at.code[0].value.splitlines()
                          if "emitted.append(sample(p[gamma]" in line)
        assert ("not reached" in bonus_line) == points
        assert ("Bonus round" in at.markdown[0].value) == points


def test_thread_says_when_a_reply_is_cut(monkeypatch):
    monkeypatch.setattr(lessons.thread, "REPLY_TOKENS", 6)  # far below any reply's own end
    at = page("thread", seed="424242")  # a seed no other test caches a full reply for
    no_exception(at)
    assert at.metric[1].value == "6"  # Nimbus-large alone: one pass per token
    (reply,) = [m.value for m in at.chat_message[1].markdown]
    assert reply.endswith(" …</div>")
    assert "replies cut at 6 tokens (…)" in at.caption[-1].value


def test_the_playground_prices_its_chart_at_alpha_on_one_fixed_text():
    """Noise lowers α on Nimbus-large's own text for the prompt, whatever the luck of the text
    each setting writes, and the speed-up chart is priced at that α; at temperature 0 the pair's
    text is checked against Nimbus-large's own and found the same."""
    def steady(at):
        (note,) = [c.value for c in at.caption if c.value.startswith("α on Nimbus-large's own text: ")]
        return note, float(note.split(": ", 1)[1][:4])

    clean, noisy = page("playground"), page("playground", noise="0.5")
    (_, a0), (said, a5) = steady(clean), steady(noisy)
    assert a5 < a0 - 0.05 and f"({a0:.2f} without noise)" in said
    # beside this run's α at the top, where a reader who moves a slider looks first
    labels = [m.label for m in noisy.metric]
    assert labels[:2] == ["α, this run", "α for the chart"]
    assert noisy.metric[1].value == f"{a5:.2f}" and clean.metric[1].value == f"{a0:.2f}"
    # the chart's title stands above it as a heading, for screen readers
    assert any(f"What α = {a5:.2f} buys" in m for m in html_texts(noisy)), html_texts(noisy)
    greedy = page("playground", temperature="0")
    assert any(c.value.endswith("Checked against it, it is.") for c in greedy.caption)
    # a sampled text may come out otherwise on another machine; a greedy one only at a near tie
    assert clean.caption[-1].value.endswith(lessons.wording.OTHER_MACHINES)
    assert not any(lessons.wording.OTHER_MACHINES in c.value for c in greedy.caption)
    # top-p changes nothing at temperature 0, so it cannot be moved there
    assert greedy.slider(key="top_p").disabled and not clean.slider(key="top_p").disabled


@pytest.mark.parametrize("name, seed", [("thread", "434343"), ("playground", "434343")])
def test_a_text_written_pass_by_pass_leaves_no_so_far_line_once_whole(name, seed):
    """The line over a text still being written goes once it is whole, and none of the partial
    draws' elements stays below the last: at seeds no other test asks for, the text is written
    here pass by pass."""
    at = page(name, seed=seed)
    no_exception(at)
    assert not [c.value for c in at.caption if c.value.startswith("Written so far")]


def test_thread_page_shows_target_pass_metrics(pair_named):
    """The page's figures are those of the reply the library writes for the same question and
    seed (16, the default)."""
    at = page("thread")
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    passes = int(metrics["Target passes, speculative"])
    tokens = int(metrics["Target passes, Nimbus-large alone"])
    *_, reply = lessons.thread.reply_passes(pair_named("nimbus-mini"), lessons.thread.QUESTIONS[0], 16)
    assert (passes, tokens) == (reply.stats.target_passes, reply.stats.new_tokens)
    assert 0 < passes < tokens
    assert metrics["Tokens per target pass"] == f"{tokens / passes:.2f}"
    assert len(at.chat_message) == 2
    assert at.caption[-1].value.startswith(f"γ = {lessons.thread.REPLY_GAMMA}, temperature {lessons.thread.REPLY_TEMPERATURE}")
    assert lessons.thread.REPLY_TEMPERATURE > 0 and at.caption[-1].value.endswith(lessons.wording.OTHER_MACHINES)


def test_so_what_page_runs():
    at = page("so_what")
    no_exception(at)
    assert not at.error  # the shipped figures read without a "damaged" message
    assert at.title[0].value == "So what"
    captions = " ".join(c.value for c in at.caption)
    assert "passes over one" in captions and "on an NVIDIA H200" in captions  # the saved GPU figures
    assert "From benchmarks/early_stop.py" in captions  # the early stop's chart and how it is priced
    # a drafter-table run that timed checking below one step says that it flatters its speed-ups
    assert ("Where v is below 1" in captions) == any(r.verify_cost < 1 for r in drafter_table())
    speed_rows = [df.value for df in at.dataframe if "setting" in df.value.columns]
    assert len(speed_rows) == 1
    assert {"γ 4, greedy", "γ 4, T 1", "γ 8, T 1, stop < 0.5"} <= set(speed_rows[0]["setting"])
    # the settings in one cell and the result next to them, where a phone's width still shows it
    assert list(speed_rows[0].columns[:5]) == ["drafter", "run", "setting", "speed-up", "vs transformers"]
    # the shipped table holds rows of two runs (the early exit's ran apart): a column says which
    table = speed_rows[0]
    runs = dict(zip(table["drafter"], table["run"]))
    assert runs["nimbus-mini"] != runs["early-exit-4"] and "Compare rows of different runs" in captions
    assert "repeats" not in table.columns and "Every method wrote each prompt 3 times in run 1" in captions
    assert set(table["speed-up"].round(2)) == set(table["speed-up"])  # stored as shown
    # a drafter's α and the speed-up it buys next to its name, where a phone's width shows them
    (family,) = [df.value for df in at.dataframe if "α" in df.value.columns]
    assert list(family.columns[:3]) == ["drafter", "α", "expected speed-up"]
    assert dict(zip(family["drafter"], family["α"]))[default_drafter()] == round(
        next(r.alpha for r in drafter_table() if r.drafter == default_drafter()), 3)
    # the figure the race's advice quotes, with the check priced at the γ sweep's costs
    swept = lessons.speed_story.SWEPT
    best = {r.drafter: lessons.speed_story.expected_best(r) for r in drafter_table()}
    assert dict(zip(family["drafter"], family[swept])) == {d: round(x, 2) for d, (_, x) in best.items()}
    assert dict(zip(family["drafter"], family["best γ"])) == {d: g for d, (g, _) in best.items()}
    # then the speed-up at the table run's own v, which can flatter, and its best γ only where
    # one differs from the sweep's
    own = lessons.speed_story.OWN_V
    assert dict(zip(family["drafter"], family[own])) == {r.drafter: round(r.expected_speedup, 2)
                                                          for r in drafter_table()}
    assert list(family.columns).index(own) > list(family.columns).index(swept)
    differ = any(g != r.best_gamma for r in drafter_table() for g in [best[r.drafter][0]])
    assert (f"best γ, {own}" in family.columns) == differ
    # what α allows, for the drafter with the highest α, in the table's own figures
    top = max(drafter_table(), key=lambda r: r.alpha)
    ceiling = lessons.speed_story.ceiling_text(top.alpha, top.cost_ratio, top.drafter)
    assert ceiling in [m.value for m in at.markdown]


def test_without_a_gamma_sweep_the_drafter_table_gives_one_speed_up(monkeypatch, tmp_path):
    """Before `make bench` has saved a γ sweep, the check can be priced only at the table run's
    own v: one speed-up column, named so, rather than two of the same figures."""
    for shipped in lessons.speed_story.RESULTS.glob("*.json"):
        if shipped.name != "gamma_sweep.json":
            (tmp_path / shipped.name).write_text(shipped.read_text())
    monkeypatch.setattr(lessons.speed_story, "RESULTS", tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/so_what.py").run()
    no_exception(at)
    assert not at.error
    (family,) = [df.value for df in at.dataframe if "α" in df.value.columns]
    only = ui.so_what.ONLY_OWN_V
    assert list(family.columns[:4]) == ["drafter", "α", only, "best γ"], list(family.columns)
    assert not {lessons.speed_story.SWEPT, lessons.speed_story.OWN_V} & set(family.columns)
    assert dict(zip(family["drafter"], family[only])) == {r.drafter: round(r.expected_speedup, 2)
                                                           for r in drafter_table()}
    assert dict(zip(family["drafter"], family["best γ"])) == {r.drafter: r.best_gamma for r in drafter_table()}
    captions = " ".join(c.value for c in at.caption)
    assert ("`make bench` saves the γ sweep" in captions) == any(r.verify_cost < 1 for r in drafter_table())
    assert "the γ sweep below" not in captions


@pytest.mark.parametrize("sent, believed", [
    (None, 1.0), ("1.5", 1.0), (True, 1.0), (float("nan"), 1.0), (float("inf"), 1.0), (-2, 1.0), (0.5, 1.0),
    (1.0, 1.0), (1.22, 1.2), (2, 2.0), (1e9, ui.projector.MOST), (10**400, ui.projector.MOST)])
def test_a_screens_reported_growth_is_believed_only_as_a_number_in_range(sent, believed):
    """The browser reports how much larger than 1280×720 the screen is; anything else a page
    could send (text, NaN, a huge number) leaves the charts at their projector size."""
    assert ui.projector.believed(sent) == believed


def test_instructor_mode_charts_grow_with_the_reported_screen():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["step"], at.query_params["present"] = "2", "1"
    at.run()
    no_exception(at)
    before = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    at.session_state[ui.projector.BELIEVED] = 1.2  # as the reporter's callback keeps it on a 1080p screen
    at.run()
    after = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert after["font"]["size"] == pytest.approx(1.2 * before["font"]["size"])
    assert after["height"] == pytest.approx(1.2 * before["height"])


def test_so_whats_tables_come_with_a_plain_copy_for_a_phone():
    """Beside each sortable frame, the same rows as a plain table (which the page shows in a
    phone's narrow column instead), formatted as the frame shows them, without the speed
    table's two tok/s columns and the drafter table's figures at its own run's v."""
    at = page("so_what")
    no_exception(at)
    frames = [df.value for df in at.dataframe]
    plain = [t.value for t in at.table if "drafter" in t.value.columns]
    assert len(frames) == len(plain) == 2
    speed, family = plain
    assert list(speed.columns) == [c for c in frames[0].columns if c not in ("target alone", "speculative")]
    assert list(speed["speed-up"]) == [f"{v:.2f}x" for v in frames[0]["speed-up"]]
    own = lessons.speed_story.OWN_V
    assert "table's v" in frames[1].columns and own in frames[1].columns
    assert list(family.columns) == [c for c in frames[1].columns if c not in (own, f"best γ, {own}", "table's v")]
    assert list(family["drafter"]) == list(frames[1]["drafter"])


def test_so_what_tables_grow_with_instructor_mode():
    """A data frame is drawn on a canvas at its own small size; instructor mode shows plain
    tables, whose text grows with the page, narrowed to fit a projector."""
    at = page("so_what", present="1")
    no_exception(at)
    assert not at.dataframe
    # the plain tables, then the charts' table views (folded away)
    speed, family = [t.value for t in at.table][:2]
    assert "speed-up" in speed.columns and "speculative, tok/s" not in speed.columns
    assert all(v.endswith("x") for v in speed["speed-up"])  # formatted as on screen
    assert list(family.columns[:3]) == ["drafter", "α", "expected speed-up"]


def positions_rows(at: AppTest) -> int:
    (table,) = [t.value for t in at.table if "kept when checked" in t.value.columns]
    return len(table)


def test_playground_reacts_to_gamma():
    at = page("playground")
    no_exception(at)
    assert positions_rows(at) == 4
    at.slider(key="gamma").set_value(6).run()
    no_exception(at)
    assert at.session_state["gamma"] == 6 and at.query_params["gamma"] == "6"
    assert positions_rows(at) == 6  # acceptance by draft position, one bar per drafted token
    # per round, the tokens shown: the 48-token limit may cut the last round short
    metrics = {m.label: m.value for m in at.metric}
    passes = int(metrics["Target passes for 48 tokens"])
    assert metrics["Tokens per pass"] == f"{48 / passes:.2f}"
    assert any(c.value.startswith(f"{passes} rounds to write 48 tokens") for c in at.caption)


def test_playground_alpha_points_to_the_steadier_table_figure():
    """One 48-token text moves α by tenths; its help gives the drafter table's figure."""
    row = next(r for r in drafter_table() if r.drafter == "nimbus-mini")
    assert f"measured {row.alpha:.3f} for nimbus-mini" in ui.playground.alpha_help("nimbus-mini", row)
    unmeasured = drafter_quality("early-exit-29")
    assert unmeasured is None
    assert ui.playground.alpha_help("early-exit-29", unmeasured) == "Kept drafts / checked drafts, in this one text."


def test_playground_says_when_a_draft_cost_is_assumed(monkeypatch):
    """Without a measured row (a drafter retrained, or no drafter table) the speed-up chart
    still draws, and the caption says its cost was assumed, not measured."""
    row = next(r for r in drafter_table() if r.drafter == default_drafter())
    captions = {}
    for name, table in (("measured", drafter_table()), ("unmeasured", [])):
        monkeypatch.setattr(ui.playground, "drafter_table", lambda table=table: table)
        at = page("playground")
        no_exception(at)
        captions[name] = " ".join(c.value for c in at.caption)
    assert "speed-up = tokens per pass ÷ (γ c + v)" in captions["measured"]
    assert f"The cost c of a draft step comes from the drafter table on the So what page ({row.cost_ratio:.2f}), " \
           "and the cost v of the pass that checks γ drafts comes from its γ sweep." in captions["measured"]
    assert f"is taken as 0.10, as the drafter table on the So what page has not measured " \
           f"{default_drafter()}; and the cost v of the pass" in captions["unmeasured"]
    assert "comes from the drafter table" not in captions["unmeasured"]


def test_playground_counts_a_text_that_ended_early():
    at = page("playground", seed="8")  # this draw writes the end-of-text token before 48 tokens
    no_exception(at)
    (label,) = [m.label for m in at.metric if m.label.startswith("Target passes for ")]
    written = int(label.split()[3])
    assert written < 48
    assert any(c.value.startswith(f"rounds to write {written} tokens (the text ended, at an end-of-text "
                                  "token, before 48 tokens)", len(c.value.split()[0]) + 1) for c in at.caption)


def test_a_prompt_the_target_ends_at_once_prices_the_chart_at_the_drafter_tables_alpha():
    """A question reads as finished: Nimbus-large writes only its end-of-text token, one position,
    too few to price the speed-up chart at, so the chart takes the drafter table's α and the page
    says how to get a longer text; one token is written "1 token"."""
    at = page("playground", prompt="What is the capital of France?")
    no_exception(at)
    (note,) = [c.value for c in at.caption if "too few positions to measure α" in c.value]
    assert note.startswith("Nimbus-large ends its text at once after this prompt") and "mid-sentence" in note
    assert not [c.value for c in at.caption if c.value.startswith("α on Nimbus-large's own text")]
    table = specdec_core.quality.drafter_quality(default_drafter()).alpha
    assert f"({table:.3f}, So what page)" in note
    assert any(f"What α = {table:.2f} buys" in m for m in html_texts(at)), html_texts(at)
    assert "Target passes for 1 token" in [m.label for m in at.metric]
    (table_metric,) = [m for m in at.metric if m.label == "α, drafter table"]
    assert table_metric.value == f"{table:.2f}"
    assert any(c.value.startswith("1 round to write 1 token ") for c in at.caption)


def test_a_short_own_text_beside_a_long_run_points_to_another_seed():
    """At this seed Nimbus-large's own text from the open default prompt ends within a few
    tokens, while this run's text, drawn apart, runs on: the note says so and offers another
    seed, not the prompt already in the box."""
    at = page("playground", seed="778")
    no_exception(at)
    (note,) = [c.value for c in at.caption if "too few positions to measure α" in c.value]
    written = int(next(m.label for m in at.metric if m.label.startswith("Target passes for ")).split()[3])
    assert written >= 16, written
    assert note.startswith("Nimbus-large's own text from this prompt ends after ")
    assert f"This run's own text, drawn apart from Nimbus-large's, ran to {written} tokens" in note
    assert "another seed may draw Nimbus-large a longer text" in note and "Your export failed" not in note


def test_playground_draft_quality_slider_changes_the_drafter():
    """The ladder is a slider on the playground: a poorer drafter keeps fewer drafts."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["temperature"] = "0"
    at.run()
    at.switch_page("pages/playground.py").run()
    no_exception(at)
    (quality,) = [w for w in at.select_slider if w.key == "drafter"]
    # each rung names its drafter with the drafter table's α and c, poorest first
    rows = {row.drafter: row for row in drafter_table()}
    alphas = {name: row.alpha for name, row in rows.items()}
    assert list(quality.options) == [f"{drafter_label(n)} (α {rows[n].alpha:.2f}, c {rows[n].cost_ratio:.2f})"
                                     for n in drafter_names()]
    assert sorted(alphas[n] for n in drafter_names()) == [alphas[n] for n in drafter_names()]
    assert not at.sidebar.selectbox
    best = float(at.metric[0].value)
    quality.set_value(drafter_names()[0]).run()
    no_exception(at)
    assert at.session_state["drafter"] == drafter_names()[0]
    assert at.query_params["drafter"] == drafter_names()[0]
    assert float(at.metric[0].value) < best  # measured alpha drops with the poorest drafter
    at.switch_page("pages/walkthrough.py").run()  # the choice carries over to the sidebar
    no_exception(at)
    assert at.sidebar.selectbox[0].value == drafter_names()[0]


def test_race_at_temperature_zero_writes_the_same_text(monkeypatch):
    """With or without the draft's early stop; the early stop reaches the speculative lane,
    whose rounds then draft fewer tokens."""
    real, per_round = ui.race.stream, {}
    for stop in ("0", "0.5"):
        asked = []
        monkeypatch.setattr(ui.race, "stream", lambda *a, **k: asked.append((a[3], k)) or real(*a, **k))
        at = page("race", temperature="0", tokens="16", stop=stop)
        no_exception(at)
        assert not at.warning and at.session_state["stop"] == float(stop)
        button(at, "Start the race").click().run()
        no_exception(at)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Same text?"] == "yes" and metrics["Drafts per round"].endswith("of 4")
        # the line that stands for the results while the race runs gives way to them
        assert not [c.value for c in at.caption if c.value.startswith("The results appear here")]
        per_round[stop] = float(metrics["Drafts per round"].split()[0])
        assert sorted(asked, key=lambda a: a[0]) == [("speculative", {"stop_below": float(stop)}),
                                                     ("target", {"stop_below": float(stop)})]
    assert per_round["0.5"] < per_round["0"]


def test_the_noise_slider_reaches_generate(monkeypatch):
    """The draft noise from the link, then from the slider, is what the playground generates
    with."""
    asked = []
    real = ui.playground.stream

    def spy(*args, **kwargs):
        call = inspect.signature(real).bind(*args, **kwargs)
        call.apply_defaults()
        asked.append(call.arguments["draft_noise"])
        return real(*args, **kwargs)

    monkeypatch.setattr(ui.playground, "stream", spy)
    ui.playground.play_stream.clear()  # a text already written would not be written again
    at = page("playground", noise="0.35")
    no_exception(at)
    at.slider(key="noise").set_value(0.8).run()
    no_exception(at)
    assert asked == [0.35, 0.8]


@pytest.mark.parametrize("name", ["walkthrough", "code", "thread", "playground", "race"])
def test_a_missing_model_file_shows_one_error_naming_its_fix(name, monkeypatch, tmp_path):
    """Without the target's wheel or a converted copy, every page that needs the models shows
    the loader's ModelFileError, with the command that fixes it, and stops there."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda module, *a, **k: None if module == catalog.GGUF_PACKAGE else real(module, *a, **k))
    monkeypatch.setattr(specdec_core.models, "MODEL_CACHE", tmp_path / "cache")
    # the server's cached target stays cached; a fresh load is what meets the missing file
    monkeypatch.setattr(ui.models, "_target", lambda: specdec_core.models.load_target("cpu"))
    ui.models._pair.clear()
    at = page(name)
    no_exception(at)
    (error,) = at.error.values
    assert "is not installed" in error and error.endswith(f"Fix it with: `{catalog.SETUP_COMMAND}`")
    assert not at.metric and not at.get("plotly_chart")  # stopped before anything it computes


@pytest.mark.parametrize("name", ["so_what", "race", "playground"])
def test_a_damaged_file_of_figures_names_its_fix(name, monkeypatch, tmp_path):
    """A file of measured figures cut short (a failed copy, say) is named with the commands
    that bring it back, not shown as a traceback."""
    for file in ("drafters.json", "speed.json", "gamma_sweep.json", "early_stop.json"):
        (tmp_path / file).write_text('[{"drafter": "nimbus-mini", "alp')
    monkeypatch.setattr(specdec_core.quality, "QUALITY_FILE", tmp_path / "drafters.json")
    monkeypatch.setattr(lessons.speed_story, "RESULTS", tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(f"pages/{name}.py").run()
    no_exception(at)
    (error,) = at.error.values
    file = re.escape(str(tmp_path)) + r"/\w+\.json"
    assert re.fullmatch(rf"The measured figures in ({file}) are damaged \(.+\)\. Restore them with "
                        rf"`git checkout -- \1`, or measure them again with `make bench`\.", error), error


@pytest.mark.parametrize("file, content", [
    ("gamma_sweep.json", '{"rows": 5}'),
    ("drafters.json", '[{"drafter": "nimbus-mini", "alpha": "high", "greedy_agreement": 0.5, "cost_ratio": 0.1, '
                      '"best_gamma": 1, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("drafters.json", '[{"drafter": null, "alpha": 0.4, "greedy_agreement": 0.5, "cost_ratio": 0.1, '
                      '"best_gamma": 1, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("drafters.json", '[{"drafter": "x", "alpha": Infinity, "greedy_agreement": 0.5, "cost_ratio": 0.1, '
                      '"best_gamma": 1, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("drafters.json", '[{"drafter": "x", "alpha": 1.5, "greedy_agreement": 0.5, "cost_ratio": 0.1, '
                      '"best_gamma": 1, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("drafters.json", '[{"drafter": "x", "alpha": 0.4, "greedy_agreement": 0.5, "cost_ratio": -0.1, '
                      '"best_gamma": 1, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("drafters.json", '[{"drafter": "x", "alpha": 0.4, "greedy_agreement": 0.5, "cost_ratio": 0.1, '
                      '"best_gamma": 0, "expected_speedup": 1.2, "verify_cost": 1.1, "positions": 9}]'),
    ("gamma_sweep.json", '{"rows": [{"gamma": 4, "verify_cost": 0}]}'),
    ("gamma_sweep.json", '{"rows": [{"gamma": 4, "verify_cost": NaN}]}'),
    ("speed.json", '[{"drafter": "nimbus-mini"}]'),
    ("early_stop.json", '{"rows": []}'),
    ("step_costs_cuda.json", '{"verify_cost": 3}')])
def test_a_file_of_figures_in_the_wrong_shape_names_its_fix(file, content, monkeypatch, tmp_path):
    """A file that is JSON but not what its script writes (a key missing, text for a number, a
    chance above 1, a cost of 0 or less) is named with its fix too, wherever the page reads it."""
    for shipped in lessons.speed_story.RESULTS.glob("*.json"):
        (tmp_path / shipped.name).write_text(shipped.read_text())
    (tmp_path / file).write_text(content)
    monkeypatch.setattr(specdec_core.quality, "QUALITY_FILE", tmp_path / "drafters.json")
    monkeypatch.setattr(lessons.speed_story, "RESULTS", tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/so_what.py").run()
    no_exception(at)
    (error,) = at.error.values
    assert error.startswith(f"The measured figures in {tmp_path / file} are damaged ("), error


def test_a_fault_while_reading_figures_keeps_its_traceback_in_the_log(tmp_path, caplog):
    """The page names the file and its fix; the log keeps what was raised, where, in case the
    fault is in the reading code rather than in the file."""
    from specdec_core.results import ResultsFileError, reading

    path = tmp_path / "gamma_sweep.json"
    with pytest.raises(ResultsFileError, match=r"damaged \(KeyError: 'rows'\)") as info:
        with reading(path):
            {}["rows"]
    assert isinstance(info.value.__cause__, KeyError)
    (record,) = [r for r in caplog.records if r.name == "specdec_core.results"]
    assert str(path) in record.getMessage() and record.exc_info[0] is KeyError


def scoreboard(at: AppTest) -> list[tuple[int, str]]:
    return [(bar.value, bar.text) for bar in at.progress]


def test_the_race_scoreboard_shows_each_sides_progress_on_its_own_clock():
    """One bar per side, above the lanes: its share of the tokens, and the seconds its own clock
    took, which agree with the rate in the lane's header."""
    at = page("race", tokens="8", temperature="0")
    button(at, "Start the race").click().run()
    no_exception(at)
    rates = [float(head.split(" · ")[-1].removesuffix("\u00a0tokens/s")) for head in lane_heads(at)]
    board = scoreboard(at)
    assert [text.split(":")[0] for _, text in board] == [
        "Nimbus-large alone", "Nimbus-mini drafts, Nimbus-large checks"]
    for (value, text), rate in zip(board, rates):
        assert value == 100 and ": 8 of 8 tokens in " in text
        seconds = float(text.rsplit(" in ", 1)[1].removesuffix(" s"))
        assert 8 / rate == pytest.approx(seconds, abs=0.051 + 0.05 * seconds)


LANE_START = '<p style="margin:0 0 0.5rem"><span role="heading"'  # a race lane's element begins so


def lane_heads(at) -> list[str]:
    """Each race lane's heading, the first paragraph of the element that also holds its text,
    as its name and its counts on two lines, without the markup."""
    heads = [m.value.split("\n\n")[0] for m in at.markdown if m.value.startswith(LANE_START) and " tokens · " in m.value]
    return [re.sub(r"<[^>]+>", "", head.replace("<br>\n", "\n")) for head in heads]


def test_the_last_race_stays_on_screen_when_a_setting_moves():
    """To compare settings, a finished race stays under the controls, named by the settings it
    ran with, until the next one starts."""
    at = page("race", tokens="8", temperature="0")
    button(at, "Start the race").click().run()
    no_exception(at)
    lanes = [m.value for m in at.markdown if m.value.startswith(LANE_START) and " tokens · " in m.value]
    # each lane's heading and text are one element, so that a Stop cannot split them
    assert all('class="tokens"' in lane for lane in lanes)
    figures = {m.label: m.value for m in at.metric}
    board = scoreboard(at)
    assert len(lanes) == 2 and figures["Same text?"] == "yes"
    at.slider(key="temperature").set_value(1.0).run()
    no_exception(at)
    assert [m.value for m in at.markdown if m.value.startswith(LANE_START) and " tokens · " in m.value] == lanes
    assert {m.label: m.value for m in at.metric} == figures
    assert scoreboard(at) == board
    (kept,) = [c.value for c in at.caption if "The last race, with" in c.value]
    assert "γ = 4" in kept and "temperature 0," in kept and "8 tokens" in kept
    assert has_button(at, "Start the race")
    assert not [df for df in at.dataframe if "race" in df.value.columns]  # one race: nothing to compare
    # a second race: both stand in a table, the newest first, after the next one as before it
    button(at, "Start the race").click().run()
    no_exception(at)
    for _ in range(2):
        (races,) = [df.value for df in at.dataframe if "race" in df.value.columns]
        assert list(races["race"]) == [2, 1] and list(races["temperature"]) == [1.0, 0.0]
        assert list(races["tokens"]) == [8, 8] and list(races["asked"]) == [8, 8]
        assert races["same text"].iloc[1] == "yes"
        assert "machine" not in races.columns  # neither race shared the machine: no column to say so
        assert "prompt" not in races.columns  # nor one the races share
        at.slider(key="gamma").set_value(2).run()
    # a race on another prompt: the table tells the two prompts apart
    at.text_area(key="prompt").set_value("Dear   customer,\nthanks for your patience while we look into the export").run()
    button(at, "Start the race").click().run()
    no_exception(at)
    (races,) = [df.value for df in at.dataframe if "race" in df.value.columns]
    assert list(races["prompt"]) == ["Dear customer, thanks for your patience…", DEFAULT_PROMPT, DEFAULT_PROMPT]




def test_instructor_modes_table_of_races_keeps_the_setting_that_tells_them_apart():
    """The plain table leaves out seed, top-p and "same text" to fit a projector, but not one in
    which two races differ."""
    at = page("race", present="1", tokens="8")
    button(at, "Start the race").click().run()
    at.slider(key="top_p").set_value(0.9).run()
    button(at, "Start the race").click().run()
    no_exception(at)
    (races,) = [t.value for t in at.table if "race" in t.value.columns]
    assert list(races["top-p"]) == ["0.9", "1"] and "seed" not in races.columns
    # two races so far: the caption does not speak of the eight the table keeps at most
    assert any(c.value.startswith("This session's races. Each race is one sample") for c in at.caption)


def test_a_table_view_writes_its_numbers_to_four_significant_digits():
    """A tiny q (an early exit's, say) showed as 0.0000000000000002; counts and text stay as
    they are, a flag reads yes or no, and a missing value is a blank."""
    rows = [{"token": "a", "p": 0.51194, "q": 2e-16, "count": 3, "drafted": True, "speed": 1.5},
            {"token": "b", "p": 1.0, "q": None, "count": 4, "drafted": False, "speed": 126.49}]
    assert ui.display.table_cells(rows) == [
        {"token": "a", "p": "0.5119", "q": "2e-16", "count": 3, "drafted": "yes", "speed": "1.5"},
        {"token": "b", "p": "1", "q": "", "count": 4, "drafted": "no", "speed": "126.5"}]


def test_a_table_views_numbers_stand_flush_right():
    """Numbers, written out or not and with a dash where a value is missing, line up on the
    right, their headings above them; text and flags stay on the left."""
    rows = [{"position": 1, "token": "a", "p": 0.0676, "u": "0.6215", "kept": True},
            {"position": 2, "token": "b", "p": 1e-16, "u": "—", "kept": False}]
    page_html = ui.display.table_view(rows).to_html()
    rules = [selectors for selectors, style in re.findall(r"([^{}]+)\{([^}]*)\}", page_html)
             if "text-align: right !important" in style]
    cells = {int(c) for selectors in rules for c in re.findall(r"_row\d+_col(\d+)", selectors)}
    headings = {int(c) for selectors in rules for c in re.findall(r"th\.col(\d+)", selectors)}
    assert cells == headings == {0, 2, 3}, page_html


def test_a_table_view_is_a_plain_table_with_every_column():
    """The table under a chart is an HTML table (every column in the page, for a screen reader
    too), not a data frame drawn on a canvas."""
    at = page("playground")
    no_exception(at)
    views = [t.value for t in at.table]
    assert any("kept when checked" in view.columns for view in views)
    assert not [df for df in at.dataframe if "kept when checked" in df.value.columns]


def test_a_decided_round_says_what_text_it_leaves():
    """From step 4 the round is decided: the worked example's rejected "␣not" and the "␣available"
    after it are shown struck through and boxed, and a line under them gives the text that stands."""
    said = "After this round the text reads “Your export failed because your account was locked”"
    for number in (4, 5):
        at = page("walkthrough", step=str(number))
        no_exception(at)
        assert any(said in c.value for c in at.caption), [c.value for c in at.caption]
    assert not any(said in c.value for c in page("walkthrough", step="3").caption)
    kept = [c.value for c in page("walkthrough", step="4", seed="130").caption if "After this round" in c.value]
    assert len(kept) == 1 and "struck" not in kept[0]  # every guess kept: none to leave out


def test_step_3_says_what_its_guesses_looks_mean():
    """Step 3 is the first to show guesses kept (underlined in green), struck through and boxed: a
    key under the line names the looks it shows, and only those."""
    key = [c.value for c in page("walkthrough", step="3").caption if c.value.startswith("The guesses above")]
    assert key == ["The guesses above: underlined in green, kept; struck through, rejected; in a grey "
                   "dashed box, never checked (it came after the rejection)."]
    kept = [c.value for c in page("walkthrough", step="3", seed="130").caption if c.value.startswith("The guesses")]
    assert kept == ["The guesses above: underlined in green, kept."]
    # a first guess rejected leaves three never checked
    from types import SimpleNamespace
    early = SimpleNamespace(gamma=4, record=SimpleNamespace(checks=[SimpleNamespace(accepted=False)]))
    assert ui.round_line.verdict_key(early) == ("The guesses above: struck through, rejected; in a grey "
                                                 "dashed box, never checked (they came after the rejection).")
    predicting = page("walkthrough", step="3", predict="1")  # no coin flipped yet
    assert [c.value for c in predicting.caption if c.value.startswith("The guesses")] == [
        "The guesses above: boxed in orange, not checked yet."]


def test_the_last_step_links_on_to_the_other_pages():
    """Step 5 has no Next: links to the pages that go on from it, which instructor mode's hidden
    sidebar would otherwise keep out of reach. Run through app.py, whose navigation they need."""
    def links(step: str) -> list[str]:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
        at.query_params["step"] = step
        at.run()
        no_exception(at)
        return [link.proto.page for link in at.get("page_link")]
    assert links("5") == ["code", "thread", "so_what", "playground", "race"]
    assert links("4") == []


def test_every_page_but_the_last_ends_with_a_link_on_to_the_next():
    """In the sidebar's order, with or without instructor mode."""
    from ui.page_list import ORDER, next_page
    for present in ("0", "1"):
        for path in [p for p, *_ in ORDER][1:]:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
            at.query_params["present"] = present
            at.run()
            at.switch_page(path).run()
            no_exception(at)
            following = next_page(path)
            links = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
            if following is None:
                assert links == [], path
                continue
            assert links == [(Path(following[0]).stem, f"Next: {following[1]}")], (path, links)
            assert bool(at.session_state["present"]) == (present == "1")


def test_a_race_whose_text_ended_early_shows_its_tokens_beside_those_asked_for():
    lane = lessons.race_record.Finished("x", (), (), (1, 2, 3), passes=2, drafted=4, seconds=1.0)
    row = lessons.race_record.race_row(2, lessons.race_record.Race("", "nimbus-mini", 4, 0.0, 160, lane, lane))
    # numbers, so that the table sorts them as numbers
    assert (row["race"], row["tokens"], row["asked"], row["same text"]) == (2, 3, 160, "yes")


def test_a_race_that_shared_the_machine_says_so(monkeypatch):
    """Other sessions' passes of Nimbus-large during a race slow both clocks: the race says how
    many, and the table marks it; a race with the machine to itself says nothing of it."""
    alone = page("race", tokens="8")
    button(alone, "Start the race").click().run()
    no_exception(alone)
    assert not any("other sessions on this server" in c.value for c in alone.caption)

    class Busy:  # 7 passes by other sessions between the race's start and its end
        def __init__(self):
            self.calls = 0

        def by_others(self):
            self.calls += 1
            return 10 if self.calls == 1 else 17

    monkeypatch.setattr(ui.race, "TARGET_PASSES", Busy())
    shared = page("race", tokens="8")
    button(shared, "Start the race").click().run()
    button(shared, "Start the race").click().run()  # a second race, with the table of both
    no_exception(shared)
    assert sum(c.value == lessons.race_notes.shared_machine_note(7) for c in shared.caption) == 0  # the last race's
    races = shared.session_state["races"]
    assert [race.others_passes for race in races] == [7, 0]
    assert [lessons.race_record.race_row(n, r)["machine"] for n, r in enumerate(races, 1)] == ["shared", "alone"]
    assert list(shared.dataframe[0].value["machine"]) == ["alone", "shared"]  # newest first
    shown = page("race", tokens="8")
    monkeypatch.setattr(ui.race, "TARGET_PASSES", Busy())
    button(shown, "Start the race").click().run()
    assert sum(c.value == lessons.race_notes.shared_machine_note(7) for c in shown.caption) == 1
    assert "made 7 passes of Nimbus-large" in lessons.race_notes.shared_machine_note(7)
    assert "made 1 pass of" in lessons.race_notes.shared_machine_note(1)


def test_a_race_calls_the_machine_shared_from_a_tenth_of_its_own_passes():
    """One walkthrough round elsewhere during a long race is no remark; a tenth as many passes
    as the race's own is."""
    lane = lessons.race_record.Finished("x", (), (), (1,) * 160, passes=100, drafted=0, seconds=1.0)
    race = lessons.race_record.Race("", "nimbus-mini", 4, 0.0, 160, lane, lane)  # 200 passes of its own
    assert [replace(race, others_passes=n).shared for n in (0, 1, 19, 20)] == [False, False, False, True]
    assert lessons.race_record.race_row(1, replace(race, others_passes=19))["machine"] == "alone"


def test_a_lane_counts_one_token_and_one_pass_in_the_singular():
    """Every race draws Nimbus-large's lane first after one token and one pass."""
    one = lessons.race_record.Finished("Nimbus-large alone", (), (), (1,), passes=1, drafted=0, seconds=0.5)
    assert ui.race.lane_heading(one).endswith("<br>\n1 token · 1 target pass · 2.0\u00a0tokens/s</p>")
    two = lessons.race_record.Finished("Nimbus-large alone", (), (), (1, 2), passes=2, drafted=0, seconds=0.5)
    assert ui.race.lane_heading(two).endswith("<br>\n2 tokens · 2 target passes · 4.0\u00a0tokens/s</p>")
    # the name is a heading to a screen reader, which moves between the lanes by them
    assert '<span role="heading" aria-level="2" style="font-weight:600">Nimbus-large alone</span>' in \
        ui.race.lane_heading(one)


def slow_lane(monkeypatch, *methods: str) -> None:
    """Add half a second to the clock of each side named at each of its passes."""
    step = ui.race.Lane.step

    def slow_step(self):
        step(self)
        if self.method in methods:
            self.clock += 0.5

    monkeypatch.setattr(ui.race.Lane, "step", slow_step)


def test_a_race_the_pair_loses_says_why(monkeypatch):
    """The speculative lane's clock is made slow on purpose: the pair loses, and the page
    works the loss out from the drafter table's c and the γ sweep's v; with the early stop,
    the check is priced at the drafts a round averaged."""
    slow_lane(monkeypatch, "speculative")
    cost = {r.drafter: r.cost_ratio for r in drafter_table()}[default_drafter()]
    for stop, checked in (("0", "checks 4 drafts about"),
                          ("0.5", "drafts (a round's average here, with the early stop) about")):
        at = page("race", tokens="24", temperature="0", stop=stop)
        button(at, "Start the race").click().run()
        no_exception(at)
        assert float({m.label: m.value for m in at.metric}["Speed-up"].removesuffix("x")) < 1
        said = [c.value for c in at.caption if c.value.startswith(("Why the pair lost", "By the costs"))]
        assert len(said) == 1, at.caption.values
        assert f"a draft step costs about {cost:.2f} of a Nimbus-large pass" in said[0]
        assert checked in said[0], said[0]


def test_a_race_the_pair_wins_says_why_it_gained_less_than_its_tokens_per_pass(monkeypatch):
    """Both clocks slowed alike, so that each pass costs about the same on both sides: the pair
    wins by a little under its tokens per pass, and the page prices a round as for a loss."""
    slow_lane(monkeypatch, "speculative", "target")
    cost = {r.drafter: r.cost_ratio for r in drafter_table()}[default_drafter()]
    at = page("race", tokens="24", temperature="0")
    button(at, "Start the race").click().run()
    no_exception(at)
    shown = {m.label: m.value for m in at.metric}
    speedup = float(shown["Speed-up"].removesuffix("x"))
    assert speedup >= 1
    said = [c.value for c in at.caption if c.value.startswith("Why ")]
    assert len(said) == 1 and "made the pair only" in said[0], at.caption.values
    assert f"only {speedup:.2f}x as fast" in said[0]
    assert f"a draft step costs about {cost:.2f} of a Nimbus-large pass" in said[0]
    assert "Why the pair lost" not in " ".join(at.caption.values)


def test_a_race_thrown_off_by_noise_does_not_also_claim_a_small_scatter(monkeypatch):
    """Nimbus-large's lane is made slow on purpose, so the pair's speed-up overshoots what its
    passes allow: the page says that was noise, and not, beside it, that a race moves by a tenth."""
    slow_lane(monkeypatch, "target")
    at = page("race", tokens="24", temperature="0")
    button(at, "Start the race").click().run()
    no_exception(at)
    captions = " ".join(c.value for c in at.caption)
    assert "most likely timing noise" in captions and "a tenth or two" not in captions


def test_race_advice_prices_checking_as_the_playground_does(monkeypatch):
    """The advice's best γ and speed-up come from the table's α and c with the checking pass at
    the γ sweep's measured costs, as on the playground, whatever v the table's own run timed
    (below 1, it flattered the table's figure)."""
    row = {r.drafter: r for r in drafter_table()}[default_drafter()]
    best, speedup = best_gamma(row.alpha, row.cost_ratio, saved_verify_costs())
    assert lessons.speed_story.expected_best(row) == (best, speedup)
    other = 8 if best != 8 else 1
    for v in (0.9, 1.3):  # the table's own v: no part in the advice
        monkeypatch.setattr(ui.race, "drafter_quality", lambda name, v=v: replace(row, verify_cost=v))
        at = page("race", gamma=str(other))
        no_exception(at)
        advice = [c.value for c in at.caption if f"pay off most at γ = {best} ({speedup:.2f}x)" in c.value]
        assert len(advice) == 1 and "γ sweep's measured costs" in advice[0]
        # and what the γ on the slider is expected to give, priced the same way
        here = expected_speedup(row.alpha, other, row.cost_ratio, saved_verify_costs()[other])
        assert f"; at γ = {other}, {here:.2f}x" in advice[0]


@pytest.mark.parametrize("expected, said", [(0.86, ", slower than Nimbus-large alone."),
                                            (1.09, ", close enough to 1x that one race can come out a loss."),
                                            (1.3, ". The k-th draft of a round")])
def test_race_advice_says_what_the_gamma_on_the_slider_is_expected_to_give(monkeypatch, expected, said):
    """Below 1x the γ on the slider is expected to lose; within a race's scatter of 1x one race
    can lose; above, nothing more is said."""
    monkeypatch.setattr(ui.race, "expected_at", lambda row, gamma, verify: expected)
    best, _ = lessons.speed_story.expected_best({r.drafter: r for r in drafter_table()}[default_drafter()])
    at = page("race", gamma=str(8 if best != 8 else 1))
    no_exception(at)
    (advice,) = [c.value for c in at.caption if "pay off most at γ" in c.value]
    assert f"x); at γ = {8 if best != 8 else 1}, {expected:.2f}x{said}" in advice


def test_race_lanes_name_the_chosen_drafter():
    at = page("race", drafter="early-exit-4", tokens="8")
    button(at, "Start the race").click().run()
    no_exception(at)
    lanes = [head.split("\n")[0] for head in lane_heads(at)]
    assert lanes == ["Nimbus-large alone", "early-exit-4 drafts, Nimbus-large checks"]


def test_race_points_to_the_measured_best_gamma():
    """The drafter table's best γ is suggested when the race runs at another γ without the
    early stop, and only then; a drafter that never pays off is called slower."""
    table = {r.drafter: r for r in drafter_table()}
    best, _ = lessons.speed_story.expected_best(table[default_drafter()])
    other = 8 if best != 8 else 1
    hint = f"expected to pay off most at γ = {best}"
    at = page("race", gamma=str(other))
    no_exception(at)
    assert any(hint in c.value for c in at.caption)
    button(at, f"Use γ = {best}").click().run()  # one click takes the advice
    no_exception(at)
    assert at.session_state["gamma"] == best and at.query_params["gamma"] == str(best)
    assert not any(hint in c.value for c in at.caption)
    at = page("race", gamma=str(best))
    assert not any(hint in c.value for c in at.caption) and not has_button(at, f"Use γ = {best}")
    caveat = "The table was measured at temperature 1 without top-p"
    assert not any(caveat in c.value for c in page("race", gamma=str(other)).caption)
    for setting in ({"temperature": "0"}, {"top_p": "0.5"}):  # not what the table measured
        at = page("race", gamma=str(other), **setting)
        assert any(hint in c.value and caveat in c.value for c in at.caption)
    at = page("race", gamma=str(other), stop="0.5")  # the early stop changes what pays
    assert not any("γ =" in c.value for c in at.caption) and not has_button(at, f"Use γ = {best}")
    poor, speedup = lessons.speed_story.expected_best(table["early-exit-4"])
    assert speedup < 1
    at = page("race", drafter="early-exit-4", gamma=str(8 if poor != 8 else 1))
    assert any(f"early-exit-4 is expected to be slower than Nimbus-large alone at every γ; it loses least at "
               f"γ = {poor}" in c.value for c in at.caption)


HOSTILE = "<b>bold</b><script>alert(1)</script>"


def test_a_newline_token_is_seen_and_breaks_the_line():
    body = colored_text([("Hi", "accepted"), ("\n\n", "correction"), ("there", "bonus")])
    assert body.count("<br>") == 2 and "↵↵" in body
    assert body.index("↵↵") < body.index("<br>") < body.index("there")  # the chip, then the break
    indented = colored_text([("\n    ", "accepted"), ("return", "accepted")])
    assert "↵␣␣␣␣</span>" in indented and indented.count("<br>") == 1  # no bar of bare spaces
    assert "x = 1" in colored_text([("x = 1", "accepted")])  # spaces inside a line stay spaces
    # lines break between tokens, not inside one
    assert body.count("<wbr>") == 2 and body.count("white-space:pre") == 3


def test_a_token_that_prints_nothing_still_shows_what_it_is():
    body = colored_text([("\u2001\u2001", "correction"), ("\u0301", "accepted"), ("a\u200bb", "bonus")])
    assert "⟨U+2001⟩⟨U+2001⟩" in body and ">◌\u0301<" in body and "a⟨U+200B⟩b" in body
    assert "\u2001" not in body.split('class="sr-only"')[0]  # the chips; the spoken text is as written


def test_someones_own_text_keeps_its_lines_and_its_direction():
    body = plain_text("مرحبا، أين فاتورتي؟\r\n\n  Order 12")
    assert "\n" not in body and body.count("&#10;") == 2  # one HTML block, the blank line kept
    assert 'dir="auto"' in body and "white-space:pre-wrap" in body and "&#10;  Order 12<" in body
    # a character that reverses what follows it shows as itself; a joiner inside an emoji stays
    reversed = plain_text("\u202eHi, my export failed 👩\u200d💻")
    assert "\u202e" not in reversed
    assert '<span dir="ltr">⟨U+202E⟩</span>Hi, my export failed 👩\u200d💻<' in reversed


def test_someones_own_text_stays_one_html_block_that_markdown_leaves_alone():
    """A blank line ends an HTML block, and markdown then reads what follows: a link, a picture
    fetched from another site. CommonMark (which Streamlit's markdown follows) ends a line at
    "\r" as well as "\n"; a block that markdown leaves alone comes out exactly as it went in."""
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark")
    for text in ("Hi\r\r![x](https://tracker.example/p.png) [click me](https://evil.example)",
                 "Hi\n\n**bold** _it_ `code` $x$ ~~gone~~", "a\r\n\r\n<b>x</b>", "\\*not*\\"):
        for body in (plain_text(text), html_div(colored_text([(text, "accepted"), ("!", "bonus")]))):
            assert markdown.render(body).strip() == body, (text, body)
    assert plain_text("*a* [b](c) `d`").count("&#42;") == 2  # read as text even outside a block


def test_the_colour_key_reads_as_words():
    key = origin_legend()
    for label in ("accepted draft", "correction (from the residual)", "bonus (from p)"):
        assert f">{label}</span>" in key  # no ␣ between its words, as a token's spaces get
    chips = key.split('<span class="tok"')[1:]
    assert len(chips) == 3
    # to a screen reader, a list: "Colour key: accepted draft, correction (…), bonus (from p)"
    spoken = re.sub(r"<[^>]+>", "", key)
    assert spoken == "Colour key: accepted draft, correction (from the residual), bonus (from p)"
    for c in chips:  # the page's type: in a style, the later of two rules wins
        assert c.index("font-family:monospace") < c.index("font-family:inherit")
        assert c.index("white-space:break-spaces") < c.index("white-space:nowrap")  # kept whole


def test_a_token_without_text_of_its_own_still_gets_a_chip_of_its_colour():
    """The chips add up to the counts beside them: the first half of an emoji gets a narrow chip
    in its own colour (the character goes whole to the token that completes it), and the end
    of the text an "end" chip."""
    body = colored_text([("Hi", "accepted"), ("", "accepted"), ("😀", "correction"), ("", "bonus")])
    chips = body.split('<span class="sr-only">')[0].split("<wbr>")
    assert len(chips) == 4 and body.count('class="tok"') == 4
    assert [chip_fill(ORIGIN_COLORS["accepted"]) in chips[1], chip_fill(ORIGIN_COLORS["bonus"]) in chips[3]] == [True, True]
    assert "part of the character the next token completes" in chips[1] and "width:0.5em" in chips[1]
    assert ">end</span>" in chips[3] and "the end of the text" in chips[3]
    assert "😀" in chips[2] and "(2 kept drafts, 1 correction, 1 bonus token; corrections: 😀; bonus tokens: end of text)" in body


def test_a_correction_is_told_from_a_kept_draft_by_its_hatching_too():
    """To a red-green colour-blind eye a correction's pale fill and a kept draft's look alike,
    and a dashed line under a one-character chip is one dash: a correction's chip, in the text,
    the key and the walkthrough's round, is hatched, and no other chip is."""
    body = colored_text([("a", "accepted"), (".", "correction"), ("b", "bonus"), ("", "correction")])
    chips = body.split('<span class="sr-only">')[0].split("<wbr>")
    hatched = [("repeating-linear-gradient" in c) for c in chips]
    assert hatched == [False, True, False, True]
    # the hatching stops short of the 3 px underline, which stands 3:1 against the plain fill
    assert all("background-size:100% calc(100% - 3px)" in c for c, h in zip(chips, hatched) if h)
    legend = origin_legend(with_target=True).split("</span>")
    assert [("repeating-linear-gradient" in e) for e in legend if 'class="tok"' in e] == \
        [o == "correction" for o in ORIGIN_LABELS]
    at = page("walkthrough", step="4")  # the worked example ends on a correction
    no_exception(at)
    ending = [h for h in html_texts(at) if "← correction" in h]
    assert ending and all("repeating-linear-gradient" in h for h in ending)


def test_a_chips_line_stands_out_from_its_fill():
    """A chip's underline or box carries meaning, so it needs WCAG's 3:1 against the chip's
    fill, which the palette's own colours miss (orange 1.9:1); its text, 4.5:1 on the fill."""
    assert contrast("#E69F00", chip_fill("#E69F00")) < 3  # why the line is darkened at all
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    for color in (*ORIGIN_COLORS.values(), ui.round_line.Q_COLOR, ui.round_line.REJECT_COLOR):
        line, fill = line_color(color), chip_fill(color)
        assert contrast(line, fill) >= 3, color
        assert line == color.lower() or contrast(line, fill) < 3.1  # darkened only as needed
        assert contrast("#31333F", fill) >= 4.5  # Streamlit's text colour on the chip
        assert f"3px solid {line}" in ui.display.chip("x", color) and f"background:{fill}" in ui.display.chip("x", color)
    assert contrast(ui.round_line.UNCHECKED_LINE, ui.round_line.UNCHECKED_FILL) >= 3


def test_the_walkthroughs_guesses_are_told_apart_without_colour():
    """Underlined: part of the text, with the line every page gives its origin (kept solid,
    correction dashed, bonus double); boxed: a guess with no verdict yet (solid) or never
    (dashed); struck through: rejected."""
    def looks(step, **query):
        at = page("walkthrough", step=str(step), **query)
        (line,) = [t for t in html_texts(at) if "<b>Continuing:</b>" in t]
        return dict(re.findall(r'class="tok" title="([^"]*)" style="([^"]*)"', line))  # title: style
    (line,) = [t for t in html_texts(page("walkthrough", step="2")) if "<b>Continuing:</b>" in t]
    assert '<span aria-hidden="true">␣</span>account' in line  # a mark for the eye, not "open box"
    drafted = looks(2)["drafted"]
    assert "outline:2px solid" in drafted and "border-bottom:none" in drafted
    assert "outline:2px dashed" in looks(3)["never checked"]  # the worked example's fourth guess
    decided = looks(4)  # the worked example: kept, kept, rejected, a correction
    assert "3px solid" in decided["kept"] and "outline" not in decided["kept"]
    assert "line-through" in decided["rejected"]
    assert "3px dashed" in decided["correction"]
    assert "3px double" in looks(4, seed="130")["bonus"]


def test_a_tokens_origin_is_told_without_colour():
    """Underlines differ by origin, in the text and its key alike. A screen reader skips the
    chips, which split words into tokens, and hears the text whole with how its tokens came."""
    body = colored_text([("Hi", "accepted"), (" the", "correction"), ("re", "accepted"), ("!", "bonus")])
    chips, spoken = body.split('<span class="sr-only">')
    assert chips.startswith('<span aria-hidden="true">')
    kept, corrected, _, bonus = chips.split('<span class="tok"')[1:]
    assert "3px solid" in kept and "3px dashed" in corrected and "3px double" in bonus
    # and which tokens did not come as kept drafts, which their colours show
    assert spoken == ("Hi there! (2 kept drafts, 1 correction, 1 bonus token; corrections: the; "
                      "bonus tokens: exclamation mark)</span>")
    mixed = colored_text([("Dear", "accepted"), ("", "correction"), ("😀", "accepted"), ("\n", "correction"),
                          (" ", "bonus"), ("", "bonus")])
    assert mixed.endswith("(2 kept drafts, 2 corrections, 2 bonus tokens; corrections: part of a character, "
                          "line break; bonus tokens: space, end of text)</span>")
    # no raw line break anywhere: in markdown a blank line ends the HTML block, and what the page
    # adds after the text (the "…" of a cut reply, the colour key) would be swallowed
    letter = colored_text([("Dear", "accepted"), (",\n\n", "correction"), ("Thank", "bonus")]) + " …"
    assert "\n" not in letter and "Dear, Thank (1 kept draft, 1 correction, 1 bonus token; corrections: comma; " \
                                   "bonus tokens: Thank)" in letter
    alone = colored_text([("<b>", "target"), ("&", "target")])
    assert alone.endswith('<span class="sr-only">&lt;b&gt;&amp; (2 tokens Nimbus-large wrote alone)</span>')
    key = origin_legend(with_target=True)
    assert ">Nimbus-large alone (from p)</span>" in key and key.count("3px double") == 1 and "3px dotted" in key
    assert "Nimbus-large alone" not in origin_legend()


@pytest.mark.parametrize("name", ["playground", "race"])
def test_a_prompt_over_the_limit_is_cut_with_a_message(name):
    at = page(name)
    assert not at.warning
    at.text_area(key="prompt").input("Where is my invoice? " * 30).run()  # 630 characters
    no_exception(at)
    kept = at.session_state["prompt"]
    assert len(kept) <= MAX_PROMPT_CHARS and kept.endswith("invoice?") and at.text_area[0].value == kept
    assert [w.value for w in at.warning] == [
        f"The prompt had 630 characters, more than the {MAX_PROMPT_CHARS} this page takes, so it keeps "
        f"the first {len(kept)} characters."]
    assert at.query_params["prompt"] == kept
    at.text_area(key="prompt").input("Where is my invoice?").run()  # the message goes with the cut
    assert not at.warning and at.session_state["prompt"] == "Where is my invoice?"
    # a link with a longer prompt or message is cut the same way, not thrown away
    (message,) = THREAD
    cut, said = message.fit("Where is my invoice? " * 20)
    assert len(cut) <= lessons.thread.MAX_QUESTION and ("Where is my invoice? " * 20).startswith(cut + " ")
    assert said.startswith("The message in the link had 420 characters")
    linked = page(name, prompt="Where is my invoice? " * 30)
    no_exception(linked)
    assert linked.session_state["prompt"] == kept
    assert [w.value for w in linked.warning] == [
        f"The prompt in the link had 630 characters, more than the {MAX_PROMPT_CHARS} this page takes, "
        f"so it keeps the first {len(kept)} characters."]


def test_markdown_in_a_token_is_shown_as_written():
    assert plain_markdown("“␣**” costs $5, a_b `x` [a](b) #1 <i> ~ | \\") == \
        "“␣\\*\\*” costs \\$5, a\\_b \\`x\\` \\[a\\](b) \\#1 \\<i\\> \\~ \\| \\\\"


def test_a_token_that_reads_as_markdown_stays_plain_in_the_walkthrough(monkeypatch):
    """Tokens such as “**” or “$” are in the vocabulary; the sentences around them are
    markdown, so each sentence that quotes tokens shows them escaped."""
    monkeypatch.setattr(lessons.scenario.Scenario, "label", lambda self, token: "**$x$**")
    at = page("walkthrough", step="1")
    no_exception(at)
    escaped = "“\\*\\*\\$x\\$\\*\\*”"
    assert escaped in at.success[0].value
    # the chart's text alternative, as HTML in which markdown's characters are references
    assert any(spoken_text("“**$x$**”") in c.value for c in at.caption)
    assert "&#42;&#42;&#36;x&#36;&#42;&#42;" in spoken_text("**$x$**")
    at = page("walkthrough", step="3", predict="1")
    assert escaped in at.info[0].value


def test_a_charts_text_alternative_hides_the_whitespace_marks_from_a_screen_reader():
    """“␣account” would be read “open box account”: the mark is for the eye, in the caption a
    chart is described by as in a token's chip."""
    assert spoken_text("“␣a”↵ <b>") == '“<span aria-hidden="true">␣</span>a”<span aria-hidden="true">↵</span> &lt;b&gt;'
    at = page("walkthrough", step="3", seed="11")
    no_exception(at)
    (alt,) = [c.value for c in at.caption if "min(1, p/q)" in c.value]
    assert '<span aria-hidden="true">␣</span>' in alt and "␣" not in alt.replace('<span aria-hidden="true">␣</span>', "")


def test_html_in_a_prompt_is_shown_escaped():
    """The playground shows the prompt in its box and, escaped, before the text it continues;
    the helpers below are what keeps token text escaped wherever it goes into HTML."""
    at = page("playground", prompt=HOSTILE + " *not bold* :material/home:")
    no_exception(at)
    assert not at.warning
    assert at.text_area[0].value == HOSTILE + " *not bold* :material/home:"
    for text in html_texts(at):
        assert "<script>" not in text and "<b>bold" not in text
    # the text's block opens with the prompt, nothing in it read as HTML or markdown
    (block,) = [t for t in html_texts(at) if 'class="tokens"' in t and "accepted draft" in t]
    lead = re.match(r'<div class="tokens"[^>]*><b>Continuing:</b> <span class="prompt"><span class="tok"[^>]*>(.*?)</span>',
                    block)
    assert lead and lead[1] == ("&lt;b&gt;bold&lt;/b&gt;&lt;script&gt;alert(1)&lt;/script&gt; "
                                "&#42;not bold&#42; &#58;material/home&#58;"), block[:300]
    assert prompt_chip("\u202eevil").count("⟨U+202E⟩") == 1  # a direction character cannot turn it
    # the helpers every page uses to put text into unsafe HTML escape it
    for body in (chip(HOSTILE), chip(HOSTILE, visible_space=False), plain_text(HOSTILE),
                 colored_text([(HOSTILE, "accepted"), ("ok", "bonus")])):
        assert "<script>" not in body and "<b>" not in body
        assert html.escape("<script>") in body


def test_the_drafters_described_as_the_shipped_nimbus_mini_was_made():
    """The help that names the drafters quotes Nimbus-mini's corpus and head as its config records
    them, so a retrained drafter with other figures fails here until the words follow."""
    recipe = json.loads((ROOT / "assets" / "nimbus-mini" / "config.json").read_text())["recipe"]
    named = ui.settings.DRAFTERS_NAMED
    assert f"about {round(recipe['train_tokens'], -4):,} tokens Nimbus-large wrote" in named
    assert f"only the {drafter_vocabulary('nimbus-mini'):,} tokens that hold the most" in named
    assert recipe["layers"] == 2 and "is two layers" in named


def test_the_code_page_says_where_else_the_rule_runs():
    at = page("code")
    no_exception(at)
    beyond = [m.value for m in at.markdown if m.value.startswith("**Beyond this project.**")]
    assert len(beyond) == 1 and "vLLM" in beyond[0] and "gives up exactness" in beyond[0]


def test_each_page_leads_on_to_the_next_as_the_sidebar_lists_them():
    """In instructor mode a clicker follows each page's link on to the next (ui/keys.py): the
    walkthrough's first link on from its last step and every other page's foot lead on in the
    sidebar's order, and the last page leads nowhere."""
    from ui.page_list import ORDER, next_page

    paths = [path for path, _, _ in ORDER]
    assert [next_page(path)[0] for path in paths[:-1]] == paths[1:]
    assert next_page(paths[-1]) is None
    with pytest.raises(ValueError, match="no page"):
        next_page("pages/nowhere.py")
    assert ui.walkthrough.NEXT_PAGES[0][0] == next_page(paths[0])[0] == "pages/code.py"
    for path in paths[1:]:  # the walkthrough ends with its own links on
        assert (ROOT / path).read_text().rstrip().endswith("frame.end(__file__)"), path


@pytest.mark.parametrize("slow", ["0", "1"])
def test_slow_motion_waits_between_passes_outside_both_clocks(monkeypatch, slow):
    """Slow motion holds each pass on screen until SLOW_MOTION times its side's clock has
    passed since the start; the waits are on no clock, and other sessions' passes made during
    them do not call the machine shared."""
    waits, clocks = [], []

    class Elsewhere:  # other sessions make 5 passes of Nimbus-large during each wait
        passes = 0

        def by_others(self):
            return self.passes

    elsewhere = Elsewhere()

    def wait(moment):
        waits.append(moment)
        elsewhere.passes += 5

    step = ui.race.Lane.step

    def recorded_step(self):
        step(self)
        clocks.append(self.clock)

    monkeypatch.setattr(ui.race, "_wait_until", wait)
    monkeypatch.setattr(ui.race, "TARGET_PASSES", elsewhere)
    monkeypatch.setattr(ui.race.Lane, "step", recorded_step)
    at = page("race", tokens="8", temperature="0", slow=slow)
    assert at.toggle(key="slow").value == (slow == "1")
    button(at, "Start the race").click().run()
    no_exception(at)
    race = at.session_state["races"][-1]
    assert race.others_passes == 0  # made while no side ran, so on no clock
    if slow == "0":
        assert waits == []
        return
    # one wait after each step, until the moment SLOW_MOTION times the stepped side's clock
    assert len(waits) == len(clocks) >= race.base.passes + race.spec.passes
    assert [w - waits[0] for w in waits] == pytest.approx(
        [ui.race.SLOW_MOTION * (c - clocks[0]) for c in clocks], abs=1e-9)


@pytest.mark.parametrize("url, listens_on, network_ip, shown, note", [
    # opened on this computer, served on every interface: the network address Streamlit found
    ("http://localhost:8501/race", None, "192.168.1.20", "http://192.168.1.20:8501/race", "FOUND"),
    ("http://127.0.0.1:8501", "", "10.0.0.7", "http://10.0.0.7:8501", "FOUND"),
    # served on this computer alone, or no network address found: only the note
    ("http://127.0.0.1:8501/", "127.0.0.1", "192.168.1.20", "http://127.0.0.1:8501/", "ONLY_HERE"),
    ("http://localhost:8501/", None, "127.0.0.1", "http://localhost:8501/", "ONLY_HERE"),
    ("http://localhost:8501/", None, None, "http://localhost:8501/", "ONLY_HERE"),
    # every interface written out; other names of this computer; no port; https; the link's path
    ("http://localhost:8501/so_what", "0.0.0.0", "10.0.0.7", "http://10.0.0.7:8501/so_what", "FOUND"),
    ("https://127.0.1.1/code", "::", "10.0.0.7", "https://10.0.0.7/code", "FOUND"),
    ("http://[::1]:8501/", None, "10.0.0.7", "http://10.0.0.7:8501/", "FOUND"),
    ("http://app.localhost.:8501/", None, "fd00::7", "http://[fd00::7]:8501/", "FOUND"),
    ("http://[::ffff:127.0.0.1]:8501/", None, None, "http://[::ffff:127.0.0.1]:8501/", "ONLY_HERE"),
    # a server on one address of the network: that address
    ("http://localhost:8501/", "192.168.1.5", "10.0.0.7", "http://192.168.1.5:8501/", "FOUND"),
    # an address the class can already use stays as it is, with no note
    ("http://lab-pc.local:8501/", None, "192.168.1.20", "http://lab-pc.local:8501/", ""),
    ("http://192.168.1.20:8501/", "127.0.0.1", "192.168.1.20", "http://192.168.1.20:8501/", ""),
])
def test_the_class_gets_an_address_it_can_reach(url, listens_on, network_ip, shown, note):
    expected_note = getattr(ui.class_link, note) if note else ""
    assert ui.class_link.for_the_class(url, listens_on, network_ip) == (shown, expected_note)
