"""So what: the speed story, drawn from what the benchmark scripts saved."""
from __future__ import annotations

import streamlit as st

from lessons.speed_charts import early_stop_chart, sweep_chart
from lessons.speed_story import (OWN_V, SWEPT, ceiling_text, expected_best, figures, load, repeats_text, run_numbers,
                                 saved_verify_costs, speed_setting, table_reading, verify_cost_note)
from lessons.wording import ROUNDING_TIE
from specdec_core.catalog import default_drafter
from specdec_core.quality import drafter_table

from .display import number_table, show_chart
from .settings import DRAFTERS_NAMED


def speed_table() -> bool:
    """The timed speed-ups (benchmarks/speed.py); False when none were saved."""
    speed = load("speed.json")
    if not speed:
        return False
    with figures("speed.json"):  # the file's figures read into rows; drawn after, outside
        speed.sort(key=lambda r: (r["drafter"] != default_drafter(), r["drafter"], r.get("stop_below", 0.0),
                                  r["gamma"], r["temperature"]))
        runs = run_numbers(speed)
        # the settings in one short cell, then the results, the ratios first: where a phone's
        # width (or a projector's, or a laptop's beside the sidebar) still shows them; the run
        # beside the drafter when there are several: the caption points to it
        rows = [{"drafter": r["drafter"], **({"run": run} if max(runs) > 1 else {}),
                 "setting": speed_setting(float(r["temperature"]), int(r["gamma"]),
                                          float(r.get("stop_below", 0.0))),
                 "speed-up": float(r["speedup"]), "vs transformers": float(r["ours_vs_hf"]),
                 "tokens / pass": float(r["tokens_per_target_pass"]),
                 "target alone": float(r["target_tokens_per_s"]),
                 "speculative": float(r["speculative_tokens_per_s"])}
                for r, run in zip(speed, runs)]
        repeats = repeats_text(speed, runs)
    st.header("Speed, measured side by side", anchor=False)
    number_table(rows, "speed",
                 formats={"speed-up": "%.2fx", "tokens / pass": "%.2f",
                          "target alone": "%.1f", "speculative": "%.1f", "vs transformers": "%.2fx"},
                 helps={"setting": "γ: the most tokens a round drafts; greedy or T: the temperature; "
                                   "stop < P: a round's draft ends after a token to which the drafter "
                                   "(at temperature 1) gave less than P",
                        "tokens / pass": "Tokens written per pass of Nimbus-large",
                        "vs transformers": "Ours against transformers' assisted generation, same pair",
                        "run": "Rows of one run were measured together; the machine's load differs "
                               "between runs"},
                 titles={"target alone": "target alone, tok/s", "speculative": "speculative, tok/s"},
                 wide=("target alone", "speculative"))
    apart = "" if max(runs) == 1 else (
        " Compare rows of different runs (the run column) by their ratios: speeds in tokens per "
        "second move with the machine's load"
        + (" (this table leaves them out in instructor mode)." if st.session_state.get("present")
           else " (on a phone this table leaves them out)."))
    st.caption("From benchmarks/speed.py (`make bench` runs it). Each ratio compares methods timed in "
               "turn, prompt by prompt, in one run; between runs a speed-up moves by about ±0.1."
               f"{repeats}{apart}\n\n"
               "**setting**: γ, greedy (temperature 0: each token is the most likely one) or temperature T "
               "(T 1 draws each token from the model's distribution as it is), and any early stop. With stop < P, a round's "
               "draft ends after a token the drafter gave less than P, so γ is the most a round drafts: "
               "fewer drafts are thrown away after a rejection, and the pass that checks them is "
               "cheaper.\n\n"
               "**vs transformers**: the same pair doing the same work through transformers' own "
               "speculative decoding (`generate` with an assistant model); at 1x or above, this "
               "project's loop is at least as fast. It says nothing of the drafter, which both sides "
               "share.")
    return True


# the one speed-up column where no γ sweep was saved to price the check
ONLY_OWN_V = f"{SWEPT} {OWN_V}"


def _speedup_columns(table, verify: dict[int, float]) -> list[dict]:
    """Per row, the expected speed-up with the check priced at the γ sweep's costs (`verify`) and
    its best γ; then the same at the table run's own v, with that best γ too should it differ in
    any row. Without a saved sweep the two are one figure, at the table's own v, given once."""
    if not verify:
        return [{ONLY_OWN_V: r.expected_speedup, "best γ": r.best_gamma} for r in table]
    best = [expected_best(r, verify) for r in table]
    same = all(gamma == r.best_gamma for (gamma, _), r in zip(best, table))
    return [{SWEPT: speedup, "best γ": gamma, OWN_V: r.expected_speedup,
             **({} if same else {f"best γ, {OWN_V}": r.best_gamma})}
            for (gamma, speedup), r in zip(best, table)]


