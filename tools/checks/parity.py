"""Two languages, one site: every language tree has the default language's pages, and each page
includes the same snippets in the same order, shows the same figures, the same number of display
equations and the same heading ids. Every language is compared with the default one."""

from __future__ import annotations

from pathlib import Path

from hooks import site_facts
from tools import sources


def parity_problems(docs: Path | None = None, facts: site_facts.Facts | None = None) -> list[str]:
    """Differences in structure between each language tree and the default one, each naming the file."""
    facts = facts or site_facts.load()
    docs = docs or facts.docs
    a = facts.default
    found = []
    base = sources.pages(a, docs)
    for b in facts.others:
        theirs = sources.pages(b, docs)
        found += [f"docs/{a}/{page} has no counterpart docs/{b}/{page}" for page in sorted(base - theirs)]
        found += [f"docs/{b}/{page} has no counterpart docs/{a}/{page}" for page in sorted(theirs - base)]
        for page in sorted(base & theirs):
            if not page.endswith(".md"):
                continue
            ta, tb = sources.read(a, page, docs), sources.read(b, page, docs)
            for what, fn in (("snippet includes", sources.includes),
                             ("figures", lambda t: sources.figures(t, facts.languages)),
                             ("heading ids", sources.heading_ids)):
                if fn(ta) != fn(tb):
                    found.append(f"{page}: {what} differ between {a} and {b}\n  {a}: {fn(ta)}\n  {b}: {fn(tb)}")
            ea, eb = sources.display_equations(ta), sources.display_equations(tb)
            if ea != eb:
                found.append(f"{page}: {ea} display equations in {a}, {eb} in {b}")
    return found
