"""Citation checks: every ``references.md#key`` a page cites has its entry ``{ #key }`` in the
references page of every language, those pages list the same entries in the same order as the
default language's, and every entry is cited. Each problem names the page and the key."""

from __future__ import annotations

import re
from pathlib import Path

from hooks import site_facts
from tools import sources

REFERENCES = "references.md"
_REFERENCE_ENTRY = re.compile(r"^[ \t]*\{[ \t]*#([\w-]+)[ \t]*\}[ \t]*$", re.M)


def reference_keys(text: str) -> list[str]:
    """Entry anchors of a references page, in order: the lines that hold only ``{ #key }``."""
    return _REFERENCE_ENTRY.findall(text)


def _citing_pages(lang: str, docs: Path) -> dict[str, list[str]]:
    """Keys each page of one language cites (``references.md#key``), the references page excluded."""
    return {page: sources.citations((docs / lang / page).read_text(encoding="utf-8"))
            for page in sorted(sources.pages(lang, docs)) if page.endswith(".md") and page != REFERENCES}


def _keys(lang: str, docs: Path) -> list[str] | None:
    path = docs / lang / REFERENCES
    return reference_keys(path.read_text(encoding="utf-8")) if path.exists() else None


def citation_problems(docs: Path | None = None, facts: site_facts.Facts | None = None) -> list[str]:
    """Citations without an entry in the references pages of every language, each naming page and key."""
    facts = facts or site_facts.load()
    docs = docs or facts.docs
    found = []
    keys = {}
    for lang in facts.languages:
        keys[lang] = _keys(lang, docs)
        if keys[lang] is None:
            found.append(f"docs/{lang}/{REFERENCES} does not exist")
            keys[lang] = []
        dupes = sorted({k for k in keys[lang] if keys[lang].count(k) > 1})
        if dupes:
            found.append(f"docs/{lang}/{REFERENCES}: entries listed twice: {dupes}")
    for lang in facts.languages:
        for page, cited in _citing_pages(lang, docs).items():
            for key in dict.fromkeys(cited):
                for target in facts.languages:
                    if key not in keys[target]:
                        found.append(f"docs/{lang}/{page} cites {REFERENCES}#{key}, "
                                     f"but docs/{target}/{REFERENCES} has no entry {{ #{key} }}")
    return found


def reference_order_problems(docs: Path | None = None, facts: site_facts.Facts | None = None) -> list[str]:
    """Every language's references page lists the default language's entries, in its order."""
    facts = facts or site_facts.load()
    docs = docs or facts.docs
    a = facts.default
    base = _keys(a, docs)
    if base is None:
        return []  # citation_problems reports the missing page
    found = []
    for b in facts.others:
        theirs = _keys(b, docs)
        if theirs is None or theirs == base:
            continue
        only_a = [k for k in base if k not in theirs]
        only_b = [k for k in theirs if k not in base]
        detail = []
        if only_a:
            detail.append(f"only in docs/{a}/{REFERENCES}: {only_a}")
        if only_b:
            detail.append(f"only in docs/{b}/{REFERENCES}: {only_b}")
        if not detail:
            first = next(i for i, (x, y) in enumerate(zip(base, theirs)) if x != y)
            detail.append(f"same keys, different order from entry {first + 1}: "
                          f"{base[first]} in {a}, {theirs[first]} in {b}")
        found.append(f"docs/{a}/{REFERENCES} and docs/{b}/{REFERENCES} differ: " + "; ".join(detail))
    return found


def uncited_references(docs: Path | None = None, facts: site_facts.Facts | None = None) -> list[str]:
    """Entries of a references page that no page of the same language cites."""
    facts = facts or site_facts.load()
    docs = docs or facts.docs
    found = []
    for lang in facts.languages:
        keys = _keys(lang, docs)
        if keys is None:
            continue
        cited = {k for ks in _citing_pages(lang, docs).values() for k in ks}
        found += [f"docs/{lang}/{REFERENCES}#{key} is cited by no page in docs/{lang}/" for key in keys if key not in cited]
    return found
