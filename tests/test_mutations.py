"""Mutation tests of the offline promise (tools/checks/html_scan.py and the MathML check, run by
tests/test_build.py on the built site): each breaks the promise on a small fixture and asserts the
check fails naming the file.

The other rows of the "What the tests protect" table (docs-dev/test-suite.md) have theirs beside the
test they break (the table names each one).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import jinja2
import material
import pytest
import test_build
from mutation import render_markdown

from hooks import site_facts
from tools import sources
from tools.checks import html_scan

SITE = site_facts.load()
MATERIAL = Path(material.__file__).parent / "templates"
OVERRIDES = SITE.root / "overrides"


def _repository_link(with_override: bool) -> str:
    """The header's repository link as the theme renders it, with or without
    overrides/partials/source.html (Material's own partial in its place)."""
    dirs = [str(OVERRIDES), str(MATERIAL)] if with_override else [str(MATERIAL)]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(dirs))
    config = SimpleNamespace(repo_url="https://github.com/residual-notes/residual-notes", repo_name="residual-notes",
                             theme={"icon": {}})
    return env.get_template("partials/source.html").render(config=config, lang=SimpleNamespace(t=str))


def _site(tmp_path: Path, header: str) -> Path:
    """A site of one page with ``header`` and the JavaScript bundle Material ships."""
    site = tmp_path / "site"
    (site / "en").mkdir(parents=True)
    (site / "en" / "index.html").write_text(f"<html><body><header>{header}</header></body></html>", encoding="utf-8")
    (bundle,) = (MATERIAL / "assets" / "javascripts").glob("bundle.*.min.js")
    (site / "assets" / "javascripts").mkdir(parents=True)
    shutil.copy(bundle, site / "assets" / "javascripts" / bundle.name)
    return site


def test_without_the_source_partial_the_scan_names_the_github_api_call(tmp_path):
    """Mutation: overrides/partials/source.html removed; Material's repository widget then fetches
    stars and forks from api.github.com on every page (its bundle holds the address; the page's
    data-md-component="source" makes it call it)."""
    assert html_scan.external_assets(_site(tmp_path / "kept", _repository_link(True))) == []
    found = html_scan.external_assets(_site(tmp_path / "removed", _repository_link(False)))
    assert found and all(f.startswith("assets/javascripts/bundle.") and "https://api.github.com/" in f
                         and "en/index.html has 'data-md-component=\"source\"'" in f for f in found), found


def test_a_foreign_address_in_a_script_or_an_svg_is_found(tmp_path):
    """Mutation: a script that fetches from another host, an SVG figure that loads an image and a
    style sheet from one, a file of a kind the scan does not know; comments and namespaces are no loads."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "reader.js").write_text(
        "// see https://docs.example.org/why\n/* https://license.example.org */\n"
        "const ns = 'http://www.w3.org/2000/svg', r = /https:\\/\\/x/;\n"
        "fetch(`https://api.example.org/v1/${id}`).then(r => r.json());\n", encoding="utf-8")
    (tmp_path / "assets" / "figure.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<style>@import url(https://fonts.example.org/f.css);</style>'
        '<a href="https://arxiv.org/abs/1512.03385"><image xlink:href="https://img.example.org/a.png"/></a></svg>',
        encoding="utf-8")
    (tmp_path / "assets" / "module.wasm").write_bytes(b"\0asm")
    (tmp_path / "index.html").write_text('<script>navigator.sendBeacon("https://stats.example.org/hit")</script>',
                                         encoding="utf-8")
    assert html_scan.external_assets(tmp_path) == [
        "assets/figure.svg: https://fonts.example.org/f.css",
        "assets/figure.svg: https://img.example.org/a.png",
        "assets/module.wasm: a .wasm file the offline scan cannot read: classify its suffix in tools/checks/html_scan.py",
        "assets/reader.js: https://api.example.org/v1/${id}",
        "index.html: https://stats.example.org/hit",
    ]


def test_without_the_math_hook_the_build_test_names_the_page_with_raw_tex(tmp_path):
    """Mutation: hooks/math.py removed; arithmatex's TeX reaches the page (rendered with mkdocs.yml's
    extensions, no build), and the MathML test of tests/test_build.py fails naming the page."""
    lang = SITE.languages[-1]
    page = tmp_path / SITE.url_of(lang, "add-and-norm.md") / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<html><body><article>{render_markdown(sources.read(lang, 'add-and-norm.md'))}</article>"
                    "</body></html>", encoding="utf-8")
    with pytest.raises(AssertionError, match=re.escape(f"{page.relative_to(tmp_path).as_posix()}: unrendered math")):
        test_build.test_math_is_mathml_and_no_tex_is_left(tmp_path)


def test_every_row_of_the_promise_table_names_mutation_tests_that_exist():
    """docs-dev/test-suite.md, "What the tests protect": each promise names at least one mutation test, and
    each named test is a test function of that module."""
    readme = (SITE.root / "docs-dev" / "test-suite.md").read_text(encoding="utf-8")
    table = readme.split("## What the tests protect", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| promise |")]
    assert len(rows) >= 10, f"docs-dev/test-suite.md: the table of promises has {len(rows)} rows"
    problems = []
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        named = re.findall(r"`(test_\w+)::(test_\w+)`", cells[-1]) if len(cells) == 3 else []
        if not named:
            problems.append(f"docs-dev/test-suite.md: the promise {cells[0][:60]!r}… names no mutation test")
        for module, test in named:
            path = SITE.root / "tests" / f"{module}.py"
            if not path.is_file() or not re.search(rf"^(?:async )?def {test}\(", path.read_text(encoding="utf-8"), re.M):
                problems.append(f"docs-dev/test-suite.md: {module}::{test} is no test in tests/{module}.py")
    assert not problems, "\n".join(problems)
