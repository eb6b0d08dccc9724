"""pytest-codeblocks, as its users know it: ``pytest --codeblocks snippets/``.

The plugin extracts each block and compares its stdout with the output shown under it. This file makes
that run trustworthy:

* every snippet file is first checked for its shape (``tools.runner.selection.fence_problems``): a fence the
  plugin would skip (```` ``` python````, ```` ```Python````, ```` ```ipython````), a shell fence it would
  execute (```` ```bash````), a second block or an unclosed fence fails that file, naming ``file:line``,
  and none of its blocks is run (the other files still are);
* each block runs in a process of its own, forked from this one, in a session of its own: with its own
  empty working folder (figures land there, not in the repository), ``HOME`` and ``TMPDIR`` inside it,
  and random state seeded from the OS, as in a fresh interpreter. A block that never ends is stopped
  after ``--block-timeout`` CPU seconds, or ``--block-wall`` seconds of wall-clock time (by default
  ``WALL_FACTOR`` times as many) if it waits (``tools.runner.worker.limit_block``; its stack is shown); a block
  that ends its process (``os._exit(0)`` too) or crashes fails itself, and the session goes on with the others; whatever it left running is
  killed with its session;
* a file of ``snippets/`` that is no ``.md`` snippet (``.markdown``, ``.txt``, ``.MD``: nothing would run it,
  yet a page could include it) fails, naming itself (``tools.runner.selection.stray_files``);
* the session fails if the tree changed;
* with ``RESIDUAL_NOTES_RECORD`` set to a folder (``tools.runner.execution.RECORD``; the test suite sets it), each
  block is also watched as ``tools/runner/worker.py`` watches it (``Watch``: offline, writes only in its folder, no
  processes, no global state left behind) and what it printed and saved is left in that folder
  (``tools.runner.execution.recorded`` reads it): this run is then the suite's native reader machine.

(``tools/runner/`` is the stricter runner, with a network and write guard and every reader machine.)
"""

from __future__ import annotations

import contextlib
import json
import pickle
import os
import random
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")
# Before torch is imported: one thread (so forking this process is safe), and OpenMP threads that sleep
# instead of spin (a busy machine otherwise crawls). Outputs are checked to be thread-count independent.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from tools.runner import execution, selection  # noqa: E402
from tools.runner.worker import Watch, preload, limit_block, snapshot, tree_changes, unlimit_block, wall_limit  # noqa: E402
from tools.files import remove_stale, write_atomic  # noqa: E402

_TREE: dict = {}
_PLUGIN = "pytest_codeblocks.plugin"


def pytest_addoption(parser):
    parser.addoption("--block-timeout", type=float, default=execution.TIMEOUT,
                     help="CPU seconds each code block may run under --codeblocks (default %(default)s; "
                          "its wall-clock limit is --block-wall)")
    parser.addoption("--block-wall", type=float, default=None,
                     help="seconds of wall-clock time each code block may run under --codeblocks "
                          "(default: tools.runner.worker.WALL_FACTOR times --block-timeout)")


def pytest_sessionstart(session):
    if session.config.getoption("codeblocks", False):
        remove_stale(tempfile.gettempdir(), "codeblock-")
        _TREE.update(snapshot([str(ROOT)]))


def pytest_collection_finish(session):
    """Once here, not once per forked block (import torch alone takes seconds): what the worker's forkserver
    preloads for the same blocks (``tools/runner/worker.preload``: the collected files' text)."""
    if session.config.getoption("codeblocks", False):
        import importlib

        texts = [Path(path).read_text(encoding="utf-8", errors="replace") for path in {item.path for item in session.items}]
        for name in preload(texts):
            importlib.import_module(name)


def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("codeblocks", False) and _TREE:
        changed = tree_changes(_TREE, snapshot([str(ROOT)]))
        if changed:
            print("\nthe code blocks changed the repository:\n  " + "\n  ".join(changed), file=sys.stderr)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


class SnippetShape(pytest.File):
    def collect(self):
        yield SnippetShapeItem.from_parent(self, name="fences")


