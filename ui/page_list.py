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
ORDER = [page for pages in SECTIONS.values() for page in pages]  # as the sidebar lists them


def next_page(path: str) -> tuple[str, str, str] | None:
    """The page after `path` (a page file, "pages/code.py") as the sidebar lists them: (file,
    title, icon); None after the last page."""
    paths = [p for p, _, _ in ORDER]
    if path not in paths:
        raise ValueError(f"no page {path!r}; the pages are {paths}")
    at = paths.index(path) + 1
    return ORDER[at] if at < len(ORDER) else None
