"""What the page sources hold: the pages of a language, their snippet includes, display
equations, figures and citations. Plain text parsing of ``docs/<lang>/*.md``; no build."""

from __future__ import annotations

import re
from pathlib import Path

from hooks import site_facts

PAGE_SUFFIXES = site_facts.PAGE_SUFFIXES

_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]", re.S)
_FIGURE = re.compile(r"assets/(?:figures|diagrams)/[\w./-]+")
_CITATION = re.compile(r"references\.md#([\w-]+)")
_HEADING_ID = re.compile(r"^#{1,6} .*\{ *#([\w-]+)", re.M)
NOT_CHAPTERS = {"index.md", "verification.md"}  # each shows the package versions (a snippet); neither is a chapter


def pages(lang: str, docs: Path | None = None) -> set[str]:
    """Page files of one language, relative to its folder."""
    root = (docs or site_facts.load().docs) / lang
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix in PAGE_SUFFIXES}


def read(lang: str, page: str, docs: Path | None = None) -> str:
    return ((docs or site_facts.load().docs) / lang / page).read_text(encoding="utf-8")


def includes(text: str) -> list[str]:
    """Snippet files a page includes, in order (a ``:section`` suffix names the same file), as pymdownx.snippets
    reads them: every include syntax it knows (``hooks/includes.py``)."""
    from hooks import includes as _includes

    return _includes.names(text)


def display_equations(text: str) -> int:
    return len(_DISPLAY_MATH.findall(text))


def figures(text: str, languages: tuple[str, ...] | None = None) -> list[str]:
    """Figures and diagrams a page shows; ``name.<lang>.svg`` of every language count as one."""
    langs = "|".join(map(re.escape, languages or site_facts.load().languages))
    return [re.sub(rf"\.({langs})(\.\w+)$", r"\2", f) for f in _FIGURE.findall(text)]


def citations(text: str) -> list[str]:
    return _CITATION.findall(text)


def heading_ids(text: str) -> list[str]:
    """Explicit heading ids (``## Title { #id }``), in order."""
    return _HEADING_ID.findall(text)


def chapters(lang: str | None = None, docs: Path | None = None) -> list[str]:
    """Slugs of the chapters: top-level pages that include a snippet (each gets a notebook and exercises)."""
    facts = site_facts.load()
    lang, docs = lang or facts.default, docs or facts.docs
    return [path.stem for path in sorted((docs / lang).glob("*.md"))
            if path.name not in NOT_CHAPTERS and includes(path.read_text(encoding="utf-8"))]