def drafter_family() -> bool:
    """The drafter table (benchmarks/drafters.py) and how to read it; False when it is empty."""
    table = drafter_table()
    if not table:
        return False
    verify = saved_verify_costs()  # read once, for every row and the note
    st.header("The drafter family", anchor=False)
    # what a drafter is worth next to its name, where a phone's width still shows it: α, then
    # the speed-up it buys; the costs behind that speed-up after them
    number_table([{"drafter": r.drafter, "α": r.alpha, **speedups, "c": r.cost_ratio,
                   "table's v": r.verify_cost, "greedy agreement": r.greedy_agreement}
                  for r, speedups in zip(table, _speedup_columns(table, verify))], "drafters",
                 formats={"α": "%.3f", SWEPT: "%.2fx", OWN_V: "%.2fx", ONLY_OWN_V: "%.2fx", "c": "%.3f",
                          "table's v": "%.2f", "greedy agreement": "%.3f"},
                 helps={"α": "The chance a checked draft is kept, at temperature 1: mean Σ min(p, q)",
                        SWEPT: "From the closed form at the best γ, with this row's c and the check "
                               "priced at the γ sweep's measured v (the chart below), as the "
                               "playground and the race price it",
                        OWN_V: "The same closed form with the v this table's own run timed, at its own "
                               "best γ",
                        ONLY_OWN_V: "From the closed form at the best γ, with this row's c and the v "
                                    "this table's own run timed (no γ sweep was saved to price the check)",
                        "c": "One draft step's cost, in target steps",
                        "best γ": "The γ at which the expected speed-up beside it is largest",
                        f"best γ, {OWN_V}": "The γ at which the speed-up at the table's own v is largest",
                        "table's v": "What the pass that checks γ drafts cost in this table's own run, "
                                     "at the γ best for that v, in single target steps",
                        "greedy agreement": "How often argmax q = argmax p on Nimbus-large's greedy text"},
                 # a phone's width and a projector's hold the sober figure and what it is made of;
                 # the figures at the table run's own v are the frame's, on a laptop
                 wide=(OWN_V, f"best γ, {OWN_V}", "table's v") if verify else ())
    best = max(table, key=lambda r: r.alpha)
    drafter, alpha = best.drafter, best.alpha
    st.markdown(table_reading(alpha, drafter, DRAFTERS_NAMED))
    st.markdown(ceiling_text(alpha, best.cost_ratio, drafter, sweep=bool(load("gamma_sweep.json"))))
    st.caption("A cheap drafter with a high α is the whole game. c and v are ratios of timings of a "
               "few milliseconds (a draft step) to a few tens (a target pass), so they move from run "
               "to run; the charts below, measured in other runs, quote other values."
               + (_flattered_note(bool(verify)) if any(r.flattered for r in table) else "")
               + " From benchmarks/drafters.py.")
    return True


def _flattered_note(swept: bool) -> str:
    """Why a v below 1 flatters the figure at the table's own v, and what prices the check
    soberly: the γ sweep's costs (`swept`), or, before it is saved, `make bench`."""
    note = (" Where v is below 1, the table's run timed a pass over several positions as cheaper "
            "than a pass over one (a CPU's matrix product for one row can be the slower one). "
            "That makes checking look free and flatters ")
    if not swept:
        return note + "the speed-up; `make bench` saves the γ sweep, which prices checking as measured."
    return (note + f"the speed-up “{OWN_V}”; “{SWEPT}” prices checking as the γ sweep below measured "
            "it, above one step, and gives the soberer figure.")


def gamma_sweep() -> bool:
    """The γ sweep's chart (benchmarks/gamma_sweep.py); False when it was not saved."""
    sweep = load("gamma_sweep.json")
    if not sweep:
        return False
    with figures("gamma_sweep.json"):  # the chart built from the file's figures; drawn after
        chart = sweep_chart(sweep)
    show_chart(chart, "sweep")
    verify = saved_verify_costs()
    if 4 in verify:
        with figures("step_costs_cuda.json"):
            note = verify_cost_note(verify, load("step_costs_cuda.json"))
        st.caption(note)
    return True


def early_stop() -> bool:
    """What the early stop buys (benchmarks/early_stop.py); False when it was not saved."""
    early = load("early_stop.json")
    if not early:
        return False
    with figures("early_stop.json"):  # the chart built from the file's figures; drawn after
        chart, cost = early_stop_chart(early), float(early["cost_ratio"])
    show_chart(chart, "early_stop")
    st.caption(f"Each round is priced at a draft step's cost (c = {cost:.2f}) per drafted token plus "
               "the measured cost of the pass that checks them, so settings are compared without "
               "timing noise. From benchmarks/early_stop.py.")
    return True


def render() -> None:
    # the idea first, then the measurements that bear it out
    st.markdown("**The bargain.** Each round spends γ cheap draft steps and one target pass that checks "
                "them all. When the draft agrees with the target often, that one pass buys several "
                "tokens; when it does not, the round still yields one token, the correction, but it has "
                "paid for the drafts and the check, so a poor drafter (such as early-exit-4) makes "
                "generation slower. The distribution of the output never changes (at temperature 0 "
                f"not even the tokens do, unless {ROUNDING_TIE}); only the number of expensive steps "
                "does.")
    shown = [part() for part in (speed_table, drafter_family, gamma_sweep, early_stop)]
    if not any(shown):
        st.info("No measurements yet: run `make bench` to fill this page.")
