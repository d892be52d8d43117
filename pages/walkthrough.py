from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import frame, walkthrough  # noqa: E402

frame.begin("Faster, not different",
            "A large language model writes one token per pass. Speculative decoding lets one of "
            "its passes write several, without changing the distribution of what it writes. A "
            "small draft model (Nimbus-mini, unless another is picked) guesses four tokens, and "
            "one pass of the large model, "
            "Nimbus-large, checks them all: it keeps each guess in turn until it rejects one, "
            "replaces that one with a corrected draw, and adds one more token from the same pass when it "
            "keeps them all. "
            "The five steps show how, and why every token still comes out distributed exactly "
            "as Nimbus-large would have written it alone.",
            step_top=walkthrough.STEP_TOP)
walkthrough.render()
