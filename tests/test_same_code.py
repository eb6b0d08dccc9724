"""Promise 6 — true: a collapsed block titled "the same code with `X`" is the block above it with
exactly that one line changed (``tools.checks.same_code``). A failure names the page, the line of the title
and shows the diff between the two snippets."""

from __future__ import annotations

import re

import pytest

from hooks import site_facts
from tools import sources
from tools.checks import same_code

CLAIMS = same_code.all_claims()
SITE = site_facts.load()


@pytest.mark.parametrize("claim", CLAIMS, ids=[f"{c.page}:{c.line}" for c in CLAIMS])
def test_the_collapsed_block_is_the_block_above_with_the_named_line_changed(claim):
    problem = same_code.problem(claim)
    if problem:
        pytest.fail(problem, pytrace=False)


def test_every_collapsed_code_include_is_read_as_a_claim():
    """A title the pattern does not read would leave its block unchecked, silently."""
    for lang in SITE.languages:
        for page in sources.pages(lang):
            text = sources.read(lang, page)
            collapsed = re.findall(r'^\?\?\?.*\n\n[ ]{4}-+8<-+ +"[^"]+:code"', text, re.M)
            assert len(collapsed) == len(same_code.claims(text, page)), f"docs/{lang}/{page}"


def _snippet(folder, name, lines):
    body = "\n".join(lines)
    (folder / name).write_text(f"```python\n{body}\n```\n<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n",
                               encoding="utf-8")


PAGE = '--8<-- "base.md"\n\n??? example "The same code with `DEPTH = 10`"\n\n    --8<-- "other.md:code"\n'


@pytest.fixture
def folder(tmp_path):
    _snippet(tmp_path, "base.md", ["DEPTH = 6  # layers", 'NAME = "a"', "print(1)"])
    return tmp_path


def test_one_named_line_changed_passes_whatever_its_quotes_and_comment(folder):
    _snippet(folder, "other.md", ["DEPTH = (10)  # changed", 'NAME = "a"', "print(1)"])
    (claim,) = same_code.claims(PAGE, "page.md")
    assert same_code.problem(claim, folder) is None


def test_a_second_changed_line_fails_with_the_diff(folder):
    _snippet(folder, "other.md", ["DEPTH = 10", 'NAME = "b"', "print(1)"])
    (claim,) = same_code.claims(PAGE, "page.md")
    message = same_code.problem(claim, folder)
    assert "more than one line" in message and '-NAME = "a"' in message and '+NAME = "b"' in message


def test_a_different_changed_line_than_the_title_says_fails(folder):
    _snippet(folder, "other.md", ["DEPTH = 6  # layers", 'NAME = "b"', "print(1)"])
    (claim,) = same_code.claims(PAGE, "page.md")
    assert "not the title's statement" in same_code.problem(claim, folder)


def test_a_collapsed_block_with_nothing_above_it_fails(folder):
    _snippet(folder, "other.md", ["DEPTH = 10", 'NAME = "a"', "print(1)"])
    (claim,) = same_code.claims(PAGE.split("\n\n", 1)[1], "page.md")
    assert "no whole block above" in same_code.problem(claim, folder)
