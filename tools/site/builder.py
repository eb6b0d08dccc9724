"""The site builder ``./run`` names on its ``BUILDER=`` line: ``mkdocs`` or ``properdocs``.

Its own module, importing nothing but the standard library, so that ``tools/site/serve.py`` learns the builder
without importing MkDocs itself (the server it supervises is a child process).
"""

from __future__ import annotations

import re
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "run"


def _builder() -> str:
    found = re.findall(r"^BUILDER=(mkdocs|properdocs)\b", RUN.read_text(), re.M)
    if len(found) != 1:
        raise RuntimeError(f"{RUN}: expected one line BUILDER=mkdocs or BUILDER=properdocs, found {found}")
    return found[0]


BUILDER = _builder()  # switching builders is that one line of ./run
