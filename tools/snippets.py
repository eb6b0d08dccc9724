"""Run the site's code snippets, check their shown outputs, and refresh them.

Every code block on the site lives in ``snippets/<chapter>/<what-it-shows>.md``: one fence whose
info string is exactly ``python``, then ``<!--pytest-codeblocks:expected-output-->`` and a ``text``
fence holding the block's exact stdout. Blocks are extracted with pytest-codeblocks and each runs
in its own process, as if pasted alone into a fresh Python: a forkserver that has already imported
torch forks one child per block (``maxtasksperchild=1``), so no state leaks between blocks and
the ~3 s import cost is paid once. Each block runs in an empty temporary folder; the figures it
saves there (``*.svg``) belong in ``docs/assets/figures/``.

Maintainer commands (the test suite never rewrites files):

    python -m tools.snippets refresh [PATH ...]   # rerun, rewrite outputs and figures, list changes
    python -m tools.snippets check [PATH ...]     # rerun and report mismatches, change nothing
    python -m tools.snippets check --variants     # also under OMP_NUM_THREADS=1 and ATEN_CPU_CAPABILITY=default
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
FIGURES = ROOT / "docs" / "assets" / "figures"
MARKER = "<!--pytest-codeblocks:expected-output-->"

# Environments a reader's machine may differ in; outputs must not depend on them. Each variant
# also says how many blocks run at once: with two cores, two blocks of two threads each would
# oversubscribe them, and OpenMP threads that spin-wait then cost several times their CPU time.
@dataclass(frozen=True)
class Variant:
    env: dict[str, str]
    workers: int


VARIANTS: dict[str, Variant] = {
    "1 thread": Variant({"OMP_NUM_THREADS": "1"}, workers=2),
    "2 threads": Variant({"OMP_NUM_THREADS": "2"}, workers=1),
    "ATEN_CPU_CAPABILITY=default (no AVX2)": Variant(
        {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1"}, workers=2),
}
DEFAULT = VARIANTS["1 thread"]

# pytest-codeblocks silently skips fences whose info string is not exactly `python`.
_FENCE = re.compile(r"^[ \t]*(?P<ticks>`{3,}|~{3,})[ \t]*(?P<info>\S.*?)?[ \t]*$")


@dataclass
class Block:
    """One runnable code block of a snippet file."""

    path: Path  # snippet file
    lineno: int  # line of the opening fence (1-based)
    code: str
    expected: str | None

    @property
    def name(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path.as_posix()}:{self.lineno}"


@dataclass
class Result:
    stdout: str
    error: str | None = None  # traceback if the block raised
    files: dict[str, bytes] = field(default_factory=dict)  # figures it saved
    seconds: float = 0.0


def snippet_files(paths: list[Path] | None = None) -> list[Path]:
    """All snippet files, or those under the given paths."""
    roots = paths or [SNIPPETS]
    found: list[Path] = []
    for p in roots:
        p = p.resolve()
        found += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    return found


def skipped_fences(path: Path) -> list[int]:
    """Line numbers of fences that pytest-codeblocks would silently not run."""
    bad = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _FENCE.match(line)
        info = (m and m.group("info")) or ""
        looks_python = re.match(r"\{?\s*\.?py", info) is not None
        if looks_python and not (m.group("ticks").startswith("`") and info == "python"):
            bad.append(i)
    return bad


def extract(path: Path) -> list[Block]:
    """The python blocks of one snippet file, as pytest-codeblocks sees them."""
    from pytest_codeblocks import extract_from_file

    return [
        Block(path, b.lineno, b.code, b.expected_output)
        for b in extract_from_file(path)
        if b.syntax == "python"
    ]


def collect(paths: list[Path] | None = None) -> list[Block]:
    return [b for f in snippet_files(paths) for b in extract(f)]


# --------------------------------------------------------------------------- running


def run(blocks: list[Block], variant: Variant = DEFAULT) -> list[Result]:
    """Run each block in its own fresh process (see the module docstring); keep input order."""
    if not blocks:
        return []
    # Passive OpenMP waiting changes no result, only keeps a busy machine from crawling.
    full_env = {**os.environ, "MPLBACKEND": "Agg", "OMP_WAIT_POLICY": "PASSIVE", **variant.env}
    payload = json.dumps({"workers": variant.workers, "blocks": [[b.name, b.code] for b in blocks]})
    proc = subprocess.run(
        [sys.executable, "-m", "tools._worker"],
        input=payload, capture_output=True, text=True, env=full_env, cwd=ROOT,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"snippet runner failed:\n{proc.stderr}")
    results = []
    for r in json.loads(proc.stdout):
        files = {name: bytes.fromhex(data) for name, data in r["files"].items()}
        results.append(Result(r["stdout"], r["error"], files, r["seconds"]))
    return results


def problems(block: Block, result: Result) -> str | None:
    """What is wrong with one block's run, as a message naming file and line; None if fine."""
    if result.error:
        return f"{block.name} raised an exception:\n{result.error}"
    if block.expected is None:
        if result.stdout:
            return f"{block.name} prints output but shows none: add `{MARKER}` and run `python -m tools.snippets refresh`"
        return None
    if result.stdout != block.expected:
        diff = difflib.unified_diff(
            block.expected.splitlines(keepends=True), result.stdout.splitlines(keepends=True),
            fromfile=f"{block.name} (shown on the page)", tofile=f"{block.name} (printed now)",
        )
        return f"{block.name}: output differs from the page\n" + "".join(diff)
    return None


