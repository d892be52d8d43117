from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import frame, race  # noqa: E402

frame.begin("Race", "The same prompt, written by Nimbus-large alone and by the speculative pair. "
            "Watch the pair's side arrive in bursts: every burst is one target pass (Slow motion shows "
            f"them {race.SLOW_MOTION} times slower). The two sides take "
            "turns on this one machine, and each is timed on its own clock, as if it ran alone. Early "
            "stop, a setting the walkthrough does not use, ends a round's draft where the drafter is "
            "unsure of its token; the So what page measures what that buys.")
race.render()
frame.end(__file__)
