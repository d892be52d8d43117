import inspect

import streamlit as st

from lessons import code_lesson
from lessons.scenario import WALKTHROUGH_GAMMA, WALKTHROUGH_PROMPT
from ui import frame
from ui.settings import in_the_sidebar
from ui.models import get_pair, get_scenario

frame.begin("The code", "The function below is read from the module that runs the walkthrough, "
            "so the lesson and the code cannot drift apart.")
get_pair(st.session_state.drafter)
sc = get_scenario(st.session_state.drafter, WALKTHROUGH_PROMPT, WALKTHROUGH_GAMMA, int(st.session_state.seed))
st.markdown(f"One round of speculative decoding (also called speculative sampling), from "
            f"`specdec_core/sampling.py`. The comments marked ◀ are this round's values (drafter "
            f"**{sc.drafter}**, seed **{sc.seed}**); they follow the seed you set {in_the_sidebar()}. "
            "Unlike many write-ups, the function keeps the **bonus token**: when every draft survives, "
            "the target's extra distribution is used, not wasted.")
# wrapped lines restart at the margin and hide the nesting, so only a projector, where a class
# cannot scroll sideways, gets them, with every note on a line of its own so that few lines are
# long enough to wrap; elsewhere a long line scrolls and the indentation holds
wrap = bool(st.session_state.present)
st.code(code_lesson.annotated_source(sc, apart=wrap), language="python", wrap_lines=wrap)
with st.expander("The helpers it calls"):
    for fn in code_lesson.SHOWN[1:]:
        st.code(inspect.getsource(fn), language="python", wrap_lines=wrap)