class SnippetShapeItem(pytest.Item):
    def runtest(self):
        bad = selection.fence_problems(self.path)
        if bad:
            raise SnippetRefused("\n".join(bad) + "\n(none of this file's blocks was run)")

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, "snippet file shape"


class SnippetRefused(Exception):
    pass


class StrayFile(pytest.File):
    def collect(self):
        yield StrayFileItem.from_parent(self, name="not a snippet")


class StrayFileItem(pytest.Item):
    def runtest(self):
        [block] = [b for b in selection.stray_files([self.path.parent]) if b.path == self.path.resolve()] or [None]
        if block is not None:
            raise SnippetRefused(block.error)

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, "not a snippet file"


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path, parent):
    """Beside pytest-codeblocks' collector of each snippet file, one item checking the file's shape; a file
    of the wrong shape gets no block collected (its parse could fail, or run a shell fence)."""
    outcome = yield
    if not parent.config.getoption("codeblocks", False):
        return
    if file_path.suffix != ".md":  # a snippet saved as .markdown, .txt, .MD: nothing would run it; it fails alone
        stray = selection.stray_files([file_path.parent])
        if any(b.path == file_path.resolve() for b in stray) and file_path.suffix != ".pyc":
            outcome.force_result([*(outcome.get_result() or []), StrayFile.from_parent(parent, path=file_path)])
        return
    collectors = list(outcome.get_result() or [])
    theirs = [c for c in collectors if type(c).__module__ == _PLUGIN]
    if not theirs:
        raise pytest.UsageError(f"pytest-codeblocks collected nothing from {file_path}: expected a collector of "
                                f"{_PLUGIN} (a new pytest-codeblocks? update snippets/conftest.py)")
    try:
        refused = bool(selection.fence_problems(file_path))
    except selection.SnippetError:
        refused = True
    kept = [c for c in collectors if not (refused and c in theirs)]
    outcome.force_result(kept + [SnippetShape.from_parent(parent, path=file_path)])


def pytest_collection_modifyitems(session, config, items):
    """Every block of pytest-codeblocks runs in a forked process of its own (see ``_run_forked``)."""
    if not config.getoption("codeblocks", False):
        return
    for item in items:
        if type(item).__module__ == _PLUGIN:
            if not callable(getattr(item, "runtest", None)) or not hasattr(item, "obj"):
                raise pytest.UsageError(f"{item.nodeid}: expected pytest-codeblocks' TestBlock with runtest() and "
                                        ".obj (a new pytest-codeblocks? update snippets/conftest.py)")
            timeout = config.getoption("block_timeout")
            item.runtest = _forked(item, item.runtest, timeout, wall_limit(timeout, config.getoption("block_wall")))
    if os.environ.get(execution.RECORD) and not callable(getattr(_plugin(), "stdout_io", None)):
        raise pytest.UsageError(f"{execution.RECORD} is set, but {_PLUGIN}.stdout_io, through which pytest-codeblocks "
                                "reads a block's output, is gone (a new pytest-codeblocks? update snippets/conftest.py)")


def _plugin():
    import importlib

    return importlib.import_module(_PLUGIN)


def _kept_stdout() -> list:
    """From now on in this process, the StringIO pytest-codeblocks collects a block's stdout in is kept."""
    plugin, kept = _plugin(), []
    original = plugin.stdout_io

    @contextlib.contextmanager
    def keeping(stdout=None):
        with original(stdout) as s:
            kept.append(s)
            yield s

    plugin.stdout_io = keeping
    return kept


def _block_error(err: BaseException) -> str | None:
    """The block's own exception: pytest-codeblocks re-raises one as a RuntimeError (from it), and raises a
    RuntimeError of its own (from nothing) when the output differs, which is not the block's error."""
    cause = err.__context__ if type(err) is RuntimeError else err
    return None if cause is None else "".join(traceback.format_exception(cause))


def _forked(item, runtest, timeout: float, wall: float):
    def run():
        _run_forked(item, runtest, timeout, wall)
    return run


