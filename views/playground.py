from ui import frame, playground

frame.begin("Playground", "Make the draft better or worse and watch the acceptance rate, the "
            "tokens each target pass buys, and the speed-up you can expect. The output stays "
            "exactly Nimbus-large's in every setting.", drafter_in_sidebar=False)
playground.render()
