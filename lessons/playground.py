"""Numbers the self-study playground shows, computed from a generation's round records."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specdec_core.sampling import RoundRecord, expected_tokens_per_round, tokens_per_round_bound

from .scenario import WALKTHROUGH_PROMPT
from .speed_story import TABLE_SAMPLING
from .wording import ROUNDING_TIE, counted


@dataclass(frozen=True)
class RoundSummary:
    alpha: float  # kept / checked drafts: each check is a coin with P(keep) = beta
    by_position: tuple[float, ...]  # P(kept | checked) for draft positions 1..gamma
    checked: tuple[int, ...]  # how many times each position was checked
    tokens_per_round: float  # measured: the tokens written over the rounds that wrote them
    expected_tokens_per_round: float  # closed form at the measured alpha and each round's drafts
    rounds: int


def summarize(rounds: list[RoundRecord], gamma: int, written: int | None = None,
              max_new_tokens: int | None = None, eos: int | None = None) -> RoundSummary:
    """`written`: the tokens the generation kept, when its token limit cut the last round short
    (that round's other tokens were drawn but never shown). The closed form is averaged over the
    rounds at the number each drafted: `gamma`, or fewer near the token limit or after an
    end-of-text draft, as the measured tokens per round count them; and each round at most at
    the tokens it could keep (`round_cap`), as the measured count keeps them."""
    if not rounds:
        raise ValueError("no rounds to summarise")
    kept = np.zeros(gamma)
    checked = np.zeros(gamma, dtype=int)
    for r in rounds:
        for c in r.checks:
            checked[c.position] += 1
            kept[c.position] += c.accepted
    alpha = float(kept.sum() / checked.sum())
    rates = tuple(float(k / n) if n else float("nan") for k, n in zip(kept, checked))
    if written is None:
        written = sum(len(r.tokens) for r in rounds)
    before = np.concatenate([[0], np.cumsum([len(r.tokens) for r in rounds])[:-1]])
    expected = float(np.mean([
        capped_tokens_per_round(alpha, r.gamma, round_cap(r, before_it, max_new_tokens, eos))
        for r, before_it in zip(rounds, before)]))
    return RoundSummary(alpha, rates, tuple(int(n) for n in checked), written / len(rounds),
                        expected, len(rounds))


def round_cap(r: RoundRecord, written_before: int, max_new_tokens: int | None,
              eos: int | None) -> int:
    """The most tokens round `r` can keep: its drafts and a bonus, less the bonus when its last
    draft is end-of-text (nothing follows it), and no more than the token limit leaves."""
    cap = r.gamma + 1
    if eos is not None and r.draft_tokens and r.draft_tokens[-1] == eos:
        cap = r.gamma
    if max_new_tokens is not None:
        cap = min(cap, max_new_tokens - int(written_before))
    return max(1, cap)


def capped_tokens_per_round(alpha: float, gamma: int, cap: int) -> float:
    """E[min(tokens a round writes, cap)] with independent checks of chance alpha: the round
    writes at least k tokens with chance alpha^(k-1), k = 1 .. gamma + 1; with cap = gamma + 1
    this is the plain closed form (1 - alpha^(gamma+1)) / (1 - alpha)."""
    return expected_tokens_per_round(alpha, min(gamma, cap - 1))


# the metric of the closed form priced at this run's own α, round by round
RUN_CLOSED_FORM = "Closed form, this run's α"


def short_rounds_note(summary: RoundSummary, gamma: int) -> str:
    """Why the closed form beside the measured count reads below the plain closed form at the
    same γ and α (which prices every round at γ drafts and a bonus); "" where the two agree as
    shown."""
    plain = expected_tokens_per_round(summary.alpha, gamma)
    if f"{plain:.2f}" == f"{summary.expected_tokens_per_round:.2f}":
        return ""
    return (f" “{RUN_CLOSED_FORM}” ({summary.expected_tokens_per_round:.2f}) prices these rounds "
            f"as they were cut, below (1 − α^(γ+1)) / (1 − α) = {plain:.2f} at γ = {gamma} and this "
            "run's α: the rounds near the end drafted fewer than γ or had no room for a bonus token.")


def short_bonus_note(rounds: list[RoundRecord], gamma: int, limit: int, written: int) -> str:
    """Why the text can hold a bonus token although no round kept γ drafts: near the token
    limit the last round drafts fewer (one fewer than the tokens still to write), and keeping
    all of those earns the bonus as keeping γ would. Empty when that did not happen, or when
    the limit cut that bonus off (`written`: the tokens the text shows)."""
    last = rounds[-1] if rounds else None
    if (last is None or not last.bonus or last.gamma >= gamma
            or sum(len(r.tokens) for r in rounds) > written):
        return ""
    k = last.gamma
    return (f"; the last round drafted {counted(k, 'token')}, not γ = {gamma}, as the {limit}-token "
            f"limit left room for {k + 1}, and kept {'it' if k == 1 else 'them all'}, so its bonus token came after "
            f"{'that one kept draft' if k == 1 else f'{k} kept drafts'}")


# Nimbus-large's own text shorter than this gives too few positions to price the chart at: α
# over n positions moves by about 0.3/√n (0.3: the spread of one position's overlap), a tenth
# at 9, under 0.08 from 16 on
FEW_TOKENS = 16
# a prompt that breaks off mid-sentence, which the short text's note offers: the lesson's
OPEN_PROMPT = WALKTHROUGH_PROMPT


def short_text_note(tokens: int, drafter: str, table_alpha: float | None, noise: float = 0.0,
                    table_settings: bool = True, written: int = 0, prompt: str = "",
                    greedy: bool = False) -> str:
    """Why the chart is not priced at α on Nimbus-large's own text when that text is only a few
    `tokens` long, and how to get a longer one; `table_alpha`: the drafter table's α for
    `drafter`, which prices it instead (measured at temperature 1, without top-p or draft noise),
    or None, where this run's own checks do. `table_settings`: this run samples as the table
    measured (temperature 1, no top-p). `written`: the tokens of this run's own text, which,
    drawn apart, can be long where Nimbus-large's ended early; `prompt`: this run's prompt;
    `greedy`: at temperature 0, where no seed draws another text."""
    if tokens <= 1:
        ended = "Nimbus-large ends its text at once after this prompt"
    else:
        ended = f"Nimbus-large's own text from this prompt ends after {counted(tokens, 'token')}"
    unnoised = ", measured without draft noise, which the chart then leaves out" if noise else ""
    elsewhere = ("" if table_settings else
                 f"; the table samples at {TABLE_SAMPLING}, and α differs at other settings")
    priced = (f"the speed-up chart is priced at the drafter table's α for {drafter} "
              f"({table_alpha:.3f}, So what page{unnoised}{elsewhere})" if table_alpha is not None else
              "the speed-up chart's α comes from this run's own few checks and says little")
    return f"{ended}: too few positions to measure α on, so {priced}. {_longer_text(written, prompt, greedy)}"


def _longer_text(written: int, prompt: str, greedy: bool) -> str:
    """How to give Nimbus-large a longer text of its own: above temperature 0, another seed,
    where this run's own text, drawn apart, shows the prompt leaves room, or where the prompt is
    left open already; otherwise a prompt left open."""
    opened = prompt.strip() == OPEN_PROMPT
    if not greedy and (written >= FEW_TOKENS or opened):
        ran = (f"This run's own text, drawn apart from Nimbus-large's, ran to {counted(written, 'token')}, "
               "so the prompt leaves room: " if written >= FEW_TOKENS else "")
        return f"{ran}{'another' if ran else 'Another'} seed may draw Nimbus-large a longer text of its own."
    if opened:
        return ("At temperature 0 every seed gives this same text: another prompt that breaks off "
                "mid-sentence gives Nimbus-large more to write.")
    return (f"A prompt that breaks off mid-sentence, such as “{OPEN_PROMPT}”, gives Nimbus-large more "
            "to write and the figures more to count.")


def above_ceiling_note(tokens_per_pass: float, measured: float, alpha: float) -> str:
    """Why one text's tokens per pass (as shown, to two decimals) can pass the speed-up chart's
    ceiling 1/(1 − α), which that chart's caption states: its own α (`measured`, kept / checked)
    was higher than the chart's. No other reason is possible: over any rounds, each writing its
    kept drafts and one more token, tokens per round is at most 1/(1 − kept / checked), however
    the keeps fall. Both α are shown to as many decimals as tell them apart."""
    if not 0 < alpha < 1 or round(tokens_per_pass, 2) <= round(tokens_per_round_bound(alpha), 2):
        return ""
    places = next((d for d in (2, 3, 4) if round(measured, d) > round(alpha, d)), 4)
    return (f" This text's {tokens_per_pass:.2f} tokens per pass is above the chart's ceiling at its "
            f"α, 1/(1 − α) = 1/(1 − {alpha:.3f}) = {tokens_per_round_bound(alpha):.2f}, which "
            f"no γ passes: this one text's own α was {measured:.{places}f}, against the chart's "
            f"{alpha:.{places}f}.")


# what another seed moves one short text's figures by at Nimbus-mini's α, in tokens per pass
SEED_SPREAD = 0.2
# and α on Nimbus-large's own 48-token text from the lesson's sentence, at temperature 1: over
# seeds 0 to 19 its standard deviation was 0.09, from 0.23 to 0.61
SEED_ALPHA_SPREAD = "often by a tenth"


def gamma_gain_clause(alpha: float) -> str:
    """Where the closed form gains less from γ = 4 to 8 than another seed moves one short text's
    figures (at α like Nimbus-mini's, not at α near 1), that comparison, as a clause; none where
    the gain shows as +0.00 (a poor drafter's α: γ hardly matters, and a seed moves little)."""
    gain = expected_tokens_per_round(alpha, 8) - expected_tokens_per_round(alpha, 4)
    return (f", by more than the closed form gains from γ = 4 to 8 at α = {alpha:.2f} (+{gain:.2f} "
            "tokens per pass)" if 0.005 <= gain < SEED_SPREAD else "")


def seed_spread_note(alpha: float, temperature: float, noise: float, seeds_at: str) -> str:
    """How far to trust one text's measured figures: at temperature 0 without draft noise
    nothing is drawn at random, so no seed moves them; otherwise another seed does (`seeds_at`:
    where the seed is set), and above temperature 0 a new γ changes the text itself."""
    if temperature == 0 and noise == 0:
        return ("At temperature 0 with no draft noise nothing here is drawn at random: every seed "
                "gives these same figures, and another prompt gives others (the whiskers on the "
                "acceptance chart say how far a position's rate may fall there). The closed form shows "
                "the trend.")
    text = ("The measured figures count one short text, and another seed moves them"
            f"{gamma_gain_clause(alpha)}.")
    if temperature == 0:  # the chart's text is Nimbus-large's greedy one, whatever the seed
        return text + f" The closed form shows the trend; try a few seeds ({seeds_at}) to see the spread."
    return text + (" A new γ also changes which random number each draw uses, so the text itself "
                   "changes: compare γ values by the chart, not by one text. The chart keeps one text "
                   "of Nimbus-large's while the drafter, noise and γ move, so it shows what each of them "
                   f"does; another seed gives it another text, and its α moves too, {SEED_ALPHA_SPREAD}: "
                   f"try a few seeds ({seeds_at}) to see the spread of both.")


# the run's measured α and the fixed text's this far apart are worth a sentence of their own
FAR_APART = 0.2


def steady_alpha_note(alpha: float, plain: float, noise: float, drafter: str, head: int,
                      vocabulary: int, tokens: int, measured: float | None = None,
                      checks: int = 0, same_text: bool = False, greedy: bool = False) -> str:
    """What α on one fixed text says (`alpha` at this noise, `plain` at none): it moves with the
    drafter and the noise alone. Where noise raised it, why: p spreads over tokens the drafter
    gives little or nothing (`head` of `vocabulary` tokens are all it can propose), and the
    uniform blend gives every token some; where it left it as shown, that it took and gave
    alike. How the run's own α (`measured`, over `checks` checks) differs from it, and why where
    the two are far apart: the run wrote another text, or (`same_text`) this one, where it
    checked only some of the text's positions, one coin flip each, drawn at random unless the
    run was `greedy` with no noise."""
    at = f"{alpha:.2f} at noise {noise:g} ({plain:.2f} without noise)" if noise else f"{alpha:.2f}"
    # at temperature 0 with no noise nothing is drawn: the run wrote this very text (unless
    # rounding tipped a near-tie), and its figure differs by the positions it never checked
    drawn = not greedy or bool(noise)
    if not greedy:
        run = "also moves with the luck of each new text"
    elif noise:
        run = ("also moves with the luck of the noisy draft's guesses, though at temperature 0 the "
               "text itself is Nimbus-large's own")
    elif same_text:
        run = ("comes from this same text, but counts only the positions where a draft was checked, "
               "not those filled by a round's bonus token, for which nothing was drafted")
    else:
        run = ("comes from its own text, which parts from this one where rounding tipped a near-tie "
               "(see below), and counts only the positions where a draft was checked")
    note = (f"α on Nimbus-large's own text: {at}, the α the speed-up chart is priced at. Both "
            f"models scored the one text of {counted(tokens, 'token')} Nimbus-large wrote alone from "
            f"this prompt at these settings and seed, so this figure moves with {'the noise' if noise >= 1 else 'the drafter and the noise'} alone"
            f"{'' if greedy else f' while the seed stays (another seed gives another text, and this α moves with it, {SEED_ALPHA_SPREAD})'}"
            f"; the α of this run, above, {run}.")
    if noise >= 1:
        note += (" At noise 1 q is the uniform distribution whatever the drafter: every step of the "
                 "ladder guesses alike here, with this same α, and only its cost c differs.")
    elif round(alpha, 2) > round(plain, 2):
        reach = (f" (its output layer covers {head:,} of the {vocabulary:,} tokens)"
                 if head < vocabulary else "")
        note += (f" Here noise raises α: at these settings p spreads over many tokens that {drafter} "
                 f"gives little or no probability{reach}, and the uniform blend gives every token some.")
    # (not where the drafter never agrees: there the blend has nothing to take, and gives little)
    elif noise and plain >= 0.01 and round(alpha, 2) == round(plain, 2):
        note += (f" Here noise hardly moves α: the blend takes away part of what {drafter} gives the "
                 "tokens p favours, and its share for every token gives about as much back.")
    if measured is not None and checks and abs(measured - alpha) > FAR_APART:
        if same_text and not drawn:
            why = ("every position of the text counts in the figure above, and this run never checked "
                   "the positions its bonus tokens filled")
        elif same_text:
            why = ("this run checked each position once, with one random draft, where the figure above "
                   "weighs every position by its chance β, and it never checked the positions its "
                   "bonus tokens filled")
        else:
            why = ("this run wrote another text than Nimbus-large's own, and how often a drafter "
                   "guesses right depends on the text it guesses in, and on the luck of a few checks")
        note += (f" Here the two are far apart ({measured:.2f} over this run's {counted(checks, 'check')} "
                 f"against {alpha:.2f}): {why}.")
    return note


def same_text_note(temperature: float, same: bool) -> str:
    """Draft quality changes the draws, not their distribution: at temperature 0 the text is
    Nimbus-large's own, token for token (`same`: as checked against it)."""
    if temperature == 0:
        verdict = "it is" if same else ("it is not, here: two tokens scored so nearly alike that "
                                        "rounding tipped the choice")
        return ("At temperature 0 the target's p puts all its weight on its own top token, so "
                "whatever the draft guesses (with noise, even its guesses are random), every token that "
                "stands is Nimbus-large's choice: every drafter, noise and γ writes the text "
                f"Nimbus-large writes alone, token for token. Checked against it, {verdict}.")
    return ("A new drafter, noise or γ changes the random draws, not the distribution they come "
            "from; at temperature 0, where p puts all its weight on one token, every setting writes "
            f"Nimbus-large's own text, token for token (unless {ROUNDING_TIE}).")
