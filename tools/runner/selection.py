"""Which blocks a command runs: every snippet file under ``snippets/`` (or under the paths given, a page of
``docs/`` standing for the snippet files it includes), each file's blocks as pytest-codeblocks extracts them
(``hooks/snippet_files.py``), and every file there that no runner would run as one failing block naming it.

Every code block on the site lives in ``snippets/<chapter>/<what-it-shows>.md``: one fence whose info string
is exactly ``python``, then ``<!--pytest-codeblocks:expected-output-->`` and a ``text`` fence holding the
block's exact stdout.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from hooks.snippet_files import (MARKER, Block, Fence, SnippetError, _rel, codeblocks_line_limit, extract,  # noqa: F401
                                 fence_problems, fences, read, skipped_fences)

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"


def snippet_files(paths: list[Path] | None = None) -> list[Path]:
    """All snippet files, or those under the given paths."""
    roots = paths or [SNIPPETS]
    found: list[Path] = []
    for p in roots:
        p = Path(p).resolve()
        found += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    return found


_NOT_SNIPPETS = ("conftest.py",)  # files of snippets/ that are no snippet (pytest's configuration of the folder)


def stray_files(paths: list[Path] | None = None) -> list[Block]:
    """Files in the given folders that no runner would run, each a failing block naming it: a snippet saved with
    another suffix (``.markdown``, ``.txt``, ``.MD``) or in a folder ``pytest --codeblocks`` never enters (hidden,
    ``build/``): a page could include it and show an output nothing ran (``hooks/includes.py`` refuses the include)."""
    from hooks import includes

    out = []
    for p in paths or [SNIPPETS]:
        p = Path(p).resolve()
        if not p.is_dir():
            continue
        for f in sorted(p.rglob("*")):
            rel = f.relative_to(p)
            if f.is_dir() or "__pycache__" in rel.parts or f.name in _NOT_SNIPPETS:
                continue
            skipped = [part for part in rel.parts[:-1] if any(fnmatch.fnmatch(part, s) for s in includes.PYTEST_SKIPS)]
            if f.suffix != ".md" or skipped:
                why = (f"in {'/'.join(skipped)}/, a folder pytest --codeblocks never enters" if skipped
                       else f"its suffix is {f.suffix or '(none)'!r}, and the runners run only .md files")
                out.append(Block(f, 0, "", None, error=f"{_rel(f)}: not a snippet any runner runs ({why}): a page "
                                 "including it would show an output nothing ran; rename or move it to "
                                 "snippets/<chapter>/<name>.md, or delete it"))
    return out


def page_paths(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """The command line's paths with each page of ``docs/`` replaced by the snippet files it includes; and the
    problems of those pages' includes (``hooks/includes.py``). A path that is neither a snippet file or folder
    nor a page is a problem: a check given the wrong file must not pass on zero blocks."""
    from hooks import includes

    docs = (ROOT / "docs").resolve()
    out, bad = [], []
    pages, given = [], set()
    for p in paths:  # a folder of docs/ stands for its pages (those that include no snippet are no problem)
        r = Path(p).resolve()
        pages += sorted(r.rglob("*.md")) if r.is_dir() and r.is_relative_to(docs) else [p]
        given.add(r)
    for p in pages:
        r = Path(p).resolve()
        if not r.exists():
            bad.append(f"{p}: no such file or folder")
        elif r.is_file() and r.is_relative_to(docs) and r.suffix == ".md":
            text = read(r)
            found = [i.path for i in includes.expand(text)[0] if i.parent is None and i.path is not None]
            bad += includes.problems(text, _rel(r))
            out += list(dict.fromkeys(f.resolve() for f in found))
            if not found and r in given:
                bad.append(f"{_rel(r)}: a page that includes no snippet: nothing to check")
        elif r.is_file() and r.suffix != ".md":
            bad.append(f"{_rel(r)}: not a snippet file (.md) nor a page of docs/: nothing of it would run")
        else:
            out.append(r)
    return out, bad


def collect(paths: list[Path] | None = None) -> list[Block]:
    """Every block; a file that cannot be read becomes one failing block, and the others still run."""
    blocks = stray_files(paths)
    for f in (f for f in snippet_files(paths) if f not in {b.path for b in blocks}):
        try:
            blocks += extract(f)
        except SnippetError as err:
            blocks.append(Block(f, 0, "", None, error=str(err)))
    return blocks
