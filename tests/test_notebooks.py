"""Every chapter as a Jupyter notebook — generated from the page, and it really runs.

``tools/notebooks.py`` generates ``docs/<lang>/notebooks/<slug>.ipynb`` from each chapter: its
headings in page order, each included snippet as a code cell holding the snippet's verified stdout.

1. Current: regenerating every notebook in memory gives exactly the committed file, so a notebook
   never drifts from its page and snippets (fix: ``./run refresh``). No notebook belongs to no chapter.
2. Runs: run top to bottom in one kernel, every code cell prints exactly its snippet's verified
   output. Running them alone on every reader machine is the runner's job (tests/test_snippets.py);
   what the kernel adds is what earlier cells leave behind (``torch.set_default_dtype``, print
   options, RNG draws without a seed, a variable that shadows a built-in, a patched module). So
   instead of running every block a second time, each cell is checked to be its block's code, the
   block's run alone on the native machine (shared with tests/test_snippets.py) to pass and leave
   nothing behind, and the cells to reach nothing of each other (``tools/kernel_state.py``, which
   says what is covered where). One scratch notebook with the generated notebooks' kernel metadata
   is executed for real, to check the kernel facts that argument relies on.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import nbformat
import pytest

from hooks import site_facts
from tools import kernel_state, notebooks, snippets, sources

SITE = site_facts.load()
ROOT = SITE.root
EXPECTED = notebooks.expected()
RUN_LANG = SITE.default


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


@pytest.mark.parametrize("slug", sources.chapters(RUN_LANG))
def test_both_languages_hold_the_same_code(slug):
    paths = {lang: notebooks.notebook_path(lang, slug) for lang in SITE.languages}
    missing = [_rel(p) for p in paths.values() if not p.exists()]
    if missing:
        pytest.fail(f"missing: {missing} (run `./run refresh`)", pytrace=False)
    cells = {lang: _code_cells(p) for lang, p in paths.items()}
    base = cells[RUN_LANG]
    for lang, theirs in cells.items():
        assert theirs == base, f"{slug}: code cells of the {lang} notebook differ from the {RUN_LANG} one"


# --------------------------------------------------------------------------- top to bottom in one kernel


def notebook_problems(path: Path, result_of) -> list[str]:
    """What would make ``path``, run top to bottom in one kernel, print something else than the verified
    outputs; ``result_of(block)`` is that block's run alone on the native machine (a snippets.Result)."""
    rel = _rel(path) if path.is_relative_to(ROOT) else path.as_posix()
    nb = nbformat.read(path, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as err:
        return [f"{rel} is no valid notebook: {err.message}"]
    blocks: dict[str, list[snippets.Block]] = {}
    seen: dict[str, int] = {}
    failures, cells = [], []
    for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        name = cell.metadata.get("snippet", "")
        where = f"{rel}, code cell {n + 1} ({name})"
        if name not in blocks:
            blocks[name] = snippets.extract(ROOT / name) if name and (ROOT / name).is_file() else []
        k = seen[name] = seen.get(name, -1) + 1
        if k >= len(blocks[name]):
            failures.append(f"{where}: no such snippet block (run `./run refresh`)")
            continue
        block = blocks[name][k]
        try:
            same = ast.dump(ast.parse(cell.source)) == ast.dump(ast.parse(block.code))
        except SyntaxError as err:
            same, failures = False, failures + [f"{where}: not valid Python ({err})"]
        if not same:
            failures.append(f"{where}: its code is not the code of {block.name} (run `./run refresh`)")
            continue
        cells.append(kernel_state.Cell(where, cell.source))
        result = result_of(block)
        problem = snippets.problems(block, result)
        if problem:
            failures.append(f"{where}: its block fails alone on the native machine, so the cell fails too:\n{problem}")
    return failures + kernel_state.problems(cells)


NOTEBOOKS = sorted(p for p in EXPECTED if p.exists())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[_rel(p).removeprefix("docs/") for p in NOTEBOOKS])
def test_notebook_prints_the_verified_outputs_top_to_bottom(snippet_runs, path):
    """Run top to bottom in one kernel, each cell prints its block's verified output.

    Each cell gets in the kernel what its block gets alone in the runner, plus what the cells before it
    left: so a cell that is its block's code (same syntax tree; only annotation comments are dropped),
    whose block passes alone on the native machine (output, no state left behind: tools/_worker.py,
    random state reseeded from the OS), and that can reach nothing an earlier cell left in the shared
    namespace or in a module (tools/kernel_state.py), prints in the notebook what it prints alone. The
    blocks are not run a second time for it.
    """
    machine = next(iter(snippets.VARIANTS))
    index = {(b.path.resolve(), b.lineno): i for i, b in enumerate(snippet_runs.blocks)}
    results = snippet_runs.results(machine)

    def result_of(block):
        return results[index[(block.path.resolve(), block.lineno)]]

    failures = notebook_problems(path, result_of)
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


