"""What a test may change in the pytest process: the background jobs (tests/conftest.py) are threads of it.

While a test runs, the strict build, the reader machines, the browser visits and the PDF editions go on in
other threads of the same process, and see whatever the test changes there: the environment and the
working directory (their subprocesses inherit them), ``sys.path``, and any attribute of a module or a class.
A test that patched ``os.replace`` for its own write once made the PDF job's save fail with that test's
"disk full" (CI of 3 December 2026). So the ``monkeypatch`` fixture is this one: it refuses every change a
job could see, naming the test's line and what to do instead, and keeps the rest of pytest's behaviour
(each change undone after the test).

What it allows: ``setattr``/``delattr`` on a module of ``hooks/`` (or a class defined there) that no
background job imports. MkDocs runs the hooks in its own processes; in this one only tests load them,
except the modules ``tools/`` and ``tests/conftest.py`` import (``site_facts``, and the modules those import, and
the package ``hooks`` itself): those are shared.
Everything else is passed in as an argument, or done in a subprocess.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
INSTEAD = "pass what you would patch as an argument, or run the code in a subprocess"


class SharedProcess(Exception):
    """A test changed what the background jobs share."""


def _hooks_imported_by(path: Path) -> set[str]:
    """The hooks modules ``path`` imports (``from hooks import x``, ``from hooks.x import y``, ``import hooks.x``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "hooks":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hooks."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("hooks."))
    return names


@functools.cache
def shared_hooks(root: Path = ROOT) -> frozenset[str]:
    """The hooks modules the background jobs' code (``tools/``, ``tests/conftest.py``) imports, directly or
    through another hooks module; and ``__init__``, the package itself, which every hooks module imports."""
    todo = set().union(*map(_hooks_imported_by, [*sorted((root / "tools").rglob("*.py")), root / "tests" / "conftest.py"]))
    names = {"__init__"}
    while todo:
        name = todo.pop()
        names.add(name)
        if (root / "hooks" / f"{name}.py").is_file():
            todo |= _hooks_imported_by(root / "hooks" / f"{name}.py") - names
    return frozenset(names)


def _module_file(target) -> Path | None:
    module = target if inspect.ismodule(target) else sys.modules.get(getattr(target, "__module__", None) or "")
    file = getattr(module, "__file__", None) if (inspect.ismodule(target) or isinstance(target, type)) else None
    return Path(file).resolve() if file else None


def refusal(target, name: str) -> str | None:
    """Why ``setattr(target, name, ...)`` is refused, or None if only tests can see it."""
    shown = f"{getattr(target, '__name__', type(target).__name__)}.{name}"
    file = _module_file(target)
    if file is None or not file.is_relative_to(HOOKS):
        where = f"{file.relative_to(ROOT)}" if file and file.is_relative_to(ROOT) else "outside hooks/"
        return f"patches {shown} ({where}): the background jobs' threads would see it"
    if file.stem in shared_hooks():
        return f"patches {shown}: hooks/{file.name} is imported by tools/ or tests/conftest.py, which the jobs run"
    return None


def _caller() -> str:
    """The test's own line: the first frame outside this file and pytest."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        if Path(frame.filename).resolve() != Path(__file__).resolve() and "_pytest" not in frame.filename:
            path = Path(frame.filename).resolve()
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            return f"{shown}:{frame.lineno}"
    return "a test"


def _refuse(why: str):
    raise SharedProcess(f"{_caller()} {why}; {INSTEAD} (tests/shared_process.py)")


class OwnPatches(pytest.MonkeyPatch):
    """pytest's MonkeyPatch, refusing what the background jobs share (see the module's docstring)."""

    def setattr(self, target, name=None, value=None, raising: bool = True):  # noqa: A003
        if isinstance(target, str):
            _refuse(f"patches {target!r} by its dotted name: name the module object instead")
        why = refusal(target, name)
        if why:
            _refuse(why)
        return super().setattr(target, name, value, raising=raising)

    def delattr(self, target, name=None, raising: bool = True):  # noqa: A003
        if isinstance(target, str):
            _refuse(f"deletes {target!r} by its dotted name: name the module object instead")
        why = refusal(target, name)
        if why:
            _refuse(why)
        return super().delattr(target, name, raising=raising)

    def setitem(self, dic, name, value):
        _refuse(f"sets [{name!r}] of a {type(dic).__name__} (os.environ, sys.modules, a module's table): shared")

    def delitem(self, dic, name, raising: bool = True):
        _refuse(f"deletes [{name!r}] of a {type(dic).__name__}: shared")

    def setenv(self, name, value, prepend=None):
        _refuse(f"sets ${name}: every subprocess a job starts meanwhile inherits it")

    def delenv(self, name, raising: bool = True):
        _refuse(f"unsets ${name}: every subprocess a job starts meanwhile inherits it")

    def chdir(self, path):
        _refuse("changes the working directory: the jobs' relative paths and subprocesses follow it")

    def syspath_prepend(self, path):
        _refuse("changes sys.path: the jobs import through it")
