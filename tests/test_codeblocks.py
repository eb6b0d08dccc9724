"""Promise 2, by the ecosystem's own entry point: ``pytest --codeblocks snippets/`` passes.

pytest-codeblocks runs every block of ``snippets/`` in one process with ``exec`` and compares its
stdout with the output shown under it (``snippets/conftest.py`` gives each block a fresh folder and
random state, and fails the session if the tree changed). A reader who knows the plugin types exactly
that command; here it runs as a subprocess, started in the background as the session begins
(``tests/conftest.py``), so it shares the two cores with the rest of the suite instead of running first. It is
also the suite's native reader machine: each block is watched and recorded (``execution.RECORD``), see below.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tools.runner import execution, reader_machines, refresh, selection

ROOT = selection.ROOT


def codeblocks_problem(proc: subprocess.CompletedProcess, blocks: int) -> str | None:
    """Why a ``pytest --codeblocks`` run over ``blocks`` python blocks does not pass; None if it does."""
    command, output = " ".join(map(str, proc.args[2:])), proc.stdout + proc.stderr
    if proc.returncode != 0:
        return f"`pytest {command}` failed (exit code {proc.returncode}):\n{output[-12000:]}"
    passed = re.search(r"(\d+) passed", output)
    if not passed or int(passed.group(1)) < blocks:
        return f"`pytest {command}` passed {passed.group(1) if passed else 'no'} blocks of {blocks}:\n{output[-4000:]}"
    return None


def test_pytest_codeblocks_passes_over_every_snippet(codeblocks_run):
    problem = codeblocks_problem(codeblocks_run, len(selection.collect()))
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.mark.parametrize("returncode, summary, found", [
    (1, "1 failed, 65 passed in 3.0s", "failed (exit code 1)"),
    (0, "40 passed in 3.0s", "passed 40 blocks of 66"),
    (5, "no tests ran in 0.1s", "failed (exit code 5)"),
    (0, "66 passed in 3.0s", None),
])
def test_a_failing_or_short_codeblocks_run_fails(returncode, summary, found):
    proc = subprocess.CompletedProcess(["python", "-m", "pytest", "--codeblocks", "snippets/"], returncode, summary, "")
    problem = codeblocks_problem(proc, 66)
    assert (problem is None) if found is None else (found in problem and "pytest --codeblocks snippets/" in problem)


# --------------------------------------------------------------------------- the run as the native machine

RECORDED_CASES = {
    "good.md": ("print(1)\n", "1\n", None),
    "imports-a-test-module.md": ("import test_like_inductor\nprint(test_like_inductor.X)\n", "1\n", None),
    "changed.md": ("print(f'{2 / 3:.4f}')\n", "0.6666\n", "-0.6666"),
    "raises.md": ("import torch\ntorch.zeros(2) @ torch.zeros(3)\n", "", "RuntimeError"),
    "online.md": ("import socket\nsocket.getaddrinfo('example.org', 80)\n", "", "a DNS lookup of 'example.org'"),
    "state.md": ("import torch\ntorch.set_default_dtype(torch.float64)\n", "", "torch.get_default_dtype()"),
    "writes.md": (f"open({str(ROOT / 'stray.txt')!r}, 'w')\n", "", "outside the block's own folder"),
    "exits.md": ("raise SystemExit(3)\n", "", "SystemExit: 3"),
    "unrecorded.md": ("print(2)\n", "2\n", "left no record"),
}


def test_the_recorded_codeblocks_run_catches_what_the_native_machine_catches(tmp_path):
    """``pytest --codeblocks`` with RECORD set is the suite's native machine (tests/conftest.py): what it
    records is checked by the same ``reconcile``, so each mistake must reach it, naming the file."""
    folder = tmp_path / "snippets"
    folder.mkdir()
    shutil.copy(ROOT / "snippets" / "conftest.py", folder / "conftest.py")
    for name, (code, shown, _) in RECORDED_CASES.items():
        (folder / name).write_text(f"```python\n{code}```\n\n{selection.MARKER}\n```text\n{shown}```\n", encoding="utf-8")
    record, lib = tmp_path / "record", tmp_path / "lib"
    record.mkdir()
    lib.mkdir()  # a module named as pytest's python_files, as torch/_inductor/test_operators.py is: pytest
    (lib / "test_like_inductor.py").write_text("X = 1\n", encoding="utf-8")  # must not cache it beside it
    env = {**reader_machines.machine_env(reader_machines.DEFAULT),  # the session's run has this environment (tests/conftest.py)
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(lib)]), execution.RECORD: str(record)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--codeblocks", "snippets/", "-q", "-p", "no:cacheprovider"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]  # the bad blocks fail there too
    blocks = selection.collect([folder])
    execution.record_file(record, next(b.name for b in blocks if b.path.name == "unrecorded.md")).unlink()
    assert not (ROOT / "stray.txt").exists()
    for block, result in zip(blocks, execution.recorded(blocks, record)):
        found = RECORDED_CASES[block.path.name][2]
        message = refresh.problems(block, result)
        if found is None:
            assert message is None, message
        else:
            assert message and block.name in message and found in message, (block.name, message)
