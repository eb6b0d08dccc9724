"""Jobs that run in the background of a test session, and their CPU seconds.

``tests/conftest.py`` starts the suite's slow jobs (the strict build, the snippet machines, the
pytest-codeblocks run) with ``Background.start`` as the session begins; a fixture waits for one with
``Background.result``. Each job runs in a thread of its own; the real work is done by the processes the
job starts, so the cores are shared by the operating system.

Where Linux's cgroup v1 ``cpuacct`` controller is writable (root, as on this project's machines),
``CpuAccount`` counts the CPU seconds of each job and of every process it starts, exactly; the summary of
a test session shows them beside the wall seconds (``tests/conftest.py``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting hierarchy


def _cpuacct_group() -> str | None:
    """This process's group in the cpuacct hierarchy ("/" at the root), from /proc/self/cgroup."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "cpuacct" in controllers.split(","):
                return path
    except OSError:
        pass
    return None


def _remove_group(group: Path, patience: float) -> None:
    """Remove a cgroup and the groups in it; a group still holding a task stays (rmdir fails), after
    ``patience`` seconds of retrying."""
    deadline = time.monotonic() + patience
    try:
        folders = [*(f for f in group.iterdir() if f.is_dir()), group]
    except OSError:  # gone already
        return
    for folder in folders:
        while True:
            try:
                folder.rmdir()
                break
            except OSError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.02)


class CpuAccount:
    """Exact CPU seconds of jobs: a cgroup for the session (this process, when ``whole_process``) and one
    inside it for each job. A job's thread moves itself into its group (in cgroup v1 a thread moves
    alone), and every process it starts from then on is counted there, its children too. Where the
    hierarchy is missing or not writable, ``group`` is None and ``why`` says so."""

    def __init__(self, root: Path = CPUACCT, name: str | None = None, whole_process: bool = True):
        self.root, self.why, self.whole_process = root, "", whole_process
        self.group: Path | None = root / (name or f"residual-notes-{os.getpid()}")
        inside = _cpuacct_group()
        if whole_process and inside not in ("/", None):  # a session run by a job of another one: counted there
            self.why, self.group = f"this process is counted in {root}{inside} already", None
            return
        for stale in root.glob("residual-notes-*") if root.is_dir() else []:  # of sessions killed before close
            _remove_group(stale, patience=0)
        try:
            self.group.mkdir()
            if whole_process:
                (self.group / "cgroup.procs").write_text(str(os.getpid()))
        except OSError as err:
            self.why = f"{root}: {err.strerror or err}"
            self.group = None

    def _job(self, name: str) -> Path:
        return self.group / "".join(c if c.isalnum() or c in "-_." else "_" for c in name)

    def join(self, name: str) -> None:
        """Move the calling thread into job ``name``'s group."""
        if self.group is not None:
            folder = self._job(name)
            try:
                folder.mkdir(exist_ok=True)
                (folder / "tasks").write_text(str(threading.get_native_id()))
            except OSError as err:  # never the job's failure: its CPU is not counted, and the summary says why
                self.why = f"{folder}: {err}"

    def seconds(self, name: str | None = None) -> float | None:
        """CPU seconds so far of job ``name`` (None: of the whole session group)."""
        if self.group is None:
            return None
        folder = self.group if name is None else self._job(name)
        try:
            return int((folder / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError) as err:  # never the job's failure: the summary says what went wrong
            self.why = f"{folder}: {err}"
            return None

    def close(self) -> None:
        """Move this process back to the root group (if it was moved) and remove the groups (one still
        holding a process that outlived its job stays after 2 s, and is harmless: it only counts)."""
        if self.group is None:
            return
        if self.whole_process:
            try:
                (self.root / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                pass
        _remove_group(self.group, patience=2)  # a job's thread ends just after its result is set


class Background:
    """Named jobs, each run in a thread of its own from the moment it is started."""

    def __init__(self, account: CpuAccount | None = None, nice: int = 0,
                 gating: Callable[[str], bool] = lambda name: False):
        self.jobs: dict[str, Future] = {}
        self.seconds: dict[str, float] = {}  # wall seconds of each finished job
        self.began: dict[str, float] = {}  # when each job began (time.perf_counter)
        # A job's thread, and every process it starts, runs at this niceness (on Linux a thread's own, inherited
        # by what it starts): the thread that started the jobs (pytest's, running the tests one after the
        # other) keeps its priority, so the jobs fill the cores it leaves and it does not end up last, alone.
        self.nice = nice
        # Except the jobs that tests of pytest's own thread wait for before they can do anything (the scratch
        # builds): those run at the tests' niceness, or a small build that gates them is starved by the big
        # jobs and the tests it gates pile up at the end (a clean-clone run of 1ad3a9b: the first scratch
        # build took 484 s for 18.5 CPU s, and its tests ran 79 s after every job had ended).
        self.gating = gating
        self.own_nice = _own_nice() if sys.platform == "linux" else 0  # the starting thread's: the tests'
        self.account = account
        self.cpu: dict[str, float] = {}  # with an account: CPU seconds of each finished job and what it started
        self._lock = threading.Lock()  # jobs start jobs (a build waits for another): one start per name

    def start(self, name: str, fn, *args) -> None:
        """Start ``fn(*args)`` as job ``name``, unless a job of that name was started."""
        with self._lock:
            if name in self.jobs:
                return
            future: Future = Future()
            self.jobs[name] = future

        def work():
            begin = self.began[name] = time.perf_counter()
            if self.nice and sys.platform == "linux":
                target = self.own_nice if self.gating(name) else max(self.nice, _own_nice())
                with contextlib.suppress(OSError):  # lowering it (a gating job started by a job) needs a privilege
                    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), target)
            try:
                if self.account is not None:
                    self.account.join(name)
                value = fn(*args)
            except BaseException as err:  # noqa: BLE001 - raised where the result is asked for
                self._ended(name, begin)
                future.set_exception(err)
            else:
                self._ended(name, begin)
                future.set_result(value)

        threading.Thread(target=work, name=f"background job {name}", daemon=True).start()

    def _ended(self, name: str, begin: float) -> None:
        self.seconds[name] = time.perf_counter() - begin
        if self.account is not None and (cpu := self.account.seconds(name)) is not None:
            self.cpu[name] = cpu

    def result(self, name: str, fn, *args):
        """Job ``name``'s result (its exception is raised here); started now if nobody started it."""
        self.start(name, fn, *args)
        return self.jobs[name].result()

    def wait(self, name: str) -> None:
        """Wait until job ``name`` has ended, whatever its outcome (whoever asks for its result sees its
        error); return at once if no job of that name was started."""
        if name in self.jobs:
            self.jobs[name].exception()

    def unfinished(self) -> list[str]:
        return [name for name, job in self.jobs.items() if not job.done()]


def _own_nice() -> int:
    """This thread's niceness (a job started from a job keeps its starter's)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
