"""The tab's icon: a file of our own, because a material icon as the page icon is fetched from
Google's font servers, which a classroom without internet cannot reach. Kept apart from
`ui.frame` so that app.py can name it before importing anything heavy."""
from pathlib import Path

ICON = str(Path(__file__).resolve().parent.parent / "assets" / "favicon.png")
