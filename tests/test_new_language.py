"""Two languages, one site — and a third is configuration and content only.

In a scratch copy of the project this adds a language the way CONTRIBUTING.md says: one entry
under ``plugins.i18n.languages`` in mkdocs.yml (a copy of an existing language's, with its own
locale, name and strings) and its tree ``docs/<locale>/`` (here a copy of an existing tree). Then
it runs the project's generators (``python -m tools.notebooks write``, ``python -m tools.generators.compat --tables``), builds strictly, and runs
the parity, reference and build checks over every language. No code file is touched: if a code
file still named the languages, one of these would fail.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooks import site_facts
from tools.checks import built_site as checks
from tools.checks import parity, references
from tools.site.build import build

SITE = site_facts.load()
SOURCE = SITE.others[0]  # the language whose entry and tree the new one copies
NEW = "fr"


def _add_language(config_text: str) -> str:
    """mkdocs.yml with a copy of SOURCE's i18n entry for NEW, inserted after it."""
    entries = re.search(r"(?ms)^(?P<indent>[ \t]*)- locale: .*?(?=^(?P=indent)- locale: |^\S|\Z)", config_text)
    assert entries, "mkdocs.yml: no i18n language entries (`- locale: …`) found"
    indent = entries["indent"]
    m = re.search(rf"(?ms)^{indent}- locale: {SOURCE}\n.*?(?=^{indent}- locale: |^\S|\Z)", config_text)
    assert m, f"mkdocs.yml: no i18n entry for {SOURCE}"
    entry = m.group(0).rstrip("\n") + "\n"
    new = entry.replace(f"- locale: {SOURCE}\n", f"- locale: {NEW}\n", 1)
    new = re.sub(r"(?m)^(\s+)name: .*$", r"\1name: Français", new, count=1)
    assert new != entry
    return config_text[:m.end()].rstrip("\n") + "\n" + new + config_text[m.end():]


def _third_language(tmp_path: Path, scratch) -> None:
    """The whole check, an ``AT_START`` job (tests/conftest.py): it waits for the clean scratch build it
    copies, off pytest's own thread; an assertion that fails here fails the test below."""
    assert NEW not in SITE.languages
    config = scratch().warm_copy(tmp_path / "project")  # the clean build's caches (tests/conftest.py)
    root = config.parent
    config.write_text(_add_language(config.read_text(encoding="utf-8")), encoding="utf-8")
    shutil.copytree(root / "docs" / SOURCE, root / "docs" / NEW)
    for data in (root / "docs" / "assets" / "data").glob("*.json"):  # explorable figures' labels: the snippets'
        found = json.loads(data.read_text(encoding="utf-8"))     # LABELS get the language, refresh rewrites the data
        found["labels"][NEW] = found["labels"][SOURCE]
        data.write_text(json.dumps(found, ensure_ascii=False, indent=1), encoding="utf-8")
    atlas = root / "data" / "model-atlas.yml"  # the atlas's text in each language: content too
    found = yaml.safe_load(atlas.read_text(encoding="utf-8"))
    found["strings"][NEW] = found["strings"][SOURCE]
    for column in found["columns"].values():
        column[NEW] = column[SOURCE]
    for model in found["models"]:
        for cell in model["cells"].values():
            cell[NEW] = cell[SOURCE]
    atlas.write_text(yaml.safe_dump(found, allow_unicode=True, sort_keys=False), encoding="utf-8")

    facts = site_facts.load(config)
    assert facts.languages == (*SITE.languages, NEW), facts.languages
    assert facts.public_url(NEW, "index.md") == SITE.site_url + f"{NEW}/"

    gen = subprocess.run([sys.executable, "-m", "tools.generators.notebooks", "write"], cwd=root, capture_output=True, text=True)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    assert f"docs/{NEW}/notebooks/" in gen.stdout, f"the generator did not write the {NEW} notebooks:\n{gen.stdout}"
    tables = subprocess.run([sys.executable, "-m", "tools.generators.compat", "--tables"], cwd=root, capture_output=True, text=True)
    assert tables.returncode == 0 and f"<!-- {NEW} -->" in tables.stdout, tables.stdout + tables.stderr  # no file to write

    proc = build(tmp_path / "site", config)
    assert proc.returncode == 0, f"strict build with {NEW} failed:\n{proc.stdout}\n{proc.stderr}"
    site = tmp_path / "site"

    problems = (parity.parity_problems(facts=facts) + references.citation_problems(facts=facts)
                + references.reference_order_problems(facts=facts))
    for check in (checks.missing_page_problems, checks.alternate_problems, checks.search_problems,
                  checks.base_problems, checks.shared_asset_problems, checks.notebook_page_problems):
        problems += check(site, facts)
    assert not problems, "\n".join(problems[:30])
    assert (site / NEW / "search" / "search_index.json").exists()


AT_START = {"third_language": _third_language}  # tests/conftest.py starts it with the session


@pytest.fixture(scope="session")
def third_language(at_start):
    return lambda: at_start("third_language")


def test_a_third_language_is_configuration_and_content_only(third_language):
    third_language()
