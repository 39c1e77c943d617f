"""What a shared link may name: only uploads stored by this app and bundled data.

Form fields that name a file (a persona file, a contexts chunk, an instrument folder, rubrics) live in the URL like
every other field, so a link can carry them. A value that arrives from the link may name only an upload kept under the
app's upload folder, the repository's bundled ``data/`` folder, a bundled name the loader knows ("pvq", "no_conv",
"default" ...) or a hub reference (fetched by the hub client into its cache, never read from this server's disk).
Anything else from a link is ignored with one warning line: it would let anyone who sends a link make the server read
any file it can reach. A path the user types into the field in this session is the user's own act and is opened.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

from analysis.sources import DATA_DIR, HF_PREFIX
from app import stores

WARNING = ("path from the link not opened: only uploads and bundled data can be named in a link; "
           "type the path to open it")

#: ``filter(value) -> (value to use instead or None for the field's default, the refused parts)``
LinkFilter = Callable[[str], "tuple[str | None, list[str]]"]


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def linkable(text: str, names: Collection[str] = ()) -> bool:
    """Whether a link may name ``text``: empty, a bundled name, a hub reference without '..', or a path that resolves
    (symbolic links followed, relative to the working directory as the loaders read it) inside the upload folder or
    the bundled data folder."""
    text = text.strip()
    if not text or text in names:
        return True
    if text.startswith(HF_PREFIX):
        return ".." not in text.removeprefix(HF_PREFIX).split("/")
    try:
        resolved = Path(text).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return _inside(resolved, DATA_DIR) or _inside(resolved, stores.UPLOAD_DIR)


def one_path(names: Collection[str] = ()) -> LinkFilter:
    """A field holding one path (or bundled name): kept when linkable, else the field's default."""
    def keep(value: str) -> tuple[str | None, list[str]]:
        return (value, []) if linkable(value, names) else (None, [value.strip()])

    return keep


def comma_paths(names: Collection[str] = ()) -> LinkFilter:
    """A comma-separated field of paths / bundled names: the linkable parts kept, the others refused."""
    def keep(value: str) -> tuple[str | None, list[str]]:
        parts = [p.strip() for p in value.split(",") if p.strip()]
        refused = [p for p in parts if not linkable(p, names)]
        if not refused:
            return value, []
        return ", ".join(p for p in parts if p not in refused), refused

    return keep
