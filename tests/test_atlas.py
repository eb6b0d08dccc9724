"""The atlas of open models' recipes (data/model-atlas.yml, shown by hooks/atlas.py): every cell says where
it was read, and both languages' pages show every row."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from hooks import atlas, site_facts

SITE = site_facts.load()
ROOT = SITE.root
PAGE = "model-atlas.md"


def _atlas() -> dict:
    return yaml.safe_load((ROOT / atlas.DATA).read_text(encoding="utf-8"))


def _refs() -> dict[str, set[str]]:
    return {lang: atlas.reference_keys(ROOT, lang) for lang in SITE.languages}


def test_every_cell_of_the_atlas_has_its_text_and_its_source():
    found = atlas.problems(_atlas(), list(SITE.languages), _refs())
    assert not found, "\n".join(found)
    assert set(_atlas()["strings"]) == set(SITE.languages), f"{atlas.DATA}: strings for other languages than the site's"


@pytest.mark.parametrize("break_it, expected", [
    (lambda a: a["models"][0]["cells"]["qk"].pop("source"), "{first}, qk: no source"),
    (lambda a: a["models"][0]["cells"]["norm"].pop("zh"), "{first}, norm: no text in 'zh'"),
    (lambda a: a["models"][0]["cells"]["qk"]["source"].update(commit="be64c80"), "is not a full 40-digit hash"),
    (lambda a: a["models"][0]["cells"]["qk"]["source"].update(ref="no-such-key"), "source ref 'no-such-key' is not on"),
    (lambda a: a["models"][0]["cells"]["qk"].update(source={"unread": " "}), "unread, but no reason given"),
    (lambda a: a["models"].append(copy.deepcopy(a["models"][0])), "model '{first}' is listed twice"),
    (lambda a: a["models"][0]["cells"].pop("extras"), "{first}, extras: no cell"),
])
def test_a_cell_without_its_source_or_text_is_named(break_it, expected):
    broken = _atlas()
    break_it(broken)
    expected = expected.format(first=broken["models"][0]["name"])
    found = atlas.problems(broken, list(SITE.languages), _refs())
    assert any(expected in p and p.startswith(str(atlas.DATA)) for p in found), found


def _expected() -> tuple[list[str], int]:
    models = _atlas()["models"]
    return [m["name"] for m in models], sum(1 for m in models for c in m["cells"].values() if "commit" in c["source"])


def test_both_languages_show_every_model_with_a_source_link_per_cell(built_site):
    names, code_cells = _expected()
    found = []
    for lang in SITE.languages:
        page = built_site / SITE.url_of(lang, PAGE) / "index.html"
        found += atlas.page_problems(page.read_text(encoding="utf-8"), page.relative_to(built_site).as_posix(),
                                     names, code_cells)
    assert not found, "\n".join(found)


def test_a_page_that_drops_a_row_or_a_link_is_named(built_site):
    names, code_cells = _expected()
    page = built_site / SITE.url_of(SITE.default, PAGE) / "index.html"
    html = page.read_text(encoding="utf-8")
    dropped = re.sub(rf"<tr>\s*<td><strong>{re.escape(names[0])}</strong>.*?</tr>", "", html, count=1, flags=re.S)
    assert any("the atlas shows" in p for p in atlas.page_problems(dropped, "x/index.html", names, code_cells))
    unlinked = re.sub(r'href="https://github.com/([^"]+)/blob/', r'href="https://example.org/\1/blob/', html, count=1)
    assert any("links to code" in p for p in atlas.page_problems(unlinked, "x/index.html", names, code_cells))
