"""The contributor's loop: ``./run check PATH…`` runs what the named snippet files and pages need (their
blocks, the pages' checks, the strict build) and says what to do next only when something fails;
``./run refresh PATH`` prints the diff of what it wrote, and no instruction to do what it has just done.

In a scratch copy of the project a contributor's change is made as CONTRIBUTING.md says (a new snippet
included in a chapter in both languages, its output written by refresh): ``./run check`` passes; with
a wrong output shown it fails, naming the file and the command that fixes it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hooks import site_facts
from mutation import mutated
from tools import check
from tools.runner import execution, kernel_facts, refresh, selection

SITE = site_facts.load()
ROOT = SITE.root
SNIPPET = "practice/float16-ceiling.md"
CODE = 'import torch\n\nprint("largest float16:", torch.finfo(torch.float16).max)\n'
OUTPUT = "largest float16: 65504.0\n"
SECTION = {"en": "## Half precision has a ceiling { #float16-ceiling }\n\nThe largest float16 is 65,504.\n\n",
           "zh": "## 半精度有上限 { #float16-ceiling }\n\nfloat16 能表示的最大值是 65 504。\n\n"}


def _contributors_change(root: Path, output: str) -> None:
    """A new snippet showing ``output``, included before the summary of the practice chapter in each language."""
    (root / "snippets" / SNIPPET).write_text(f"```python\n{CODE}```\n{selection.MARKER}\n```text\n{output}```\n",
                                             encoding="utf-8")
    for lang in SITE.languages:
        page = root / "docs" / lang / "practice.md"
        text = page.read_text(encoding="utf-8")
        at = text.index("\n## ", text.index("{ #drop-a-skip }"))  # the section after it
        page.write_text(text[:at + 1] + SECTION[lang] + f'--8<-- "{SNIPPET}"\n\n' + text[at + 1:], encoding="utf-8")


def _check(root: Path, *paths: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tools.check", *paths], cwd=root, capture_output=True, text=True)


def test_check_passes_a_right_change_and_fails_a_wrong_output_naming_the_file(scratch_builds, tmp_path):
    root = scratch_builds.warm_copy(tmp_path / "project").parent
    shutil.copy(ROOT / "run", root / "run")  # ./run names the builder (tools/site/builder.py)
    _contributors_change(root, OUTPUT)
    written = subprocess.run([sys.executable, "-m", "tools.generators.notebooks", "write"], cwd=root, capture_output=True, text=True)
    assert written.returncode == 0 and "practice.ipynb" in written.stdout, written.stdout + written.stderr
    named = [f"snippets/{SNIPPET}", *(f"docs/{lang}/practice.md" for lang in SITE.languages)]
    proc = _check(root, f"snippets/{SNIPPET}")
    assert proc.returncode == 0 and "green in" in proc.stdout and "Next:" not in proc.stdout, proc.stdout + proc.stderr
    assert "1 snippet files, 2 pages" in proc.stdout, proc.stdout  # the pages that include it, not the whole site

    _contributors_change(root, OUTPUT.replace("65504", "65505"))  # shown without running it: a wrong output
    proc = _check(root, *named)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"snippets/{SNIPPET}:1: output differs from the page" in proc.stdout, proc.stdout
    assert f"./run refresh {' '.join(named)}" in proc.stdout, proc.stdout


def test_check_names_a_chapter_that_shows_a_block_over_60_lines_and_no_other(tmp_path):
    """The built chapters among the targets are read as the code-share test reads them: a block of 61 visible lines
    on the practice page is named, with what to do; the same block on a page not checked is not."""
    from mutation import render_markdown

    block = render_markdown("```python\n" + "".join(f"y{i} = x + f(x)  # step {i}\n" for i in range(61)) + "```\n")
    site = tmp_path / "site"
    for lang, page in [*((lang, "practice.md") for lang in SITE.languages), ("en", "add-and-norm.md")]:
        folder = site / SITE.url_of(lang, page)
        folder.mkdir(parents=True)
        (folder / "index.html").write_text(f"<html><body><article>{block}</article></body></html>", encoding="utf-8")
    t = check.targets([SITE.docs / "en" / "practice.md"])
    found = check.shown_problems(site, t, SITE)
    assert all(p.check == "code shown" and "CONTRIBUTING.md" in p.fix for p in found), found
    assert sorted(p.message.split(":")[0] for p in found) == sorted(f"docs/{lang}/practice.md" for lang in SITE.languages)
    assert all("Python block 1 ('y0 = x + f(x)  # step 0') shows 61 lines" in p.message for p in found), found
    short = render_markdown("```python\ny = x + f(x)\n```\n")
    for lang in SITE.languages:
        (site / SITE.url_of(lang, "practice.md") / "index.html").write_text(f"<article>{short}</article>", encoding="utf-8")
    assert check.shown_problems(site, t, SITE) == []


def test_the_targets_are_the_named_files_what_the_pages_include_and_the_pages_that_include_them(tmp_path):
    page = check.targets([SITE.docs / "en" / "practice.md"])
    assert ("zh", "practice.md") in page.pages and ("en", "practice.md") in page.pages and len(page.pages) == 2
    assert selection.SNIPPETS / "practice" / "summation-order.md" in page.files
    snippet = check.targets([selection.SNIPPETS / "practice" / "summation-order.md"])
    assert snippet.files == [selection.SNIPPETS / "practice" / "summation-order.md"]
    assert {p for _, p in snippet.pages} == {"practice.md"}
    stray = tmp_path / "notes.md"
    stray.write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"notes\.md is neither a snippet file .* nor a page"):
        check.targets([stray])


def _unshown(tmp_path: Path) -> tuple[Path, selection.Block, execution.Result]:
    path = tmp_path / "new.md"
    path.write_text("```python\nprint(1 + 1)\n```\n", encoding="utf-8")
    [block] = selection.extract(path)
    return path, block, execution.Result("2\n")


def test_refresh_reports_the_diff_it_wrote_and_no_instruction_to_do_it(tmp_path):
    """What refresh prints of a block whose output it wrote is the unified diff of the file, not the check's
    instruction to add the marker and run refresh; a refresh that reports the check's message (the mutant)
    is caught."""
    path, block, result = _unshown(tmp_path)
    [finding] = refresh.reconcile(block, result, write=True)
    assert finding.fixed and finding.message.startswith("--- a/") and "+++ b/" in finding.message, finding.message
    assert f"+{selection.MARKER}" in finding.message and "+2" in finding.message, finding.message
    assert "prints output but shows none" not in finding.message and "./run" not in finding.message, finding.message
    assert path.read_text(encoding="utf-8").endswith(f"{selection.MARKER}\n```text\n2\n```\n")

    [finding] = refresh.reconcile(_unshown(tmp_path)[1], result)  # the check says what to do: the command
    assert not finding.fixed and f"./run refresh {path}" in finding.message, finding.message
    old = mutated(refresh, "        if fixed:  # what refresh did", "        if False:  # what refresh did", tmp_path)
    path, block, result = _unshown(tmp_path)
    [finding] = old.reconcile(selection.extract(path)[0], old.Result("2\n"), write=True)
    assert "prints output but shows none" in finding.message  # the message the contributor met after refresh


def test_check_variants_says_a_fact_it_cannot_verify_needs_nothing_done():
    text = kernel_facts.unverifiable_note(["[capped to AVX2, 2 threads] MKL names no instruction set on this CPU"])
    assert text.startswith("For information, nothing to do:") and "MKL names no instruction set" in text, text
    assert kernel_facts.unverifiable_note([]) == ""


def test_run_help_lists_check_and_run_check_runs_it():
    proc = subprocess.run(["bash", str(ROOT / "run"), "help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "./run check PATH" in proc.stdout, proc.stdout + proc.stderr
    assert 'check)   setup; exec "$PY" -m tools.check "$@" ;;' in (ROOT / "run").read_text(encoding="utf-8")
