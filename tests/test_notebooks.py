"""Every chapter as a Jupyter notebook — generated from the page, and it really runs.

``tools/generators/notebooks.py`` generates ``docs/<lang>/notebooks/<slug>.ipynb`` from each chapter: its
headings in page order, each included snippet as a code cell holding the snippet's verified stdout.

1. Current: regenerating every notebook in memory gives exactly the committed file, so a notebook
   never drifts from its page and snippets (fix: ``./run refresh``). No notebook belongs to no chapter.
2. Runs: run top to bottom in one kernel, every code cell prints exactly its snippet's verified
   output. Running them alone on every reader machine is the runner's job (tests/test_snippets.py);
   what the kernel adds is what earlier cells leave behind (``torch.set_default_dtype``, print
   options, RNG draws without a seed, a variable that shadows a built-in, a patched module). So
   instead of running every block a second time, each cell is checked to be its block's code, the
   block's run alone on the native machine (shared with tests/test_snippets.py) to pass and leave
   nothing behind, and the cells to reach nothing of each other (``tools/checks/kernel_state.py``, which
   says what is covered where). One scratch notebook with the generated notebooks' kernel metadata
   is executed for real, to check the kernel facts that argument relies on.
"""

from __future__ import annotations

import ast
import difflib
import html
import re
import sys
from pathlib import Path

import nbformat
import pytest

from hooks import site_facts
from tools import exercise_section, sources
from tools.runner import execution, reader_machines, refresh, selection
from tools.checks import kernel_state
from tools.generators import notebooks

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
    outputs; ``result_of(block)`` is that block's run alone on the native machine (a execution.Result)."""
    rel = _rel(path) if path.is_relative_to(ROOT) else path.as_posix()
    nb = nbformat.read(path, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as err:
        return [f"{rel} is no valid notebook: {err.message}"]
    blocks: dict[str, list[selection.Block]] = {}
    seen: dict[str, int] = {}
    failures, cells = [], []
    for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        if notebooks.is_setup(cell):  # checked by setup_problems; what it binds is checked with the rest
            cells.append(kernel_state.Cell(f"{rel}, code cell {n + 1} (setup)", cell.source))
            continue
        name = cell.metadata.get("snippet", "")
        where = f"{rel}, code cell {n + 1} ({name})"
        if name not in blocks:
            blocks[name] = selection.extract(ROOT / name) if name and (ROOT / name).is_file() else []
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
        problem = refresh.problems(block, result)
        if problem:
            failures.append(f"{where}: its block fails alone on the native machine, so the cell fails too:\n{problem}")
    return failures + kernel_state.problems(cells)


NOTEBOOKS = sorted(p for p in EXPECTED if p.exists())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[_rel(p).removeprefix("docs/") for p in NOTEBOOKS])
def test_notebook_prints_the_verified_outputs_top_to_bottom(snippet_runs, path):
    """Run top to bottom in one kernel, each cell prints its block's verified output.

    Each cell gets in the kernel what its block gets alone in the runner, plus what the cells before it
    left: so a cell that is its block's code (same syntax tree; only annotation comments are dropped),
    whose block passes alone on the native machine (output, no state left behind: tools/runner/worker.py,
    random state reseeded from the OS), and that can reach nothing an earlier cell left in the shared
    namespace or in a module (tools/checks/kernel_state.py), prints in the notebook what it prints alone. The
    blocks are not run a second time for it.
    """
    machine = next(iter(reader_machines.VARIANTS))
    index = {(b.path.resolve(), b.lineno): i for i, b in enumerate(snippet_runs.blocks)}
    results = snippet_runs.results(machine)

    def result_of(block):
        return results[index[(block.path.resolve(), block.lineno)]]

    failures = notebook_problems(path, result_of)
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


