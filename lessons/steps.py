"""The five steps of "Faster, not different": each answers one question with one main chart
and ends on a one-sentence takeaway computed from the round on screen."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from specdec_core.catalog import TARGET_VOCAB, drafter_vocabulary
from specdec_core.quality import drafter_quality
from specdec_core.sampling import (acceptance_probability, expected_tokens_given_drafts,
                                   expected_tokens_per_round)
from specdec_core.warping import Sampling

from .montecarlo import ChanceRange
from .scenario import TIMED_TURNS, WALKTHROUGH_GAMMA, Scenario
from .speed_story import saved_verify_costs
from .wording import coin_comparison, counted, prob_text

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
# in a step's text, the round's guesses counted in words (`Step.text`): four, or fewer where the
# draft wrote end-of-text; "four guesses", and "all four guesses" or "the one guess"
GUESSES, ALL_GUESSES = "{guesses}", "{all guesses}"
DRAFTER = "{drafter}"  # in a step's text: the draft model's name (`Step.text`)


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    question: str
    body: str  # markdown, written for this app
    takeaway: Callable[[Scenario], str]
    # a round whose guesses were all kept, where the question and text above would ask about
    # what did not happen: (question, body), or None where they fit every round
    all_kept: tuple[str, str] | None = None
    all_kept_title: str | None = None  # the title for such a round, where it differs

    def title_for(self, sc: Scenario) -> str:
        """The step's title for this round."""
        return self.all_kept_title if self.all_kept_title and sc.record.bonus else self.title

    def text(self, sc: Scenario) -> tuple[str, str]:
        """(question, body) for this round, with its number of guesses (four, or fewer where the
        draft wrote end-of-text) and its draft model's name."""
        question, body = self.all_kept if self.all_kept and sc.record.bonus else (self.question, self.body)
        body = _counted_guesses(body, sc.gamma).replace(DRAFTER, sc.drafter_label)
        return _counted_guesses(question, sc.gamma), body


def _counted_guesses(text: str, n: int) -> str:
    some = f"{NUMBER_WORDS[n]} guess" + ("" if n == 1 else "es")
    return text.replace(ALL_GUESSES, "the one guess" if n == 1 else f"all {some}").replace(GUESSES, some)


def _q(sc: Scenario, t: int) -> str:
    return f"“{sc.label(t)}”"


def _draft_takeaway(sc: Scenario) -> str:
    words = " ".join(_q(sc, t) for t in sc.draft_tokens)
    return (f"{sc.drafter_label} wrote {words} in {counted(sc.gamma, 'quick pass', 'quick passes')}, "
            "one after another. Nothing is decided yet: these are guesses, each with the "
            "probability q the draft gave it."
            f"{_below_the_top(sc)}")


def _below_the_top(sc: Scenario) -> str:
    """The first guess drawn from below the draft's likeliest token, where there is one: the
    draft samples from q, it does not take q's top (at temperature 0 it does)."""
    for row, token in enumerate(sc.draft_tokens):
        q = sc.q_dists[row]
        top = int(q.argmax())
        if q[top] > q[token]:
            return (f" Sampled, not its favourite: at guess {row + 1} it drew {_q(sc, token)} (q = "
                    f"{prob_text(q[token])}) where {_q(sc, top)} had q = {prob_text(q[top])}.")
    return ""


def _verify_takeaway(sc: Scenario) -> str:
    slots = sc.gamma + 1
    single = round(sc.single_pass_seconds * 1000)  # as shown: the sum below is worked from it
    verify = round(sc.verify_seconds * 1000)
    # from the milliseconds as shown, so that a reader who divides them gets the same ratio
    ratio = verify / single if single else sc.verify_seconds / sc.single_pass_seconds
    # timings on a busy machine scatter by a tenth or so: never "0.9 times" a smaller pass, nor
    # "about as long as" one that took much longer
    if ratio >= 1.05:
        as_long = f"{ratio:.1f} times as long as"
    elif ratio >= 0.95:
        as_long = "about as long as"
    else:
        as_long = "no longer than"
    every = "the one guess" if sc.gamma == 1 else f"all {sc.gamma} guesses"
    return (f"Timed on this server (fastest of {TIMED_TURNS} tries): one pass of Nimbus-large scored "
            f"{every} plus a bonus slot in {verify} ms, {as_long} a "
            f"pass over one position ({single} ms).{_swept_check_cost(sc, ratio)} "
            "If every guess is kept, that one pass buys "
            f"{slots} tokens, which Nimbus-large alone writes in {slots} passes (about {slots} × {single} = "
            f"{slots * single} ms). A rejection ends the round early: the correction still adds a "
            "token, but the guesses after it are thrown away, and each draft step costs a little, so "
            "the average gain is smaller (the So what page has the measured speed-ups).")


