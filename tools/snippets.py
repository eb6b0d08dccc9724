"""Run the site's code snippets, check their shown outputs and figures, and refresh them.

Every code block on the site lives in ``snippets/<chapter>/<what-it-shows>.md``: one fence whose
info string is exactly ``python``, then ``<!--pytest-codeblocks:expected-output-->`` and a ``text``
fence holding the block's exact stdout. Blocks are extracted with pytest-codeblocks and each runs
in its own process, as if pasted alone into a fresh Python (see ``tools/_worker.py``: one forkserver
per reader machine with torch preloaded, one child per block, a timeout, no network, no writes
outside the block's own folder, global state it leaves behind reported). The figures a block saves
in its folder (``*.svg``) belong in ``docs/assets/figures/``; they are compared by content, with a
tolerance of ``FIGURE_TOLERANCE`` on every number (no reader can see it), and identical structure and text.
The data files a block saves (``*.json``, an explorable figure's data) belong in ``docs/assets/data/``;
they are compared the same way (``compare_json``: identical structure, keys and strings, every number within
``DATA_TOLERANCE`` relative), and a failure names the file, the key path and the largest delta.

Check and refresh are one code path (``reconcile``): the test suite calls it with ``write=False``,
``refresh`` with ``write=True``, so what the tests compare and what refresh writes cannot drift apart.

Maintainer commands (the test suite never rewrites files):

    python -m tools.snippets refresh [PATH ...]   # rerun, rewrite outputs and moved figures, list changes
    python -m tools.snippets check [PATH ...]     # rerun and report problems, change nothing
    python -m tools.snippets check --variants     # also on every reader machine of VARIANTS
    python -m tools.snippets time [--variants]    # seconds per block, and per machine
    python -m tools.snippets replicate --seed-offset N [PATH ...]  # rerun the experiment blocks with every
                                                  # seed shifted by N; compare verdicts (tools/replicate.py)
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import hashlib
import json
import os
import pickle
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from hooks.snippet_files import (MARKER, Block, Fence, SnippetError, _rel, codeblocks_line_limit, extract,  # noqa: F401
                                 fence_problems, fences, read, skipped_fences)
from tools._worker import wall_limit
from tools.background import stop_descendants
from tools.files import remove_stale, write_atomic

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
FIGURES = ROOT / "docs" / "assets" / "figures"
DATA = ROOT / "docs" / "assets" / "data"  # explorable figures' data (JSON), written by the block that draws the SVG
TIMEOUT = 180.0  # CPU seconds per block (wall-clock: _worker.WALL_FACTOR times that); the heaviest, about 17 on one core
FIGURE_TOLERANCE = 1e-3  # px (SVG user units) on every number of every attribute
FIGURE_SUFFIXES = (".svg", ".png")
DATA_TOLERANCE = 1e-4  # relative, on every number of a data file (a hover shows 2-4 significant digits)
DATA_SUFFIX = ".json"


# Reader machines, relative to the host. Each moves the kernels that really do the work in torch
# 2.13.0+cpu (torch.__config__.show(): BLAS_INFO=mkl; oneDNN v3.12 for many NN ops such as F.gelu; ATen's
# own vectorized kernels), and the thread count. ATEN_CPU_CAPABILITY reaches only ATen's kernels, so an
# older CPU needs the oneDNN and MKL caps too. A cap at or above what the host has changes nothing (an
# AVX2 cap on an AVX2 host): the names say what each machine caps relative to this host, and
# ``kernel_reports`` asks the libraries what each machine really ran (tests/test_snippets.py).
# torch caps OMP_NUM_THREADS at the core count, so the thread count is set in each block's process with
# torch.set_num_threads (tools/_worker.py); "more threads than cores" is computed from this machine.
_ISA_RANK = {"SSE4.2": 0, "AVX": 1, "AVX2": 2, "AVX-512": 3}


def cores() -> int:
    """The cores this process may run on (its affinity), not a number written down for one machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def host_isa() -> str:
    """The best vector ISA of this CPU, in the libraries' terms: AVX-512 (F, BW, DQ, VL), AVX2, AVX or SSE4.2.

    From the CPU flags (cheap, no torch import); the native machine's ATen report is checked against it.
    """
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), None)
    if line is None:  # not Linux: ask torch, in a process of its own
        cap = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                             capture_output=True, text=True, env=machine_env(Variant({}, 1, 1))).stdout.strip()
        return {"AVX512": "AVX-512", "AVX2": "AVX2"}.get(cap, "SSE4.2")
    flags = set(line.split(":", 1)[1].split())
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "AVX-512"
    if "avx2" in flags:
        return "AVX2"
    return "AVX" if "avx" in flags else "SSE4.2"


@dataclass(frozen=True)
class Variant:
    env: dict[str, str]  # set before torch is imported (the forkserver's environment)
    threads: int  # torch.set_num_threads in each block's process
    workers: int  # blocks at a time
    cap: str | None = None  # the ISA oneDNN, MKL and ATen are capped to ("AVX2", "SSE4.2"); None: the host's

    def caps_something(self, host: str) -> bool:
        """Whether the cap is below what the host has (an AVX2 cap on an AVX2 host runs the native kernels)."""
        return self.cap is not None and _ISA_RANK[self.cap] < _ISA_RANK[host]


