"""The worker of the snippet runner (tools/runner/execution.py): run code blocks, each in its own forked process, and watch them.

``python -m tools.runner.worker REQUEST RESULTS`` reads a JSON request (see ``tools.runner.execution.run``) and writes
a pickled list of result dicts, one per block in input order, to RESULTS. Nothing is exchanged over
stdout: a block that writes to file descriptor 1 or 2 cannot corrupt the results.

A forkserver, started with this process's environment (so ``ONEDNN_MAX_CPU_ISA``, ``MKL_*``,
``OMP_NUM_THREADS`` are in place before torch is imported), preloads torch, numpy and matplotlib
once. Each block then gets its own child process, so nothing leaks between blocks. In the child:

* the block's folder ``B`` holds ``work/`` (the current directory; figures are saved there),
  ``home/`` (``HOME``) and ``tmp/`` (``TMPDIR``); fd 1 and 2 are redirected to files outside
  ``work/``, and ``sys.stdout`` writes straight through to fd 1, so output keeps its order;
* random state is what a fresh interpreter has (torch, Python and NumPy reseeded from the OS);
* with ``RESIDUAL_NOTES_SEED_OFFSET`` set (``python -m tools.snippets replicate``), every seed the block sets
  is shifted by that much (``tools/runner/seeds.py``), patched before its code runs; the variable is then removed;
* the code is compiled with the snippet file's name and line numbers, and the file is registered
  with ``linecache``, so a traceback names ``snippets/<page>/<file>.md``, its line, and shows it;
* an audit hook refuses (and records) network connections to other hosts, DNS lookups, writes
  outside ``B``, and new processes, so a block cannot reach the network or change the tree even if
  it catches the exception;
* global state the block leaves behind (default dtype, print options, rcParams, ...) is recorded.

Each block has two limits (``limit_block``): ``timeout`` CPU seconds, counted over all its threads by the
kernel (``RLIMIT_CPU``), which is what a block costs whatever else the machine runs; and ``WALL_FACTOR``
times as many seconds of wall-clock time, for a block that waits and spends no CPU. At either one the child
dumps its stack, so the failure shows the line it was on, and the parent kills its process group. The parent also notices a child that dies
(``os._exit``, a crash: the exit code or signal is reported), and snapshots the watched trees whenever a
block starts or ends: a change seen is reported on every block that was running since the last snapshot (with
two side by side, the one that ends first cannot take the blame and let the other, which made it, go clean).
"""

from __future__ import annotations

import faulthandler
import io
import json
import linecache
import math
import multiprocessing as mp
import os
import pickle
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
import warnings
from multiprocessing.connection import wait
from pathlib import Path

from tools.runner import seeds

# scikit-learn (and scipy) set warning filters and KMP_* variables when imported: preloaded, that is
# not mistaken for state a block leaves behind. torch._dynamo: every torch.optim optimizer imports it on
# construction (about 830 modules, sympy among them: 1.2 CPU s), once per training block unless preloaded.
PRELOAD = ["torch", "numpy", "matplotlib", "matplotlib.pyplot", "sklearn", "torch._dynamo"]
# Each of the last two is preloaded only for a run whose blocks name it (``preload``): a run of a few small blocks
# (the tests' own) starts its forkserver 1.5 CPU s sooner without them.
ONLY_IF_NAMED = {"sklearn": ("sklearn", "scipy"), "torch._dynamo": ("optim", "_dynamo")}


def preload(codes: list[str]) -> list[str]:
    """What a run's forkserver imports before it forks a block: ``PRELOAD``, but the modules of ``ONLY_IF_NAMED``
    that none of the blocks' ``codes`` names."""
    return [m for m in PRELOAD if m not in ONLY_IF_NAMED or any(w in c for c in codes for w in ONLY_IF_NAMED[m])]


