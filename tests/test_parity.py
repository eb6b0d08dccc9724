"""Promises 1 and 3 — one source for code, every language with one structure.

Every language tree holds the default language's pages; each page includes the same snippets in
the same order, shows the same figures, the same number of display equations and the same
heading ids as the default language's page. No code is pasted into docs/: every fence there is an
include of a file under snippets/, and every code block of a built page is the code or the output of
a snippet the page includes (an indented block or a raw ``<pre>`` is found there).
"""

from __future__ import annotations

import re

import pytest

from hooks import site_facts
from tools.checks import built_site as built_site_checks
from tools import sources
from tools.checks import parity

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


def test_every_code_block_of_a_built_page_is_a_snippet_it_includes(built_site):
    problems = built_site_checks.pasted_code_problems(built_site)
    assert not problems, "\n".join(problems)


def test_code_pasted_into_a_page_is_found_on_the_rendered_page():
    """Mutation: an indented code block and a raw <pre> in docs/en/practice.md, rendered with
    mkdocs.yml's Markdown extensions (the page as the build renders it, without a build)."""
    from mutation import render_markdown as render

    lang, page = SITE.languages[-1], "practice.md"
    text = sources.read(lang, page)
    includes = [site_facts.ROOT / "snippets" / n for n in dict.fromkeys(sources.includes(text))]
    name = f"docs/{lang}/{page}"
    assert built_site_checks.pasted_code(render(text), name, includes) == []
    pasted = text + "\nPasted:\n\n    x = torch.randn(3)\n    print(x.sum())\n\n<pre>raw 0.1234</pre>\n"
    problems = built_site_checks.pasted_code(render(pasted), name, includes)
    assert len(problems) == 2 and all(p.startswith(f"{name}: code block ") for p in problems), problems
    assert "x = torch.randn(3)" in problems[0] and "raw 0.1234" in problems[1], problems


@pytest.mark.parametrize("lang", SITE.languages)
def test_headings_have_explicit_ids(lang):
    """Chinese headings get anchors like `_1`; explicit ids keep links stable and equal across
    languages (parity_problems compares them with the default language's)."""
    for page in sorted(sources.pages(lang)):
        if page.endswith(".md"):
            bare = re.findall(r"^(#{2,6} [^{\n]*)$", sources.read(lang, page), re.M)
            assert not bare, f"docs/{lang}/{page}: headings without an explicit id: {bare}"
