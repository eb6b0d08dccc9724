"""Shared fixtures: the strict build (once per session) and the snippet runs (once per reader machine)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import snippets  # noqa: E402
from tools.build import build  # noqa: E402

SNIPPET_SECONDS: dict[str, float] = {}  # wall time of each reader machine, for the summary


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `mkdocs build --strict` makes it; a warning fails every test that needs it."""
    out = tmp_path_factory.mktemp("site")
    proc = build(out)
    if proc.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    return out


class SnippetRuns:
    """Runs every snippet block once per reader machine (snippets.VARIANTS), on first request."""

    def __init__(self):
        self.blocks = snippets.collect()
        self._results: dict[str, list[snippets.Result]] = {}

    def results(self, variant: str) -> list[snippets.Result]:
        if not self._results:  # every machine at once: side by side where they fit the cores
            runs, seconds = snippets.run_variants(self.blocks)
            self._results.update(runs)
            SNIPPET_SECONDS.update(seconds)
        return self._results[variant]


@pytest.fixture(scope="session")
def snippet_runs() -> SnippetRuns:
    return SnippetRuns()


def pytest_terminal_summary(terminalreporter):
    if SNIPPET_SECONDS:
        terminalreporter.section("snippet runs per reader machine")
        for label, seconds in SNIPPET_SECONDS.items():
            workers = snippets.VARIANTS[label].workers
            terminalreporter.write_line(f"{seconds:6.1f} s  {label} ({workers} block(s) at a time)")
