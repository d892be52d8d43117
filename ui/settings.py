"""The app's controls: which live in the URL, their ranges, and the shared sidebar."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from lessons.scenario import WALKTHROUGH_PROMPT
from lessons.thread import QUESTIONS, fit_question
from lessons.wording import fit_text
from specdec_core.catalog import default_drafter, drafter_names
from specdec_core.sampling import GAMMAS

from .style import switched
from .url_state import (MAX_SEED, bool_param, choice_param, drop_unknown, float_param, int_choice_param,
                        int_param, keep, load, save, show_problems, text_param)

MAX_PROMPT_CHARS = 400
# a round that shows every part of the rule with Nimbus-mini: two drafts kept (one because
# p >= q), the third rejected and corrected ("Your export failed because your account was locked")
DEFAULT_SEED = 16
DEFAULT_PROMPT = WALKTHROUGH_PROMPT  # the playground and the race start from the lesson's sentence

SHARED = [
    choice_param("drafter", default_drafter(), drafter_names),
    int_param("seed", DEFAULT_SEED, 0, MAX_SEED),
    bool_param("present"),
    bool_param("predict"),
]
SIMULATED_DRAWS = (100, 1_000, 10_000, 100_000)  # step 5's choices
WALKTHROUGH = [int_param("step", 1, 1, 5), int_choice_param("draws", 10_000, SIMULATED_DRAWS)]
PLAYGROUND = [
    int_param("gamma", 4, GAMMAS[0], GAMMAS[-1]),
    float_param("noise", 0.0, 0.0, 1.0, 0.05),
    float_param("temperature", 1.0, 0.0, 2.0, 0.1),
    float_param("top_p", 1.0, 0.05, 1.0, 0.05),
    text_param("prompt", DEFAULT_PROMPT,
               lambda text: fit_text(text, MAX_PROMPT_CHARS, "prompt in the link")),
]
# the early stop's slider names 0 "off"
RACE = [int_param("tokens", 48, 8, 160, 8),
        replace(float_param("stop", 0.0, 0.0, 0.9, 0.1), rule="0 (off) or a number from 0.1 to 0.9 in steps of 0.1"),
        bool_param("slow")]
# the race's controls: the playground's, but for the draft noise, which it has no slider for
RACE_PAGE = [p for p in PLAYGROUND if p.name != "noise"] + RACE
THREAD = [text_param("message", QUESTIONS[0],
                    lambda text: fit_question(text, "message in the link"))]
EVERY_PAGE = SHARED + WALKTHROUGH + PLAYGROUND + RACE + THREAD

__all__ = ["show_problems"]  # url_state's, which every page calls through this module


# the drafters by name, for the controls that choose one
DRAFTERS_NAMED = ("early-exit-K is Nimbus-large's first K layers and its output layer, used "
                  "untrained as a drafter; nimbus-mini-early is Nimbus-mini as it was after 4% of "
                  "its training (a saved checkpoint; nothing to do with the early stop that the race "
                  "and the speed table can set, which ends a round's draft where the drafter is "
                  "unsure); Nimbus-mini "
                  "is two layers started from Nimbus-large's own and distilled from it: trained on "
                  "about 570,000 tokens Nimbus-large wrote, to match p there and raise Σ min(p, q). "
                  "It shares Nimbus-large's tokenizer, and its output layer scores only the 8,192 "
                  "tokens that hold the most of Nimbus-large's probability in that text (and the "
                  "end of text), which keeps each step cheap.")

# what a control does, in its tooltip, on every page that has it
HELP = {
    "gamma": "How many tokens the drafter writes in a round before Nimbus-large checks them all "
             "in one pass",
    "temperature": "Divides both models' scores before the softmax: lower is more predictable. "
                   "The rule then compares the reshaped p and q. At 0, p puts all its weight on "
                   "one token, so a draft is kept exactly when it is Nimbus-large's top choice, and a "
                   "rejected one is replaced by that top choice.",
    "top_p": "Each model keeps only its own most likely tokens that together hold this much "
             "probability, and the rule compares the reshaped p and q, so α can rise or fall. A draft "
             "outside Nimbus-large's set has p = 0 and is always rejected. "
             "The guarantee is then about Nimbus-large with the same temperature and top-p. At "
             "temperature 0 each model takes its top token whatever top-p is, so it is switched off. "
             "Only p must be Nimbus-large's own distribution, reshaped; the draft's may be anything "
             "(the playground's draft noise shows it), as long as the q in p/q is the one the draft "
             "drew from and both models share one tokenizer.",
}


def limits(name: str) -> dict:
    """min_value, max_value and step for the widget of the number `name`: exactly the values
    its link accepts."""
    return next(p.limits for p in EVERY_PAGE if p.name == name and p.limits)


def grid(name: str) -> list[float]:
    """Every value the number `name`'s link accepts, in order: the options of a select slider
    that names one of them in words."""
    lo, hi, step = (limits(name)[k] for k in ("min_value", "max_value", "step"))
    return [round(lo + i * step, 6) for i in range(round((hi - lo) / step) + 1)]


def keep_all() -> None:
    """Every page keeps every page's settings: the playground's γ survives a visit to So what."""
    keep(EVERY_PAGE)


def load_walkthrough() -> list[str]:
    return load(WALKTHROUGH)


def save_walkthrough() -> None:
    save(WALKTHROUGH)


def load_playground() -> list[str]:
    return load(PLAYGROUND)


def save_playground() -> None:
    save(PLAYGROUND)


def load_race() -> list[str]:
    return load(RACE_PAGE)


def save_race() -> None:
    save(RACE_PAGE)


def load_thread() -> list[str]:
    return load(THREAD)


def save_thread() -> None:
    save(THREAD)


def load_shared() -> list[str]:
    """The sidebar's settings from the link, and messages about what the link got wrong there
    or named that no page has."""
    return load(SHARED) + drop_unknown(EVERY_PAGE)


def save_shared() -> None:
    save(SHARED)


def in_the_sidebar() -> str:
    """Where a reader changes a shared setting, said so that it holds in instructor mode too,
    which hides the sidebar."""
    return "in the sidebar" + (", after leaving instructor mode" if st.session_state.get("present") else "")


def sidebar(drafter: bool = True) -> None:
    """Controls every page shares (values already loaded from the URL). `drafter=False` leaves
    the draft model out, for a page that offers it as a slider of its own."""
    with st.sidebar:
        if drafter:
            st.selectbox("Draft model", drafter_names(), key="drafter",
                         help=f"Ordered by acceptance rate α, poorest first. {DRAFTERS_NAMED}")
        st.number_input("Seed", key="seed", **limits("seed"),
                        help=f"Same seed, same draws: share the link to show the same round. A whole "
                             f"number from 0 to {MAX_SEED:,}")
        st.toggle("Instructor mode", key="present", on_change=switched,
                  help="Large type, wide layout, controls tucked away; Esc leaves it. In the walkthrough "
                       "→ and ← turn the steps; a presentation clicker reads through each step, then "
                       "turns it")
        st.toggle("Predict first", key="predict",
                  help="In the walkthrough: predict keep or reject before each coin flip")


def _fit_prompt() -> None:
    s = st.session_state
    s.prompt, s.prompt_cut = fit_text(s.prompt, MAX_PROMPT_CHARS, "prompt")


def prompt_box() -> None:
    """The prompt of the playground and the race. A longer paste is cut to the limit, with a
    message: a text area's own max_chars would drop such a paste in the browser without a word."""
    st.text_area("Prompt", key="prompt", height=80, on_change=_fit_prompt,
                 help=f"At most {MAX_PROMPT_CHARS} characters: a longer text is cut to fit. Both "
                      "models learned from English text and write other languages poorly.")
    cut = st.session_state.pop("prompt_cut", None)
    if cut:
        st.warning(cut, icon=":material/content_cut:")


def top_p_slider(where) -> None:
    """The top-p slider in `where` (a column), switched off at temperature 0, where it changes
    nothing: the temperature's slider must come first."""
    where.slider("Top-p", key="top_p", **limits("top_p"), help=HELP["top_p"],
                 disabled=st.session_state.get("temperature") == 0)
