"""How numbers and facts are written in sentences: a cut paste, probabilities to as many
digits as tell them apart, ratios, and the comparison of a coin flip with its threshold."""
from __future__ import annotations

import math

from specdec_core.inputs import clip_prompt, is_blank

# why greedy decoding may still differ between two ways of writing the same text
ROUNDING_TIE = "two tokens score so nearly alike that rounding tips the choice"
# why a link's sampled text is the same for everyone on one server but may not be elsewhere
OTHER_MACHINES = ("These settings write this same text for everyone on this server. Another machine, "
                  "or this one after a restart, may write a different text from the same seed: a draw "
                  "that falls near the edge between two tokens turns on the last digits of the "
                  "models' scores, and those depend on the matrix products the machine uses (on a "
                  "CPU, chosen anew each time the models load).")


def counted(n: int, noun: str, plural: str = "") -> str:
    """A count and its noun, singular for one: "1 token", "48 tokens"; `plural` where adding
    "s" does not make it ("target passes")."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


def passes_said(what: str, tokens: int, passes: int) -> str:
    """A text the pair wrote, in words for a screen reader once it is written: "Reply written:
    57 tokens in 31 passes of Nimbus-large, which alone needs one pass a token." """
    return (f"{what}: {counted(tokens, 'token')} in {counted(passes, 'pass', 'passes')} of Nimbus-large, "
            "which alone needs one pass a token.")


def seconds_text(seconds: float) -> str:
    """A clock's reading: to a hundredth of a second under 10 s, where two sides of a short
    race may differ by less than a tenth, and to a tenth above."""
    return f"{seconds:.2f} s" if seconds < 9.995 else f"{seconds:.1f} s"


def cut_message(what: str, had: int, limit: int, kept: int, blank: int = 0) -> str:
    """What to tell the reader when a paste was cut to a page's limit (`blank`: the spaces and
    line ends it started with, dropped first)."""
    after = f", after the {counted(blank, 'blank character')} it started with" if blank else ""
    return (f"The {what} had {had:,} characters, more than the {limit} this page takes, so it keeps "
            f"the first {kept} characters{after}.")


def fit_text(text: str, limit: int, what: str) -> tuple[str, str | None]:
    """Someone's text as a page with this limit takes it, cut after a whole word
    (`clip_prompt`), and what to tell the reader (`cut_message`) where it had to be cut. A text
    too long only for the spaces around it loses them and no more; spaces it starts with are
    dropped before the cut, which would otherwise keep little else."""
    if len(text) <= limit:
        return text, None
    start = next((i for i, c in enumerate(text) if not is_blank(c)), len(text))  # as is_blank reads
    body = text[start:]
    trimmed = body.rstrip()
    if len(trimmed) <= limit:
        return trimmed, None
    clipped = clip_prompt(body, limit)
    return clipped, cut_message(what, len(text), limit, len(clipped), blank=len(text) - len(body))


def prob_text(x: float) -> str:
    """A probability for a sentence: two decimals, but never a misleading "0.00" for a token
    that was drawn or kept, nor "1.00" for a chance short of certain, so values near either
    end get three decimals or a bound."""
    x = float(x)
    if x in (0.0, 1.0) or 0.0095 <= x < 0.995:
        return f"{x:.2f}"
    if x >= 0.995:
        return f"{x:.3f}" if x < 0.9995 else ">\u00a00.999"  # no line break inside a bound
    return f"{x:.3f}" if x >= 0.0005 else "<\u00a00.001"


