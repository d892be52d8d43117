from ui import frame, walkthrough

frame.begin("Faster, not different",
            "Nimbus-mini guesses four tokens and one pass of Nimbus-large checks them. Guesses are "
            "kept up to the first that fails its test; that one is replaced by a draw from what the "
            "draft under-offered, so every token comes from exactly the distribution Nimbus-large "
            "would have used on its own.")
walkthrough.render()
