"""Promises 1 and 3 — one source for code, every language with one structure.

Every language tree holds the default language's pages; each page includes the same snippets in
the same order, shows the same figures, the same number of display equations and the same
heading ids as the default language's page. No code is pasted into docs/: every fence there is an
include of a file under snippets/.
"""

from __future__ import annotations

import re

import pytest

from hooks import site_facts
from tools import parity, sources

SITE = site_facts.load()


def test_language_trees_have_the_same_structure():
    problems = parity.parity_problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", SITE.languages)
def test_no_code_is_pasted_into_pages(lang):
    """Code fences in docs/ would be code no test runs."""
    offenders = []
    for page in sorted(sources.pages(lang)):
        if not page.endswith(".md"):
            continue
        for n, line in enumerate(sources.read(lang, page).splitlines(), 1):
            if re.match(r"^\s*(```|~~~)", line):
                offenders.append(f"docs/{lang}/{page}:{n}: {line.strip()}")
    assert not offenders, "code fences belong in snippets/ (include them with --8<--):\n" + "\n".join(offenders)


@pytest.mark.parametrize("lang", SITE.languages)
def test_headings_have_explicit_ids(lang):
    """Chinese headings get anchors like `_1`; explicit ids keep links stable and equal across
    languages (parity_problems compares them with the default language's)."""
    for page in sorted(sources.pages(lang)):
        if page.endswith(".md"):
            bare = re.findall(r"^(#{2,6} [^{\n]*)$", sources.read(lang, page), re.M)
            assert not bare, f"docs/{lang}/{page}: headings without an explicit id: {bare}"