SKIP_DIRS = {".git", ".venv", "__pycache__", ".cache", ".pytest_cache", "site", "node_modules", "screenshots"}
LOCAL_HOSTS = {None, "", "localhost", "127.0.0.1", "::1", "0.0.0.0"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
ALLOWED_WRITES = ("/dev/null",)


# --------------------------------------------------------------------------- global state


def global_state() -> dict[str, object]:
    """What a block could change for the code that runs after it (in a notebook: the next cell)."""
    import matplotlib
    import matplotlib.pyplot as plt
    import numpy
    import torch

    try:
        print_opts = dict(vars(torch._tensor_str.PRINT_OPTS))
    except AttributeError as err:  # a private detail: fail loudly if torch moves it
        raise RuntimeError("torch._tensor_str.PRINT_OPTS is gone: update tools/runner/worker.global_state") from err
    state = {
        "torch.get_default_dtype()": torch.get_default_dtype(),
        "torch.get_default_device()": torch.get_default_device(),
        "torch.is_grad_enabled()": torch.is_grad_enabled(),
        "torch.are_deterministic_algorithms_enabled()": torch.are_deterministic_algorithms_enabled(),
        "torch.is_deterministic_algorithms_warn_only_enabled()":
            torch.is_deterministic_algorithms_warn_only_enabled(),
        "torch.get_num_threads()": torch.get_num_threads(),
        "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision(),
        "torch.is_anomaly_enabled()": torch.is_anomaly_enabled(),
        "numpy.geterr()": numpy.geterr(),
        "torch.backends.mkldnn.enabled": torch.backends.mkldnn.enabled,
        # no getter for set_flush_denormal: its effect on the smallest float32 subnormal
        "torch.set_flush_denormal (subnormals flushed to zero)":
            torch.tensor([1e-45], dtype=torch.float32).mul(1.0).item() == 0.0,
        "sys.getrecursionlimit()": sys.getrecursionlimit(),
        "plt.get_fignums() (figures left open)": plt.get_fignums(),
        "os.getcwd()": os.getcwd(),
    }
    state.update({f"torch print option {k}": v for k, v in print_opts.items()})
    state.update({f"numpy print option {k}": v for k, v in numpy.get_printoptions().items()})
    state.update({f"matplotlib.rcParams[{k!r}]": v for k, v in matplotlib.rcParams.items()})
    return state


def _filter_repr(f: tuple) -> tuple:
    action, message, category, module, lineno = f
    return (action, getattr(message, "pattern", message), getattr(category, "__name__", category),
            getattr(module, "pattern", module), lineno)


class OwnSettings:
    """Warning filters and environment variables the block's own code sets, not the libraries it imports
    (sympy adds a filter and torch sets TORCHINDUCTOR_CACHE_DIR when first used: not the block's doing)."""

    _RUNNER = {os.path.abspath(warnings.__file__), os.path.abspath(os.__file__), os.path.abspath(__file__)}

    def __init__(self, name: str):
        self.name = name
        self.filters: list[tuple] = []
        self.env: set[str] = set()
        self.environ = dict(os.environ)

    def by_block(self) -> bool:
        frame = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename.startswith("<frozen ")  # os is frozen in 3.11+
                                     or os.path.abspath(frame.f_code.co_filename) in self._RUNNER):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename == self.name

    def watch_warnings(self) -> None:
        for fname in ("filterwarnings", "simplefilter"):
            original = getattr(warnings, fname)

            def wrapper(*args, _original=original, **kwargs):
                before = list(warnings.filters)
                _original(*args, **kwargs)
                if self.by_block():
                    self.filters += [f for f in warnings.filters if f not in before]

            setattr(warnings, fname, wrapper)

    def left(self) -> list[str]:
        out = [f"warnings filter {_filter_repr(f)} (set by the block, not restored)"
               for f in self.filters if f in warnings.filters]
        out += [f"os.environ[{k!r}]: {self.environ.get(k, '<unset>')!r} -> {os.environ.get(k, '<unset>')!r}"
                for k in sorted(self.env) if os.environ.get(k) != self.environ.get(k)]
        return out


def state_changes(before: dict, after: dict) -> list[str]:
    out = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, "<unset>"), after.get(key, "<unset>")
        try:
            same = bool(old == new)
        except Exception:  # noqa: BLE001 - arrays and the like: compare their repr
            same = repr(old) == repr(new)
        if not same:
            out.append(f"{key}: {old!r} -> {new!r}")
    return out


# --------------------------------------------------------------------------- the guard


