from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import frame, playground  # noqa: E402

frame.begin("Playground", "Make the draft better or worse and watch the acceptance rate, the "
            "tokens each target pass buys, and the speed-up you can expect. Whatever the draft, the "
            "output follows Nimbus-large's distribution at the chosen temperature and top-p.",
            drafter_in_sidebar=False)
playground.render()
frame.end(__file__)
