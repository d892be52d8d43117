from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import frame, so_what  # noqa: E402

frame.begin("So what", "Where the speed comes from, and how much of it this pair gets. The "
            "numbers were measured on a 2-core CPU "
            "without a GPU (unless a figure names one), where a pass over several positions costs "
            "more than a pass over one (the γ sweep times how much), and the speed-ups are "
            "modest. Run `make bench` to "
            "measure them on your own machine (the GPU figures come from `benchmarks/step_costs.py`).")
so_what.render()
frame.end(__file__)