# a live check-to-step ratio this far from the γ sweep's is said to be the server's load
BUSY_GAP = 0.2


def _swept_check_cost(sc: Scenario, ratio: float) -> str:
    """The γ sweep's cost of the pass that checks this round's guesses, where this server's
    timing (`ratio`, in single passes) strays from it: a busy machine times passes unevenly, and
    the module's point, that checking costs little more than one step, holds on a quiet one. The
    sweep ran on a CPU: a GPU's timings are not measured against it."""
    swept = saved_verify_costs().get(sc.gamma)
    if swept is None or sc.timed_on != "cpu" or abs(ratio - swept) <= BUSY_GAP:
        return ""
    return (f" The γ sweep on the So what page, the median of many tries, timed such a pass at "
            f"{swept:.2f} times a pass over one position; on a busy server, even the fastest of a few tries "
            "strays from that.")


def _accept_takeaway(sc: Scenario) -> str:
    rec = sc.record
    if rec.bonus:
        if sc.gamma == 1:
            return "The one guess survived its coin flip, so it is kept."
        return f"All {sc.gamma} guesses survived their coin flips, so all {sc.gamma} are kept."
    bad = rec.checks[-1]
    kept = {0: "No guess is", 1: "1 guess is"}.get(rec.n_accepted, f"{rec.n_accepted} guesses are")
    later = sc.gamma - 1 - bad.position
    if not later:
        after = "it was the last guess, so only the bonus slot goes unused"
    elif later == 1:
        after = "the guess after it was built on it and is dropped without a coin flip"
    else:
        after = f"the {later} guesses after it were built on it and are dropped without a coin flip"
    why = coin_comparison(bad.u, bad.accept_prob, kept=False)
    return f"{kept} kept. {_q(sc, bad.token)} was rejected ({why}): {after}."


def _correct_takeaway(sc: Scenario) -> str:
    rec = sc.record
    if rec.bonus:
        guesses, kept, them = (("one guess", "the one kept guess", "it") if sc.gamma == 1 else
                               (f"{sc.gamma} guesses", f"the {sc.gamma} kept guesses", "them"))
        return (f"This round gets {len(rec.tokens)} tokens from one pass of Nimbus-large, the most "
                f"{guesses} can buy: {kept}, and {_q(sc, rec.last_token)}, drawn from p at the slot "
                f"after {them}, which that pass scored anyway.")
    return (f"The replacement {_q(sc, rec.last_token)} came from r, which only holds tokens the "
            f"target wanted more than the draft offered (Z = {prob_text(rec.residual_mass)})."
            f"{_never_drafted(sc, sc.decided_row, rec.last_token)}")


def _never_drafted(sc: Scenario, row: int, token: int) -> str:
    """Why the draft gave `token` q = 0 at `row`, where it did: such a token is never drafted and
    reaches the text only through r (or as a bonus). "" where q > 0."""
    if sc.q_dists[row][token] > 0:
        return ""
    s, head = sc.sampling, drafter_vocabulary(sc.drafter)
    cut = "top-p" if s.top_p < 1 else "top-k" if s.top_k else ""
    if s.greedy:
        why = "at temperature 0 each model gives all its probability to its own top token"
    elif head < TARGET_VOCAB:
        layer = (f"{sc.drafter_label}'s output layer scores only {head:,} of the {TARGET_VOCAB:,} "
                 "tokens, those that held the most of Nimbus-large's probability in the text it was "
                 "trained on")
        why = f"{cut} cut it, or {layer}" if cut else layer
    elif cut:
        why = f"{cut} cut it from the draft's choices"
    else:
        return ""
    return (f" The draft gave {_q(sc, token)} q = 0, so it is never drafted: only a correction or a "
            f"bonus token can bring it into the text. Why q = 0: {why}.")