def draw_text(u: float, decimals: int = 2) -> str:
    """A uniform draw in [0, 1) to `decimals` decimals, or as many more as keep it off 0 and 1,
    which it is not: never as a bound, as prob_text writes a probability near either end, since
    "u = < 0.001" reads as a slip."""
    u = float(u)
    for digits in range(decimals, 18):
        text = f"{u:.{digits}f}"
        if 0 < float(text) < 1 or u == 0:
            break
    return text


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def tiny_text(x: float) -> str:
    """A number as a reader writes a tiny one: "2.8 × 10⁻¹⁷", not Python's "2.8e-17"."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{float(x):.1e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def share_text(x: float) -> str:
    """A share as a whole percentage, but never "0%" or "100%" for one strictly between: to a
    tenth of a percent there, or "under 0.1%" and "over 99.9%"."""
    x = min(max(float(x), 0.0), 1.0)  # a sum of float32 shares can stray past either end
    for text in (f"{x:.0%}", f"{x:.1%}"):
        if x in (0.0, 1.0) or text not in ("0%", "100%", "0.0%", "100.0%"):
            return text
    return "under 0.1%" if x < 0.5 else "over 99.9%"


def says(name: str, shown: str) -> str:
    """"q = 0.12" for a value as shown, or "q < 0.001" where it is shown as a bound."""
    return f"{name} {shown}" if shown[0] in "<>" else f"{name} = {shown}"


def prob_is(name: str, x: float) -> str:
    return says(name, prob_text(x))


def coin_comparison(u: float, line: float, kept: bool) -> str:
    """One coin flip against its line, as a sentence shows it: "u = 0.62 < min(1, p/q) = 0.91".
    A line shown only as a bound is said apart, the line first ("min(1, p/q) is below 0.001, and
    u = 0.06 is above it"): "u = 0.06 ≥ min(1, p/q) < 0.001" chains two comparisons that do not
    read as one."""
    u_text, line_text = coin_pair(u, line)
    if line_text[0] in "<>":
        side = "below" if line_text[0] == "<" else "above"
        return (f"min(1, p/q) is {side} {line_text[1:].lstrip()}, and u = {u_text} is "
                f"{'below' if kept else 'above'} it")
    return f"u = {u_text} {'<' if kept else '≥'} min(1, p/q) = {line_text}"


def ratio_pair(p: float, q: float) -> tuple[str, str]:
    """p and q for a sentence that goes on to state min(1, p/q) as prob_text writes it: to three
    significant figures, or more where the shown values' ratio would not give the probability
    stated ("p = 0.03, q = 0.04, so 0.86" reads as a slip, where 0.0343 and 0.0399 do not)."""
    p, q = float(p), float(q)
    said = prob_text(min(1.0, p / q))
    if said.startswith("<") and prob_text(p).startswith("<"):  # "p < 0.001, q = 0.412, so … < 0.001"
        return prob_text(p), significant(q, 3)
    for figures in range(3, 10):
        shown = significant(p, figures), significant(q, figures)
        if prob_text(min(1.0, float(shown[0]) / float(shown[1]))) == said:
            break
    return shown


def significant(x: float, figures: int) -> str:
    """x to `figures` significant figures, never in scientific notation."""
    if x == 0:
        return "0"
    rounded = float(f"{x:.{figures - 1}e}")  # its magnitude after rounding: 0.9996 is 1.00, not 1.000
    return f"{x:.{max(0, figures - 1 - math.floor(math.log10(abs(rounded))))}f}"


def coin_pair(u: float, line: float) -> tuple[str, str]:
    """A coin flip and its line as prob_pair writes them, but u never as a bound, and neither
    rounded to 0 or 1 when it is not (the extra decimals that tell two close values apart can do
    that: 0.00001 against 0.0003 to four decimals): then with the digits draw_text gives it."""
    u_text, line_text = prob_pair(u, line)
    return _off_the_ends(u, u_text, bounds=False), _off_the_ends(line, line_text, bounds=True)


def _off_the_ends(x: float, text: str, bounds: bool) -> str:
    """`text` for x, unless it reads as a bound (where `bounds` is False) or as 0 or 1 where x
    lies strictly between."""
    if text[0] in "<>":
        return text if bounds else draw_text(x)
    return draw_text(x, 2) if 0 < x < 1 and float(text) in (0.0, 1.0) else text


def prob_pair(a: float, b: float) -> tuple[str, str]:
    """Two probabilities a sentence compares (a draw against its threshold, p against q): as
    prob_text writes them, or with the fewest decimals from four up that tell them apart when
    those would read as equal."""
    shown = prob_text(a), prob_text(b)
    digits = 4
    while shown[0] == shown[1] and a != b and digits <= 9:
        shown = f"{float(a):.{digits}f}", f"{float(b):.{digits}f}"
        digits += 1
    return shown
