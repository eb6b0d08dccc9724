"""./run picks the Python that makes .venv, says which one and why, and refuses one it cannot support.

Each case runs the real ``run`` script in a scratch folder whose PATH holds only fake interpreters
(shell scripts that report a version and record what they were asked to do) and the few tools the
script needs, so the host's own Pythons and PATH play no part. A refused interpreter must not be asked
to make a virtual environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = (ROOT / "tools" / "python-versions.txt").read_text(encoding="utf-8").split()
NAMES = f"Python {', '.join(VERSIONS[:-1])} or {VERSIONS[-1]}"
TOOLS = ("bash", "cat", "cut", "dirname", "grep", "sed", "sha256sum", "tr")


def _fake(bin_dir: Path, name: str, minor: str) -> Path:
    """A python that reports ``minor``, logs every call, and makes a fake venv when asked."""
    path = bin_dir / name
    path.write_text(f"""#!{shutil.which('bash')}
echo "{name} $*" >> "$(dirname "$0")/calls.log"
if [[ "$1" == -m && "$2" == venv ]]; then exit 3; fi  # record the attempt, make nothing
echo {minor}
""", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "tools" / "python-versions.txt", tmp_path / "tools")
    (tmp_path / "requirements.txt").write_text("nothing==1\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        os.symlink(shutil.which(tool), bin_dir / tool)
    return tmp_path


def _run(root: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([str(root / "bin" / "bash"), str(root / "run"), "setup"], cwd=root, capture_output=True,
                          text=True, env={"PATH": str(root / "bin"), "HOME": str(root), **env}, timeout=60)


def _calls(root: Path) -> str:
    log = root / "bin" / "calls.log"
    return log.read_text() if log.exists() else ""


@pytest.mark.parametrize("minor", ["3.10", "3.14"])
def test_an_unsupported_python3_is_refused_naming_the_supported_ones(scratch, minor):
    _fake(scratch / "bin", "python3", minor)
    proc = _run(scratch)
    assert proc.returncode == 1, proc.stderr
    assert f"python3 on PATH is Python {minor}" in proc.stderr and NAMES in proc.stderr, proc.stderr
    assert "-m venv" not in _calls(scratch), "./run tried to make .venv with an unsupported Python"
    assert not (scratch / ".venv").exists()


def test_an_unsupported_python_named_by_PYTHON_is_refused_without_falling_back(scratch):
    _fake(scratch / "bin", "python3", VERSIONS[0])
    old = _fake(scratch / "bin", "python-old", "3.10")
    proc = _run(scratch, PYTHON=str(old))
    assert proc.returncode == 1 and f"PYTHON={old} is Python 3.10" in proc.stderr and NAMES in proc.stderr, proc.stderr
    assert "-m venv" not in _calls(scratch)


def test_a_supported_python3_is_used_and_the_reason_said(scratch):
    _fake(scratch / "bin", "python3", VERSIONS[-1])
    proc = _run(scratch)
    assert f"making .venv with python3 (Python {VERSIONS[-1]}): python3 on PATH is Python {VERSIONS[-1]}" in proc.stderr
    assert "python3 -m venv .venv" in _calls(scratch)


def test_without_a_supported_python3_the_newest_supported_python3_x_is_used(scratch):
    _fake(scratch / "bin", "python3", "3.10")
    for minor in VERSIONS[:-1]:  # not the newest: the newest of those found is taken
        _fake(scratch / "bin", f"python{minor}", minor)
    _fake(scratch / "bin", f"python{VERSIONS[-1]}", "3.9")  # a name that lies about its version is skipped
    proc = _run(scratch)
    chosen = VERSIONS[-2]
    assert (f"making .venv with python{chosen} (Python {chosen}): python3 on PATH is Python 3.10, not supported; "
            f"python{chosen} is the newest supported one on PATH") in proc.stderr, proc.stderr
    assert f"python{chosen} -m venv .venv" in _calls(scratch)


def test_a_venv_made_with_an_unsupported_python_is_refused(scratch):
    _fake(scratch / "bin", "python3", VERSIONS[0])
    (scratch / ".venv" / "bin").mkdir(parents=True)
    _fake(scratch / ".venv" / "bin", "python", "3.10")
    proc = _run(scratch)
    assert proc.returncode == 1 and ".venv was made with Python 3.10 (remove .venv" in proc.stderr, proc.stderr
    assert NAMES in proc.stderr