# this round's expected tokens this far from the drafter's average are worth a remark
FAR_FROM_AVERAGE = 0.5


def _drafter_average(sc: Scenario, these: float, gave: int) -> str:
    """What the drafter's rounds give on average, from its measured alpha (temperature 1 only),
    and whether this round's drafts (`these` tokens expected) were easier or harder than that;
    where its coins then fell the other way (it `gave` fewer tokens than the average after easy
    drafts, or more after hard ones), that too, so the two do not read as a contradiction."""
    alpha = getattr(drafter_quality(sc.drafter), "alpha", None)
    if alpha is None or sc.sampling != Sampling():
        return ""
    average = expected_tokens_per_round(alpha, sc.gamma)
    # α to three places: worked from two, (1 − α^(γ+1)) / (1 − α) can miss the shown result
    text = (f" The acceptance rate of {sc.drafter_label} is α = {alpha:.3f} (β averaged over many "
            "positions). If each checked guess were kept independently with that chance, the first "
            "would stand with chance α, the first two with α², and so on. With the one token the "
            f"target's pass always adds, a round would give {_powers_of_alpha(sc.gamma)} = "
            f"{average:.2f} tokens on average.")
    if abs(these - average) >= FAR_FROM_AVERAGE:
        easier = these > average
        text += (f" So this round's guesses were {'easier' if easier else 'harder'} to get "
                 f"right than that average ({these:.2f} against {average:.2f})")
        if easier and gave < average:
            text += f"; its coin flips went against them all the same, and it gave {counted(gave, 'token')}"
        elif not easier and gave > average:
            text += f"; its coin flips went their way all the same, and it gave {counted(gave, 'token')}"
        text += "."
    return text


def _powers_of_alpha(gamma: int) -> str:
    """1 + α + α² + … written out to α^γ."""
    powers = ("" if k == 1 else str(k).translate(_SUPERSCRIPTS) for k in range(1, gamma + 1))
    return " + ".join(["1", *(f"α{power}" for power in powers)])


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _exact_takeaway(sc: Scenario) -> str:
    n = len(sc.record.tokens)
    keeps = [acceptance_probability(sc.p_dists[i][t], sc.q_dists[i][t])
             for i, t in enumerate(sc.draft_tokens)]
    these = expected_tokens_given_drafts(keeps)
    follows = "and it follows" if n == 1 else "each following"
    return (f"This round gave {counted(n, 'token')} for one target pass, {follows} "
            f"Nimbus-large's distribution given the text before it. With fresh coin flips "
            f"{'this draft' if sc.gamma == 1 else f'these {sc.gamma} drafts'} would give {these:.2f} "
            f"tokens on average.{_drafter_average(sc, these, n)}")


def hidden_shortcut_note(hidden: dict[str, float], beta: float, draws: int,
                         chance: ChanceRange, more_draws: bool = True) -> str:
    """Step 5's warning where a shortcut's error hides in the simulation's noise (`hidden`, from
    montecarlo.hidden_shortcuts), so that its distance is not read as a win over the rule. The
    reason is β only where β explains it: resampling from p is off by at most β(1 − β),
    accepting every draft by 1 − β (both by little where q is nearly p); otherwise the draws
    are too few (`more_draws`: whether the page offers more)."""
    if not hidden:
        return ""
    then = ("Where the draft is neither hopeless nor nearly perfect, as Nimbus-mini usually is, the "
            "gap shows.")
    if beta <= chance.high and "accept every draft" not in hidden:
        why = (f"At this position β = {beta:.3f}: a guess is hardly ever kept, so nearly every token "
               "comes from the correction, and with so little of p taken away, r is almost p.")
    elif 1 - beta <= chance.high:
        why = (f"At this position β = {beta:.3f}: q is almost p, so nearly every draft is kept and "
               "what follows a rejection hardly matters.")
    else:
        why = (f"At {draws:,} draws perfect samples of p land {chance.typical:.3f} from p on average, "
               f"and between {chance.low:.3f} and {chance.high:.3f} in 9 runs out of 10.")
        then = ("More draws tell them apart." if more_draws else
                "More draws than this page simulates would tell them apart.")
    # the figure the metrics above measure, with the tokens not shown as one bucket; the
    # caption under the note gives the distance over the whole vocabulary, which can be larger
    # worked out, not drawn: this run's draws may put the shortcut above the range all the same
    names = " and ".join(f"“{rule}”'s true distance ({error:.3f} from p, worked out with the tokens not "
                         "shown as one bucket)" for rule, error in hidden.items())
    one = len(hidden) == 1
    return (f"{why} So {names} {'is' if one else 'are'} within what chance alone often gives at "
            f"{draws:,} draws (up to {chance.high:.3f}): whatever these draws measured, they cannot rank "
            f"{'it' if one else 'them'} against the rule, which is exact at every β. {then}")


