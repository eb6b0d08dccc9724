"""The build the tests rely on: ``mkdocs build --strict``, exactly as ``./run build`` runs it
(with the builder ``./run`` names: ``mkdocs``, or ``properdocs``).

No ``-q``: it raises the log level above WARNING, so the warnings ``--strict`` counts (a broken
link or anchor) are never emitted and the build passes. The log goes to the caller, which checks
the return code and shows the output.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from hooks.site_facts import CONFIG_FILE, ROOT
from tools.site.builder import BUILDER

# What a build reads: a copy of these is a project that builds on its own (tools/ for the generators).
PROJECT = ("mkdocs.yml", "CITATION.cff", "requirements.txt", "requirements-docs.txt", "search-terms.zh.txt", "docs", "snippets",
           "compat", "data", "hooks", "overrides", "tools")


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


def console_script(name: str) -> Path:
    """The venv's own console script ``name`` (``mkdocs``, ``properdocs``): what a reader types in the
    activated venv, which puts the script's folder on ``sys.path``, not the working directory."""
    script = Path(sys.prefix) / ("Scripts" if os.name == "nt" else "bin") / name
    if not script.is_file():
        raise FileNotFoundError(f"{script}: no console script {name!r} in the venv of {sys.executable}")
    return script


def reader_env() -> dict[str, str]:
    """The environment of a reader's shell: no PYTHONPATH (nothing puts the project on sys.path)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def build(site_dir: Path, config: Path = CONFIG_FILE, strict: bool = True, *,
          program: tuple[str, ...] = (sys.executable, "-m", BUILDER), cwd: Path | None = None,
          ) -> subprocess.CompletedProcess:
    """``mkdocs build --strict -f config`` into ``site_dir``; the caller checks the return code.
    ``strict=False`` only for tests that need the site a broken configuration builds. ``program``
    is the builder (``python -m properdocs``, the ``mkdocs`` console script); ``cwd`` where it runs
    (the project's folder unless told)."""
    return subprocess.run(
        [*map(str, program), "build", *(["--strict"] if strict else []), "-f", str(config), "-d", str(site_dir)],
        capture_output=True, text=True, env=reader_env(), cwd=cwd or Path(config).parent,
    )


def first_difference(a: Path, b: Path, normalize=None) -> str | None:
    """None if the trees ``a`` and ``b`` hold the same files, byte for byte; else what differs first
    (in sorted path order): a file in one tree only, or a file's first differing line. ``normalize``
    (relative path, bytes) -> bytes maps out what may differ (a generator line)."""
    files = {root: sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) for root in (a, b)}
    only = sorted(set(files[a]) ^ set(files[b]))
    if only:
        side = a if only[0] in files[a] else b
        return f"{only[0]}: only in {side} ({len(only)} file(s) in one tree only)"
    for rel in files[a]:
        left, right = ((root / rel).read_bytes() for root in (a, b))
        if normalize:
            left, right = normalize(rel, left), normalize(rel, right)
        if left == right:
            continue
        try:
            lines = [data.decode("utf-8").splitlines() for data in (left, right)]
        except UnicodeDecodeError:
            at = next((i for i, (x, y) in enumerate(zip(left, right)) if x != y), min(len(left), len(right)))
            return f"{rel}: differs ({len(left)} / {len(right)} bytes), first at byte {at}"
        n = next((i for i, (x, y) in enumerate(zip(*lines)) if x != y), min(map(len, lines)))
        show = [(side[n][:300] if n < len(side) else "<end of file>") for side in lines]
        return (f"{rel}: differs ({len(left)} / {len(right)} bytes), first at line {n + 1}:\n"
                f"  {a}: {show[0]!r}\n  {b}: {show[1]!r}")
    return None


def warnings(proc: subprocess.CompletedProcess) -> list[str]:
    """The WARNING and ERROR lines of a build's log (what --strict counts)."""
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith(("WARNING", "ERROR"))]