def _child(item, runtest, timeout: float, wall: float, w: int, folder: Path) -> None:
    """In the forked process: a fresh folder and random state, the block, then a message to the parent."""
    os.setsid()
    import numpy
    import torch

    for d in ("work", "home", "tmp"):
        (folder / d).mkdir()
    os.chdir(folder / "work")
    os.environ["HOME"], os.environ["TMPDIR"] = str(folder / "home"), str(folder / "tmp")
    tempfile.tempdir = str(folder / "tmp")
    torch.seed()
    random.seed()
    numpy.random.seed()
    # A block's imports write nothing: pytest would rewrite and cache a module it imports whose name
    # matches python_files (torch/_inductor/test_operators.py, which fused Adam pulls in) into the venv.
    sys.dont_write_bytecode = True
    limit_block(timeout, wall, sys.__stderr__, before_exit=lambda: _send(w, [
        "failed", f"{item.nodeid}: the block did not finish within {timeout:g} CPU s and was stopped (its stack is in the captured stderr)"]))
    record = os.environ.get(execution.RECORD)
    watch = Watch(folder, "<string>") if record else None  # pytest-codeblocks compiles a block as "<string>"
    kept = _kept_stdout() if record else []
    error = None
    try:
        with watch or contextlib.nullcontext():
            runtest()
        message = ["passed", ""]
    except pytest.skip.Exception as err:
        message, error = ["skipped", str(err)], f"skipped under pytest --codeblocks: {err}"
    except BaseException as err:  # noqa: BLE001 - SystemExit too
        text = err.args[0] if err.args and isinstance(err.args[0], str) else ""
        message, error = ["failed", text or "".join(traceback.format_exception(err))], _block_error(err)
    unlimit_block()
    if record:
        name = selection.Block(item.path, item.obj.lineno, "", None).name
        write_atomic(execution.record_file(Path(record), name), pickle.dumps(
            {"stdout": kept[0].getvalue() if kept else "", "error": error, **watch.report(folder / "work")}))
    _send(w, message)


def _send(w: int, message: list[str]) -> None:
    data = json.dumps(message).encode()
    while data:
        data = data[os.write(w, data):]


def _run_forked(item, runtest, timeout: float, wall: float) -> None:
    folder = Path(tempfile.mkdtemp(prefix=f"codeblock-{os.getpid()}-"))
    r, w = os.pipe()
    # Before the fork: the child starts its wall clock after this, so a block it stops at ``wall`` seconds has
    # run that long by this clock too, however late this process runs again after the fork (taken after it, a
    # stop read as a crash when this process ran again 1.5 s late, as a loaded machine can make it).
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        try:
            os.close(r)
            _child(item, runtest, timeout, wall, w, folder)
        finally:
            os._exit(0)
    os.close(w)
    chunks, status, deadline = [], None, start + wall + 10
    try:
        while status is None:
            ready, _, _ = select.select([r], [], [], 0.05)
            if ready:
                chunk = os.read(r, 1 << 16)
                if chunk:
                    chunks.append(chunk)
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
            elif time.monotonic() > deadline:
                _kill(pid)
                os.waitpid(pid, 0)
                raise RuntimeError(f"{item.nodeid}: the block did not finish within {wall:g} s and was killed")
        while select.select([r], [], [], 0)[0] and (chunk := os.read(r, 1 << 16)):
            chunks.append(chunk)
    finally:
        os.close(r)
        _kill(pid)  # its session: anything it left running
        shutil.rmtree(folder, ignore_errors=True)
    try:
        outcome, text = json.loads(b"".join(chunks).decode())
    except ValueError:
        if os.WIFSIGNALED(status):
            how = f"killed its process (signal {signal.Signals(os.WTERMSIG(status)).name})"
        elif os.WEXITSTATUS(status) == 1 and time.monotonic() - start >= wall:
            how = f"did not finish within {wall:g} s and was stopped (its stack is in the captured stderr)"
        else:
            how = f"ended its process (exit code {os.WEXITSTATUS(status)}: os._exit, a crash or a fatal error)"
        raise RuntimeError(f"{item.nodeid}: the block {how} before it finished") from None
    if outcome == "skipped":
        pytest.skip(text)
    if outcome == "failed":
        raise RuntimeError(text)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
