from ui import frame, so_what

frame.begin("So what", "The speed comes from spending a little extra computing on cheap guesses; "
            "what the big model is allowed to write stays the same. These numbers were measured by "
            "`make bench`: as shipped, on a 2-core CPU without a GPU (unless a figure names a GPU), where "
            "the target's pass is not free and the speed-ups are modest; `make bench` on your machine "
            "measures it instead.")
so_what.render()