def _is_ip(host) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def _is_loopback(host) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Guard:
    """An audit hook that keeps a block offline and inside its folder, and records what it tried."""

    def __init__(self, folder: Path, own: "OwnSettings | None" = None):
        self.own = own
        self.folder = os.path.realpath(folder)
        self.active = False
        self.violations: list[str] = []

    def _refuse(self, what: str, exc: type[BaseException]):
        self.violations.append(what)
        raise exc(f"snippet runner: {what}")

    def _outside(self, path) -> str | None:
        if isinstance(path, int) or path is None:
            return None
        path = os.fsdecode(path)
        real = os.path.realpath(path)
        if real == self.folder or real.startswith(self.folder + os.sep) or real in ALLOWED_WRITES:
            return None
        return real

    def __call__(self, event: str, args: tuple) -> None:
        if not self.active:
            return
        if event == "socket.connect" or event == "socket.sendto":
            address = args[1]
            host = address[0] if isinstance(address, tuple) else None
            if isinstance(address, tuple) and host not in LOCAL_HOSTS and not _is_loopback(host):
                self._refuse(f"a network connection to {host}:{address[1]} (blocks must run offline)",
                             ConnectionRefusedError)
        elif event == "socket.getaddrinfo":
            host = os.fsdecode(args[0]) if args[0] is not None else None
            if host not in LOCAL_HOSTS and not _is_ip(host):  # an address literal is checked at connect
                self._refuse(f"a DNS lookup of {host!r} (blocks must run offline)",
                             ConnectionRefusedError)
        elif event == "socket.gethostbyname" or event == "socket.gethostbyaddr":
            if args[0] not in LOCAL_HOSTS:
                self._refuse(f"a DNS lookup of {args[0]!r} (blocks must run offline)", ConnectionRefusedError)
        elif event in ("os.putenv", "os.unsetenv"):
            if self.own is not None and self.own.by_block():
                self.own.env.add(os.fsdecode(args[0]))
        elif event == "sqlite3.connect":  # SQLite opens its files below Python: no "open" event
            database = args[0]
            if database not in (":memory:", "", b":memory:", b"") and (real := self._outside(database)):
                self._refuse(f"a write to {real} (sqlite3.connect), outside the block's own folder", PermissionError)
        elif event == "open":
            path, _, flags = args
            if flags & WRITE_FLAGS and (real := self._outside(path)):
                self._refuse(f"a write to {real}, outside the block's own folder", PermissionError)
        elif event in ("os.remove", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod", "os.chown",
                       "os.utime", "shutil.rmtree"):
            if real := self._outside(args[0]):
                self._refuse(f"{event}({real!r}), outside the block's own folder", PermissionError)
        elif event in ("os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.move"):
            for path in args[:2]:
                if real := self._outside(path):
                    self._refuse(f"{event}(... {real!r} ...), outside the block's own folder", PermissionError)
        elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                       "os.forkpty"):
            self._refuse(f"starting a process ({event}): its writes and connections could not be checked",
                         PermissionError)


# --------------------------------------------------------------------------- what is watched around a block


class Watch:
    """What the runner checks around one block, in the block's own process (entered just before the block
    runs, left just after): the guard (offline, writes only inside ``block_dir``, no processes), the
    warning filters and environment variables the block's own code sets, the global state it leaves
    behind, its seconds and CPU. ``name`` is the file name the block's code is compiled with. Used by
    ``_child`` here and by pytest-codeblocks' runs in ``snippets/conftest.py`` (the suite's native machine)."""

    def __init__(self, block_dir: Path, name: str):
        self.own = OwnSettings(name)
        self.own.watch_warnings()
        self.guard = Guard(block_dir, self.own)
        sys.addaudithook(self.guard)
        self.before: dict = {}
        self.start = self.seconds = 0.0

    def __enter__(self) -> "Watch":
        self.before = global_state()
        self.ran = Ran()
        self.start = time.perf_counter()
        self.ran.start()
        self.guard.active = True
        return self

    def __exit__(self, *exc) -> bool:
        self.guard.active = False
        self.seconds = time.perf_counter() - self.start
        self.ran.stop()
        return False

    def report(self, work: Path) -> dict:
        """After the block: what it saved in ``work``, what it tried, what it left; its seconds and CPU."""
        files = {p.relative_to(work).as_posix(): p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}
        usage = resource.getrusage(resource.RUSAGE_SELF)  # this process since the fork: the block's CPU, all threads
        return {"files": files, "seconds": self.seconds, "cpu": usage.ru_utime + usage.ru_stime,
                "violations": self.guard.violations,
                "state": state_changes(self.before, global_state()) + self.own.left(),
                "ran": self.ran.report() if hasattr(self, "ran") else {}}


