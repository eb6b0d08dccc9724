"""The checks themselves: bad input fails loudly and names the file.

Each test feeds one kind of mistake to the same function the real checks use and asserts that
it is caught, with the file in the message. A check that cannot fail protects no promise.
"""

from __future__ import annotations

from pathlib import Path

import dataclasses

from hooks import site_facts
from tools import html_scan, notebooks, parity, snippets
from tools.build import build, copy_project, warnings

SITE = site_facts.load()
# Tests on scratch trees use two languages: the default one (D) and another (O).
D, O = SITE.default, SITE.others[0]
TWO = dataclasses.replace(SITE, languages=(D, O))


def _snippet(tmp_path: Path, code: str, shown: str | None) -> Path:
    path = tmp_path / "bad-snippet.md"
    text = f"```python\n{code}```\n"
    if shown is not None:
        text += f"{snippets.MARKER}\n```text\n{shown}```\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_changed_output_fails_with_a_diff(tmp_path):
    path = _snippet(tmp_path, "print(f'{2 / 3:.4f}')\n", "0.6666\n")
    [block] = snippets.extract(path)
    [result] = snippets.run([block])
    message = snippets.problems(block, result)
    assert message and "bad-snippet.md:1" in message
    assert "-0.6666" in message and "+0.6667" in message


def test_a_snippet_that_raises_fails_with_its_traceback(tmp_path):
    path = _snippet(tmp_path, "import torch\ntorch.zeros(2) @ torch.zeros(3)\n", "")
    [block] = snippets.extract(path)
    [result] = snippets.run([block])
    message = snippets.problems(block, result)
    assert message and "bad-snippet.md:1 raised" in message and "RuntimeError" in message


def test_output_printed_but_not_shown_fails(tmp_path):
    path = _snippet(tmp_path, "print('hidden')\n", None)
    [block] = snippets.extract(path)
    [result] = snippets.run([block])
    assert "bad-snippet.md:1 prints output but shows none" in snippets.problems(block, result)


def test_a_fence_pytest_codeblocks_would_skip_is_found(tmp_path):
    path = tmp_path / "skipped.md"
    path.write_text('```python title="x.py"\nprint(1)\n```\n\n```py\nprint(2)\n```\n\n~~~python\nprint(3)\n~~~\n'
                    "```python\nprint(4)\n```\n", encoding="utf-8")
    assert snippets.skipped_fences(path) == [1, 5, 9]


def test_a_page_in_one_language_only_is_found(tmp_path):
    for lang in TWO.languages:
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "index.md").write_text("# x { #x }\n", encoding="utf-8")
    (tmp_path / D / "orphan.md").write_text("# 孤儿 { #orphan }\n", encoding="utf-8")
    (tmp_path / O / "stray.md").write_text("# Stray { #stray }\n", encoding="utf-8")
    problems = parity.parity_problems(tmp_path, TWO)
    assert problems == [f"docs/{D}/orphan.md has no counterpart docs/{O}/orphan.md",
                        f"docs/{O}/stray.md has no counterpart docs/{D}/stray.md"]


def test_different_includes_or_equations_are_found(tmp_path):
    for lang in TWO.languages:
        (tmp_path / lang).mkdir()
    (tmp_path / D / "a.md").write_text('## A { #a }\n--8<-- "c/one.md"\n--8<-- "c/two.md"\n$$x$$\n', encoding="utf-8")
    (tmp_path / O / "a.md").write_text('## A { #b }\n--8<-- "c/two.md"\n--8<-- "c/one.md"\n', encoding="utf-8")
    problems = "\n".join(parity.parity_problems(tmp_path, TWO))
    assert f"a.md: snippet includes differ between {D} and {O}" in problems
    assert f"a.md: heading ids differ between {D} and {O}" in problems
    assert f"a.md: 1 display equations in {D}, 0 in {O}" in problems


