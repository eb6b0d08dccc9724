"""Issue 39, item 2 — a conceptual diagram on every chapter, in both languages, accessible.

``tools/checks/diagrams.py`` checks that every chapter page of every language shows at least one diagram of
``docs/assets/diagrams/`` in its own language, that every diagram exists in every language, and that each
file has a ``<title>`` and ``<desc>`` in its language which ``aria-labelledby`` names. Each check is shown to
fail on a copy of the docs with one thing broken, naming the page or the file.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hooks import site_facts
from tools import sources
from tools.checks import diagrams

SITE = site_facts.load()
LANG = SITE.others[0] if SITE.others else SITE.default  # not the default language: its paths differ most


def test_every_chapter_shows_a_diagram_and_every_diagram_is_accessible_in_every_language():
    found = diagrams.problems()
    assert not found, "\n".join(found)


def test_every_chapter_is_checked():
    """The check covers the chapters a reader sees: the nine chapter pages of each language."""
    for lang in SITE.languages:
        assert len(sources.chapters(lang)) >= 9, sources.chapters(lang)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A copy of the pages and the diagrams, for one mutation each."""
    root = tmp_path / "docs"
    for lang in SITE.languages:
        (root / lang).mkdir(parents=True)
        for page in (SITE.docs / lang).glob("*.md"):
            shutil.copy(page, root / lang / page.name)
    shutil.copytree(SITE.docs / diagrams.FOLDER, root / diagrams.FOLDER)
    assert diagrams.problems(root) == []
    return root


def _first_diagram(docs: Path, lang: str, slug: str) -> str:
    return diagrams.shown((docs / lang / f"{slug}.md").read_text(encoding="utf-8"))[0][0]


def test_a_chapter_without_a_diagram_is_named(docs):
    slug = sources.chapters(LANG, docs)[0]
    page = docs / LANG / f"{slug}.md"
    page.write_text(re.sub(r"<figure markdown=\"span\">\s*!\[[^\]]*\]\([^)]*assets/diagrams/[^)]*\)[^<]*<figcaption.*?</figure>\n",
                           "", page.read_text(encoding="utf-8"), flags=re.S), encoding="utf-8")
    assert diagrams.problems(docs) == [f"docs/{LANG}/{slug}.md: shows no conceptual diagram "
                                       f"(docs/assets/diagrams/<name>.{LANG}.svg)"]


def test_a_page_showing_the_other_languages_diagram_is_named(docs):
    other = next(lang for lang in SITE.languages if lang != LANG)
    slug = sources.chapters(LANG, docs)[-1]
    name = _first_diagram(docs, LANG, slug)
    page = docs / LANG / f"{slug}.md"
    page.write_text(page.read_text(encoding="utf-8").replace(f"{name}.{LANG}.svg", f"{name}.{other}.svg"), encoding="utf-8")
    found = diagrams.problems(docs)
    assert f"docs/{LANG}/{slug}.md: shows {name}.{other}.svg, the {other} diagram; use {name}.{LANG}.svg" in found, found
    assert f"docs/{LANG}/{slug}.md: shows no conceptual diagram (docs/assets/diagrams/<name>.{LANG}.svg)" in found, found


def test_a_diagram_missing_in_one_language_is_named(docs):
    name = _first_diagram(docs, SITE.default, sources.chapters(SITE.default, docs)[0])
    (docs / diagrams.FOLDER / f"{name}.{LANG}.svg").unlink()
    found = diagrams.problems(docs)
    assert f"docs/assets/diagrams/{name}.{LANG}.svg is missing: the diagram {name} exists in another language" in found
    assert any(p.endswith(f"shows docs/assets/diagrams/{name}.{LANG}.svg, which does not exist") for p in found), found


@pytest.mark.parametrize("case", ["no desc", "empty title", "desc in the wrong language", "title not labelled",
                                  "wrong xml:lang", "not well-formed", "no role", "two titles",
                                  "text too small for a phone"])
def test_an_inaccessible_diagram_file_is_named(docs, case):
    svg = sorted((docs / diagrams.FOLDER).glob(f"*.{LANG}.svg"))[-1]
    text = svg.read_text(encoding="utf-8")
    other = next(p for p in sorted((docs / diagrams.FOLDER).glob(f"{svg.name.split('.')[0]}.*.svg")) if p != svg)
    other_desc = re.search(r"<desc[^>]*>.*?</desc>", other.read_text(encoding="utf-8"), re.S).group(0)
    edits = {
        "no desc": (r"<desc[^>]*>.*?</desc>", "", "no <desc> with text"),
        "empty title": (r"(<title[^>]*>).*?(</title>)", r"\1 \2", "no <title> with text"),
        "desc in the wrong language": (r"<desc[^>]*>.*?</desc>", other_desc.replace("\\", r"\\"), "the <desc> is not written in"),
        "title not labelled": (r'aria-labelledby="[^"]*"', 'aria-labelledby="desc"', "does not name the <title>"),
        "wrong xml:lang": (r'xml:lang="[^"]*"', 'xml:lang="fr"', "xml:lang is 'fr'"),
        "not well-formed": (r"</svg>\s*$", "", "not well-formed SVG"),
        "no role": (r' role="img"', "", 'needs role="img"'),
        "two titles": (r"(<title[^>]*>.*?</title>)", r"\1\1", "more than one <title>"),
        "text too small for a phone": (r'(<text[^>]*?) font-size="[\d.]+"', r'\1 font-size="12"', "on a 390 px phone, under 11 px"),
    }
    pattern, repl, message = edits[case]
    changed = re.sub(pattern, repl, text, count=1, flags=re.S)
    assert changed != text
    svg.write_text(changed, encoding="utf-8")
    found = diagrams.problems(docs)
    rel = f"docs/assets/diagrams/{svg.name}"
    assert found and all(p.startswith(f"{rel}: ") for p in found), found
    assert any(message in p for p in found), found


def test_a_diagram_file_without_a_language_in_its_name_is_named(docs):
    svg = sorted((docs / diagrams.FOLDER).glob(f"*.{LANG}.svg"))[0]
    stray = svg.with_name(svg.name.split(".")[0] + ".svg")
    shutil.copy(svg, stray)
    assert diagrams.problems(docs) == [f"docs/assets/diagrams/{stray.name}: not named <name>.<language>.svg "
                                       f"for one of {list(SITE.languages)}"]
