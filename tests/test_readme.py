"""The README stays a front page (issue 44): at most 150 lines, exactly the two set-up commands in its code blocks, and
every relative link in it and in ``docs/`` leads to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
#: a markdown link's target: ``[text](target)`` or ``[text](target "title")``; code spans are left out first
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def code_blocks(text: str) -> list[str]:
    """The contents of each fenced code block, without its fences."""
    return [block.split("\n", 1)[1].rsplit("```", 1)[0].strip() for block in FENCE.findall(text)]


def links(text: str) -> list[str]:
    """Every relative link target of ``text`` outside code blocks and code spans (web and mail links left out)."""
    prose = re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))
    return [t for t in LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_readme_gives_exactly_the_two_setup_commands() -> None:
    assert code_blocks(README.read_text(encoding="utf-8")) == ["bash scripts/start.sh", "bash scripts/test.sh"]


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(doc: Path) -> None:
    broken = [t for t in links(doc.read_text(encoding="utf-8"))
              if not (doc.parent / t.split("#", 1)[0]).resolve().exists()]
    assert not broken, f"{doc.relative_to(ROOT)}: links to nothing: {broken}"


def test_links_are_found() -> None:
    """The link pattern itself: a relative link with an anchor, a web link and a link in a code span."""
    assert links("[a](docs/x.md#y) [b](https://e.org) `[c](z.md)` [d](#top)") == ["docs/x.md#y"]
