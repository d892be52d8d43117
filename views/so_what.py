import streamlit as st

from lessons.speed_story import (early_stop_chart, early_stop_text, load, saved_verify_costs, sweep_chart,
                                 verify_cost_note)
from specdec_core.catalog import default_drafter
from specdec_core.quality import drafter_table
from ui import frame
from ui.display import show_chart

frame.begin("So what", "The speed comes from spending a little extra computing on cheap guesses; "
            "what the big model is allowed to write stays the same. These numbers were measured on "
            "this machine.")
speed = load("speed.json")
if speed:
    speed.sort(key=lambda r: (r["drafter"] != default_drafter(), r["drafter"], r.get("stop_below", 0.0),
                              r["gamma"], r["temperature"]))
    st.header("Speed, measured side by side in one run")
    # the settings, then the results: the speed-up first, where a projector's width still shows it
    st.dataframe([{"drafter": r["drafter"], "temperature": r["temperature"], "γ": r["gamma"],
                   "early stop": early_stop_text(r.get("stop_below", 0.0)),
                   "speed-up": r["speedup"], "tokens / pass": r["tokens_per_target_pass"],
                   "target alone": r["target_tokens_per_s"], "speculative": r["speculative_tokens_per_s"],
                   "vs transformers": r["ours_vs_hf"]} for r in speed],
                 hide_index=True, column_config={
                     "target alone": st.column_config.NumberColumn("target alone, tok/s", format="%.1f"),
                     "speculative": st.column_config.NumberColumn("speculative, tok/s", format="%.1f"),
                     "early stop": st.column_config.TextColumn(
                         help="A round's draft ends after a token the drafter gave less than this"),
                     "speed-up": st.column_config.NumberColumn(format="%.2fx"),
                     "tokens / pass": st.column_config.NumberColumn(
                         format="%.2f", help="Tokens written per pass of Nimbus-large"),
                     "vs transformers": st.column_config.NumberColumn(
                         format="%.2fx", help="Ours against transformers' assisted generation, same pair"),
                 })
    st.caption("From `make bench` (benchmarks/speed.py). With an early stop, a round's draft ends after "
               "a token the drafter gave less than that probability, so γ is the most a round drafts: "
               "fewer drafts are thrown away after a rejection, and the pass that checks them is cheaper.")
table = drafter_table()
if table:
    st.header("The drafter family")
    st.dataframe([{"drafter": r.drafter, "α (temperature 1)": r.alpha,
                   "greedy agreement": r.greedy_agreement, "c, draft step / target step": r.cost_ratio,
                   "best γ": r.best_gamma, "expected speed-up": r.expected_speedup} for r in table],
                 hide_index=True, column_config={
                     "α (temperature 1)": st.column_config.NumberColumn(format="%.3f"),
                     "greedy agreement": st.column_config.NumberColumn(format="%.3f"),
                     "c, draft step / target step": st.column_config.NumberColumn(format="%.3f"),
                     "expected speed-up": st.column_config.NumberColumn(format="%.2fx"),
                 })
    st.markdown("**How to read it.** **α** is the share of drafts the target keeps in the long run "
                "(β averaged over many positions, at temperature 1). A draft step costs **c** target "
                "steps, and the pass that checks γ drafts costs **v** single steps (measured in the γ "
                "sweep below). A round then costs γc + v steps and writes (1 − α^(γ+1)) / (1 − α) "
                "tokens on average; their ratio is the expected speed-up, and the best γ is the one "
                "that makes it largest.")
    st.caption("A cheap drafter with a high α is the whole game. c is a ratio of two timings of a few "
               "milliseconds, so it moves a little from run to run, and the charts below, measured in "
               "other runs, quote slightly different values. From benchmarks/drafters.py.")
sweep = load("gamma_sweep.json")
if sweep:
    show_chart(sweep_chart(sweep), "sweep")
    verify = saved_verify_costs()
    if 4 in verify:
        st.caption(verify_cost_note(verify, load("step_costs_cuda.json")))
early = load("early_stop.json")
if early:
    show_chart(early_stop_chart(early), "early_stop")
    st.caption(f"Each round is priced at a draft step's cost (c = {early['cost_ratio']:.2f}) per drafted "
               "token plus the measured cost of the pass that checks them, so settings are compared "
               "without timing noise. From benchmarks/early_stop.py.")
if not (speed or table or sweep or early):
    st.info("No measurements yet: run `make bench` to fill this page.")
st.markdown("**The bargain.** Each round spends γ cheap draft steps and one target pass that checks "
            "them all. When the draft agrees with the target often, that one pass buys several tokens; "
            "when it does not, the round still yields one correct token. The distribution of the "
            "output never changes (at temperature 0 not even the tokens do); only the number of "
            "expensive steps does.")
