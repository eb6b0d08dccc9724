"""Promise 2, by the ecosystem's own entry point: ``pytest --codeblocks snippets/`` passes.

pytest-codeblocks runs every block of ``snippets/`` in one process with ``exec`` and compares its
stdout with the output shown under it (``snippets/conftest.py`` gives each block a fresh folder and
random state, and fails the session if the tree changed). A reader who knows the plugin types exactly
that command; here it runs as a subprocess, started in the background as the session begins
(``tests/conftest.py``), so it shares the two cores with the rest of the suite instead of running first.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tools import snippets


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
    problem = codeblocks_problem(codeblocks_run, len(snippets.collect()))
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
