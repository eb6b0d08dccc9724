"""Shared fixtures: the strict build (once per session) and the snippet runs (once per environment)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import snippets  # noqa: E402
from tools.build import build  # noqa: E402


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `mkdocs build --strict` makes it; a warning fails every test that needs it."""
    out = tmp_path_factory.mktemp("site")
    proc = build(out)
    if proc.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    return out


class SnippetRuns:
    """Runs every snippet block once per environment variant, on first request."""

    def __init__(self):
        self.blocks = snippets.collect()
        self._results: dict[str, list[snippets.Result]] = {}

    def results(self, variant: str) -> list[snippets.Result]:
        if variant not in self._results:
            self._results[variant] = snippets.run(self.blocks, snippets.VARIANTS[variant])
        return self._results[variant]


@pytest.fixture(scope="session")
def snippet_runs() -> SnippetRuns:
    return SnippetRuns()