def _scratch_notebook(tmp_path: Path, sources: list[str]) -> Path:
    """A notebook whose cells are blocks of snippets/ with the given code."""
    real = [b for b in selection.collect() if b.expected is not None][:len(sources)]
    nb = nbformat.v4.new_notebook()
    for block, source in zip(real, sources):
        cell = nbformat.v4.new_code_cell(source if source is not None else notebooks.strip_annotations(block.code))
        cell.metadata["snippet"] = _rel(block.path)
        nb.cells.append(cell)
    path = tmp_path / "scratch.ipynb"
    nbformat.write(nb, path)
    return path


def _passing(block) -> execution.Result:
    return execution.Result(block.expected or "")


def test_the_notebook_check_passes_blocks_that_pass_alone(tmp_path):
    assert notebook_problems(_scratch_notebook(tmp_path, [None, None]), _passing) == []


def test_a_cell_whose_block_leaves_state_behind_fails_naming_the_cell(tmp_path):
    path = _scratch_notebook(tmp_path, [None, None])
    left = lambda b: execution.Result(b.expected or "", state=["torch.get_default_dtype(): float32 -> float64"])
    [first, *_] = notebook_problems(path, left)
    assert "scratch.ipynb, code cell 1 (snippets/" in first and "leaves global state behind" in first


def test_a_cell_whose_block_prints_otherwise_fails_with_a_diff(tmp_path):
    path = _scratch_notebook(tmp_path, [None])
    [message] = notebook_problems(path, lambda b: execution.Result("something else\n"))
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
    unlike the snippet runner, defines no __file__ (what tools/checks/kernel_state.py relies on)."""
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    nbformat.validate(nb)
    # the setup cell too: outside Colab it does nothing (no output, no pip, no restart)
    [setup] = [c for c in nb.cells if notebooks.is_setup(c)]
    nb.cells = [setup, nbformat.v4.new_code_cell("print(__name__)\nprint('__file__' in globals())\n"
                                                 "print(sorted(k for k in globals() if not k.startswith('_')))")]
    NotebookClient(nb, timeout=120, startup_timeout=120, kernel_name=nb.metadata["kernelspec"]["name"],
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert nb.cells[0].outputs == [], f"the setup cell printed something outside Colab: {nb.cells[0].outputs}"
    [out] = nb.cells[1].outputs
    assert (out.output_type, out.name) == ("stream", "stdout")
    assert out.text.startswith("__main__\nFalse\n"), out.text
    # all the setup cell left in the kernel's namespace is `sys` (IPython's own names aside)
    assert "'sys'" in out.text and "'subprocess'" not in out.text and "'PINS'" not in out.text, out.text


# --------------------------------------------------------------------------- a notebook a reader can learn from
#
# The chapter's prose, math, captions and admonitions in its notebook, in page order; no page markup a
# reader of Jupyter or Colab would see raw; the first code cell installs the pins in Colab and does
# nothing elsewhere. Each check names the notebook (and the page line), each has a mutation below.

_MATH = re.compile(r"\$\$.+?\$\$|\\\(.+?\\\)|\$[^$\n]+?\$", re.S)
_ADMONITION = re.compile(r'^[ \t]*(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+"(?P<title>[^"\n]*)")?[ \t]*$', re.M)


def _plain(md: str) -> str:
    """Only the words of Markdown: no comments, math, link targets, attribute lists, tags or punctuation."""
    md = re.sub(r"<!--.*?-->", "", md, flags=re.S)
    md = _MATH.sub("", md)
    md = re.sub(r"\]\([^)\s]*\)", "]", md)
    md = re.sub(r"\{:?[ \t]*[#.][^{}\n]*\}", "", md)
    md = html.unescape(re.sub(r"</?[a-zA-Z][^<>]*>", "", md))
    return re.sub(r"[\W_]+", "", md)


def page_paragraphs(text: str) -> list[tuple[int, str]]:
    """(line, text) of each paragraph, list, table, caption and admonition title of a page before its
    exercises: what its notebook must say too. Includes and figure images are no prose."""
    section = exercise_section.parse(text)
    if section is not None:
        text = text[:section.start]
    found, block, start = [], [], 0
    for n, line in enumerate(text.split("\n") + [""], 1):
        if line.strip():
            if not block:
                start = n
            block.append(line)
            continue
        if block:
            chunk = "\n".join(ln for ln in block if not sources.includes(ln))
            chunk = _ADMONITION.sub(lambda m: m["title"] or "", chunk)
            chunk = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", chunk)  # images: a figure output or a diagram's <img>
            if _plain(chunk):
                found.append((start, chunk))
            block = []
    return found


def _markdown(nb) -> str:
    return "\n\n".join("".join(c.source) for c in nb.cells if c.cell_type == "markdown")


def prose_problems(lang: str, slug: str, nb) -> list[str]:
    """Each paragraph of the chapter page that its notebook lacks, naming the notebook and the page's line."""
    rel = f"docs/{lang}/{notebooks.FOLDER}/{slug}.ipynb"
    have = _plain(_markdown(nb))
    return [f"{rel} lacks the paragraph at docs/{lang}/{slug}.md:{line}: «{' '.join(text.split())[:80]}» "
            "(run `./run refresh`)" for line, text in page_paragraphs(sources.read(lang, f"{slug}.md"))
            if _plain(text) not in have]


