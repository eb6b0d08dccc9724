"""Run the site's code snippets, check their shown outputs and figures, and refresh them.

Every code block on the site lives in ``snippets/<chapter>/<what-it-shows>.md``: one fence whose
info string is exactly ``python``, then ``<!--pytest-codeblocks:expected-output-->`` and a ``text``
fence holding the block's exact stdout. Blocks are extracted with pytest-codeblocks and each runs
in its own process, as if pasted alone into a fresh Python (see ``tools/_worker.py``: one forkserver
per reader machine with torch preloaded, one child per block, a timeout, no network, no writes
outside the block's own folder, global state it leaves behind reported). The figures a block saves
in its folder (``*.svg``) belong in ``docs/assets/figures/``; they are compared by content, with a
tolerance of ``FIGURE_TOLERANCE`` on every number (no reader can see it), and identical structure and text.

Check and refresh are one code path (``reconcile``): the test suite calls it with ``write=False``,
``refresh`` with ``write=True``, so what the tests compare and what refresh writes cannot drift apart.

Maintainer commands (the test suite never rewrites files):

    python -m tools.snippets refresh [PATH ...]   # rerun, rewrite outputs and moved figures, list changes
    python -m tools.snippets check [PATH ...]     # rerun and report problems, change nothing
    python -m tools.snippets check --variants     # also on every reader machine of VARIANTS
    python -m tools.snippets time [--variants]    # seconds per block, and per machine
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import pickle
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from tools.background import stop_descendants

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
FIGURES = ROOT / "docs" / "assets" / "figures"
MARKER = "<!--pytest-codeblocks:expected-output-->"
TIMEOUT = 180.0  # seconds per block; the heaviest takes ~15 s on one core
FIGURE_TOLERANCE = 1e-3  # px (SVG user units) on every number of every attribute
FIGURE_SUFFIXES = (".svg", ".png")


# Reader machines. Each moves the kernels that really do the work in torch 2.13.0+cpu
# (torch.__config__.show(): BLAS_INFO=mkl; oneDNN v3.12 for many NN ops such as F.gelu; ATen's own
# vectorized kernels), and the thread count. ATEN_CPU_CAPABILITY reaches only ATen's kernels, so an
# older CPU needs the oneDNN and MKL caps too. Each machine also says how many blocks run at once on
# two cores: blocks of two or three threads run one at a time (oversubscribed OpenMP threads that
# spin-wait cost several times their CPU time); "3 threads" is more threads than cores on purpose.
@dataclass(frozen=True)
class Variant:
    env: dict[str, str]
    workers: int


_ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
VARIANTS: dict[str, Variant] = {
    "native AVX-512, 1 thread": Variant(_ONE_THREAD, workers=2),
    "old SSE4.2 CPU, 1 thread": Variant(
        {"ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ATEN_CPU_CAPABILITY": "default",
         **_ONE_THREAD}, workers=2),
    "AVX2 laptop, 2 threads": Variant(
        {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2",
         "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}, workers=1),
    "MKL_CBWR=COMPATIBLE, 3 threads on 2 cores": Variant(
        {"MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3"}, workers=1),
}
DEFAULT = VARIANTS["native AVX-512, 1 thread"]
# Environment a caller may have set that would silently change every machine above.
_CLEARED_ENV = ("ONEDNN_", "DNNL_", "MKL_", "OMP_", "KMP_", "ATEN_CPU_CAPABILITY", "PYTHONHASHSEED")

# pytest-codeblocks silently skips fences whose info string is not exactly `python`.
_FENCE = re.compile(r"^[ \t]*(?P<ticks>`{3,}|~{3,})[ \t]*(?P<info>\S.*?)?[ \t]*$")


@dataclass
class Block:
    """One runnable code block of a snippet file (or, with ``error``, a snippet file that cannot be read)."""

    path: Path  # snippet file
    lineno: int  # line of the opening fence (1-based)
    code: str
    expected: str | None
    error: str | None = None

    @property
    def name(self) -> str:
        return f"{_rel(self.path)}:{self.lineno}"


@dataclass
class Result:
    stdout: str
    error: str | None = None  # traceback if the block raised, or why its process ended
    files: dict[str, bytes] = field(default_factory=dict)  # what it saved in its folder
    seconds: float = 0.0
    stderr: str = ""
    violations: list[str] = field(default_factory=list)  # network, writes outside its folder, processes
    state: list[str] = field(default_factory=list)  # global state it left behind

    @property
    def figures(self) -> dict[str, bytes]:
        return {n: d for n, d in self.files.items() if "/" not in n and n.endswith(FIGURE_SUFFIXES)}


def _rel(path: Path) -> str:
    path = Path(path)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


def snippet_files(paths: list[Path] | None = None) -> list[Path]:
    """All snippet files, or those under the given paths."""
    roots = paths or [SNIPPETS]
    found: list[Path] = []
    for p in roots:
        p = Path(p).resolve()
        found += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    return found


class SnippetError(ValueError):
    """A snippet file that cannot be read; the message names it."""


def read(path: Path) -> str:
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SnippetError(f"{_rel(path)}:{line}: not UTF-8 ({err.reason} at byte {err.start}); "
                           "save the file as UTF-8") from None


def skipped_fences(path: Path) -> list[int]:
    """Line numbers of fences that pytest-codeblocks would silently not run."""
    bad = []
    for i, line in enumerate(read(path).splitlines(), 1):
        m = _FENCE.match(line)
        info = (m and m.group("info")) or ""
        looks_python = re.match(r"\{?\s*\.?py", info) is not None
        if looks_python and not (m.group("ticks").startswith("`") and info == "python"):
            bad.append(i)
    return bad


def extract(path: Path) -> list[Block]:
    """The python blocks of one snippet file, as pytest-codeblocks sees them."""
    from pytest_codeblocks import extract_from_file

    read(path)  # a clear error first, naming the file
    return [
        Block(Path(path), b.lineno, b.code, b.expected_output)
        for b in extract_from_file(path)
        if b.syntax == "python"
    ]


def collect(paths: list[Path] | None = None) -> list[Block]:
    """Every block; a file that cannot be read becomes one failing block, and the others still run."""
    blocks = []
    for f in snippet_files(paths):
        try:
            blocks += extract(f)
        except SnippetError as err:
            blocks.append(Block(f, 0, "", None, error=str(err)))
    return blocks


# --------------------------------------------------------------------------- running


def _env(variant: Variant) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_CLEARED_ENV)}
    # Passive OpenMP waiting changes no result, only keeps a busy machine from crawling.
    return {**env, "MPLBACKEND": "Agg", "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT), **variant.env}


class _Run:
    """One worker process running some blocks on one reader machine."""

    def __init__(self, blocks: list[Block], variant: Variant, timeout: float):
        self.blocks = blocks
        self.todo = [i for i, b in enumerate(blocks) if b.error is None]
        self.tmp = tempfile.TemporaryDirectory(prefix="snippets-")
        tmp = Path(self.tmp.name)
        watch = {str(ROOT)} | {str(b.path.parent.resolve()) for b in blocks
                                if not b.path.resolve().is_relative_to(ROOT)}
        texts = {b.path: read(b.path) for b in blocks if b.error is None}
        request = {
            "workers": variant.workers, "timeout": timeout, "dir": str(tmp / "blocks"), "watch": sorted(watch),
            "blocks": [{"name": _rel(blocks[i].path), "lineno": blocks[i].lineno, "code": blocks[i].code,
                        "file_text": texts[blocks[i].path]} for i in self.todo],
        }
        (tmp / "request.json").write_text(json.dumps(request), encoding="utf-8")
        self.out = tmp / "results.pickle"
        self.limit = 120 + timeout * (len(self.todo) + 1)
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tools._worker", str(tmp / "request.json"), str(self.out)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=_env(variant), cwd=ROOT,
        )
        self.seconds = 0.0

    def results(self) -> list[Result]:
        try:
            _, stderr = self.proc.communicate(timeout=self.limit)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, stderr = self.proc.communicate()
            raise RuntimeError(f"snippet runner did not finish within {self.limit:.0f} s:\n{stderr.decode()[-4000:]}")
        self.seconds = time.perf_counter() - self.start
        if self.proc.returncode != 0 or not self.out.exists():
            raise RuntimeError(f"snippet runner failed (exit code {self.proc.returncode}):\n"
                               f"{stderr.decode('utf-8', 'replace')[-4000:]}")
        raw = pickle.loads(self.out.read_bytes())
        self.tmp.cleanup()
        results = [Result("", error=b.error) for b in self.blocks]
        for i, r in zip(self.todo, raw):
            results[i] = Result(r["stdout"], r["error"], r["files"], r["seconds"], r.get("stderr", ""),
                                r["violations"], r["state"])
        return results


def run(blocks: list[Block], variant: Variant = DEFAULT, timeout: float = TIMEOUT) -> list[Result]:
    """Run each block in its own fresh process on one reader machine; keep input order."""
    if not blocks:
        return []
    return _Run(blocks, variant, timeout).results()


CORES = 2  # what the worker counts of VARIANTS are made for (this machine, CI)


def start_order(variants: dict[str, Variant]) -> list[str]:
    """The order machines start in: those of one block at a time first (they take longest), then the others."""
    return sorted(variants, key=lambda label: variants[label].workers)


def run_variants(blocks: list[Block], variants: dict[str, Variant] | None = None,
                 timeout: float = TIMEOUT, cores: int = CORES) -> tuple[dict[str, list[Result]], dict[str, float]]:
    """Run the blocks on several reader machines; results and wall seconds of each, in the order given.

    Machines start in ``start_order``, the next one as soon as the blocks running at once are fewer
    than ``cores``: the cores never wait for a whole group of machines to finish, and the machines of
    several blocks at a time, started last, keep both cores busy to the end.
    """
    variants = VARIANTS if variants is None else variants
    results, seconds = {}, {}
    pending, running = start_order(variants), {}
    done: queue.Queue = queue.Queue()

    def collect(label: str, r: _Run) -> None:
        try:
            done.put((label, r.results(), None))
        except BaseException as err:  # noqa: BLE001 - raised below, in the caller's thread
            done.put((label, None, err))

    try:
        while pending or running:
            while pending and sum(variants[label].workers for label in running) < cores:
                label = pending.pop(0)
                running[label] = _Run(blocks, variants[label], timeout)
                threading.Thread(target=collect, args=(label, running[label]), daemon=True).start()
            label, found, err = done.get()
            r = running.pop(label)
            if err is not None:
                raise err
            results[label], seconds[label] = found, r.seconds
    finally:
        for r in running.values():  # a machine failed: stop the others, the blocks they run included
            stop_descendants(r.proc.pid)
            r.proc.kill()
    return {label: results[label] for label in variants}, {label: seconds[label] for label in variants}


# --------------------------------------------------------------------------- figures

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_MPL_ID = re.compile(r"^[a-z][0-9a-f]{10}$")  # matplotlib's hashed ids (clip paths, markers): they hash coordinates
_MPL_REF = re.compile(r"#([a-z][0-9a-f]{10})\b")


@dataclass
class FigureDiff:
    where: str  # the first differing element
    what: str  # how it differs
    largest: float  # the largest delta of any number (0 if the structure differs)
    moved: bool  # beyond the tolerance, or structure or text differ

    def __str__(self) -> str:
        return f"first difference at {self.where}: {self.what}; largest delta of any number {self.largest:.3g}"


def _canonical(svg: bytes) -> list[tuple[str, ET.Element]]:
    root = ET.fromstring(svg)
    names: dict[str, str] = {}
    for el in root.iter():
        i = el.get("id")
        if i and _MPL_ID.match(i):
            names[i] = f"{i[0]}@{len(names)}"
    out = []

    def walk(el: ET.Element, where: str) -> None:
        for k, v in list(el.attrib.items()):
            v = names.get(v, v) if k == "id" else _MPL_REF.sub(lambda m: "#" + names.get(m.group(1), m.group(1)), v)
            el.set(k, v)
        tag = el.tag.rsplit("}", 1)[-1]
        label = f"<{tag}" + (f" id={el.get('id')!r}" if el.get("id") else "") + ">"
        here = f"{where} > {label}" if where else label
        out.append((here, el))
        for child in el:
            walk(child, here)

    walk(root, "")
    return out


def _numbers(text: str) -> tuple[list[str], list[float]]:
    return _NUMBER.split(text), [float(x) for x in _NUMBER.findall(text)]


def compare_svg(committed: bytes, drawn: bytes, tolerance: float = FIGURE_TOLERANCE) -> FigureDiff | None:
    """None if equal within ``tolerance`` on every number, with identical structure and text."""
    try:
        a, b = _canonical(committed), _canonical(drawn)
    except ET.ParseError as err:
        return FigureDiff("the document", f"not well-formed XML ({err})", 0.0, True)
    if len(a) != len(b):
        for (wa, ea), (wb, eb) in zip(a, b):
            if wa != wb:
                return FigureDiff(wb, f"element {wb.rsplit(' > ', 1)[-1]} where the committed file has "
                                      f"{wa.rsplit(' > ', 1)[-1]} ({len(a)} elements committed, {len(b)} now)", 0.0, True)
        return FigureDiff("the end", f"{len(a)} elements committed, {len(b)} now", 0.0, True)
    largest, first = 0.0, None
    for (wa, ea), (wb, eb) in zip(a, b):
        if wa != wb or ea.tag != eb.tag:
            return FigureDiff(wb, f"element {wb} where the committed file has {wa}", 0.0, True)
        if sorted(ea.attrib) != sorted(eb.attrib):
            return FigureDiff(wb, f"attributes {sorted(eb.attrib)}, committed {sorted(ea.attrib)}", 0.0, True)
        for part in ("text", "tail"):
            ta, tb = (getattr(ea, part) or "").strip(), (getattr(eb, part) or "").strip()
            if ta != tb:
                return FigureDiff(wb, f"{part} {tb!r}, committed {ta!r}", 0.0, True)
        for k in ea.attrib:
            va, vb = ea.get(k), eb.get(k)
            if va == vb:
                continue
            (sa, na), (sb, nb) = _numbers(va), _numbers(vb)
            if sa != sb or len(na) != len(nb):
                return FigureDiff(wb, f"attribute {k.rsplit('}', 1)[-1]}={_short(vb)!r}, committed {_short(va)!r}",
                                  0.0, True)
            for j, (x, y) in enumerate(zip(na, nb)):
                d = abs(x - y)
                if d > largest:
                    largest = d
                if d > tolerance and first is None:
                    first = (wb, f"attribute {k.rsplit('}', 1)[-1]}, number {j + 1}: {y!r} now, {x!r} committed")
                elif d > 0 and first is None and largest == d:
                    pass
    if first:
        return FigureDiff(first[0], first[1], largest, True)
    if largest:
        return FigureDiff("-", "all numbers within the tolerance", largest, False)
    return None


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "…"


# --------------------------------------------------------------------------- check and refresh: one path


@dataclass
class Finding:
    block: str  # file:line
    message: str
    fixed: bool = False  # refresh rewrote the file


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def rewrite_output(path: Path, block: Block, stdout: str) -> bool:
    """Put ``stdout`` under ``block`` in ``path``; return True if the file changed."""
    lines = read(path).splitlines(keepends=True)
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


def _run_problems(block: Block, result: Result) -> list[str]:
    """What no refresh can fix: the block raised, died, hung, broke out, or left state behind."""
    out = []
    if block.error:
        out.append(block.error)
        return out
    if result.error:
        out.append(f"{block.name} raised an exception (or its process ended):\n{result.error}")
    for v in result.violations:
        out.append(f"{block.name} did what a snippet must not: {v}")
    if result.state:
        out.append(f"{block.name} leaves global state behind (the next cell of the chapter's notebook would see it;"
                   " pass dtype= explicitly, use context managers such as plt.rc_context, or restore it):\n    "
                   + "\n    ".join(result.state))
    return out


def _output_diff(block: Block, stdout: str) -> str:
    diff = difflib.unified_diff(
        (block.expected or "").splitlines(keepends=True), stdout.splitlines(keepends=True),
        fromfile=f"{block.name} (shown on the page)", tofile=f"{block.name} (printed now)",
    )
    return "".join(diff)


def reconcile(block: Block, result: Result, write: bool = False, figures: Path | None = None) -> list[Finding]:
    """Compare one block's run with its shown output and committed figures; with ``write``, make them match.

    The same comparisons decide what the tests report and what refresh rewrites.
    """
    figures = FIGURES if figures is None else figures
    found = [Finding(block.name, m) for m in _run_problems(block, result)]
    if block.error or result.error:
        return found  # its output and figures are not trustworthy: leave them as they are
    stdout = result.stdout
    if (block.expected or "") != stdout:
        if block.expected is None:
            msg = f"{block.name} prints output but shows none: add `{MARKER}` and run `python -m tools.snippets refresh`"
        else:
            msg = f"{block.name}: output differs from the page\n" + _output_diff(block, stdout)
        fixed = write and rewrite_output(block.path, block, stdout)
        found.append(Finding(block.name, msg, fixed))
    for name, data in result.figures.items():
        target = figures / name
        rel = _rel(target)
        if not target.exists():
            msg = f"{block.name} saves {name}, but {rel} is not committed"
        elif name.endswith(".svg"):
            diff = compare_svg(target.read_bytes(), data)
            if diff is None or not diff.moved:
                continue
            msg = f"{block.name} draws {rel} differently (tolerance {FIGURE_TOLERANCE:g}): {diff}"
        elif target.read_bytes() != data:
            msg = f"{block.name} draws {rel} differently (byte for byte)"
        else:
            continue
        if write:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        found.append(Finding(block.name, msg, write))
    return found


def problems(block: Block, result: Result) -> str | None:
    """What is wrong with one block's run and output, as a message naming file and line; None if fine."""
    msgs = [f.message for f in reconcile(block, Result(result.stdout, result.error, {}, result.seconds,
                                                        result.stderr, result.violations, result.state))]
    return "\n".join(msgs) or None


