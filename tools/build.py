"""The build the tests rely on: ``mkdocs build --strict``, exactly as ``./run build`` runs it.

No ``-q``: it raises the log level above WARNING, so the warnings ``--strict`` counts (a broken
link or anchor) are never emitted and the build passes. The log goes to the caller, which checks
the return code and shows the output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hooks.site_facts import CONFIG_FILE, ROOT

# What a build reads: a copy of these is a project that builds on its own (tools/ for the generators).
PROJECT = ("mkdocs.yml", "CITATION.cff", "requirements.txt", "search-terms.zh.txt", "docs", "snippets", "compat", "hooks", "overrides", "tools")


def copy_project(dest: Path) -> Path:
    """A scratch copy of the project in ``dest`` (no .cache, no site/): for builds that must start
    empty or that change files. Returns its mkdocs.yml."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", ".cache")
    for name in PROJECT:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy(src, dest / name)
    return dest / "mkdocs.yml"


def build(site_dir: Path, config: Path = CONFIG_FILE, strict: bool = True) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site_dir``; the caller checks the return code.
    ``strict=False`` only for tests that need the site a broken configuration builds."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else []), "-f", str(config), "-d", str(site_dir)],
        capture_output=True, text=True, env=env, cwd=Path(config).parent,
    )


def warnings(proc: subprocess.CompletedProcess) -> list[str]:
    """The WARNING and ERROR lines of a build's log (what --strict counts)."""
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith(("WARNING", "ERROR"))]