_LEAKS = {
    r"\\\(|\\\)|\\\[|\\\]": "TeX delimiters \\( \\) or \\[ \\] (Jupyter's math is $…$ and $$…$$)",
    r"\{:?[ \t]*[#.][\w-]": "an attribute list { #id } or { .class }",
    r"<!--": "an HTML comment (a verdict marker)",
    r"--8<--": "a snippet include",
    r"(?m)^[ \t>]*(?:!!!|\?\?\?)": "an admonition line !!! or ???",
    r"</?(?!(?:sub|sup|br)\b)[a-zA-Z][\w-]*(?:\s[^<>]*)?>": "an HTML tag",
    r"\]\((?!https?://|mailto:)": "a relative link (a downloaded notebook has no pages beside it)",
    r"\$": "an unpaired $",
}


def markup_problems(rel: str, nb) -> list[str]:
    """Page markup a reader of the notebook in Jupyter or Colab would see raw, each named with its cell."""
    found = []
    for n, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"(?s)```.*?```", "", "".join(cell.source))
        text = re.sub(r"(`+).+?\1", "", text)
        text = re.sub(r"(?s)\$\$.+?\$\$", "", text)
        text = re.sub(r"\$[^$\n]+?\$", "", text)
        for pattern, what in _LEAKS.items():
            m = re.search(pattern, text)
            if m:
                found.append(f"{rel}, markdown cell {n}: {what}: «{text[max(0, m.start() - 40):m.end() + 40]}»")
    return found


def math_problems(lang: str, slug: str, nb) -> list[str]:
    """The notebook holds as many inline and display formulas as its page (page and exercises)."""
    page = re.sub(r"`[^`\n]*`", "", sources.read(lang, f"{slug}.md"))
    want = (len(re.findall(r"\\\(.+?\\\)", page, re.S)), sources.display_equations(page))
    md = re.sub(r"(`+).+?\1", "", _markdown(nb))
    display = len(re.findall(r"(?s)\$\$.+?\$\$", md))
    have = (len(re.findall(r"\$[^$\n]+?\$", re.sub(r"(?s)\$\$.+?\$\$", "", md))), display)
    if have != want:
        return [f"docs/{lang}/{notebooks.FOLDER}/{slug}.ipynb: {have[0]} inline and {have[1]} display formulas, "
                f"docs/{lang}/{slug}.md has {want[0]} and {want[1]}"]
    return []