def unlucky_rule_note(distance: float, chance: ChanceRange, more_draws: bool = True) -> str:
    """Step 5's word where the exact rule's own simulated distance (`distance`) lands above the
    range chance gives 9 runs in 10, as 1 run in 20 does: said, so that the rule is not read as
    failing the test that shows it exact. Compared as shown, to three decimals: a distance
    that reads as the range's top is at its edge, not above it. `more_draws`: whether the page
    offers more draws than these."""
    if round(distance, 3) <= round(chance.high, 3):
        return ""
    return (f"This time accept-or-correct itself lands above that range ({distance:.3f} against up to "
            f"{chance.high:.3f}). Perfect samples of p do that 1 run in 20, at any number of draws, and "
            "the rule's output is distributed exactly as p, so it does too: another seed usually "
            "brings it back inside, where a wrong rule's error stays"
            f"{' (and with more draws stands further out)' if more_draws else ''}.")


STEPS = (
    Step(1, "Draft", "What does the small model guess?",
         "A language model writes one **token** (a word or a piece of one) per pass through the "
         "model, drawn from a **distribution**: a probability for every token it knows. Each token "
         "must wait for the one before it, and for a big model every pass is slow.\n\n"
         f"The draft model, {DRAFTER}, is cheap, so we let it run ahead of the **target**, Nimbus-large, "
         "the model whose text we want. It samples a token from its own "
         "distribution **q**, feeds that token back in, samples the next one, and so on for "
         f"**γ = {WALKTHROUGH_GAMMA}** tokens (γ, “gamma”: how many tokens it guesses before the big "
         "model checks them). One guess-and-check cycle is a **round**. Each "
         "bar shows how much probability the draft gave a candidate; the outlined bar is the one "
         "it drew. A token usually carries the space before its word: **␣** marks that space, as "
         "in “␣account”, and **↵** a new line.",
         _draft_takeaway),
    Step(2, "Verify in one pass", f"How does the big model check {GUESSES} in one pass?",
         f"Nimbus-large reads the prompt and {ALL_GUESSES} in a **single forward pass**: a "
         "transformer scores every position of its input at once, each seeing only the tokens "
         "before it. Alone, Nimbus-large must draw a token before it can read it and score the "
         "next; the guesses hand it every input at once. So one pass gives the target's "
         "distribution **p** at each guess, the same as if Nimbus-large had written the text up "
         "to there itself (up to floating-point rounding), "
         "plus one more **p** after the last guess, for a **bonus token** if every guess is kept "
         "(step 4).\n\n"
         "Why is that cheap? For one position, a pass spends most of its time reading "
         "the model's weights (or, on a GPU with a model this small, launching the work), not "
         "multiplying; the other positions reuse what it has read. How much more a pass over them "
         "all costs than a pass over one position is timed below.\n\n"
         "**β = Σ min(p, q)**, the overlap of p and q, is the chance that a guess drawn from q at a "
         "position will be kept when step 3 checks it, averaged over everything the draft might "
         "draw there (step 3 shows why). Beside each "
         "orange q and blue p, the green bar is the smaller of the two, min(p, q); β sums them over "
         "all tokens, not only those shown. The token the draft actually drew gets its own chance "
         "in the next step.",
         _verify_takeaway),
    Step(3, "Accept or reject", "Which guesses do we keep?",
         "Go through the guesses in order. Keep a guess x with probability **min(1, p(x)/q(x))**: "
         "draw a uniform **u** in [0, 1) and keep x when u falls below min(1, p/q), where the green "
         "bar below ends. That bar is step 2's green min(p, q) divided by q(x): step 2's bar is the "
         "chance to draw x and keep it, this one the chance to keep x once it is drawn; summed "
         "over every x, step 2's green bars give β. If the "
         "target likes x at least as much as the draft did (**p ≥ q**), the green bar reaches 1 "
         "and the guess is always kept. "
         "The first rejection ends the round: the guesses after it were built on a token we just "
         "threw away, so they get no coin flip at all.\n\n"
         "Why a coin, and not simply keep x whenever p ≥ q? Then a token with p < q could never be "
         "kept, and the correction that replaces a rejected guess (step 4) never draws such a "
         "token either, so it would never come out although the target gives it probability p. "
         "Kept with chance p/q, it comes out q · p/q = p of the time.\n\n"
         "Once the round is decided, both models cut the thrown-away tokens from their key-value "
         "caches (what each layer stored about the text so far), so the next round starts from "
         "the text that stands (the code page shows where).", _accept_takeaway),
    Step(4, "Correct", "What replaces a rejected guess?",
         "Replace it with a draw from **r** (often written p′, the residual distribution): for "
         "every token, take how much more the target "
         "wanted it than the draft offered, **max(0, p(x) − q(x))**, and divide those amounts by "
         "their total **Z**. Only tokens the draft under-offered (**q < p**) have any weight in r. "
         "Why not simply draw again from p? A token the draft over-offered (**q > p**) already "
         "comes out with probability p through its coin flip (step 3: q · p/q = p); a "
         f"fresh draw from p would give it more. If {ALL_GUESSES} were kept, there would be "
         "nothing to correct, and the "
         "distribution the same pass gave for the slot after the last guess would yield a **bonus** "
         "token (Bonus round, below, opens such a round).", _correct_takeaway,
         all_kept_title="A bonus instead of a correction",
         all_kept=("Nothing was rejected: where does the extra token come from?",
                   f"This round kept {ALL_GUESSES}, so there is nothing to correct. A **bonus** "
                   "token is drawn from the **p** the checking pass already gave for the slot after "
                   "the last guess (step 2): one more token, with no extra pass.\n\n"
                   "Had a guess been rejected, a draw from **r** would have replaced it: the amounts "
                   "**max(0, p(x) − q(x))** the draft under-offered, divided by their total **Z**. "
                   "Not a fresh draw from p: a token the draft over-offered (**q > p**) already comes "
                   "out with probability p through its coin flip (step 3: q · p/q = p). Press Worked "
                   "example below for a round with a rejected guess and its correction.")),
    Step(5, "Why it's exact", "Is the output really the big model's?",
         "Exact does not mean the same text. Nimbus-large alone draws each token from its "
         "distribution, so two of its own runs already write different texts (only at temperature "
         "0, greedy decoding, is each token simply the likeliest, and every run the same). Exact "
         "means the text is a draw from the same distribution as Nimbus-large's own. A token x "
         "can come out of a position in two ways: drafted and kept, with probability "
         "**q(x)·min(1, p(x)/q(x)) = min(p(x), q(x))**, or drawn from r after a rejection.\n\n"
         "Both p and q sum to 1. Take away their shared part min(p, q), of mass β, and each has "
         "1 − β left: what q has left is the chance of a rejection; what p has left is the total "
         "of max(0, p − q), which is **Z**, so **Z = 1 − β**. The second way therefore has "
         "probability **(1 − β)·r(x) = Z · max(0, p(x) − q(x))/Z = max(0, p(x) − q(x))**, and "
         "since min(p, q) + max(0, p − q) = p, the two add up to **p(x)** for every x. A "
         "correction on its own follows r, not p; the token a position gives, whichever way it "
         "came, follows p.\n\n"
         "The same holds at every position, given the text before it, and a bonus token comes "
         "straight from p. The simulation below repeats this one position many times and compares "
         "the rule with two shortcuts that look harmless and are not. The first, accept every "
         "draft, is the small model writing on its own: at this position it outputs q, not p. The "
         "second, resample from p on reject, replaces a rejected draft with a fresh draw from p "
         "instead of r, so the tokens the draft over-offered come out too often (step 4).",
         _exact_takeaway),
)


def step(number: int) -> Step:
    if not 1 <= number <= len(STEPS):
        raise ValueError(f"step must lie in 1..{len(STEPS)}; got {number}")
    return STEPS[number - 1]