def test_an_external_asset_in_a_built_page_is_found(tmp_path):
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "index.html").write_text(
        '<html><head><script src="https://cdn.example.org/mathjax.js"></script>'
        '<link rel="stylesheet" href="../assets/site.css"></head>'
        '<body><a href="https://arxiv.org/abs/1512.03385">paper</a>'
        '<img src="//img.example.org/x.png"></body></html>', encoding="utf-8")
    (tmp_path / "style.css").write_text("@font-face{src:url(https://fonts.example.org/f.woff2)}", encoding="utf-8")
    assert html_scan.external_assets(tmp_path) == [
        "page/index.html: https://cdn.example.org/mathjax.js",
        "page/index.html: //img.example.org/x.png",
        "style.css: https://fonts.example.org/f.woff2",
    ]


def _append(page: Path, text: str) -> None:
    page.write_text(page.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_an_include_of_a_missing_snippet_fails_the_build(tmp_path):
    config = copy_project(tmp_path / "project")
    _append(config.parent / "docs" / O / "index.md", '\n--8<-- "nowhere/missing.md"\n')
    proc = build(tmp_path / "site", config)
    assert proc.returncode != 0
    assert "nowhere/missing.md" in proc.stdout + proc.stderr


def test_a_broken_link_or_anchor_fails_the_test_build_naming_the_page(tmp_path):
    """The tests' build is ./run build's: a warning --strict counts must fail it (no `-q`)."""
    config = copy_project(tmp_path / "project")
    docs = config.parent / "docs"
    _append(docs / D / "index.md", "\n[a page that does not exist](nowhere.md)\n")
    _append(docs / O / "index.md", "\n[an anchor that does not exist](glossary.md#no-such-anchor)\n")
    proc = build(tmp_path / "site", config)
    assert proc.returncode != 0, "a broken link and a broken anchor built without error"
    found = "\n".join(warnings(proc))
    assert f"'{D}/index.md' contains a link 'nowhere.md'" in found, found
    assert f"'{O}/index.md' contains a link 'glossary.md#no-such-anchor'" in found, found


def test_a_stale_missing_or_orphaned_notebook_is_found(tmp_path):
    docs, snips = tmp_path / "docs", tmp_path / "snippets"
    (snips / "c").mkdir(parents=True)
    (snips / "c" / "one.md").write_text(f"```python\nprint(1)\n```\n{snippets.MARKER}\n```text\n1\n```\n",
                                        encoding="utf-8")
    for lang in SITE.languages:
        (docs / lang).mkdir(parents=True)
        (docs / lang / "index.md").write_text("# Home { #home }\n", encoding="utf-8")
        (docs / lang / "a.md").write_text('# A { #top }\n\n## One { #one }\n\n--8<-- "c/one.md"\n', encoding="utf-8")
    assert notebooks.problems(docs, snips) == [f"{docs / lang / 'notebooks' / 'a.ipynb'} is missing: run `./run refresh`"
                                                for lang in SITE.languages]
    notebooks.write(docs, snips)
    assert notebooks.problems(docs, snips) == []
    (snips / "c" / "one.md").write_text(f"```python\nprint(2)\n```\n{snippets.MARKER}\n```text\n2\n```\n",
                                        encoding="utf-8")
    (docs / D / "notebooks" / "gone.ipynb").write_text("{}", encoding="utf-8")
    found = "\n".join(notebooks.problems(docs, snips))
    assert f"{D}/notebooks/a.ipynb is out of date with its page or snippets: run `./run refresh`" in found
    assert f"{O}/notebooks/a.ipynb is out of date" in found and '+    "print(2)"' in found
    assert f"{D}/notebooks/gone.ipynb belongs to no chapter" in found


def test_an_unseeded_snippet_does_not_reproduce(tmp_path):
    """Each block starts from fresh random state, as in a new interpreter: forgetting the seed shows."""
    path = _snippet(tmp_path, "import random, numpy, torch\n"
                              "print(torch.rand(1).item(), random.random(), numpy.random.rand())\n", None)
    [block] = snippets.extract(path)
    first, second = snippets.run([block, block])
    assert not first.error and first.stdout != second.stdout
