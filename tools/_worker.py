"""Worker for tools.snippets: run code blocks, each in its own forked process.

Reads ``{"workers": N, "blocks": [[name, code], ...]}`` on stdin and writes a JSON list of
``{"stdout", "error", "files", "seconds"}`` on stdout, in input order. A forkserver preloads
torch, numpy and matplotlib once; every block then gets a fresh child (``maxtasksperchild=1``)
with fresh globals, run with ``__name__ == "__main__"`` in an empty temporary folder, as
``python block.py`` would be. Random state is made what a fresh interpreter has: torch's, Python's and
NumPy's global generators are reseeded from the OS, so an unseeded block prints different numbers
on every run (and fails).
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

PRELOAD = ["torch", "numpy", "matplotlib", "matplotlib.pyplot"]


def _fresh_random_state() -> None:
    import random

    import numpy
    import torch

    torch.seed()
    random.seed()
    numpy.random.seed()


def run_one(task: tuple[str, str]) -> dict:
    name, code = task
    stdout = io.StringIO()
    error = None
    files: dict[str, str] = {}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="snippet-") as tmp:
        os.chdir(tmp)
        namespace = {"__name__": "__main__", "__file__": name}
        _fresh_random_state()
        try:
            with contextlib.redirect_stdout(stdout):
                exec(compile(code, name, "exec"), namespace)
            sys.stdout.flush()
        except BaseException:  # noqa: BLE001 - report everything, SystemExit included
            error = traceback.format_exc()
        for p in sorted(Path(tmp).rglob("*")):
            if p.is_file():
                files[p.relative_to(tmp).as_posix()] = p.read_bytes().hex()
    return {"stdout": stdout.getvalue(), "error": error, "files": files,
            "seconds": time.perf_counter() - start}


def main() -> None:
    request = json.load(sys.stdin)
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    with ctx.Pool(request["workers"], maxtasksperchild=1) as pool:
        results = pool.map(run_one, [tuple(b) for b in request["blocks"]], chunksize=1)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
