"""Every chapter as a Jupyter notebook — generated from the page, and it really runs.

``tools/notebooks.py`` generates ``docs/<lang>/notebooks/<slug>.ipynb`` from each chapter: its
headings in page order, each included snippet as a code cell holding the snippet's verified stdout.

1. Current: regenerating every notebook in memory gives exactly the committed file, so a notebook
   never drifts from its page and snippets (fix: ``./run refresh``). No notebook belongs to no chapter.
2. Runs: each notebook is executed top to bottom in one fresh kernel (nbclient + ipykernel, no
   network), as a reader would run it, and every code cell must print exactly the snippet's verified
   output. This catches what running snippets one by one cannot: state that leaks from cell to cell
   (``torch.set_default_dtype``, print options, RNG draws without a seed). Both languages hold the
   same code cells (checked below, cell by cell), so only the Chinese notebooks are executed, two at
   a time; each kernel uses one thread (outputs are checked to be thread-count independent).
"""

from __future__ import annotations

import difflib
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from hooks import site_facts
from tools import notebooks, snippets

SITE = site_facts.load()
ROOT = SITE.root
EXPECTED = notebooks.expected()
RUN_LANG = SITE.default
CELL_TIMEOUT = 300  # seconds; a snippet is meant to take a few


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", sorted(EXPECTED), ids=[_rel(p).removeprefix("docs/") for p in sorted(EXPECTED)])
def test_notebook_is_generated_from_its_page(path):
    rel = _rel(path)
    assert path.exists(), f"{rel} is missing: run `./run refresh`"
    committed, wanted = path.read_text(encoding="utf-8"), EXPECTED[path]
    if committed != wanted:
        diff = "".join(list(difflib.unified_diff(
            committed.splitlines(True), wanted.splitlines(True),
            fromfile=f"{rel} (committed)", tofile=f"{rel} (generated from the page now)", n=1))[:60])
        pytest.fail(f"{rel} is out of date with its page or snippets: run `./run refresh`\n{diff}", pytrace=False)


def test_no_orphaned_notebooks():
    orphans = [_rel(p) for p in notebooks.committed() if p not in EXPECTED]
    assert not orphans, f"notebooks of no chapter with snippets (run `./run refresh` to remove them): {orphans}"


def _code_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("slug", notebooks.chapters(RUN_LANG))
def test_both_languages_hold_the_same_code(slug):
    paths = {lang: notebooks.notebook_path(lang, slug) for lang in SITE.languages}
    missing = [_rel(p) for p in paths.values() if not p.exists()]
    if missing:
        pytest.fail(f"missing: {missing} (run `./run refresh`)", pytrace=False)
    cells = {lang: _code_cells(p) for lang, p in paths.items()}
    base = cells[RUN_LANG]
    for lang, theirs in cells.items():
        assert theirs == base, f"{slug}: code cells of the {lang} notebook differ from the {RUN_LANG} one"


# --------------------------------------------------------------------------- execution


def _execute(path: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="notebook-") as tmp:  # figures are saved here
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, startup_timeout=120, kernel_name="python3",
                                allow_errors=True, resources={"metadata": {"path": tmp}})
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "MKL_", "ATEN_"))}
        client.execute(env={**env, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    return nb


@pytest.fixture(scope="session")
def executed() -> dict[str, nbformat.NotebookNode | BaseException]:
    """Every notebook of RUN_LANG executed once, two kernels at a time."""
    paths = [notebooks.notebook_path(RUN_LANG, s) for s in notebooks.chapters(RUN_LANG)]
    paths = [p for p in paths if p.exists()]

    def run(path):
        try:
            return _execute(path)
        except BaseException as err:  # noqa: BLE001 - reported by the test of that notebook
            return err

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip([p.stem for p in paths], pool.map(run, paths)))


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.mark.parametrize("slug", notebooks.chapters(RUN_LANG))
def test_notebook_runs_top_to_bottom_and_prints_the_verified_outputs(executed, slug):
    path = notebooks.notebook_path(RUN_LANG, slug)
    rel = _rel(path)
    if slug not in executed:
        pytest.fail(f"{rel} is missing: run `./run refresh`", pytrace=False)
    nb = executed[slug]
    if isinstance(nb, BaseException):
        pytest.fail(f"{rel} could not be executed: {type(nb).__name__}: {nb}", pytrace=False)
    blocks: dict[str, list[snippets.Block]] = {}
    seen: dict[str, int] = {}
    failures = []
    for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        name = cell.metadata.get("snippet", "")
        if name not in blocks:
            blocks[name] = snippets.extract(ROOT / name) if (ROOT / name).is_file() else []
        k = seen[name] = seen.get(name, -1) + 1
        where = f"{rel}, code cell {n + 1} ({name})"
        if k >= len(blocks[name]):
            failures.append(f"{where}: no such snippet block (run `./run refresh`)")
            continue
        expected = blocks[name][k].expected or ""
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if errors:
            tb = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0].get("traceback", [])))
            failures.append(f"{where} raised {errors[0].ename}: {errors[0].evalue}\n{tb}")
            continue
        got = _stdout(cell)
        if got != expected:
            diff = difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                        fromfile=f"{name} (verified output)",
                                        tofile=f"{where} (printed in the notebook)")
            failures.append(f"{where}: prints something else when the notebook runs top to bottom than the"
                            " snippet alone. An earlier cell probably left global state behind (torch.set_default_dtype,"
                            " set_printoptions, RNG draws before the snippet's own seed): each snippet must set what it"
                            " relies on and not depend on a fresh interpreter.\n" + "".join(diff))
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
