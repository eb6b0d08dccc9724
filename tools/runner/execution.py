"""Run blocks, each in its own fresh process, on one reader machine or several at once.

Each block runs as if pasted alone into a fresh Python (``tools/runner/worker.py``: one forkserver per reader
machine with torch preloaded, one child per block, a timeout, no network, no writes outside the block's own
folder, global state it leaves behind reported). What it printed, raised, saved in its folder and left behind
comes back as a ``Result``. Each machine also runs ``KERNEL_PROBE``, kept in ``LAST_PROBES``
(``tools/runner/kernel_facts.py`` reads it).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.files import remove_stale
from tools.runner.comparison import DATA_SUFFIX, FIGURE_SUFFIXES
from tools.runner.reader_machines import DEFAULT, VARIANTS, Variant, cores, machine_env
from tools.runner.selection import ROOT, Block, _rel, extract, read
from tools.runner.worker import wall_limit

TIMEOUT = 180.0  # CPU seconds per block (wall-clock: worker.WALL_FACTOR times that); the heaviest, about 17 on one core


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
    ran: dict = field(default_factory=dict)  # what makes it an experiment, counted as it ran (worker.Ran)

    @property
    def figures(self) -> dict[str, bytes]:
        return {n: d for n, d in self.files.items() if "/" not in n and n.endswith(FIGURE_SUFFIXES)}

    @property
    def data(self) -> dict[str, bytes]:
        return {n: d for n, d in self.files.items() if "/" not in n and n.endswith(DATA_SUFFIX)}


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
                [sys.executable, "-m", "tools.runner.worker", str(tmp / "request.json"), str(self.out)],
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
# ``snippets/conftest.py``) watches each block it runs as the worker does (``tools/runner/worker.Watch``) and leaves
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
    ``timeout`` CPU seconds and ``wall`` seconds (default ``worker.WALL_FACTOR`` times ``timeout``); the
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

LAST_PROBES: dict[str, Result] = {}  # machine label -> the probe's run, from the last run_variants


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, theirs, and so on (read from Linux's /proc; elsewhere none)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def stop_descendants(pid: int | None = None) -> list[int]:
    """Kill every process ``pid`` (default: this one) started, directly or not; the pids killed."""
    killed = []
    for child in descendants(os.getpid() if pid is None else pid):
        try:
            os.kill(child, signal.SIGKILL)
            killed.append(child)
        except OSError:
            pass
    return killed
