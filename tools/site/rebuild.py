"""What a ``mkdocs serve`` reload does, without the server: load the config and build, again, in one process.

``mkdocs serve`` rebuilds in the process that built first, so what the hooks keep in memory
(``hooks/render_cache.py``, ``hooks/search_cache.py``, the compiled
templates) serves the next build. This runs that loop for the tests and for profiling: ``--rounds`` builds of ``-f`` into
``-d`` (``--strict``), each after appending a line to the first code block of ``--edit`` (a
snippet; the edit is undone at the end). It prints one JSON line per build: its CPU seconds and
what the caches reused.

    python -m tools.site.rebuild -f mkdocs.yml -d site --rounds 3 [--edit snippets/x/y.md] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tools.site.builder import BUILDER
from tools.files import write_atomic

CACHES = ("render_cache", "search_cache")


def _counts() -> dict[str, dict[str, int]]:
    """Each cache hook's counts so far in this process (its ``stats``), by hook."""
    return {name: dict(vars(sys.modules[f"hooks.{name}"].stats)) for name in CACHES if f"hooks.{name}" in sys.modules}


class _Count(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def rebuilds(config_file: Path, site_dir: Path, rounds: int, before=None, strict: bool = True,
             profile: Path | None = None) -> Iterator[dict]:
    """Load the config and build, ``rounds`` times in this process, as ``mkdocs serve`` does on each
    change; ``before(n)`` runs before build ``n``. Yields per build: its CPU seconds, the warnings
    MkDocs logged, and what each cache hook reused (``stats``), counted for this build alone."""
    load_config = importlib.import_module(f"{BUILDER}.config").load_config
    build = importlib.import_module(f"{BUILDER}.commands.build").build
    for n in range(rounds):
        if before is not None:
            before(n)
        counted, warned, cpu = _counts(), _Count(), time.process_time()
        logging.getLogger(BUILDER).addHandler(warned)
        try:
            config = load_config(str(config_file), site_dir=str(site_dir), strict=strict)
            if profile is not None and n == rounds - 1:
                cProfile.runctx("build(config)", globals(), {"build": build, "config": config}, str(profile))
            else:
                build(config)
        finally:
            logging.getLogger(BUILDER).removeHandler(warned)
        used = {name: {k: v - counted.get(name, {}).get(k, 0) for k, v in counts.items()}
                for name, counts in _counts().items()}
        yield {"build": n, "cpu": round(time.process_time() - cpu, 3), "warnings": warned.count, **used}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--config-file", type=Path, required=True)
    parser.add_argument("-d", "--site-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--edit", type=Path, help="a snippet to edit before every build but the first")
    parser.add_argument("--profile", type=Path, help="write the last build's cProfile stats here")
    args = parser.parse_args(argv)
    original = args.edit.read_text(encoding="utf-8") if args.edit else None
    if original is not None and "```python\n" not in original:
        raise SystemExit(f"{args.edit}: no ```python block to edit")

    def edit(n: int) -> None:
        if n and original is not None:
            write_atomic(args.edit, original.replace("```python\n", f"```python\n# rebuild {n}\n", 1))

    try:
        for record in rebuilds(args.config_file, args.site_dir, args.rounds, edit, profile=args.profile):
            print(json.dumps(record), flush=True)
    finally:
        if original is not None:
            write_atomic(args.edit, original)
    return 0


if __name__ == "__main__":
    sys.exit(main())