def setup_problems(lang: str, rel: str, nb) -> list[str]:
    """The first cells: the note that names the pins and says what the next cell does, then the setup cell."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    setup = [i for i, c in enumerate(nb.cells) if notebooks.is_setup(c)]
    if setup != code[:1] or code[0] != 1:
        return [f"{rel}: the setup cell is not the first code cell, right after the notebook's first note"]
    found = []
    if nb.cells[1].source != notebooks.setup_code():
        found.append(f"{rel}: the setup cell is not `tools.generators.notebooks.setup_code()` (run `./run refresh`)")
    if notebooks.setup_text(lang) not in nb.cells[0].source:
        found.append(f"{rel}: the first cell does not say what the setup cell installs (run `./run refresh`)")
    return found


_CHAPTERS = [(lang, slug) for lang in SITE.languages for slug in sources.chapters(lang)]


@pytest.mark.parametrize("lang,slug", _CHAPTERS, ids=[f"{lang}:{slug}" for lang, slug in _CHAPTERS])
def test_a_notebook_teaches_what_its_chapter_does(lang, slug):
    path = notebooks.notebook_path(lang, slug)
    nb = nbformat.read(path, as_version=4)
    rel = _rel(path)
    found = (setup_problems(lang, rel, nb) + prose_problems(lang, slug, nb) + markup_problems(rel, nb)
             + math_problems(lang, slug, nb))
    assert not found, "\n".join(found)


def test_a_notebook_without_a_paragraph_of_its_chapter_fails_naming_it():
    lang, slug = SITE.default, sources.chapters()[0]
    nb = notebooks.build(lang, slug)
    assert prose_problems(lang, slug, nb) == []
    line, paragraph = page_paragraphs(sources.read(lang, f"{slug}.md"))[3]
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and _plain(paragraph) in _plain(c.source))
    parts = cell.source.split("\n\n")
    cell.source = "\n\n".join(p for p in parts if _plain(paragraph) not in _plain(p) or not _plain(p))
    [found] = prose_problems(lang, slug, nb)
    assert found.startswith(f"docs/{lang}/notebooks/{slug}.ipynb lacks the paragraph at docs/{lang}/{slug}.md:{line}:")


def test_page_markup_left_in_a_notebook_fails_naming_it(tmp_path):
    """Mutations of tools/generators/notebooks.py: inline math left as \\( … \\), a heading id kept, a verdict marker
    kept, an admonition left as written, a link left relative."""
    from mutation import mutated

    lang, slug = SITE.default, "add-and-norm"
    rel = f"docs/{lang}/notebooks/{slug}.ipynb"
    assert markup_problems(rel, notebooks.build(lang, slug)) == []
    cases = {
        "TeX delimiters": ('return f"${text}$"', 'return f"\\\\({text}\\\\)"'),
        "an attribute list": ('    md = _ATTR_LIST.sub("", md)\n', ""),
        "an HTML comment": ('keep.hide(_COMMENT.sub("", md))', "keep.hide(md)"),
        "an admonition line": ("        adm = _ADMONITION_LINE.match(line)\n", "        adm = None\n"),
        "a relative link": ('        return facts.public_url(lang, resolved[len(lang) + 1:]) + anchor',
                            '        return path + anchor'),
    }
    for what, (old, new) in cases.items():
        wrong = mutated(notebooks, old, new, tmp_path)
        found = markup_problems(rel, wrong.build(lang, slug))
        assert found and all(f.startswith(f"{rel}, markdown cell ") for f in found), (what, found)
        assert any(f": {what}" in f for f in found), (what, found)
    # and the formulas are counted: inline math left as \( … \) is missing from the notebook's $…$
    wrong = mutated(notebooks, 'return f"${text}$"', 'return f"\\\\({text}\\\\)"', tmp_path)
    [found] = math_problems(lang, slug, wrong.build(lang, slug))
    assert found.startswith(f"{rel}: 0 inline")


def _run_setup(code: str, colab: bool, installed: dict, loaded: dict | None = None) -> dict:
    """Run the setup cell's code with stand-ins for what it imports (this process's modules stay as they
    are): a ``sys`` whose modules say whether this is Colab and which modules were imported before, pip,
    the installed versions and the session's restart. What it would install, and whether it restarts."""
    import builtins
    import importlib.metadata
    from types import SimpleNamespace

    calls, killed = [], []
    modules = {"google.colab": SimpleNamespace()} if colab else {}
    modules.update({name: SimpleNamespace(__version__=v) for name, v in (loaded or {}).items()})

    def version(dist):
        if dist not in installed:
            raise importlib.metadata.PackageNotFoundError(dist)
        return installed[dist]

    fakes = {
        "sys": SimpleNamespace(modules=modules, executable=sys.executable),
        "importlib": SimpleNamespace(metadata=SimpleNamespace(
            version=version, PackageNotFoundError=importlib.metadata.PackageNotFoundError)),
        "os": SimpleNamespace(getpid=lambda: 12345, kill=lambda pid, sig: killed.append((pid, sig))),
        "subprocess": SimpleNamespace(run=lambda args, **kw: calls.append((list(args), kw))),
    }

    def fake_import(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.split(".")[0]
        if top not in fakes:
            raise ImportError(f"the setup cell imports {name}, which this test does not stand in for")
        return fakes[top]

    exec(compile(code, "<setup cell>", "exec"),
         {"__name__": "__main__", "__builtins__": {**vars(builtins), "__import__": fake_import}})
    return {"pip": [args[args.index("install") + 1:] for args, kw in calls if kw.get("check")
                    and args[:3] == [sys.executable, "-m", "pip"]], "calls": len(calls), "restart": bool(killed)}


def setup_behaviour_problems(code: str) -> list[str]:
    """What the setup cell does wrong: outside Colab anything at all; in Colab, installing other than exactly
    the pins (torch from PyTorch's CPU index), installing what is already there, or not restarting when a
    module imported before the install had another version."""
    from tools.generators import compat

    pins = compat.pinned()
    where = "the setup cell (tools/generators/notebooks.py, setup_code)"
    found = []
    run = _run_setup(code, colab=False, installed={})
    if run["calls"] or run["restart"]:
        found.append(f"{where} runs {run['calls']} commands or restarts outside Colab; it must do nothing there")
    torch = ["--quiet", f"torch=={pins['torch']}", "--index-url", notebooks.TORCH_CPU_INDEX]
    rest = ["--quiet"] + [f"{d}=={v}" for d, v in pins.items() if d != "torch"]
    run = _run_setup(code, colab=True, installed={})
    if run["pip"] != [torch, rest] or run["calls"] != 2:
        found.append(f"{where} installs {run['pip']} in a bare Colab session, expected {[torch, rest]}")
    run = _run_setup(code, colab=True, installed={"torch": f"{pins['torch']}+cpu", **pins})
    if run["calls"] or run["restart"]:
        found.append(f"{where} installs or restarts although every pin is installed")
    old = {d: "0.1" for d in pins}
    run = _run_setup(code, colab=True, installed=old, loaded={"numpy": "0.1"})
    if not run["restart"]:
        found.append(f"{where} does not restart the session when NumPy was imported before the install")
    return found


def test_the_setup_cell_installs_the_pins_in_colab_and_does_nothing_elsewhere():
    assert setup_behaviour_problems(notebooks.setup_code()) == []


@pytest.mark.parametrize("old,new,expected", [
    ('if "google.colab" in sys.modules:', "if True:", "outside Colab"),
    ('"--index-url"', '"--extra-index-url"', "in a bare Colab session"),
    ("if installed(dist) != version]", "]", "although every pin is installed"),
    ("    if stale:\n", "    if False:\n", "does not restart"),
])
def test_a_broken_setup_cell_is_found(old, new, expected):
    code = notebooks.setup_code()
    assert code.count(old) == 1, f"mutation target {old!r} is not once in the setup cell"
    found = setup_behaviour_problems(code.replace(old, new))
    assert any(expected in f and f.startswith("the setup cell (tools/generators/notebooks.py") for f in found), found
