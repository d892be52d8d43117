from ui import frame, walkthrough

frame.begin("Faster, not different",
            "Nimbus-mini guesses four tokens and one pass of Nimbus-large checks them. Guesses are "
            "kept up to the first that fails its test, which is swapped for a fresh draw, so every "
            "token comes from exactly the distribution Nimbus-large would have used on its own.")
walkthrough.render()