def figure_problems(block: Block, result: Result) -> list[str]:
    """Figures the block saves that differ beyond the tolerance from the committed ones, or are not committed."""
    only_figures = Result(block.expected or "", None, result.files)
    return [f.message for f in reconcile(Block(block.path, block.lineno, block.code, block.expected), only_figures)]


def check(blocks: list[Block], results: list[Result], write: bool = False) -> list[Finding]:
    return [f for b, r in zip(blocks, results) for f in reconcile(b, r, write)]


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.snippets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["refresh", "check", "time"])
    parser.add_argument("paths", nargs="*", type=Path, help="snippet files or folders (default: all)")
    parser.add_argument("--variants", action="store_true", help="also run on every reader machine of VARIANTS")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per block")
    args = parser.parse_intermixed_args(argv)

    paths = args.paths or None
    blocks = collect(paths)
    bad = []
    for f in snippet_files(paths):
        try:
            bad += [f"{_rel(f)}:{n}" for n in skipped_fences(f)]
        except SnippetError:
            pass  # reported as a failing block
    if bad:
        print("fences pytest-codeblocks would skip (info string must be exactly `python`):", *bad, sep="\n  ")
        return 1
    variants = VARIANTS if args.variants else {next(iter(VARIANTS)): DEFAULT}
    if args.command == "refresh":
        variants = {next(iter(VARIANTS)): DEFAULT}
    runs, seconds = run_variants(blocks, variants, args.timeout)
    label = next(iter(runs))

    if args.command == "time":
        for b, r in sorted(zip(blocks, runs[label]), key=lambda p: -p[1].seconds):
            print(f"{r.seconds:7.2f} s  {b.name}")
        for lab, s in seconds.items():
            print(f"{len(blocks)} blocks in {s:.1f} s wall on {lab!r} ({VARIANTS[lab].workers} at a time)")
        return 0

    if args.command == "refresh":
        findings = check(blocks, runs[label], write=True)
        for f in findings:
            print(("rewrote: " if f.fixed else "") + f.message, end="\n\n")
        changed = sorted({f.block for f in findings if f.fixed})
        unfixed = [f for f in findings if not f.fixed]
        print(f"{len(blocks)} blocks run in {seconds[label]:.1f} s; blocks with rewritten outputs or figures:"
              f" {len(changed)}; problems refresh cannot fix: {len(unfixed)}")
        return 1 if unfixed else 0

    failures = []
    for lab, results in runs.items():
        failures += [f"[{lab}] {f.message}" for f in check(blocks, results)]
    for f in failures:
        print(f, end="\n\n")
    times = ", ".join(f"{lab}: {s:.1f} s" for lab, s in seconds.items())
    print(f"{len(blocks)} blocks, {len(failures)} problems ({times})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
