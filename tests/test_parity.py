"""Promises 1 and 3 — one source for code, two languages with one structure.

Both language trees hold the same pages; each page pair includes the same snippets in the same
order, shows the same figures and the same number of display equations. No code is pasted into
docs/: every fence there is an include of a file under snippets/.
"""

from __future__ import annotations

import re

import pytest

from tools import site

PAGES = sorted(site.pages("zh") | site.pages("en"))


def test_language_trees_have_the_same_structure():
    problems = site.parity_problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", site.LANGS)
def test_no_code_is_pasted_into_pages(lang):
    """Code fences in docs/ would be code no test runs."""
    offenders = []
    for page in sorted(site.pages(lang)):
        if not page.endswith(".md"):
            continue
        for n, line in enumerate((site.DOCS / lang / page).read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"^\s*(```|~~~)", line):
                offenders.append(f"docs/{lang}/{page}:{n}: {line.strip()}")
    assert not offenders, "code fences belong in snippets/ (include them with --8<--):\n" + "\n".join(offenders)


@pytest.mark.parametrize("lang", site.LANGS)
def test_headings_have_explicit_ids(lang):
    """Chinese headings get anchors like `_1`; explicit ids keep links stable and equal across languages."""
    ids = {}
    for page in sorted(site.pages(lang)):
        if page.endswith(".md"):
            text = (site.DOCS / lang / page).read_text(encoding="utf-8")
            ids[page] = re.findall(r"^#{1,6} .*\{ *#([\w-]+)", text, re.M)
            bare = [h for h in re.findall(r"^(#{2,6} [^{\n]*)$", text, re.M)]
            assert not bare, f"docs/{lang}/{page}: headings without an explicit id: {bare}"
    other = "en" if lang == "zh" else "zh"
    for page, found in ids.items():
        text = (site.DOCS / other / page).read_text(encoding="utf-8")
        theirs = re.findall(r"^#{1,6} .*\{ *#([\w-]+)", text, re.M)
        assert found == theirs, f"{page}: heading ids differ between {lang} and {other}: {found} vs {theirs}"
