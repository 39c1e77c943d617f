"""The dashboard's layout: the entry script ``app/main.py``, the shared pages in the top-level ``pages/``, each
method's pages in ``app/methods/<m>/``. Every page of ``app.nav.pages()`` is a file, Streamlit registers each under
its URL path with ``st.navigation``, and never in its legacy multipage mode (a ``pages/`` folder beside the entry
script). The browser's cold deep links are ``tests/browser/test_deep_links.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.app.conftest import APP, PAGES

REPO = Path(__file__).resolve().parents[2]


def test_every_page_of_the_navigation_is_a_file() -> None:
    from app.nav import pages

    infos = pages()
    assert all(not Path(p.path).is_absolute() and Path(p.script) == REPO / p.path for p in infos)
    missing = [p.path for p in infos if not Path(p.script).is_file()]
    assert missing == []
    urls = [p.url for p in infos]
    assert len(set(urls)) == len(urls) and set(PAGES) == set(urls)


def test_pages_folder_holds_exactly_the_shared_pages() -> None:
    from app.nav import TOOLS, TOP, pages

    shared = {p.path for p in (*TOP, *TOOLS)}
    files = {f"pages/{f.name}" for f in (REPO / "pages").iterdir() if f.name != "__pycache__"}
    assert files == shared
    methods = [p.path for p in pages() if p.path not in shared]
    assert methods and all(path.startswith("app/methods/") for path in methods)


def test_the_entry_script_has_no_pages_folder_beside_it() -> None:
    """No ``app/pages/`` (legacy mode) and no top-level ``app.py`` beside the ``app`` package."""
    import app

    assert Path(APP) == REPO / "app" / "main.py"
    assert not (Path(APP).parent / "pages").exists()
    assert not (REPO / "app.py").exists()
    assert Path(app.__file__) == REPO / "app" / "__init__.py"


def test_streamlit_registers_every_page_under_its_url(app_on_fixture) -> None:
    """After a run of the entry script the registered pages are the navigation's, by script and URL path (the
    default page at the root), and Streamlit is not in its pages-folder mode."""
    from streamlit.runtime.pages_manager import PagesManager

    from app.nav import HOME, pages

    at = app_on_fixture()
    assert not at.exception
    assert PagesManager.uses_pages_directory is False
    registered = {info["url_pathname"]: info["script_path"] for info in at._registered_pages.values()}
    assert registered == {("" if p.url == HOME else p.url): p.script for p in pages()}


def test_the_entry_script_finds_the_repository_on_its_own(tmp_path: Path) -> None:
    """``streamlit run app/main.py`` puts ``app/``, not the repository, on the import path (so does AppTest): run from
    another folder, with no PYTHONPATH, the entry script still imports the ``app`` package and shows the Overview."""
    script = ("from streamlit.testing.v1 import AppTest; import json; "
              f"at = AppTest.from_file({APP!r}, default_timeout=300).run(); "
              "print(json.dumps([[e.message for e in at.exception], [t.value for t in at.title]]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {
        "ROLESCOPE_DEMO_STORE": str(tmp_path / "no-demo.db"), "ROLESCOPE_STORE": str(tmp_path / "empty.db"),
        "ROLESCOPE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[], ["RoleScope"]]
