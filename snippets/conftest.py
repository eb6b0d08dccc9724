"""pytest-codeblocks, as its users know it: ``pytest --codeblocks snippets/``.

The plugin runs every block in this one process with ``exec`` and compares its stdout with the
output shown under it. Around each block this file gives it what a fresh interpreter would have:
its own empty working folder (figures land there, not in the repository), ``HOME`` and ``TMPDIR``
inside that folder, random state seeded from the OS (an unseeded block cannot pass by luck of the
order), and the global state the blocks may touch restored afterwards. The session fails if the
tree changed. (``./run test`` runs this once; ``tools/snippets.py`` is the stricter runner, with
one process per block and every reader machine.)
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")
# Before torch is imported: one thread, and OpenMP threads that sleep instead of spin (a busy
# machine otherwise crawls). Outputs are checked to be thread-count independent.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from tools._worker import global_state, snapshot, tree_changes  # noqa: E402

_TREE: dict = {}


def _restore(state: dict) -> None:
    """Put back what changed (and only that: even torch.set_default_device("cpu") installs a
    torch-function mode that turns off fused fast paths)."""
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    import numpy
    import torch

    plt.close("all")
    now = global_state()
    changed = {k for k in state if k not in now or repr(now[k]) != repr(state[k])}

    def put(key, setter):
        if key in changed:
            setter(state[key])

    put("torch.get_default_dtype()", torch.set_default_dtype)
    put("torch.get_default_device()", torch.set_default_device)
    put("torch.is_grad_enabled()", torch.set_grad_enabled)
    if changed & {"torch.are_deterministic_algorithms_enabled()",
                  "torch.is_deterministic_algorithms_warn_only_enabled()"}:
        torch.use_deterministic_algorithms(state["torch.are_deterministic_algorithms_enabled()"],
                                           warn_only=state["torch.is_deterministic_algorithms_warn_only_enabled()"])
    put("torch.get_num_threads()", torch.set_num_threads)
    put("torch.get_float32_matmul_precision()", torch.set_float32_matmul_precision)
    put("torch.is_anomaly_enabled()", torch.set_anomaly_enabled)
    if any(k.startswith("torch print option ") for k in changed):
        torch.set_printoptions(**{k.removeprefix("torch print option "): v for k, v in state.items()
                                  if k.startswith("torch print option ")})
    if any(k.startswith("numpy print option ") for k in changed):
        numpy.set_printoptions(**{k.removeprefix("numpy print option "): v for k, v in state.items()
                                  if k.startswith("numpy print option ")})
    put("numpy.geterr()", lambda v: numpy.seterr(**v))
    rc = {k[len("matplotlib.rcParams['"):-2]: state[k] for k in changed if k.startswith("matplotlib.rcParams[")}
    if rc:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matplotlib.rcParams.update(rc)


def pytest_sessionstart(session):
    if session.config.getoption("codeblocks", False):
        _TREE.update(snapshot([str(ROOT)]))


def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("codeblocks", False) and _TREE:
        changed = tree_changes(_TREE, snapshot([str(ROOT)]))
        if changed:
            print("\nthe code blocks changed the repository:\n  " + "\n  ".join(changed), file=sys.stderr)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    from pytest_codeblocks.plugin import TestBlock

    if not isinstance(item, TestBlock):
        yield
        return
    import numpy
    import torch

    before = global_state()
    cwd, env = os.getcwd(), dict(os.environ)
    folder = Path(tempfile.mkdtemp(prefix="codeblock-"))
    (folder / "work").mkdir()
    (folder / "home").mkdir()
    (folder / "tmp").mkdir()
    os.chdir(folder / "work")
    os.environ["HOME"], os.environ["TMPDIR"] = str(folder / "home"), str(folder / "tmp")
    tempdir, tempfile.tempdir = tempfile.tempdir, str(folder / "tmp")
    torch.seed()
    random.seed()
    numpy.random.seed()
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = tempdir
        _restore(before)
        shutil.rmtree(folder, ignore_errors=True)
