"""Exact edits of Material's minified JavaScript, each checked (a helper of the hooks, not a hook).

An edit is a pair: the text Material ships and the text it should be. The shipped text must occur
exactly once, or the edit must be made already (mkdocs-static-i18n builds every language into the
same site folder, and ``mkdocs serve`` rebuilds). Anything else is a ``PluginError`` naming the
file and the text expected: Material changed, and the edit must be checked again.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

Edit = tuple[str, str]  # (what Material ships, what it should be)


def apply(source: str, edits: list[Edit], name: str, who: str, hint: str) -> str:
    """``source`` (the file ``name``) with every edit made; ``who`` and ``hint`` open and close the error."""
    for shipped, fixed in edits:
        if source.count(fixed) == 1 and shipped not in source:
            continue
        if source.count(shipped) != 1:
            raise PluginError(f"{who}: {name} does not contain {shipped!r} exactly once; {hint}")
        source = source.replace(shipped, fixed)
    return source


def edit_one(site_dir: Path, pattern: str, edits: list[Edit], who: str, hint: str) -> Path:
    """Make ``edits`` in the one file of the built site that matches ``pattern``; returns it."""
    found = sorted(Path(site_dir).glob(pattern))
    if len(found) != 1:
        raise PluginError(f"{who}: expected one {pattern} in the site, found {len(found)}")
    path = found[0]
    source = path.read_text(encoding="utf-8")
    edited = apply(source, edits, path.name, who, hint)
    if edited != source:
        path.write_text(edited, encoding="utf-8")
    return path
