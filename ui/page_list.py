"""The app's pages by section: file, title and icon. Read by app.py's navigation and by the
walkthrough's links on from its last step; light, so that app.py can read it before importing
anything heavy."""

SECTIONS = {
    "Lesson": (
        ("pages/walkthrough.py", "Walkthrough", ":material/explore:"),
        ("pages/code.py", "The code", ":material/code:"),
        ("pages/thread.py", "The Nimbus thread", ":material/forum:"),
        ("pages/so_what.py", "So what", ":material/speed:"),
    ),
    "Explore": (
        ("pages/playground.py", "Playground", ":material/tune:"),
        ("pages/race.py", "Race", ":material/sports_score:"),
    ),
}
DEFAULT_PAGE = "pages/walkthrough.py"
ICONS = {path: icon for pages in SECTIONS.values() for path, _, icon in pages}