class Ran:
    """What a block did that makes it an experiment, counted while it runs, whatever its source looks like:
    the optimizer steps it took (torch's global step hook, so a step inside a helper function counts) and the
    seeds it set (``torch.manual_seed``, ``numpy.random.seed`` / ``default_rng``, ``random.seed``), each wrapped for the block's run and restored after it
    (``tools/checks/verdicts.py`` reads the counts)."""

    def __init__(self):
        self.steps = 0
        self.seeds: list[str] = []
        self._undo: list = []

    def _seed(self, value) -> None:
        if value is not None:
            self.seeds.append(repr(value.item() if hasattr(value, "item") else value))

    def _wrap(self, owner, name: str, seed_of=lambda *a, **k: a[0] if a else k.get("seed")) -> None:
        original = getattr(owner, name)

        def wrapped(*args, **kwargs):
            try:
                self._seed(seed_of(*args, **kwargs))
            except Exception:  # noqa: BLE001 - counting never breaks the block
                pass
            return original(*args, **kwargs)

        wrapped.__wrapped__ = original
        setattr(owner, name, wrapped)
        self._undo.append(lambda: setattr(owner, name, original))

    def start(self) -> None:
        import random

        import numpy
        import torch

        def step(optimizer, args, kwargs):
            self.steps += 1

        from torch.optim.optimizer import register_optimizer_step_post_hook  # public: torch.optim.optimizer

        handle = register_optimizer_step_post_hook(step)
        self._undo.append(handle.remove)
        for owner in (torch, torch.random):
            self._wrap(owner, "manual_seed")
        for name in ("seed", "default_rng"):  # functions only: a class replaced would break isinstance
            self._wrap(numpy.random, name)
        self._wrap(random, "seed", lambda *a, **k: a[0] if a else k.get("a"))

    def stop(self) -> None:
        while self._undo:
            self._undo.pop()()

    def report(self) -> dict:
        return {"optimizer_steps": self.steps, "seeds": sorted(set(self.seeds))}


# --------------------------------------------------------------------------- the child


WALL_FACTOR = 4  # a block's wall-clock limit, in CPU limits: on a loaded machine a block gets part of a core
CPU_LIMIT_HEADER = "CPU limit ({cpu:g} CPU s)!"  # the first line of the stack dump at the CPU limit
_CPU_LIMIT = re.compile(r"^CPU limit \([\d.]+ CPU s\)!$", re.M)


def wall_limit(cpu: float, wall: float | None = None) -> float:
    return cpu * WALL_FACTOR if wall is None else wall


def limit_block(cpu: float, wall: float, stream, before_exit=None) -> None:
    """In a block's own process, before the block: stop it after ``cpu`` CPU seconds (all its threads,
    counted by the kernel) or ``wall`` seconds of wall-clock time, whichever comes first, its stack dumped
    into ``stream`` under a header that says which limit it reached (faulthandler's ``Timeout (...)!`` for
    the wall one). ``before_exit`` runs first at the CPU limit. If the stack cannot be dumped (the main
    thread stuck in C code), the kernel kills the process 10 CPU seconds later (SIGKILL)."""
    def stop(signum, frame):
        stream.write(CPU_LIMIT_HEADER.format(cpu=cpu) + "\n")
        faulthandler.dump_traceback(file=stream, all_threads=True)
        stream.flush()
        if before_exit is not None:
            before_exit()
        os._exit(1)

    soft = max(1, math.ceil(cpu))
    signal.signal(signal.SIGXCPU, stop)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 10))
    faulthandler.dump_traceback_later(wall, exit=True, file=stream)


def unlimit_block() -> None:
    """After the block: no wall limit, and the CPU limit's signal back to its default."""
    faulthandler.cancel_dump_traceback_later()
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)


def limit_reached(stderr: str, cpu: float, wall: float) -> str | None:
    """Which limit a block that exited with status 1 reached, in words, from its whole stderr (a long dump of
    every thread pushes the header out of the tail), or None."""
    if _CPU_LIMIT.search(stderr):
        return f"did not finish within {cpu:g} CPU s"
    if _FAULTHANDLER_TIMEOUT.search(stderr):
        return f"did not finish within {wall:g} s"
    return None


