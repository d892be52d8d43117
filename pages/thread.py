from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from lessons.thread import REPLY_TEMPERATURE  # noqa: E402
from ui import frame, thread  # noqa: E402

frame.begin("The Nimbus thread", "Nimbus, a support assistant, writes its replies with a small draft "
            "model proposing tokens (Nimbus-mini, or the draft model picked in the sidebar) and Nimbus-large "
            "checking them. Each reply is a fair sample of what "
            f"Nimbus-large alone would have written at the same temperature ({REPLY_TEMPERATURE:g}); the "
            "pair needed at most as many passes of Nimbus-large to write it, and usually fewer.")
thread.render()
frame.end(__file__)
