"""The measured speed story: benchmark results saved by the scripts in benchmarks/, read and
put into words (its two charts are lessons/speed_charts.py)."""
from __future__ import annotations

import math

import numpy as np

from specdec_core.catalog import ASSETS
from specdec_core.results import read_results, reading
from specdec_core.quality import best_gamma
from specdec_core.sampling import (GAMMAS, alpha_for_speedup, expected_speedup, expected_tokens_per_round,
                                   tokens_per_round_bound)

RESULTS = ASSETS / "benchmarks"


def load(name: str):
    """A benchmark script's saved figures, or None before it has run."""
    return read_results(RESULTS / name)


def figures(name: str):
    """A block that uses a benchmark script's saved figures: a file of the wrong shape there
    is named with its fix (see specdec_core.results.reading)."""
    return reading(RESULTS / name)


def run_numbers(rows: list[dict]) -> list[int]:
    """Which run of benchmarks/speed.py each row came from, numbered 1, 2, … in order of first
    appearance. speed.json keeps the rows a run did not measure again; a row names its run,
    or, saved before rows did, is told apart by its number of repeats."""
    runs = [row.get("run", f"repeats {row.get('repeats')}") for row in rows]
    order = list(dict.fromkeys(runs))
    return [order.index(run) + 1 for run in runs]


def repeats_text(rows: list[dict], runs: list[int]) -> str:
    """How often each run wrote each prompt, as a sentence for the speed table's caption."""
    per_run = {}
    for row, run in zip(rows, runs):
        if row.get("repeats"):
            per_run.setdefault(run, row["repeats"])
    if not per_run:
        return ""
    times = {1: "once", 2: "twice"}
    if len(set(per_run.values())) == 1:
        n = next(iter(per_run.values()))
        return f" Every method wrote each prompt {times.get(n, f'{n} times')}."
    return " Every method wrote each prompt " + ", ".join(
        f"{times.get(n, f'{n} times')} in run {run}" for run, n in sorted(per_run.items())) + "."


def speed_setting(temperature: float, gamma: int, stop_below: float) -> str:
    """A speed row's settings in one short cell, so that its speed-up still shows beside it on
    a phone: "γ 4, greedy", "γ 8, T 1, stop < 0.5"."""
    regime = "greedy" if temperature == 0 else f"T {temperature:g}"
    return f"γ {gamma}, {regime}" + (f", stop < {stop_below:g}" if stop_below else "")


def early_stop_text(stop_below: float) -> str:
    """How a speed row's drafts end: "off" (always γ tokens) or "below 0.5"."""
    return f"below {stop_below:g}" if stop_below else "off"


def saved_verify_costs() -> dict[int, float]:
    """Measured cost of the target pass that checks gamma drafts, in single steps, by gamma
    (from benchmarks/gamma_sweep.py; empty before it has run)."""
    sweep = load("gamma_sweep.json") or {"rows": []}
    with figures("gamma_sweep.json"):
        costs = {int(r["gamma"]): float(r["verify_cost"]) for r in sweep["rows"] if "verify_cost" in r}
        bad = {g: v for g, v in costs.items() if g not in GAMMAS or not 0 < v < math.inf}
        if bad:  # a cost of 0 or NaN would divide the closed form by nothing, or by NaN
            raise ValueError(f"verify costs by γ {bad}: a γ from 1 to 8, a cost above 0")
        return costs


def verify_cost_for(drafts: float, costs: dict[int, float]) -> float | None:
    """The cost of a pass that checks `drafts` drafts, in single steps, read off the γ sweep's
    `costs` between the two whole numbers around it (rounds that stop early draft a varying
    number, and the cost grows about evenly with it); None where nothing was measured."""
    if not costs:
        return None
    known = sorted(costs)
    return float(np.interp(drafts, known, [costs[k] for k in known]))


# how the drafter table samples where it measures α; other settings keep drafts more or less often
TABLE_SAMPLING = "temperature 1 without top-p"


def sampled_as_table(temperature: float, top_p: float) -> bool:
    """Whether these settings sample as the drafter table measured its α (TABLE_SAMPLING)."""
    return temperature == 1 and top_p == 1


# the names of the drafter table's columns: expected_best, which the playground and the race
# use, first; then the closed form at the table run's own v, which can time a check below one step
SWEPT = "expected speed-up"
OWN_V = "at the table's own v"


def expected_best(row, verify: dict[int, float] | None = None) -> tuple[int, float]:
    """The best γ and its expected speed-up from a drafter table row's α and c, with the checking
    pass at the γ sweep's measured costs (`verify`, read from its file when not given), as the
    playground and the race price it (the table's own run may have timed that pass below one
    step, which flatters its figure); the row's own figures where no sweep was saved."""
    verify = saved_verify_costs() if verify is None else verify
    if not verify:
        return row.best_gamma, row.expected_speedup
    return best_gamma(row.alpha, row.cost_ratio, verify)


def expected_at(row, gamma: int, verify: dict[int, float] | None = None) -> float:
    """A drafter table row's expected speed-up at `gamma` by the closed form, its checking pass
    priced as expected_best prices it (at the row's own v where no sweep was saved)."""
    verify = saved_verify_costs() if verify is None else verify
    v = verify.get(gamma, 1.0) if verify else row.verify_cost
    return expected_speedup(row.alpha, gamma, row.cost_ratio, v)