def figure_problems(block: Block, result: Result) -> list[str]:
    """Figures a block saves must equal the committed ones in docs/assets/figures/."""
    out = []
    for name, data in result.files.items():
        committed = FIGURES / name
        if not committed.exists():
            out.append(f"{block.name} saves {name}, but docs/assets/figures/{name} is not committed")
        elif committed.read_bytes() != data:
            out.append(f"{block.name} draws {name} differently from docs/assets/figures/{name}")
    return out


# --------------------------------------------------------------------------- refreshing


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def rewrite_output(path: Path, block: Block, stdout: str) -> bool:
    """Put ``stdout`` under ``block`` in ``path``; return True if the file changed."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # end of the code fence that opens at block.lineno
    opening = lines[block.lineno - 1]
    ticks = len(opening.lstrip()) - len(opening.lstrip().lstrip("`"))
    end = block.lineno
    while not lines[end].lstrip().startswith("`" * ticks):
        end += 1
    fence = _fence_for(stdout)
    new_output = [MARKER + "\n", f"{fence}text\n", stdout if stdout.endswith("\n") else stdout + "\n", f"{fence}\n"]
    # find an existing output fence after the code fence (before the next python fence)
    i = end + 1
    while i < len(lines) and lines[i].strip() != MARKER and not lines[i].lstrip().startswith("```python"):
        i += 1
    if i < len(lines) and lines[i].strip() == MARKER:
        j = i + 1
        out_ticks = len(lines[j].lstrip()) - len(lines[j].lstrip().lstrip("`"))
        k = j + 1
        while not (lines[k].strip().startswith("`" * out_ticks) and lines[k].strip().strip("`") == ""):
            k += 1
        replaced = lines[:i] + (new_output if stdout else []) + lines[k + 1:]
    else:
        replaced = lines[: end + 1] + (new_output if stdout else []) + lines[end + 1:]
    text = "".join(replaced)
    if text != "".join(lines):
        path.write_text(text, encoding="utf-8")
        return True
    return False


def _report(blocks: list[Block], results: list[Result], label: str) -> list[str]:
    failures = []
    for b, r in zip(blocks, results):
        msg = problems(b, r)
        if msg:
            failures.append(f"[{label}] {msg}")
        failures += [f"[{label}] {m}" for m in figure_problems(b, r)]
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.snippets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["refresh", "check", "time"])
    parser.add_argument("paths", nargs="*", type=Path, help="snippet files or folders (default: all)")
    parser.add_argument("--variants", action="store_true", help="check under every environment variant")
    args = parser.parse_intermixed_args(argv)

    blocks = collect(args.paths or None)
    bad = [f"{f.relative_to(ROOT)}:{n}" for f in snippet_files(args.paths or None) for n in skipped_fences(f)]
    if bad:
        print("fences pytest-codeblocks would skip (info string must be exactly `python`):", *bad, sep="\n  ")
        return 1
    start = time.perf_counter()
    results = run(blocks)
    wall = time.perf_counter() - start

    if args.command == "time":
        for b, r in sorted(zip(blocks, results), key=lambda p: -p[1].seconds):
            print(f"{r.seconds:7.2f} s  {b.name}")
        print(f"{len(blocks)} blocks in {wall:.1f} s wall ({DEFAULT.workers} workers, 1 thread each)")
        return 0

    if args.command == "refresh":
        changed = []
        for b, r in zip(blocks, results):
            if r.error:
                print(f"{b.name} raised; its output was left as it is:\n{r.error}")
                continue
            old = b.expected or ""
            if rewrite_output(b.path, b, r.stdout):
                changed.append(b.name)
                print("".join(difflib.unified_diff(old.splitlines(True), r.stdout.splitlines(True),
                                                   fromfile=f"{b.name} (before)", tofile=f"{b.name} (now)")))
            for name, data in r.files.items():
                target = FIGURES / name
                if not target.exists() or target.read_bytes() != data:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                    changed.append(f"docs/assets/figures/{name}")
        print(f"{len(blocks)} blocks run in {wall:.1f} s; changed: {len(changed)}")
        for name in changed:
            print("  " + name)
        return 1 if any(r.error for r in results) else 0

    failures = _report(blocks, results, next(iter(VARIANTS)))
    if args.variants:
        for label, variant in list(VARIANTS.items())[1:]:
            failures += _report(blocks, run(blocks, variant), label)
    for f in failures:
        print(f, end="\n\n")
    print(f"{len(blocks)} blocks, {len(failures)} problems ({wall:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
