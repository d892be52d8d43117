from ui import frame, so_what

frame.begin("So what", "The speed comes from spending a little extra computing on cheap guesses; "
            "what the big model is allowed to write stays the same. These numbers were measured on "
            "this machine.")
so_what.render()