def table_reading(alpha: float, drafter: str, drafters_named: str) -> str:
    """How to read the drafter table, with the best drafter's α (`alpha`, `drafter`) worked
    through at γ = 4; `drafters_named`: what the drafters' names mean."""
    kept = expected_tokens_per_round(alpha, 4) - 1  # 1 + α + … + α⁴, less the closing token
    return (
        "**How to read it.**\n"
        f"- **The drafters.** {drafters_named}\n"
        "- **α** is the chance that a draft the target checks is kept: the overlap β = Σ min(p, q) "
        "averaged over many positions, at temperature 1. A draft after a rejection is never checked, "
        f"so fewer of all drafted tokens survive. At γ = 4 and α = {alpha:.3f} ({drafter}), if each check "
        "were an independent coin with chance α, a round would keep α + α² + α³ + α⁴ ≈ "
        f"{kept:.2f} drafts on average, only {kept / 4:.0%} of its 4.\n"
        "- **c** is what a draft step costs, in target steps. The pass that checks γ drafts costs "
        "**v** single steps (timed with the table; the γ sweep times v again, in a run of its "
        "own).\n"
        "- **Best γ and expected speed-up.** If every check is an independent coin that comes up "
        "\"keep\" with chance α (the *closed form*), a round writes (1 − α^(γ+1)) / (1 − α) tokens "
        "on average for γc + v steps. The ratio of the two is the expected speed-up; the best γ "
        "makes it largest. That γ drafts γ tokens every round. With an early stop (the speed table "
        "above, the chart below) a round drafts up to γ only while the draft is sure, and a larger "
        "γ then does about as well as the best γ without the stop, or a little better, where "
        "without it a larger γ falls behind.\n"
        "- **Greedy agreement** is how often the two models' top tokens agree on Nimbus-large's own "
        "greedy text: the acceptance rate at temperature 0, where a draft is kept exactly when the "
        "two agree. Agreement comes in runs (text that is easy for one model is easy for the other), "
        "which the closed form's independent coins miss.")


# the γ at which ceiling_text asks what α would double the speed
DOUBLING_GAMMA = 4


def ceiling_text(alpha: float, cost_ratio: float, drafter: str, sweep: bool = True) -> str:
    """What a drafter's α allows by the closed form, where every check is an independent coin:
    the most tokens per pass any γ can buy, and the α that would make γ drafts a round twice as
    fast as the target alone at this cost, with the check priced at one step. α differs from
    text to text, and real keeps can come in runs, which the closed form misses; `sweep`: the
    page shows the γ sweep, whose prompts give a higher α than the table's."""
    text = ("**What α allows.** If every check were an independent coin that comes up \"keep\" "
            "with chance α, a round of γ drafts would write 1 + α + … + α^γ tokens per target pass "
            "on average")
    if 0 < alpha < 1:  # none kept: exactly one token a pass; every one kept: no bound
        most = tokens_per_round_bound(alpha)
        text += (f", which approaches 1/(1 − α) as γ grows: at α = {alpha:.3f} ({drafter}, at "
                 f"temperature 1), {most:.2f} tokens. By that closed form, even free drafts and a "
                 f"one-step check would make the pair only about {most:.2f} times as fast as "
                 "Nimbus-large alone. It is an estimate, not a limit: α differs from one text to "
                 "another, and real keeps can come in runs, which independent coins miss"
                 + (" (the γ sweep below times prompts on whose text the drafter's α is higher, which is "
                    "most of why its measured tokens per pass stand above its closed form at large γ)"
                    if sweep else "")
                 + ".")
    else:
        text += "."
    cost_ratio = round(cost_ratio, 3)  # the c the sentence shows, so that a reader gets the same α
    needed = alpha_for_speedup(2.0, DOUBLING_GAMMA, cost_ratio)
    setting = f"at γ = {DOUBLING_GAMMA} (drafts at c = {cost_ratio:.3f}, a one-step check)"
    if needed is None:
        return text + f" By the closed form, no α could double the speed {setting}."
    if needed <= alpha:
        return text + f" By the closed form, its α doubles the speed {setting}."
    return text + f" By the closed form, doubling the speed {setting} would take α ≈ {needed:.2f}."


# a checking pass within this of one step is taken as costing one step
FREE_CHECK = 0.05


def verify_cost_note(cpu: dict[int, float], gpu: dict | None) -> str:
    """What the measured verify cost v(4) means, beside the GPU's figures when
    benchmarks/step_costs.py has saved them (`gpu`: its step_costs_cuda.json)."""
    note = (f"Here one Nimbus-large pass over 5 positions (γ = 4) costs {cpu[4]:.2f} "
            "passes over one. The plain closed form assumes 1, which holds when reading the weights "
            "or launching the work sets a pass's cost, not the number of positions.")
    on_cpu = " Where each extra checked position adds to the pass, as on this CPU, the best γ is smaller"
    costs = [float(v) for v in (gpu or {}).get("verify_cost", {}).values()]
    if not costs:
        return note + on_cpu + "."
    positions = sorted(int(g) + 1 for g in gpu["verify_cost"])  # gamma drafts and the bonus slot
    span = (f"on an {gpu['device']}: a pass over {positions[0]} to {positions[-1]} positions cost {min(costs):.2f} to "
            f"{max(costs):.2f} passes over one")
    if max(costs) <= 1 + FREE_CHECK:
        return (note + f" It holds {span}, since launching each layer's work dominates a model "
                "this small." + on_cpu + ".")
    return (note + f" Nimbus-large is too small for that even {span}, the same for every γ: launching "
            "each layer's work dominates, and a pass over more than one position takes a slower path."
            + on_cpu + "; a pass that costs a fixed amount more than one step, as on that GPU, lowers "
            "every speed-up, and if anything favours a larger γ, which spreads that cost over more "
            "drafts.")
