from ui import frame, walkthrough

frame.begin("Faster, not different",
            "Nimbus-mini drafts four tokens ahead; Nimbus-large checks them all in one pass and "
            "accepts or corrects each one, so the text reads exactly as if it wrote every token alone.")
walkthrough.render()
