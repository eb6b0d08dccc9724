"""Promise 2 — every output is real.

Each snippet block runs alone in a fresh process and must print exactly the output shown under
it on the page; figures it draws must equal the committed SVGs. The same must hold on readers'
machines that differ in thread count or CPU kernels. A failure names the file and line and shows
a unified diff. Refresh outputs with `python -m tools.snippets refresh`, then read the diff.
"""

from __future__ import annotations

import pytest

from hooks import site_facts
from tools import snippets, sources

SITE = site_facts.load()

BLOCKS = snippets.collect()
FILES = snippets.snippet_files()


def _ids(blocks):
    return [b.name.removeprefix("snippets/") for b in blocks]


@pytest.mark.parametrize("variant", list(snippets.VARIANTS))
@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=_ids(BLOCKS))
def test_block_prints_what_the_page_shows(snippet_runs, index, variant):
    block = BLOCKS[index]
    result = snippet_runs.results(variant)[index]
    problems = [snippets.problems(block, result)] + snippets.figure_problems(block, result)
    problems = [p for p in problems if p]
    if problems:
        pytest.fail(f"[{variant}]\n" + "\n".join(problems), pytrace=False)


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(snippets.SNIPPETS).as_posix() for p in FILES])
def test_snippet_file_is_run_and_shown(path):
    """A snippet that runs nothing, or that no page shows in both languages, is a silent gap."""
    rel = path.relative_to(snippets.SNIPPETS).as_posix()
    skipped = snippets.skipped_fences(path)
    assert not skipped, (f"snippets/{rel}: fences at lines {skipped} would be skipped by pytest-codeblocks;"
                         " the info string must be exactly `python`")
    assert snippets.extract(path), f"snippets/{rel} holds no block that pytest-codeblocks runs"
    for lang in SITE.languages:
        users = [p for p in sources.pages(lang) if p.endswith(".md")
                 and rel in sources.includes(sources.read(lang, p))]
        assert users, f"snippets/{rel} is included by no page in docs/{lang}/"


def test_every_figure_is_drawn_by_a_snippet(snippet_runs):
    """A committed figure that no snippet draws is a picture nobody can check."""
    drawn = {name for r in snippet_runs.results(next(iter(snippets.VARIANTS))) for name in r.files}
    committed = {p.relative_to(snippets.FIGURES).as_posix() for p in snippets.FIGURES.rglob("*") if p.is_file()}
    assert committed <= drawn, f"figures no snippet draws: {sorted(committed - drawn)}"