def _threads(n: int) -> dict[str, str]:
    return {"OMP_NUM_THREADS": str(n), "MKL_NUM_THREADS": str(n)}


def reader_machines(host: str | None = None, ncores: int | None = None) -> dict[str, Variant]:
    """The four reader machines on this host. Machines of one thread run a block per core; machines of
    several threads run one block at a time (oversubscribed OpenMP threads that spin-wait cost several
    times their CPU time), and one of them has more threads than the cores on purpose."""
    host = host_isa() if host is None else host
    ncores = cores() if ncores is None else ncores
    one = max(1, min(ncores, 8))
    many = ncores + 1

    def capped(isa: str) -> str:
        return f"capped to {isa}" + ("" if _ISA_RANK[isa] < _ISA_RANK[host] else f" (host: {host}, nothing to cap)")

    return {
        f"native (host: {host}), 1 thread": Variant(_threads(1), 1, workers=one),
        f"{capped('SSE4.2')}, 1 thread": Variant(
            {"ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ATEN_CPU_CAPABILITY": "default",
             **_threads(1)}, 1, workers=one, cap="SSE4.2"),
        f"{capped('AVX2')}, 2 threads": Variant(
            {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2",
             **_threads(2)}, 2, workers=max(1, ncores // 2), cap="AVX2"),
        f"MKL_CBWR=COMPATIBLE, more threads than cores ({many} on {ncores})": Variant(
            {"MKL_CBWR": "COMPATIBLE", **_threads(many)}, many, workers=1),
    }


VARIANTS: dict[str, Variant] = reader_machines()
DEFAULT = next(iter(VARIANTS.values()))
# Environment a block gets: only what it needs, never the caller's proxies, library caps or hash seed.
_KEPT_ENV = ("PATH", "HOME", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "LC_CTYPE")

@dataclass
class Result:
    stdout: str
    error: str | None = None  # traceback if the block raised, or why its process ended
    files: dict[str, bytes] = field(default_factory=dict)  # what it saved in its folder
    seconds: float = 0.0
    stderr: str = ""
    violations: list[str] = field(default_factory=list)  # network, writes outside its folder, processes
    state: list[str] = field(default_factory=list)  # global state it left behind
    cpu: float = 0.0  # CPU seconds (user + system, every thread) of the block's process
    ran: dict = field(default_factory=dict)  # what makes it an experiment, counted as it ran (_worker.Ran)

    @property
    def figures(self) -> dict[str, bytes]:
        return {n: d for n, d in self.files.items() if "/" not in n and n.endswith(FIGURE_SUFFIXES)}

    @property
    def data(self) -> dict[str, bytes]:
        return {n: d for n, d in self.files.items() if "/" not in n and n.endswith(DATA_SUFFIX)}


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


# --------------------------------------------------------------------------- running


def machine_env(variant: Variant) -> dict[str, str]:
    """A clean environment: nothing of the caller's (proxies, MKL_*/ONEDNN_* caps, PYTHONHASHSEED) but what
    ``_KEPT_ENV`` names, then the machine's own settings."""
    env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
    # Passive OpenMP waiting changes no result, only keeps a busy machine from crawling.
    return {**env, "MPLBACKEND": "Agg", "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT), **variant.env}


MEASURED = ROOT / "compat" / "results.json"  # each block's seconds, as ./run compat last measured them


def start_first(blocks: list[Block], measured: Path | None = None) -> list[int]:
    """The order a machine starts its blocks in: the longest first, by the seconds ``./run compat`` last
    measured (``compat/results.json``; a block it did not measure counts as the longest). Run in file
    order, the longest blocks (why-depth-is-hard/degradation-*) came last and the machine's last
    minute was one block on one core; longest first, the short ones fill in beside the long ones.
    Only the order changes: each block still runs alone in its own process."""
    try:
        envs = json.loads(Path(measured or MEASURED).read_text(encoding="utf-8"))["environments"]
        seconds = {o["name"]: o["seconds"] for env in envs[:1] for o in env["outcomes"]}
    except (OSError, ValueError, KeyError, TypeError):
        seconds = {}
    return sorted(range(len(blocks)), key=lambda i: -seconds.get(blocks[i].name, float("inf")))


class _Run:
    """One worker process running some blocks on one reader machine.

    The worker runs in a session of its own, writes its stderr to a file (a process a block leaves
    behind inherits no pipe we would wait on), and its whole session is killed when it is done.
    """

    def __init__(self, blocks: list[Block], variant: Variant, timeout: float, wall: float | None = None,
                 measured: Path | None = None):
        self.blocks = blocks
        self.todo = [i for i, b in enumerate(blocks) if b.error is None]
        self.seconds, self.proc = 0.0, None
        if not self.todo:  # every file refused: nothing to start
            return
        remove_stale(tempfile.gettempdir(), "snippets-")
        self.tmp = tempfile.TemporaryDirectory(prefix=f"snippets-{os.getpid()}-")
        tmp = Path(self.tmp.name)
        watch = {str(ROOT)} | {str(b.path.parent.resolve()) for b in blocks
                                if not b.path.resolve().is_relative_to(ROOT)}
        texts = {b.path: b.source if b.source is not None else read(b.path) for b in blocks if b.error is None}
        order = start_first([blocks[i] for i in self.todo], measured)  # positions in the request's "blocks"
        request = {
            "order": order,
            "workers": variant.workers, "threads": variant.threads, "timeout": timeout, "wall": wall,
            "dir": str(tmp / "blocks"),
            "watch": sorted(watch),
            "blocks": [{"name": _rel(blocks[i].path), "lineno": blocks[i].lineno, "code": blocks[i].code,
                        "file_text": texts[blocks[i].path]} for i in self.todo],
        }
        (tmp / "request.json").write_text(json.dumps(request), encoding="utf-8")
        self.out = tmp / "results.pickle"
        self.stderr = tmp / "stderr"
        self.limit = 120 + wall_limit(timeout, wall) * (len(self.todo) + 1)
        self.start = time.perf_counter()
        with open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tools._worker", str(tmp / "request.json"), str(self.out)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                env=machine_env(variant), cwd=ROOT, start_new_session=True,
            )

    def _stderr(self) -> str:
        try:
            return self.stderr.read_bytes()[-4000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def _kill_session(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def results(self) -> list[Result]:
        if self.proc is None:
            return [Result("", error=b.error) for b in self.blocks]
        try:
            self.proc.wait(timeout=self.limit)
        except subprocess.TimeoutExpired:
            self._kill_session()
            self.proc.wait()
            raise RuntimeError(f"snippet runner did not finish within {self.limit:.0f} s "
                               f"({len(self.todo)} blocks of {', '.join(sorted({_rel(b.path) for b in self.blocks}))[:2000]}):"
                               f"\n{self._stderr()}") from None
        finally:
            self._kill_session()  # its forkserver, resource tracker, anything a block left behind
        self.seconds = time.perf_counter() - self.start
        if self.proc.returncode != 0 or not self.out.exists():
            stderr = self._stderr()
            self.tmp.cleanup()
            raise RuntimeError(f"snippet runner failed (exit code {self.proc.returncode}):\n{stderr}")
        raw = pickle.loads(self.out.read_bytes())
        self.tmp.cleanup()
        results = [Result("", error=b.error) for b in self.blocks]
        for i, r in zip(self.todo, raw):
            results[i] = Result(r["stdout"], r["error"], r["files"], r["seconds"], r.get("stderr", ""),
                                r["violations"], r["state"], r.get("cpu", 0.0), r.get("ran", {}))
        return results


# pytest-codeblocks' run as a reader machine. With RECORD set to a folder, ``pytest --codeblocks`` (through
# ``snippets/conftest.py``) watches each block it runs as the worker does (``tools/_worker.Watch``) and leaves
# what it saw there, one file per block: the test suite takes those as the native machine's results instead
# of running every block a fifth time (tests/conftest.py).
RECORD = "RESIDUAL_NOTES_RECORD"


def record_file(folder: Path, name: str) -> Path:
    """Where ``pytest --codeblocks`` leaves the record of block ``name`` (``file:line``)."""
    return Path(folder) / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".pickle")


def recorded(blocks: list[Block], folder: Path) -> list[Result]:
    """The results a ``pytest --codeblocks`` run with RECORD=folder left, in the order of ``blocks``; a
    block it left nothing for fails, naming it (it did not run: a collection error, a shape refused)."""
    results = []
    for b in blocks:
        path = record_file(folder, b.name)
        if b.error is not None:
            results.append(Result("", error=b.error))
        elif not path.exists():
            results.append(Result("", error=f"`pytest --codeblocks` left no record of {b.name}: it did not run "
                                            "there (see the pytest-codeblocks test's output)"))
        else:
            r = pickle.loads(path.read_bytes())
            results.append(Result(r["stdout"], r["error"], r["files"], r["seconds"], r.get("stderr", ""),
                                  r["violations"], r["state"], r.get("cpu", 0.0), r.get("ran", {})))
    return results


def run(blocks: list[Block], variant: Variant = DEFAULT, timeout: float = TIMEOUT,
        wall: float | None = None, measured: Path | None = None) -> list[Result]:
    """Run each block in its own fresh process on one reader machine; keep input order. A block may take
    ``timeout`` CPU seconds and ``wall`` seconds (default ``_worker.WALL_FACTOR`` times ``timeout``); the
    longest blocks by ``measured`` (default ``MEASURED``) start first."""
    if not blocks:
        return []
    return _Run(blocks, variant, timeout, wall, measured).results()


def start_order(variants: dict[str, Variant]) -> list[str]:
    """The order machines start in: those of one block at a time first (they take longest), then the others."""
    return sorted(variants, key=lambda label: variants[label].workers)


def run_variants(blocks: list[Block], variants: dict[str, Variant] | None = None, timeout: float = TIMEOUT,
                 probe: bool = True, ncores: int | None = None
                 ) -> tuple[dict[str, list[Result]], dict[str, float]]:
    """Run the blocks on several reader machines; results and wall seconds of each, in the order given.

    Machines start in ``start_order``, the next one as soon as the blocks running at once are fewer
    than the cores (``cores()``, this machine's): the cores never wait for a whole group of machines to
    finish. Each machine also runs ``KERNEL_PROBE`` once, after the blocks (a fraction of a second): what
    its libraries really used is then in ``LAST_PROBES`` for ``kernel_reports``. A machine that fails
    stops the others, the blocks they run included.
    """
    variants = VARIANTS if variants is None else variants
    ncores = cores() if ncores is None else ncores
    results, seconds = {}, {}
    pending, running = start_order(variants), {}
    done: queue.Queue = queue.Queue()

    def collect(label: str, r: _Run) -> None:
        try:
            done.put((label, r.results(), None))
        except BaseException as err:  # noqa: BLE001 - raised below, in the caller's thread
            done.put((label, None, err))

    with tempfile.TemporaryDirectory(prefix="kernel-probe-") as tmp:
        probe_file = Path(tmp) / "kernel-probe.md"
        probe_file.write_text(f"```python\n{KERNEL_PROBE}```\n", encoding="utf-8")
        with_probe = [*blocks, *extract(probe_file)] if probe else blocks
        try:
            while pending or running:
                while pending and (not running or sum(variants[label].workers for label in running) < ncores):
                    label = pending.pop(0)
                    running[label] = _Run(with_probe, variants[label], timeout)
                    threading.Thread(target=collect, args=(label, running[label]), daemon=True).start()
                label, found, err = done.get()
                r = running.pop(label)
                if err is not None:
                    raise err
                if probe:
                    LAST_PROBES[label] = found.pop()
                results[label], seconds[label] = found, r.seconds
        finally:
            for r in running.values():  # a machine failed: stop the others, the blocks they run included
                stop_descendants(r.proc.pid)
                r.proc.kill()
    return {label: results[label] for label in variants}, {label: seconds[label] for label in variants}


# --------------------------------------------------------------------------- what each machine really ran

# Run through the same runner as every block: what oneDNN, MKL and ATen say they use, and the threads.
# The libraries' verbose lines go to fd 1 from C (buffered there: flushed before the block ends).
KERNEL_PROBE = """\
import ctypes, json
import torch
import torch.nn.functional as F
with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
    F.gelu(torch.tensor([-3.0, 3.0]))
a = torch.ones(64, 64)
with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
    a @ a
ctypes.CDLL(None).fflush(None)
print("ATEN", json.dumps([torch.backends.cpu.get_cpu_capability(), torch.get_num_threads()]), flush=True)
"""
# oneDNN names its ISA in words ("Intel AVX-512 with ...") and its kernels in short ("jit:avx512_core_bf16");
# MKL names the processor class it dispatches for ("Intel(R) AVX2 enabled processors") on Intel CPUs only.
_ISA_WORDS = [("AVX-512", r"avx-?512"), ("AVX2", r"avx2"), ("SSE4.2", r"sse4[._]?2"), ("SSE4.1", r"sse4[._]?1")]
# What each library reports under each cap (oneDNN has no SSE4.2 level: ONEDNN_MAX_CPU_ISA=SSE41).
CAP_REPORTS = {"AVX2": {"oneDNN": "AVX2", "ATen": "AVX2", "MKL": "AVX2"},
               "SSE4.2": {"oneDNN": "SSE4.1", "ATen": "DEFAULT", "MKL": "SSE4.2"}}
_ATEN_HOST = {"AVX-512": "AVX512", "AVX2": "AVX2", "AVX": "DEFAULT", "SSE4.2": "DEFAULT"}


def isa_named(text: str | None) -> str | None:
    for isa, pattern in _ISA_WORDS:
        if text and re.search(pattern, text, re.I):
            return isa
    return None


@dataclass
class KernelReport:
    """What the libraries said inside one block's process on one reader machine."""

    aten: str  # torch.backends.cpu.get_cpu_capability()
    threads: int  # torch.get_num_threads()
    onednn_isa: str  # oneDNN's "isa:" line
    onednn_kernel: str  # the implementation that ran F.gelu, e.g. jit:avx2
    mkl_processors: str  # MKL's version line: the processors it dispatches for
    mkl_cnr: str  # MKL's conditional numerical reproducibility mode for the matmul (CNR:OFF, CNR:COMPATIBLE)
    mkl_threads: int  # MKL's NThr for the matmul


def parse_kernel_report(stdout: str, where: str) -> KernelReport:
    """Fails loudly, naming the machine and what was expected, if a library stopped reporting."""
    def find(pattern: str, what: str) -> re.Match:
        m = re.search(pattern, stdout, re.M)
        if m is None:
            raise RuntimeError(f"{where}: expected {what} in the probe's output (pattern {pattern!r}); "
                               f"a torch upgrade may have changed it. Output:\n{_short(stdout, 2000)}")
        return m

    aten, threads = json.loads(find(r"^ATEN (.*)$", "the ATen capability line").group(1))
    isa = find(r"^onednn_verbose,.*,info,cpu,isa:(.*)$", "oneDNN's ISA line (ONEDNN_VERBOSE)").group(1)
    kernel = find(r"^onednn_verbose,.*,exec,cpu,eltwise,([^,]+),", "oneDNN's eltwise exec line").group(1)
    version = find(r"^MKL_VERBOSE (?:oneMKL|Intel\(R\) MKL) .*$", "MKL's version line (MKL_VERBOSE)").group(0)
    call = find(r"^MKL_VERBOSE SGEMM\(.*CNR:(\S+).*NThr:(\d+)", "MKL's SGEMM line")
    return KernelReport(aten, int(threads), isa.strip(), kernel, version, call.group(1), int(call.group(2)))


LAST_PROBES: dict[str, Result] = {}  # machine label -> the probe's run, from the last run_variants


def kernel_reports(variants: dict[str, Variant] | None = None) -> dict[str, KernelReport]:
    """What each machine's libraries really used: from the probe of the last ``run_variants`` over these
    machines (the test suite's snippet runs), or from a run of the probe alone."""
    variants = VARIANTS if variants is None else variants
    if not set(variants) <= set(LAST_PROBES):
        run_variants([], variants, timeout=120)
    out = {}
    for label in variants:
        result = LAST_PROBES[label]
        if result.error:
            raise RuntimeError(f"[{label}] the kernel probe failed:\n{result.error}")
        out[label] = parse_kernel_report(result.stdout, f"[{label}]")
    return out


ASPECTS = ("threads and MKL's mode", "oneDNN and ATen kernels", "MKL's instruction set")


def machine_checks(label: str, variant: Variant, report: KernelReport, native: KernelReport,
                   host: str) -> dict[str, tuple[list[str], list[str]]]:
    """Whether one machine ran what its name says, from the libraries' own reports, per aspect of ``ASPECTS``.

    Each aspect gives (problems, unverifiable): what contradicts the name, and what this host cannot show
    (a cap at or above the host's ISA; MKL naming no ISA on a non-Intel CPU), each said in words.
    """
    threads: list[str] = []
    if report.threads != variant.threads:
        threads.append(f"[{label}] torch runs {report.threads} threads, the machine has {variant.threads}")
    if report.mkl_threads != variant.threads:
        threads.append(f"[{label}] MKL runs its matmul on {report.mkl_threads} threads, the machine has {variant.threads}")
    cbwr = variant.env.get("MKL_CBWR")
    if report.mkl_cnr != (cbwr or "OFF"):
        threads.append(f"[{label}] MKL reports CNR:{report.mkl_cnr}, the machine sets MKL_CBWR={cbwr or '(unset)'}")
    out = {ASPECTS[0]: (threads, [])}
    kernels: list[str] = []
    mkl: tuple[list[str], list[str]] = ([], [])
    if variant.cap is None:
        if report.aten != _ATEN_HOST[host]:
            kernels.append(f"[{label}] ATen runs {report.aten} kernels, the host has {host} "
                           f"({_ATEN_HOST[host]} expected)")
        for name, text in (("oneDNN's ISA line", report.onednn_isa), ("oneDNN's kernel", report.onednn_kernel)):
            if isa_named(text) != isa_named(native.onednn_isa):
                kernels.append(f"[{label}] {name} says {text!r}, the native machine's {native.onednn_isa!r}")
        # MKL_CBWR=COMPATIBLE may run MKL's compatible branch, which MKL names with no instruction set
        # ("Intel(R) Architecture processors"; seen on an AVX-512 + AMX Xeon, 2 Dec 2026)
        allowed = {isa_named(native.mkl_processors)} | ({None} if cbwr == "COMPATIBLE" else set())
        if isa_named(report.mkl_processors) not in allowed:
            mkl[0].append(f"[{label}] MKL dispatches for {report.mkl_processors!r}, natively {native.mkl_processors!r}")
        return {**out, ASPECTS[1]: (kernels, []), ASPECTS[2]: mkl}
    want = CAP_REPORTS[variant.cap]
    if not variant.caps_something(host):
        lower = [c for c in CAP_REPORTS if _ISA_RANK[c] < _ISA_RANK[host]]
        instead = f"the {lower[0]} cap is checked instead" if lower else "no lower cap exists here either"
        why = (f"[{label}] this host has nothing above {variant.cap} (its best is {host}): the cap runs the native "
               f"kernels here, so it cannot be seen to move them; {instead}")
        return {**out, ASPECTS[1]: ([], [why]), ASPECTS[2]: ([], [why])}
    for name, text in (("oneDNN's ISA line", report.onednn_isa), ("oneDNN's kernel for F.gelu", report.onednn_kernel)):
        if isa_named(text) != want["oneDNN"]:
            kernels.append(f"[{label}] {name} says {text!r}: ONEDNN_MAX_CPU_ISA did not reach oneDNN "
                           f"({want['oneDNN']} expected, natively {native.onednn_isa!r})")
    if report.aten != want["ATen"]:
        kernels.append(f"[{label}] ATen reports {report.aten}: ATEN_CPU_CAPABILITY did not reach it "
                       f"({want['ATen']} expected, natively {native.aten})")
    if isa_named(native.mkl_processors) is None:
        mkl[1].append(f"[{label}] MKL names no instruction set on this CPU ({native.mkl_processors!r}): whether "
                      f"MKL_ENABLE_INSTRUCTIONS={variant.env['MKL_ENABLE_INSTRUCTIONS']} reaches MKL cannot be read "
                      "here (MKL names it on Intel CPUs)")
    elif isa_named(report.mkl_processors) != want["MKL"]:
        mkl[0].append(f"[{label}] MKL dispatches for {report.mkl_processors!r}: MKL_ENABLE_INSTRUCTIONS did not reach "
                      f"MKL ({want['MKL']} expected)")
    return {**out, ASPECTS[1]: (kernels, []), ASPECTS[2]: mkl}


def describe(report: KernelReport) -> str:
    return (f"ATen {report.aten}, oneDNN {report.onednn_kernel}, MKL CNR:{report.mkl_cnr}, "
            f"{report.threads} torch / {report.mkl_threads} MKL threads")


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


_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b")


def _colour(token: str) -> str:
    """A hex colour by its meaning: lower case, ``#abc`` as ``#aabbcc`` (``#abcd`` as ``#aabbccdd``)."""
    h = token[1:].lower()
    return "#" + ("".join(c * 2 for c in h) if len(h) in (3, 4) else h)


def _numbers(text: str) -> tuple[list[str], list[float]]:
    """An attribute's text without its numbers, and the numbers. A hex colour is text, not digits: ``#000000``
    and ``#00e000`` read as the number 0 each (``00e000`` is a float), so a recoloured figure passed."""
    skeleton, numbers = [], []
    parts = _HEX_COLOUR.split(text)
    for i, part in enumerate(parts):
        skeleton += _NUMBER.split(part)
        numbers += [float(x) for x in _NUMBER.findall(part)]
        if i < len(parts) - 1:
            skeleton.append(_colour(_HEX_COLOUR.findall(text)[i]))
    return skeleton, numbers


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


def _json_path(path: str, key) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))


def _no_constant(name: str):
    raise ValueError(f"{name} is no JSON number (json.dump writes it unless allow_nan=False); the browser's "
                     "JSON.parse refuses the file")


def json_problem(data: bytes) -> str | None:
    """Why ``data`` is no file a browser's ``JSON.parse`` reads (not UTF-8, not JSON, or a ``NaN`` /
    ``Infinity`` / ``-Infinity``, which Python's json reads and writes but JSON has not), or None."""
    try:
        json.loads(data, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as err:
        return f"not valid JSON ({err})"
    return None


def compare_json(committed: bytes, drawn: bytes, tolerance: float = DATA_TOLERANCE) -> FigureDiff | None:
    """None if equal: same structure (keys, lengths, types), same strings, every number within ``tolerance``
    relative to the larger of the two (``FigureDiff.largest`` is the largest relative delta, ``where`` a key path
    such as ``frames[2].series.plain[17]``)."""
    for which, text in (("the committed file", committed), ("the file written now", drawn)):
        bad = json_problem(text)
        if bad:
            return FigureDiff("the document", f"{which}: {bad}", 0.0, True)
    a, b = json.loads(committed), json.loads(drawn)
    largest, first, stack = 0.0, None, [("", a, b)]
    while stack:
        where, x, y = stack.pop(0)
        number = (int, float)
        if isinstance(x, number) and isinstance(y, number) and not isinstance(x, bool) and not isinstance(y, bool):
            scale = max(abs(x), abs(y))
            d = abs(x - y) / scale if scale else 0.0
            if d > largest:
                largest = d
            if d > tolerance and first is None:
                first = (where or "-", f"{y!r} now, {x!r} committed")
        elif type(x) is not type(y):
            return FigureDiff(where or "-", f"{type(y).__name__} now, committed {type(x).__name__}", 0.0, True)
        elif isinstance(x, dict):
            if list(x) != list(y):
                return FigureDiff(where or "-", f"keys {list(y)}, committed {list(x)}", 0.0, True)
            stack += [(_json_path(where, k), x[k], y[k]) for k in x]
        elif isinstance(x, list):
            if len(x) != len(y):
                return FigureDiff(where or "-", f"{len(y)} items now, {len(x)} committed", 0.0, True)
            stack += [(_json_path(where, i), u, v) for i, (u, v) in enumerate(zip(x, y))]
        elif x != y:
            return FigureDiff(where or "-", f"{y!r} now, committed {x!r}", 0.0, True)
    if first:
        return FigureDiff(first[0], first[1], largest, True)
    if largest:
        return FigureDiff("-", "all numbers within the tolerance", largest, False)
    return None


def compare_file(name: str, committed: bytes, drawn: bytes) -> tuple[FigureDiff | None, str]:
    """The comparison a saved file gets, by its kind, and the tolerance it was compared with (for the message)."""
    if name.endswith(".svg"):
        return compare_svg(committed, drawn), f"tolerance {FIGURE_TOLERANCE:g}"
    if name.endswith(DATA_SUFFIX):
        return compare_json(committed, drawn), f"relative tolerance {DATA_TOLERANCE:g}"
    if committed == drawn:
        return None, "byte for byte"
    return FigureDiff("-", "the bytes differ", 0.0, True), "byte for byte"


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


def _newline(text: str) -> str:
    """The line ending a file uses: ``\r\n`` if its first line ends so (a file saved on Windows), else ``\n``."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def rewrite_output(path: Path, block: Block, stdout: str) -> bool:
    """Put ``stdout`` under ``block`` in ``path``, atomically; return True if the file changed.

    The file is parsed again now and the block found by identity: its one code fence, and the text
    it was read from (a file edited while the block ran is refused, not overwritten).
    """
    text = read(path)
    if block.source is not None and text != block.source:
        raise SnippetError(f"{_rel(path)} changed while its block ran: not rewritten; run refresh again")
    bad = fence_problems(path)
    if bad:
        raise SnippetError("\n".join(bad))
    newline = _newline(text)  # the file's own line endings (CRLF from Windows), kept as they are
    lines = text.replace("\r\n", "\n").replace("\r", "\n").splitlines(keepends=True)
    found = fences(text, _rel(path))
    code = found[0]
    if code.start + 1 != block.lineno or "".join(lines[code.start + 1:code.end]) != block.code:
        raise SnippetError(f"{_rel(path)}:{code.start + 1}: the block there is not the one that ran "
                           f"(line {block.lineno}): not rewritten; run refresh again")
    fence = _fence_for(stdout)
    new_output = [MARKER + "\n", f"{fence}text\n", stdout if stdout.endswith("\n") else stdout + "\n", f"{fence}\n"]
    if len(found) == 2:  # the marker is the line before the output fence
        output = found[1]
        replaced = lines[:output.start - 1] + (new_output if stdout else []) + lines[output.end + 1:]
    else:
        replaced = lines[:code.end + 1] + (new_output if stdout else []) + lines[code.end + 1:]
    new = "".join(replaced).replace("\n", newline)
    if new.count("\n") > codeblocks_line_limit():
        raise SnippetError(f"{_rel(path)}: with this output the file would hold {new.count(chr(10))} lines, more than "
                           f"pytest-codeblocks reads ({codeblocks_line_limit()}); it would then stop every block of "
                           "`pytest --codeblocks` at collection: not rewritten; print a summary, not every line")
    if new != text:
        write_atomic(path, new)
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
    if result.stdout and not result.stdout.endswith("\n"):
        out.append(f"{block.name}: its output does not end with a newline ({result.stdout[-40:]!r}); an output fence "
                   "always does, so no refresh could make it pass: end the last print with a newline")
    if "\r" in result.stdout:
        line = result.stdout[:result.stdout.index("\r")].count("\n") + 1
        out.append(f"{block.name}: its output holds a carriage return (\\r, output line {line}); a Markdown file cannot "
                   "keep it, so no refresh could make it pass: print without \\r")
    if result.state:
        out.append(f"{block.name} leaves global state behind (the next cell of the chapter's notebook would see it;"
                   " pass dtype= explicitly, use context managers such as plt.rc_context, or restore it):\n    "
                   + "\n    ".join(result.state))
    return out


DIFF_LIMIT = 20_000  # characters of a diff shown; a block printing megabytes must not flood the log


def _output_diff(block: Block, stdout: str, limit: int = DIFF_LIMIT) -> str:
    diff = difflib.unified_diff(
        (block.expected or "").splitlines(keepends=True), stdout[: limit * 2].splitlines(keepends=True),
        fromfile=f"{block.name} (shown on the page)", tofile=f"{block.name} (printed now)",
    )
    shown, size = [], 0
    for line in diff:
        if size + len(line) > limit:
            shown.append(f"... (diff cut at {limit} characters; the block printed {len(stdout)} characters, "
                         f"{stdout.count(chr(10))} lines)\n")
            break
        shown.append(line)
        size += len(line)
    return "".join(shown)


def reconcile(block: Block, result: Result, write: bool = False, figures: Path | None = None,
              data: Path | None = None) -> list[Finding]:
    """Compare one block's run with its shown output, committed figures and data; with ``write``, make them match.

    The same comparisons decide what the tests report and what refresh rewrites.
    """
    figures = FIGURES if figures is None else figures
    data_dir = DATA if data is None else data
    found = [Finding(block.name, m) for m in _run_problems(block, result)]
    if block.error or result.error:
        return found  # its output and figures are not trustworthy: leave them as they are
    if write and found:  # it broke a runner rule (even if it caught the error): nothing it printed is trusted
        write = False
        found[-1].message += "\n(not rewritten: refresh trusts no output of a block that breaks a runner rule)"
    if write and block.source is not None and read(block.path) != block.source:
        write = False
        found.append(Finding(block.name, f"{_rel(block.path)} changed while its block ran: not rewritten; "
                                         "run refresh again"))
    stdout = result.stdout
    if (block.expected or "") != stdout:
        if block.expected is None:
            msg = f"{block.name} prints output but shows none: `./run refresh {_rel(block.path)}` writes it under the block"
        else:
            msg = f"{block.name}: output differs from the page\n" + _output_diff(block, stdout)
        try:
            before = read(block.path) if write else ""
            fixed = write and rewrite_output(block.path, block, stdout)
        except SnippetError as err:
            fixed, msg = False, f"{msg}\n{err}"
        if fixed:  # what refresh did, as the diff of the file it wrote
            msg = "".join(difflib.unified_diff(before.splitlines(True), read(block.path).splitlines(True),
                                               f"a/{_rel(block.path)}", f"b/{_rel(block.path)}")).rstrip("\n")
        found.append(Finding(block.name, msg, fixed))
    saved = [(figures / n, d) for n, d in result.figures.items()]
    saved += [(data_dir / n, d) for n, d in result.data.items()]
    for target, content in saved:
        name, rel = target.name, _rel(target)
        if not target.exists():
            msg = f"{block.name} saves {name}, but {rel} is not committed"
            done = f"wrote {rel} (new): {block.name} saves it"
        else:
            diff, how = compare_file(name, target.read_bytes(), content)
            if diff is None or not diff.moved:
                continue
            msg = f"{block.name} {'writes' if name.endswith(DATA_SUFFIX) else 'draws'} {rel} differently ({how}): {diff}"
            done = f"wrote {rel}: {block.name} {'writes' if name.endswith(DATA_SUFFIX) else 'draws'} it differently now ({how}): {diff}"
        bad = json_problem(content) if name.endswith(DATA_SUFFIX) else None
        if bad:  # no refresh writes a data file the browser refuses: the block must write finite numbers
            found.append(Finding(block.name, f"{msg}\n{block.name} writes {name}, which is {bad}: not written; write "
                                             "finite numbers (null for a gap) with json.dump(..., allow_nan=False)"))
            continue
        if write:
            msg = done
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, content)
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


def unverifiable_note(facts: list[str]) -> str:
    """What ``check --variants`` says of the kernel facts this CPU cannot show: a fact, not a problem."""
    if not facts:
        return ""
    return "\n".join([f"For information, nothing to do: {len(facts)} kernel facts this CPU cannot show "
                       "(a run on a CPU that can checks them):", *(f"  {c}" for c in facts)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.snippets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["refresh", "check", "time", "replicate"])
    parser.add_argument("paths", nargs="*", type=Path, help="snippet files or folders (default: all)")
    parser.add_argument("--variants", action="store_true", help="also run on every reader machine of VARIANTS")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="CPU seconds per block (wall-clock: _worker.WALL_FACTOR times as many)")
    parser.add_argument("--seed-offset", type=int, metavar="N",
                        help="replicate: shift every seed an experiment block sets by N (tools/replicate.py)")
    args = parser.parse_intermixed_args(argv)
    if args.command == "replicate":
        if args.seed_offset is None or args.variants:
            parser.error("replicate takes --seed-offset N (and runs on the native machine: no --variants)")
        # tools/replicate.py runs its blocks with this module: its command line is its own process, not an import
        return subprocess.call([sys.executable, "-m", "tools.replicate", "--seed-offset", str(args.seed_offset),
                                "--timeout", str(args.timeout), *map(str, args.paths)], cwd=ROOT)
    if args.seed_offset is not None:
        parser.error("--seed-offset is for replicate")

    paths, given = page_paths(args.paths) if args.paths else (None, [])
    blocks = collect(paths) if paths or not args.paths else []  # a file refused (shape, encoding, suffix) fails alone
    if not blocks and not given:
        given = [f"no snippet given: {' '.join(map(str, args.paths))} holds no snippet file (.md with a ```python block)"]
    variants = VARIANTS if args.variants else {next(iter(VARIANTS)): DEFAULT}
    if args.command == "refresh":
        variants = {next(iter(VARIANTS)): DEFAULT}
    runs, seconds = run_variants(blocks, variants, args.timeout, probe=args.variants)
    label = next(iter(runs))

    if args.command == "time":  # wall seconds on the first machine, then CPU seconds on each machine
        labels = list(runs)
        print("   wall  " + "  ".join(f"cpu@{i + 1}" for i in range(len(labels))) + "  block")
        for i in sorted(range(len(blocks)), key=lambda i: -runs[label][i].seconds):
            cpus = "  ".join(f"{runs[lab][i].cpu:5.1f}" for lab in labels)
            print(f"{runs[label][i].seconds:7.2f}  {cpus}  {blocks[i].name}")
        for n, lab in enumerate(labels):
            print(f"{n + 1}: {len(blocks)} blocks in {seconds[lab]:.1f} s wall, {sum(r.cpu for r in runs[lab]):.1f} s CPU"
                  f" in the blocks' processes, on {lab!r} ({VARIANTS[lab].workers} at a time)")
        return 0

    if args.command == "refresh":
        findings = check(blocks, runs[label], write=True) + [Finding("-", g) for g in given]
        for f in findings:
            print(f.message, end="\n\n")  # a fixed one is what was written (a diff), the others what to fix
        changed = sorted({f.block for f in findings if f.fixed})
        unfixed = [f for f in findings if not f.fixed]
        print(f"{len(blocks)} blocks run in {seconds[label]:.1f} s; blocks with rewritten outputs or figures:"
              f" {len(changed)}; problems refresh cannot fix: {len(unfixed)}")
        return 1 if unfixed else 0

    failures = list(given)
    for lab, results in runs.items():
        failures += [f"[{lab}] {f.message}" for f in check(blocks, results)]
    if args.variants:
        reports, host = kernel_reports(variants), host_isa()
        native = reports[next(iter(reports))]
        unverifiable = []
        for lab, report in reports.items():
            print(f"{lab}: {describe(report)}")
            for bad, cannot in machine_checks(lab, variants[lab], report, native, host).values():
                failures += bad
                unverifiable += cannot
        if unverifiable:
            print(unverifiable_note(unverifiable))
    for f in failures:
        print(f, end="\n\n")
    times = ", ".join(f"{lab}: {s:.1f} s" for lab, s in seconds.items())
    print(f"{len(blocks)} blocks, {len(failures)} problems ({times})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