def _fresh_random_state() -> None:
    import random

    import numpy
    import torch

    torch.seed()
    random.seed()
    numpy.random.seed()


def _child(task: dict, conn) -> None:
    os.setpgrp()  # the parent kills the whole group on timeout
    block_dir = Path(task["dir"])
    work, home, tmp = block_dir / "work", block_dir / "home", block_dir / "tmp"
    for d in (work, home, tmp):
        d.mkdir(parents=True)
    out_fd = os.open(block_dir / "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err_fd = os.open(block_dir / "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True)
    faulthandler.enable(file=sys.stderr)  # a crash prints the block's stack into stderr
    limit_block(task["timeout"], task["wall"], sys.stderr)
    os.environ["HOME"], os.environ["TMPDIR"] = str(home), str(tmp)
    tempfile.tempdir = str(tmp)
    os.chdir(work)
    _fresh_random_state()
    offset = os.environ.pop(seeds.OFFSET_ENV, None)
    if offset is not None:  # python -m tools.snippets replicate: every seed the block sets, shifted
        seeds.shift_seeds(int(offset))
    # OMP_NUM_THREADS alone is capped at the core count by torch: set the machine's count for real.
    import torch

    torch.set_num_threads(task["threads"])

    name, lineno = task["name"], task["lineno"]
    # line k of the block is line lineno + k of the snippet file
    source = "\n" * lineno + task["code"]
    linecache.cache[name] = (len(task["file_text"]), None, task["file_text"].splitlines(True), name)
    namespace = {"__name__": "__main__", "__file__": name, "__builtins__": __builtins__}
    watch = Watch(block_dir, name)
    error = None
    try:
        with watch:
            exec(compile(source, name, "exec"), namespace)
    except BaseException as err:  # noqa: BLE001 - report everything, SystemExit included
        tb = err.__traceback__.tb_next if err.__traceback__ else None  # drop this frame
        error = "".join(traceback.format_exception(type(err), err, tb))
    unlimit_block()
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    conn.send({"error": error, **watch.report(work)})
    conn.close()


# --------------------------------------------------------------------------- the parent


