"""Jobs that run in the background of a test session, and stopping what they started.

``tests/conftest.py`` starts the suite's slow jobs (the strict build, the snippet machines, the
pytest-codeblocks run) with ``Background.start`` as the session begins; a fixture waits for one with
``Background.result``. Each job runs in a thread of its own; the real work is done by the processes the
job starts, so the cores are shared by the operating system.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Future
from pathlib import Path


class Background:
    """Named jobs, each run in a thread of its own from the moment it is started."""

    def __init__(self):
        self.jobs: dict[str, Future] = {}
        self.seconds: dict[str, float] = {}  # wall seconds of each finished job
        self._lock = threading.Lock()  # jobs start jobs (a build waits for another): one start per name

    def start(self, name: str, fn, *args) -> None:
        """Start ``fn(*args)`` as job ``name``, unless a job of that name was started."""
        with self._lock:
            if name in self.jobs:
                return
            future: Future = Future()
            self.jobs[name] = future

        def work():
            begin = time.perf_counter()
            try:
                value = fn(*args)
            except BaseException as err:  # noqa: BLE001 - raised where the result is asked for
                self.seconds[name] = time.perf_counter() - begin
                future.set_exception(err)
            else:
                self.seconds[name] = time.perf_counter() - begin
                future.set_result(value)

        threading.Thread(target=work, name=f"background job {name}", daemon=True).start()

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
