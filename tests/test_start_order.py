"""On a fresh server the first visitor sees the app's navigation as soon as Streamlit runs app.py
or a page, not after PyTorch and transformers have loaded: what runs before the navigation is
declared must stay light."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "pandas")


def _modules_after(imports: str) -> set[str]:
    code = f"import sys; {imports}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return set(out.split())


def test_what_runs_before_the_navigation_imports_nothing_heavy():
    loaded = _modules_after("import ui.icon, ui.navigation, ui.page_list, ui.style")
    assert not loaded & set(HEAVY)
    assert "torch" in _modules_after("import ui.frame")  # the check can see a heavy import


def _statements(path: Path) -> list[str]:
    return [ast.unparse(node) for node in ast.parse(path.read_text()).body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]


def test_app_declares_its_navigation_before_the_heavy_imports():
    body = _statements(ROOT / "app.py")
    nav = next(i for i, s in enumerate(body) if "st.navigation(" in s)
    heavy = next(i for i, s in enumerate(body) if "import ui.frame" in s)
    assert nav < heavy
    assert all("ui.frame" not in s and "specdec_core" not in s for s in body[:nav])


def test_every_page_follows_the_app_before_importing_anything_else():
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert len(pages) == 6
    for page in pages:
        body = _statements(page)
        assert body[:2] == ["from ui.navigation import follow_app", "follow_app()"], page.name


def _imports_under_the_spinner() -> list[str]:
    """The modules app.py imports while it shows "Starting the lesson…"."""
    tree = ast.parse((ROOT / "app.py").read_text())
    (block,) = [node for node in tree.body if isinstance(node, ast.With)]
    return [alias.name for node in block.body if isinstance(node, ast.Import) for alias in node.names]


def test_the_start_up_message_covers_the_slow_imports():
    """Once app.py's start-up imports are done, a page's own modules add only the project's code
    and a few plotly classes: PyTorch and transformers' model classes load while the page says
    "Starting the lesson…", not over an empty page after it."""
    started = "import " + ", ".join(_imports_under_the_spinner())
    pages = "import " + ", ".join(f"ui.{name}" for name in ("walkthrough", "code_page", "thread", "so_what",
                                                              "playground", "race"))
    before = _modules_after(started)
    after = _modules_after(f"{started}; {pages}")
    assert {"torch", "transformers"} <= before
    assert {name.split(".")[0] for name in after - before} <= {"ui", "lessons", "plotly"}, \
        sorted(after - before)