def snapshot(roots: list[str]) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under the watched trees, build and cache folders left out."""
    found: dict[str, tuple[int, int]] = {}

    def walk(d: str) -> None:
        try:
            entries = list(os.scandir(d))
        except OSError:
            return
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name not in SKIP_DIRS:
                    walk(e.path)
            else:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[e.path] = (st.st_size, st.st_mtime_ns)

    for r in roots:
        walk(r)
    return found


def tree_changes(before: dict, after: dict) -> list[str]:
    out = [f"created {p}" for p in sorted(after.keys() - before.keys())]
    out += [f"deleted {p}" for p in sorted(before.keys() - after.keys())]
    out += [f"modified {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return out


def _tail(path: Path, limit: int | None = 4000) -> str:
    """The end of a file (all of it with ``limit=None``)."""
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return (data if limit is None else data[-limit:]).decode("utf-8", "replace")


_FAULTHANDLER_TIMEOUT = re.compile(r"^Timeout \(\d+:\d\d:\d\d(\.\d+)?\)!$", re.M)


def _read_stdout(block_dir: Path) -> tuple[str, str | None]:
    try:
        data = (block_dir / "stdout").read_bytes()
    except OSError:
        return "", None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        return data.decode("utf-8", "replace"), f"its output is not UTF-8 ({err})"


def _trim(stderr: str) -> str:
    """faulthandler's stacks without the runner's own frames."""
    own = ("tools/runner/worker.py", "multiprocessing/", 'File "<string>"')
    return "".join(line for line in stderr.splitlines(True) if not any(o in line for o in own))


def _kill_group(pgid: int) -> bool:
    """Kill the process group of a block (each block's child leads its own); True if anything was in it."""
    try:
        os.killpg(pgid, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


class _Running:
    def __init__(self, index, proc, conn, block_dir, deadline):
        self.index, self.proc, self.conn, self.dir, self.deadline = index, proc, conn, block_dir, deadline
        self.message = None
        self.got = False
        self.start = time.perf_counter()
        self.changes: list[tuple[list[str], list[str]]] = []  # (what changed, who else was running)


def main() -> None:
    os.dup2(2, 1)  # nothing of ours goes to stdout
    request = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    blocks, workers, timeout = request["blocks"], request["workers"], request["timeout"]
    wall = wall_limit(timeout, request.get("wall"))
    threads = request["threads"]
    run_dir = Path(request["dir"])
    watch = request["watch"]
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(preload([b["code"] for b in blocks]))
    results: list[dict | None] = [None] * len(blocks)
    pending = list(request.get("order", range(len(blocks))))[::-1]  # popped from the end: the first to start last
    running: dict[int, _Running] = {}
    tree = snapshot(watch)

    def observe() -> None:
        """Snapshot the trees; what changed since the last snapshot, made by one of the blocks running
        since then, goes to each of them."""
        nonlocal tree
        now = snapshot(watch)
        changed = tree_changes(tree, now)
        tree = now
        if changed:
            names = {i: blocks[i]["name"] for i in running}
            for i, r in running.items():
                r.changes.append((changed, sorted(n for j, n in names.items() if j != i)))

    def finish(r: _Running, payload: dict) -> None:
        r.proc.join(5)
        if r.proc.is_alive():
            _kill_group(r.proc.pid)
            r.proc.join()
        left = _kill_group(r.proc.pid)  # what it started and left running (ctypes system("... &"))
        stdout, bad_stdout = _read_stdout(r.dir)
        payload.setdefault("files", {})
        payload.setdefault("violations", [])
        if left:
            payload["violations"].append("it left a process running after it ended (killed; blocks start no processes)")
        payload.setdefault("state", [])
        payload.setdefault("seconds", time.perf_counter() - r.start)
        if bad_stdout:
            payload["violations"].append(bad_stdout)
        observe()
        for changed, others in r.changes:
            who = "" if not others else f" (while {', '.join(others)} also ran)"
            payload["violations"].append("the tree changed while it ran" + who + ":\n    " + "\n    ".join(changed))
        payload["stdout"] = stdout
        payload["stderr"] = _tail(r.dir / "stderr")
        results[r.index] = payload
        del running[r.index]

    while pending or running:
        while pending and len(running) < workers:
            observe()  # what changed so far is not the new block's doing
            i = pending.pop()
            block = blocks[i]
            block_dir = run_dir / f"block-{i:03d}"
            task = {**block, "dir": str(block_dir), "timeout": timeout, "wall": wall, "threads": threads}
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(task, sender), daemon=True)
            proc.start()
            sender.close()
            r = _Running(i, proc, receiver, block_dir, time.monotonic() + wall + 10)
            running[i] = r
        deadline = min(r.deadline for r in running.values())
        handles = [r.conn for r in running.values()] + [r.proc.sentinel for r in running.values()]
        wait(handles, timeout=max(0.0, deadline - time.monotonic()))
        for r in list(running.values()):
            if r.conn.poll():
                try:
                    payload = r.conn.recv()
                except (EOFError, OSError):
                    payload = None
                if payload is not None:
                    finish(r, payload)
                    continue
            if not r.proc.is_alive():
                r.proc.join()
                if r.conn.poll():  # sent just before it exited
                    try:
                        finish(r, r.conn.recv())
                        continue
                    except (EOFError, OSError):
                        pass
                code = r.proc.exitcode
                stderr = _trim(_tail(r.dir / "stderr"))
                limit = limit_reached(_tail(r.dir / "stderr", limit=None), timeout, wall) if code == 1 else None
                if limit:
                    how = f"{limit} and was stopped; where it was:"
                elif code is not None and code < 0:
                    how = f"killed its process (signal {signal.Signals(-code).name}) before it finished"
                else:
                    how = f"ended its process (exit code {code}: os._exit, a crash or a fatal error) before it finished"
                finish(r, {"error": f"the block {how}\n{stderr}", "died": True})
            elif time.monotonic() > r.deadline:
                _kill_group(r.proc.pid)
                r.proc.join()
                finish(r, {"error": f"the block did not finish within {wall:g} s and was killed.\n"
                                    + _tail(r.dir / "stderr"), "died": True})
    Path(sys.argv[2]).write_bytes(pickle.dumps(results))


if __name__ == "__main__":
    main()
