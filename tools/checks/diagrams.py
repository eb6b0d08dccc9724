"""Conceptual diagrams: hand-drawn SVGs under ``docs/assets/diagrams/``, one file per language
(``<name>.<lang>.svg``), shown on the chapter pages beside the figures the snippets draw.

What is checked (issue 39, item 2), each problem naming the page or the file:

* every chapter page (:func:`tools.sources.chapters`) of every language shows at least one diagram, in
  that language's file (``<name>.<lang>.svg``);
* every diagram a page shows exists;
* every diagram exists in every language, and each file is well-formed SVG with ``xml:lang`` its language
  and a non-empty ``<title>`` and ``<desc>`` that ``aria-labelledby`` names, written in that language (a
  ``han`` language's text has Chinese characters, a ``latin`` one's has none);
* its smallest text is legible on a phone: drawn at least :data:`MIN_PX` px where a 390 px phone shows the
  diagram :data:`PHONE_PX` px wide, the rule tests/test_browser.py applies to the figures the snippets draw.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from hooks import site_facts
from tools import sources

FOLDER = Path("assets") / "diagrams"
_SHOWN = re.compile(r"assets/diagrams/([\w-]+)\.([\w-]+)\.svg")
_HAN = re.compile(r"[\u3400-\u9fff]")
_SVG = "{http://www.w3.org/2000/svg}"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
PHONE_PX = 358  # the widest a 390 px phone (tests/test_browser.py WIDTHS) shows a figure: 16 px margins each side
MIN_PX = 11  # the smallest text tests/test_browser.py accepts in a figure, as drawn


def shown(text: str) -> list[tuple[str, str]]:
    """(name, language) of each diagram a page's Markdown shows, in order."""
    return _SHOWN.findall(text)


def _written_in(text: str, script: str) -> bool:
    han = bool(_HAN.search(text))
    return han if script == "han" else not han


def _size(value: str | None, inherited: float) -> float:
    """A ``font-size`` attribute (``16``, ``16px``, ``0.72em``) against the size it inherits."""
    if not value:
        return inherited
    value = value.strip()
    if value.endswith("em"):
        return float(value[:-2]) * inherited
    return float(value.removesuffix("px"))


def smallest_text(root: ET.Element) -> float | None:
    """The smallest font size of a ``<text>`` element (its own or inherited; 16 px, the browser's default,
    at the root), as the browser tests measure it: a ``<tspan>``'s sub- or superscript does not count."""
    sizes = []

    def walk(element: ET.Element, inherited: float) -> None:
        size = _size(element.get("font-size"), inherited)
        if element.tag == f"{_SVG}text":
            sizes.append(size)
        for child in element:
            walk(child, size)

    walk(root, 16.0)
    return min(sizes) if sizes else None


def file_problems(svg: Path, lang: str, script: str, rel: str) -> list[str]:
    """What is wrong with one diagram file for a reader of ``lang`` (empty: nothing)."""
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        return [f"{rel}: not well-formed SVG ({e})"]
    found = []
    if root.tag != f"{_SVG}svg":
        found.append(f"{rel}: the root element is {root.tag}, not an SVG <svg>")
    if root.get(_XML_LANG) != lang and not (root.get(_XML_LANG) or "").startswith(f"{lang}-"):
        found.append(f"{rel}: xml:lang is {root.get(_XML_LANG)!r}, not {lang!r}")
    labelled = (root.get("aria-labelledby") or "").split()
    if root.get("role") != "img":
        found.append(f'{rel}: the <svg> needs role="img" so screen readers read its title and description')
    smallest, view = smallest_text(root), (root.get("viewBox") or "").split()
    if smallest is None:
        found.append(f"{rel}: no <text>: labels are real text, not paths")
    elif len(view) != 4:
        found.append(f"{rel}: no viewBox, so the diagram cannot scale to a phone's width")
    elif smallest * PHONE_PX / float(view[2]) < MIN_PX - 0.05:
        found.append(f"{rel}: smallest text {smallest:g} px in a {float(view[2]):g} px wide viewBox is drawn "
                     f"{smallest * PHONE_PX / float(view[2]):.1f} px on a 390 px phone, under {MIN_PX} px")
    for tag in ("title", "desc"):
        element = root.find(f"{_SVG}{tag}")
        words = "".join(element.itertext()).strip() if element is not None else ""
        if not words:
            found.append(f"{rel}: no <{tag}> with text (screen readers and search read it)")
            continue
        if len(root.findall(f"{_SVG}{tag}")) > 1:
            found.append(f"{rel}: more than one <{tag}>")
        if element.get("id") not in labelled:
            found.append(f"{rel}: aria-labelledby {labelled} does not name the <{tag}> (id {element.get('id')!r})")
        if not _written_in(words, script):
            found.append(f"{rel}: the <{tag}> is not written in {lang} ({script}): {words[:60]!r}")
    return found


def problems(docs: Path | None = None, facts: site_facts.Facts | None = None) -> list[str]:
    """Every missing, misplaced or inaccessible diagram, each naming its page or file."""
    facts = facts or site_facts.load()
    docs = docs or facts.docs
    folder = docs / FOLDER
    found = []
    for lang in facts.languages:
        for slug in sources.chapters(lang, docs):
            page = f"docs/{lang}/{slug}.md"
            diagrams = shown(sources.read(lang, f"{slug}.md", docs))
            for name, shown_lang in diagrams:
                if shown_lang != lang:
                    found.append(f"{page}: shows {name}.{shown_lang}.svg, the {shown_lang} diagram; "
                                 f"use {name}.{lang}.svg")
                elif not (folder / f"{name}.{lang}.svg").is_file():
                    found.append(f"{page}: shows docs/{FOLDER.as_posix()}/{name}.{lang}.svg, which does not exist")
            if not any(shown_lang == lang for _, shown_lang in diagrams):
                found.append(f"{page}: shows no conceptual diagram (docs/{FOLDER.as_posix()}/<name>.{lang}.svg)")
    names = sorted({p.name.split(".")[0] for p in folder.glob("*.svg")}) if folder.is_dir() else []
    for name in names:
        for lang in facts.languages:
            svg = folder / f"{name}.{lang}.svg"
            rel = f"docs/{FOLDER.as_posix()}/{svg.name}"
            if not svg.is_file():
                found.append(f"{rel} is missing: the diagram {name} exists in another language")
                continue
            found += file_problems(svg, lang, facts.text(lang, "script"), rel)
    files = sorted(folder.glob("*.svg")) if folder.is_dir() else []
    for svg in files:
        if len(svg.suffixes) != 2 or svg.suffixes[0][1:] not in facts.languages:
            found.append(f"docs/{FOLDER.as_posix()}/{svg.name}: not named <name>.<language>.svg "
                         f"for one of {list(facts.languages)}")
    return found
