"""A request's settings and prompt, checked without PyTorch: the command line refuses a bad one
at once, instead of after the seconds torch takes to import, with the same message the library
gives."""
from __future__ import annotations

import math

import numpy as np

from .catalog import TARGET_CONTEXT
from .inputs import MAX_GAMMA, MAX_TEMPERATURE, MIN_TEMPERATURE, is_blank

METHODS = ("speculative", "target")
DEVICES = ("auto", "cpu", "cuda")  # or cuda:N
EMPTY_PROMPT = "the prompt is empty: give the model some text to continue"
# the most tokens Nimbus-large can write after a one-token prompt: the engine keeps room in its
# context for a round's drafts and the token after them (engine.check_request)
MOST_NEW_TOKENS = TARGET_CONTEXT - MAX_GAMMA - 2


def is_real(x) -> bool:
    """A finite real number, Python's or numpy's (not a bool, NaN, infinity, or an integer too
    large for a float)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def is_probability(x) -> bool:
    """A real number in [0, 1] (not a bool, not NaN)."""
    return is_real(x) and 0.0 <= x <= 1.0


def is_whole(x) -> bool:
    """An integer, Python's or numpy's, and not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def check_settings(max_new_tokens, method, gamma, noise=0.0, stop_below=0.0) -> None:
    """Refuse settings no generation can use."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if not is_whole(gamma) or not 1 <= gamma <= MAX_GAMMA:
        raise ValueError(f"gamma must be a whole number from 1 to {MAX_GAMMA}; got {gamma!r}")
    if not is_whole(max_new_tokens) or max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be a whole number >= 1; got {max_new_tokens!r}")
    if not is_probability(noise):
        raise ValueError(f"draft noise must lie in [0, 1]; got {noise!r}")
    if not is_probability(stop_below):
        raise ValueError(f"stop_below (the draft's early-stop threshold) must lie in [0, 1]; "
                         f"got {stop_below!r}")


def check_new_tokens(max_new_tokens) -> None:
    """Refuse more new tokens than Nimbus-large's context can hold after any prompt (the engine
    then checks the prompt and the tokens together, for any pair)."""
    if is_whole(max_new_tokens) and max_new_tokens > MOST_NEW_TOKENS:
        raise ValueError(f"max_new_tokens must be at most {MOST_NEW_TOKENS:,}: Nimbus-large's context "
                         f"holds {TARGET_CONTEXT:,} tokens, prompt and drafts included; got {max_new_tokens}")


def check_sampling(temperature, top_k, top_p) -> None:
    """Refuse a temperature, top-k or top-p that the warping cannot use."""
    if not is_real(temperature) or not (temperature == 0 or MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE):
        raise ValueError(f"temperature must be 0 (greedy) or a number in [{MIN_TEMPERATURE}, "
                         f"{MAX_TEMPERATURE}]; got {temperature}")
    if not is_whole(top_k) or top_k < 0:
        raise ValueError(f"top_k must be a whole number >= 0 (0 = off); got {top_k}")
    if not is_real(top_p) or not 0 < top_p <= 1:
        raise ValueError(f"top_p must lie in (0, 1]; got {top_p}")


def check_device_name(device) -> None:
    """Refuse a device that is no way of naming one (whether a GPU is there is asked at load)."""
    if device not in DEVICES and not str(device).startswith("cuda:"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda'; got {device!r}")


def check_prompt_text(prompt) -> None:
    if not isinstance(prompt, str):
        raise ValueError(f"the prompt must be text (generate also takes a list of token ids); "
                         f"got {type(prompt).__name__}")
    try:  # first: a prompt of undecodable bytes alone is not an empty one
        prompt.encode("utf-8")
    except UnicodeEncodeError as err:  # undecodable bytes, as Python keeps them from argv
        raise ValueError(f"the prompt is not valid Unicode text (character {err.start}); "
                         "write it as UTF-8") from None
    if is_blank(prompt):  # nothing to see, as the app judges it too
        raise ValueError(EMPTY_PROMPT)