def _scratch_notebook(tmp_path: Path, sources: list[str]) -> Path:
    """A notebook whose cells are blocks of snippets/ with the given code."""
    real = [b for b in snippets.collect() if b.expected is not None][:len(sources)]
    nb = nbformat.v4.new_notebook()
    for block, source in zip(real, sources):
        cell = nbformat.v4.new_code_cell(source if source is not None else notebooks.strip_annotations(block.code))
        cell.metadata["snippet"] = _rel(block.path)
        nb.cells.append(cell)
    path = tmp_path / "scratch.ipynb"
    nbformat.write(nb, path)
    return path


def _passing(block) -> snippets.Result:
    return snippets.Result(block.expected or "")


def test_the_notebook_check_passes_blocks_that_pass_alone(tmp_path):
    assert notebook_problems(_scratch_notebook(tmp_path, [None, None]), _passing) == []


def test_a_cell_whose_block_leaves_state_behind_fails_naming_the_cell(tmp_path):
    path = _scratch_notebook(tmp_path, [None, None])
    left = lambda b: snippets.Result(b.expected or "", state=["torch.get_default_dtype(): float32 -> float64"])
    [first, *_] = notebook_problems(path, left)
    assert "scratch.ipynb, code cell 1 (snippets/" in first and "leaves global state behind" in first


def test_a_cell_whose_block_prints_otherwise_fails_with_a_diff(tmp_path):
    path = _scratch_notebook(tmp_path, [None])
    [message] = notebook_problems(path, lambda b: snippets.Result("something else\n"))
    assert "code cell 1" in message and "+something else" in message


def test_a_cell_edited_by_hand_is_not_its_block(tmp_path):
    [message] = notebook_problems(_scratch_notebook(tmp_path, ["print('edited')"]), _passing)
    assert "code cell 1" in message and "is not the code of" in message


@pytest.mark.parametrize("cells, expected", [
    (["sum = 3", "print(sum([1, 2]))"], "cell 2 uses sum, and cell 1 binds sum"),
    (["x = 1", "print('x' in globals())"], "cell 2: line 1 calls globals()"),
    (["x = 1", "print(dir())"], "cell 2: line 1 calls dir()"),
    (["x = 1", "try:\n    print(x)\nexcept NameError:\n    print('none')"], "catches NameError around a read of x"),
    (["x = 1", "try:\n    print(x)\nexcept Exception:\n    pass"], "catches NameError around a read of x"),
    (["import torch\ntorch.backends.mkldnn.enabled = False", "print(1)"],
     "cell 1: line 2 changes torch.backends.mkldnn.enabled, part of the imported torch"),
    (["import os\nos.environ['X'] = '1'"], "changes os.environ['X'], part of the imported os"),
    (["import torch.nn as nn\nsetattr(nn, 'Linear', None)"], "changes the imported nn with setattr"),
    (["print(__file__)"], "reads __file__"),
    (["import sys\nprint(sys.modules['__main__'])"], "names the __main__ module"),
])
def test_what_a_cell_can_reach_of_an_earlier_one_is_found(cells, expected):
    found = kernel_state.problems([kernel_state.Cell(f"cell {i + 1}", c) for i, c in enumerate(cells)])
    assert any(expected in f for f in found), found


def test_what_cells_do_not_share_is_not_reported():
    cells = ["x = 1\ni = 2\ninput = 3", "x = 2\nprint(x)", "def f(x):\n    return x\nprint(f(3))",
             "for i in range(2):\n    print(i)", "if __name__ == '__main__':\n    print(1)",
             "try:\n    x = 5\n    print(x)\nexcept Exception:\n    pass", "print(len([x for x in range(3)]))",
             "import torch\nt = torch.zeros(2)\nt[0] = 1.0\nprint(dir(t)[:0], vars(int)['__doc__'][:0])"]
    assert kernel_state.problems([kernel_state.Cell(f"cell {i + 1}", c) for i, c in enumerate(cells)]) == []


def test_a_generated_notebook_runs_in_its_kernel_as_the_check_assumes(tmp_path):
    """The kernel the notebooks name starts, prints to the stdout stream, runs code as __main__ and,
    unlike the snippet runner, defines no __file__ (what tools/kernel_state.py relies on)."""
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    nbformat.validate(nb)
    nb.cells = [nbformat.v4.new_code_cell("print(__name__)\nprint('__file__' in globals())")]
    NotebookClient(nb, timeout=120, startup_timeout=120, kernel_name=nb.metadata["kernelspec"]["name"],
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    [out] = nb.cells[0].outputs
    assert (out.output_type, out.name, out.text) == ("stream", "stdout", "__main__\nFalse\n")
