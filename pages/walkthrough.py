from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import frame, walkthrough  # noqa: E402

frame.begin("Faster, not different",
            "The draft model (Nimbus-mini, unless another is picked) guesses four tokens and one pass "
            "of Nimbus-large checks them. Guesses are kept up to the first that fails its test; that "
            "one is replaced by a draw from what the draft under-offered, and if all of them pass, "
            "one more token is drawn from Nimbus-large's own next distribution. The kept guesses were "
            "drawn by the draft, yet every token comes out distributed exactly as Nimbus-large would "
            "have drawn it on its own.",
            step_top=walkthrough.STEP_TOP)
walkthrough.render()
