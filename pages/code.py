from ui.navigation import follow_app

follow_app()  # first: see ui/navigation.py

from ui import code_page, frame  # noqa: E402

frame.begin("The code", "The function below is read from the module that runs the walkthrough, "
            "so the lesson and the code cannot drift apart.")
code_page.render()
frame.end(__file__)
