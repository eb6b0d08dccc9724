"""./run's two environments in one .venv: serve and build install requirements-docs.txt only (no torch),
the other commands requirements.txt; a .venv set up for everything serves the site without a reinstall.

Each case runs the real ``run`` script in a scratch folder with a fake ``.venv/bin/python`` that reports a
supported version and records every call (a ``pip install`` among them), so nothing is installed; the
stamps ``.venv/.requirements.sha256`` and ``.venv/.requirements-docs.sha256`` decide what is asked.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSION = (ROOT / "tools" / "python-versions.txt").read_text(encoding="utf-8").split()[0]
TOOLS = ("bash", "cat", "cut", "dirname", "grep", "sed", "sha256sum", "tr")
FULL = "requirements.txt"
DOCS = "requirements-docs.txt"


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "tools" / "python-versions.txt", tmp_path / "tools")
    (tmp_path / FULL).write_text("mkdocs==1.6.1\ntorch==2.13.0\n")
    (tmp_path / DOCS).write_text("mkdocs==1.6.1\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        os.symlink(shutil.which(tool), bin_dir / tool)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    python = venv / "python"
    python.write_text(f"""#!{shutil.which('bash')}
echo "python $*" >> "{tmp_path}/calls.log"
echo {VERSION}
""", encoding="utf-8")
    python.chmod(0o755)
    return tmp_path


def _stamp(root: Path, name: str, file: str, text: str | None = None) -> None:
    data = (text if text is not None else (root / file).read_text()).encode()
    (root / ".venv" / name).write_text(hashlib.sha256(data).hexdigest() + "\n")


def _setup(root: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    proc = subprocess.run([str(root / "bin" / "bash"), str(root / "run"), "setup", *args], cwd=root,
                          capture_output=True, text=True, env={"PATH": str(root / "bin"), "HOME": str(root)}, timeout=60)
    log = root / "calls.log"
    installs = [line for line in (log.read_text().splitlines() if log.exists() else []) if " pip install " in line]
    return proc, installs


def test_a_fresh_venv_for_the_site_gets_the_docs_requirements_only_and_its_stamp(scratch):
    proc, installs = _setup(scratch, "docs")
    assert proc.returncode == 0, proc.stderr
    assert len(installs) == 1 and installs[0].endswith(f"-r {DOCS}"), installs
    assert "from requirements-docs.txt (the site only, no torch" in proc.stderr
    assert (scratch / ".venv" / ".requirements-docs.sha256").read_text().strip() == \
        hashlib.sha256((scratch / DOCS).read_bytes()).hexdigest()
    assert not (scratch / ".venv" / ".requirements.sha256").exists(), "a docs venv must not pass for a full one"
    proc, installs = _setup(scratch, "docs")
    assert len(installs) == 1, "a current docs venv was set up again"
    proc, installs = _setup(scratch)  # ./run test after ./run serve: topped up with everything
    assert len(installs) == 2 and installs[1].endswith(f"-r {FULL}"), installs
    assert (scratch / ".venv" / ".requirements.sha256").exists()


def test_a_current_full_venv_serves_the_site_without_installing(scratch):
    _stamp(scratch, ".requirements.sha256", FULL)
    proc, installs = _setup(scratch, "docs")
    assert proc.returncode == 0 and installs == [], (proc.stderr, installs)
    proc, installs = _setup(scratch)
    assert installs == []


def test_a_stale_stamp_is_set_up_again(scratch):
    """Mutation: each stamp made from other requirements than today's asks pip again."""
    _stamp(scratch, ".requirements.sha256", FULL, "mkdocs==1.6.0\ntorch==2.13.0\n")
    _stamp(scratch, ".requirements-docs.sha256", DOCS, "mkdocs==1.6.0\n")
    _, installs = _setup(scratch, "docs")
    assert len(installs) == 1 and installs[0].endswith(f"-r {DOCS}"), installs
    _, installs = _setup(scratch)
    assert len(installs) == 2 and installs[1].endswith(f"-r {FULL}"), installs


def test_an_unknown_setup_argument_is_refused(scratch):
    proc, installs = _setup(scratch, "doc")
    assert proc.returncode == 2 and "./run setup [docs]: unknown argument doc" in proc.stderr and installs == []
