"""The suite's schedule: slow jobs in the background, reader machines as cores free up, --quick.

``tests/conftest.py`` starts the strict build, the snippet machines and the pytest-codeblocks run as
the session begins (``tests/background.py``); ``execution.run_variants`` starts each machine as soon as
the blocks running at once are fewer than the cores. What must hold: every machine's results come back
in the order asked for, a machine that fails stops the others and its error reaches the caller, a
session that ends early stops what its jobs started, and ``--quick`` runs the first machine only,
without the browser and the codeblocks run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from hooks import site_facts
import background
from tools.runner import execution, reader_machines, selection

ROOT = site_facts.ROOT


def test_machines_of_one_block_at_a_time_start_first():
    order = execution.start_order(reader_machines.VARIANTS)
    assert sorted(order) == sorted(reader_machines.VARIANTS)
    workers = [reader_machines.VARIANTS[label].workers for label in order]
    assert workers == sorted(workers), order


def _tiny_blocks(tmp_path):
    path = tmp_path / "tiny.md"
    path.write_text("```python\nimport os\nprint(os.environ['OMP_NUM_THREADS'])\n```\n", encoding="utf-8")
    return selection.extract(path)


def test_every_machine_runs_and_results_keep_the_order_asked_for(tmp_path):
    machines = {f"{n} threads": reader_machines.Variant({"OMP_NUM_THREADS": str(n)}, threads=n, workers=w) for n, w in ((3, 2), (1, 1))}
    assert execution.start_order(machines) == ["1 threads", "3 threads"]  # not the order asked for
    runs, seconds = execution.run_variants(_tiny_blocks(tmp_path), machines, ncores=1)
    assert list(runs) == list(seconds) == list(machines)
    assert {label: r[0].stdout for label, r in runs.items()} == {"3 threads": "3\n", "1 threads": "1\n"}


def _processes_with(marker: str) -> list[int]:
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads the processes' environments in /proc")
def test_a_machine_that_fails_stops_the_others_and_their_blocks(tmp_path):
    """The block of the other machine has started (it calls us) when the first machine's worker dies."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(120)
    port = listener.getsockname()[1]
    path = tmp_path / "waits.md"
    path.write_text(f"```python\nimport socket, time\nsocket.create_connection(('127.0.0.1', {port}))\n"
                    "time.sleep(120)\n```\n", encoding="utf-8")
    flag, marker = tmp_path / "fail now", f"residual-notes-test-{uuid.uuid4().hex}"
    (tmp_path / "sitecustomize.py").write_text(  # the broken machine's worker: dies when told to
        f"import os, time\nwhile not os.path.exists({str(flag)!r}):\n    time.sleep(0.05)\nos._exit(3)\n")
    machines = {"broken": reader_machines.Variant({"PYTHONPATH": str(tmp_path)}, threads=1, workers=1),
                "waiting": reader_machines.Variant({"RESIDUAL_NOTES_TEST_MARK": marker}, threads=1, workers=1)}
    outcome: list[BaseException | None] = []

    def run():
        try:
            execution.run_variants(selection.extract(path), machines, ncores=2)
            outcome.append(None)
        except BaseException as err:  # noqa: BLE001 - checked below
            outcome.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        listener.accept()[0].close()  # the waiting machine's block is running
        assert _processes_with(marker), "the waiting block's process was not found"
    finally:
        flag.touch()
        thread.join(60)
        listener.close()
    [err] = outcome
    assert isinstance(err, RuntimeError) and "exit code 3" in str(err), err
    deadline = time.monotonic() + 10
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_with(marker), "the other machine's block kept running after a machine failed"


def test_a_job_error_reaches_the_fixture_that_waits_for_it():
    jobs = background.Background()

    def fails():
        raise ValueError("the build broke")

    jobs.start("build", fails)
    jobs.wait("build")  # a job that waits for this one goes on; the error is for whoever asks for the result
    jobs.wait("never started")
    with pytest.raises(ValueError, match="the build broke"):
        jobs.result("build", fails)
    assert jobs.unfinished() == [] and "build" in jobs.seconds
    assert jobs.result("other", lambda x: x * 2, 21) == 42  # started on demand


@pytest.mark.skipif(sys.platform != "linux", reason="a thread's own niceness is Linux's")
def test_a_job_and_what_it_starts_yield_to_the_tests_thread():
    """The session's jobs run at a higher niceness than pytest's own thread (tests/conftest.py), and so does
    every process a job starts; the thread that started them keeps its own, and so do the jobs of a
    Background without one."""
    from conftest import BACKGROUND

    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert BACKGROUND.nice > 0, "the session's jobs do not yield to the tests' thread"
    if own >= 18:
        pytest.skip(f"pytest runs at niceness {own}: no higher one is left for a job")
    higher = min(own + 7, 19)
    jobs = background.Background(nice=higher)

    def niceness():
        child = subprocess.run([sys.executable, "-c", "import os; print(os.nice(0))"], capture_output=True, text=True)
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), int(child.stdout)

    assert jobs.result("job", niceness) == (higher, higher)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
    assert background.Background().result("plain", niceness) == (own, own)
    assert jobs.began["job"] <= time.perf_counter()


def test_a_job_the_tests_wait_for_runs_at_their_niceness():
    """The scratch builds gate tests of pytest's own thread: they run at its niceness, not the jobs' (started by
    a job, they are brought back to it where the system allows lowering a niceness: as root)."""
    from conftest import BACKGROUND

    assert BACKGROUND.gating("scratch build root") and BACKGROUND.gating("scratch builds")
    assert not BACKGROUND.gating("visit") and not BACKGROUND.gating("snippets")
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    if own >= 18:
        pytest.skip(f"pytest runs at niceness {own}: no higher one is left for a job")
    higher = min(own + 7, 19)
    jobs = background.Background(nice=higher, gating=lambda name: name.startswith("gate"))
    niceness = lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())  # noqa: E731
    assert jobs.result("gate", niceness) == own
    assert jobs.result("other", niceness) == higher
    from_a_job = jobs.result("starter", lambda: jobs.result("gate started by a job", niceness))
    assert from_a_job == (own if os.geteuid() == 0 else higher), from_a_job


def test_what_a_job_started_is_found_and_stopped():
    proc = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; "
                             "subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)'])"])
    try:
        deadline = time.monotonic() + 20
        while len(execution.descendants(proc.pid)) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        grandchild = execution.descendants(proc.pid)
        assert grandchild, "the child's own child was not found"
        assert proc.pid in execution.descendants(__import__("os").getpid())
        killed = execution.stop_descendants(proc.pid)
        assert set(grandchild) <= set(killed)
    finally:
        proc.kill()
        proc.wait()


def test_quick_runs_the_first_machine_only_without_browser_and_codeblocks_run():
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--quick",
                           "tests/test_snippets.py", "tests/test_codeblocks.py", "tests/test_browser.py",
                           "tests/test_explorables.py", "tests/test_course.py"],
                          cwd=ROOT, capture_output=True, text=True)
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    assert proc.returncode == 0 and ids, proc.stdout[-3000:] + proc.stderr[-3000:]
    first, others = list(reader_machines.VARIANTS)[0], list(reader_machines.VARIANTS)[1:]
    assert any(first in i for i in ids)
    assert not [i for i in ids if any(o in i for o in others)]
    assert not [i for i in ids if i.startswith("tests/test_browser.py")]
    assert not [i for i in ids if "explorable_draws" in i or "pdf_edition" in i]  # they drive Chromium too
    assert any(i.startswith("tests/test_explorables.py") for i in ids)  # its checks without a browser stay
    assert not [i for i in ids if "passes_over_every_snippet" in i]
    assert any("failing_or_short" in i for i in ids)  # the codeblocks module's own checks stay


SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4:\n    pass\nprint('spin', time.time_ns())\n"
NAP = "import time\nprint('nap', time.time_ns())\ntime.sleep(0.6)\n"


def test_a_machine_starts_its_longest_blocks_first_keeps_the_order_asked_for_and_counts_cpu(tmp_path):
    """Blocks start longest first by compat/results.json's seconds (unmeasured ones first of all, in
    file order); results come back in file order; without the file, file order. The worker really
    starts them in that order (each block prints when it started). ``Result.cpu`` (what
    ``tools.snippets time`` sums per machine) is the block's CPU time, not its wall time: a block that
    computes for 0.4 CPU seconds shows them, one that sleeps does not. One forkserver for all of it."""
    names = ["short", "long", "unmeasured", "middle", "spin", "nap"]
    paths = []
    for name in names:
        code = {"spin": SPIN, "nap": NAP}.get(name, f"import time\nprint('{name}', time.time_ns())\n")
        path = tmp_path / f"{name}.md"
        path.write_text(f"```python\n{code}```\n", encoding="utf-8")
        paths.append(path)
    blocks = [b for p in paths for b in selection.extract(p)]
    measured = tmp_path / "results.json"
    outcomes = [{"name": b.name, "seconds": s} for b, s in zip(blocks, (1.0, 30.0, None, 5.0)) if s is not None]
    measured.write_text(json.dumps({"environments": [{"outcomes": outcomes}]}), encoding="utf-8")
    assert execution.start_first(blocks, measured) == [2, 4, 5, 1, 3, 0]
    assert execution.start_first(blocks, tmp_path / "absent.json") == [0, 1, 2, 3, 4, 5]

    one_at_a_time = reader_machines.Variant(reader_machines.DEFAULT.env, 1, workers=1)
    results = execution.run(blocks, one_at_a_time, measured=measured)
    printed = [r.stdout.split() for r in results]
    assert [p[0] for p in printed] == names, [r.error for r in results]  # the order asked for
    started = sorted(range(len(names)), key=lambda i: int(printed[i][1]))
    assert started == [2, 4, 5, 1, 3, 0], [names[i] for i in started]
    spin, nap = results[4], results[5]
    assert spin.cpu >= 0.4 and nap.cpu < spin.cpu - 0.3 and nap.seconds >= 0.6, (spin.cpu, nap.cpu, nap.seconds)


WAITING = """\
import os
import torch
torch.manual_seed(0)
a = torch.randn(600, 600, dtype=torch.float64)
b = torch.randn(300_000)
print(os.environ["OMP_WAIT_POLICY"], torch.get_num_threads(), (a @ a).sum().item().hex(),
      b.sum().item().hex(), torch.nn.functional.gelu(b).sum().item().hex())
"""


def test_passive_openmp_waiting_changes_no_digit_on_the_oversubscribed_machine(tmp_path):
    """Every machine runs with OMP_WAIT_POLICY=PASSIVE (idle OpenMP threads sleep instead of spinning:
    on the 3-threads-on-2-cores machine a spinning thread takes the core from the one doing the work).
    It decides how threads wait, not how work is split: a matrix product and two reductions large
    enough to run in parallel print the same bits, on the machine with more threads than cores, under
    ACTIVE (libgomp's spinning) and PASSIVE. (torch's wheel links GNU OpenMP, libgomp: Intel's
    KMP_BLOCKTIME does nothing here.)"""
    label = next(lab for lab in reader_machines.VARIANTS if "more threads than cores" in lab)
    machine = reader_machines.VARIANTS[label]
    path = tmp_path / "waiting.md"
    path.write_text(f"```python\n{WAITING}```\n", encoding="utf-8")
    blocks = selection.extract(path)
    printed = {}
    for policy in ("PASSIVE", "ACTIVE"):
        [result] = execution.run(blocks, reader_machines.Variant({**machine.env, "OMP_WAIT_POLICY": policy}, machine.threads, 1))
        assert result.error is None, result.error
        printed[policy] = result.stdout.split()
    assert [p[:2] for p in printed.values()] == [["PASSIVE", str(machine.threads)], ["ACTIVE", str(machine.threads)]]
    assert printed["PASSIVE"][2:] == printed["ACTIVE"][2:], printed


# --------------------------------------------------------------------------- jobs after the build

class _Config:
    def getoption(self, name):
        return False


def test_a_module_s_after_build_job_starts_once_the_build_is_done_follows_its_lane_and_fails_its_fixture(tmp_path):
    """tests/conftest.py runs a test module's AFTER_BUILD work as soon as the strict build is done, not
    before and not when its fixture first asks; a job that follows another starts after it, even if that
    one failed (whose error reaches its own fixture); a name no module registered fails naming it."""
    import conftest

    jobs, built, order = background.Background(), threading.Event(), []

    def build():
        built.wait(30)
        order.append("build")
        return tmp_path, subprocess.CompletedProcess([], 0)

    def first(site, tmp, config):
        order.append("first")
        raise ValueError("the visit broke")

    def second(site, tmp, config):
        order.append("second")
        assert tmp.is_dir() and site == tmp_path
        return "seen"

    schedule = conftest.Schedule(jobs, build, {"first": (first, None), "second": (second, "first")})
    schedule.start({"built_site", "first", "second"}, [], _Config())
    time.sleep(0.3)
    assert order == [] and set(jobs.unfinished()) == {"build", "first", "second"}  # waiting for the build
    built.set()
    assert jobs.jobs["second"].result(30) == "seen"  # nobody asked for it: it ran by itself
    assert order == ["build", "first", "second"], order
    with pytest.raises(ValueError, match="the visit broke"):
        jobs.result("first", lambda: None)
    with pytest.raises(LookupError, match="'nameless'"):
        schedule.after_build("nameless", _Config())


@pytest.mark.parametrize("registry, entry, known", [
    ("AFTER_BUILD", r'"(\w+)": \(', {"test_browser.py:visit", "test_browser.py:visit_rest", "test_course.py:pdf_editions"}),
    ("AT_START", r'"(\w+)": _', {"test_failures.py:bad_run", "test_failures.py:codeblocks_runs",
                                  "test_new_language.py:third_language", "test_build_speed.py:caches_compared"}),
])
def test_every_early_job_is_the_work_of_the_fixture_of_its_name(registry, entry, known):
    """A name in a module's AFTER_BUILD (or AT_START) is taken by a session fixture of that module from
    ``after_build(name)`` (``at_start(name)``): otherwise the job runs for nothing and a fixture does the
    work again."""
    import re

    taker = {"AFTER_BUILD": "after_build", "AT_START": "at_start"}[registry]
    found = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        block = re.search(rf"^{registry} = \{{(.*?)\}}(?: if [^\n]*|  #[^\n]*)?$", text, re.S | re.M)
        if not block:
            continue
        fixtures = re.findall(r'@pytest\.fixture\(scope="session"\)\ndef \w+\(([^)]*)\)[^\n]*\n(.*?)\n\n\n', text, re.S)
        for name in re.findall(entry, block.group(1)):
            found[f"{path.name}:{name}"] = any(taker in args and f'{taker}("{name}")' in body for args, body in fixtures)
    assert found and all(found.values()), f"not taken from {taker}(name) by a fixture: {[n for n, ok in found.items() if not ok]}"
    assert known <= set(found), found


def test_a_module_s_at_start_job_follows_a_strict_build_if_one_runs_and_needs_none(tmp_path):
    """tests/conftest.py runs a test module's AT_START work as the session begins, in a folder of its own:
    after the strict build when one was started (the browser's jobs wait for that build; the early jobs must
    not slow it), at once when none was (run alone, it needs none). An assertion that fails in it reaches
    whoever asks for its result (the test); a name no module registered fails naming it."""
    import conftest

    jobs, built, order = background.Background(), threading.Event(), []

    def build():
        built.wait(30)
        order.append("build")
        return tmp_path, subprocess.CompletedProcess([], 0)

    def early(tmp, scratch):
        order.append("early")
        assert tmp.is_dir() and not list(tmp.iterdir())
        return "ran"

    def broken(tmp, scratch):
        raise AssertionError("the check inside the job failed")

    schedule = conftest.Schedule(jobs, build, {}, {"early": early, "broken": broken})
    schedule.start({"built_site", "early", "broken"}, [], _Config())
    time.sleep(0.3)
    assert order == [] and "early" in jobs.unfinished(), order  # waiting for the build
    built.set()
    assert jobs.jobs["early"].result(30) == "ran" and order == ["build", "early"], order
    with pytest.raises(AssertionError, match="the check inside the job failed"):  # what its test then shows
        jobs.result("broken", lambda: None)
    with pytest.raises(LookupError, match="'nameless'.*AT_START"):
        schedule.at_start("nameless", _Config())

    alone = background.Background()  # `pytest tests/test_failures.py`: no strict build is started
    conftest.Schedule(alone, build, {}, {"early": early}).start({"early"}, [], _Config())
    assert alone.jobs["early"].result(30) == "ran" and "build" not in alone.jobs


def test_a_scratch_build_asked_for_twice_at_once_is_built_once(tmp_path):
    """The clean builds start in the background while a test may already ask for one: one build."""
    import conftest

    calls = []

    def fake_build(name):
        calls.append(name)
        time.sleep(0.5)
        return tmp_path / name, subprocess.CompletedProcess([], 0)

    builds = conftest.ScratchBuilds(tmp_path, background.Background(), fake_build)
    threads = [threading.Thread(target=builds.get, args=("root",)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    builds.prefetch()
    assert calls == ["root", "other-cwd", "properdocs"], calls


def _asked_at_once(shared, askers: int = 6) -> tuple[int, list[object]]:
    """``askers`` threads ask ``shared`` for "scratch" at the same moment: how many were made, what each got."""
    made, got, ready = [], [], threading.Barrier(askers)

    def make():
        made.append(threading.get_ident())
        time.sleep(0.2)  # mkdtemp and the ScratchBuilds take time: the others ask meanwhile
        return object()

    def ask():
        ready.wait(10)
        got.append(shared.get("scratch", make))

    threads = [threading.Thread(target=ask) for _ in range(askers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return len(made), got


def test_the_session_s_scratch_builds_are_one_set_when_its_jobs_ask_at_the_same_moment():
    """The scratch prefetch and the AT_START jobs all start when the strict build ends, and each asks for
    the session's ScratchBuilds: one is made, whichever asks first (two were two folders, and a warm copy
    looked for the ``.cache`` of a ``root`` build made in the other: an official CI run failed so)."""
    import conftest

    shared = conftest.Shared()
    made, got = _asked_at_once(shared)
    assert made == 1, f"{made} ScratchBuilds were made for one session"
    assert len(got) == 6 and len({id(g) for g in got}) == 1 and shared.made("scratch") is got[0]
    assert shared.made("snippets") is None


def test_without_its_lock_the_session_s_objects_are_made_twice():
    """The mutation of the test above: ``Shared.get`` without its lock, as the session's dict was."""
    import conftest

    class Unlocked(conftest.Shared):
        def get(self, key, make):
            if key not in self._made:
                self._made[key] = make()
            return self._made[key]

    made, got = _asked_at_once(Unlocked())
    assert made > 1 and len({id(g) for g in got}) > 1, "the check above could not fail"


def test_a_jobs_cpu_seconds_count_the_processes_it_starts():
    """The session summary's CPU seconds (maintainers read them to find the time): a job is charged for
    the processes it starts, exactly (the kernel's cgroup accounting), and not for another job's."""
    account = background.CpuAccount(name=f"residual-notes-test-{os.getpid()}", whole_process=False)
    if account.group is None:
        pytest.skip(f"no CPU accounting on this machine: {account.why}")
    try:
        jobs = background.Background(account)
        burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass"
        jobs.start("idle", time.sleep, 1.0)
        jobs.result("burner", lambda: subprocess.run([sys.executable, "-c", burn], check=True))
        jobs.wait("idle")
        charged = f"the jobs were charged {jobs.cpu} ({account.why or 'no error'})"
        assert jobs.cpu.get("burner", 0) >= 0.5, f"a job's process burnt 0.5 CPU s; {charged}"
        assert jobs.cpu.get("idle", 1) < 0.1, f"a job that slept was charged; {charged}"
    finally:
        account.close()
    assert not account.group.exists(), f"{account.group} left behind"


def test_without_cpu_accounting_the_summary_says_why(tmp_path):
    account = background.CpuAccount(root=tmp_path / "no-cpuacct", whole_process=False)
    assert account.group is None and str(tmp_path / "no-cpuacct") in account.why, account.why
    jobs = background.Background(account)
    assert jobs.result("job", sum, [1, 2]) == 3 and jobs.cpu == {} and account.seconds() is None


def test_a_job_whose_cpu_cannot_be_counted_still_runs_and_the_summary_says_why(tmp_path):
    account = background.CpuAccount(root=tmp_path / "no-cpuacct", whole_process=False)
    account.group = tmp_path / "a-file"  # a group that breaks after the session began
    account.group.write_text("")
    jobs = background.Background(account)
    assert jobs.result("job", sum, [1, 2]) == 3 and jobs.cpu == {}
    assert str(account.group) in account.why, account.why


# --------------------------------------------------------------------------- what a test may change

def test_a_test_cannot_change_what_the_background_jobs_share(monkeypatch, tmp_path):
    """The jobs are threads of this process: a patched ``os.replace`` once failed the PDF job's save
    with another test's "disk full". The ``monkeypatch`` fixture refuses such a change, naming the line."""
    import conftest
    from shared_process import SharedProcess

    import hooks
    from hooks import highlight_cache
    from tools import files

    here = r"tests/test_schedule\.py:\d+ "
    refused = {
        "os.replace": lambda: monkeypatch.setattr(os, "replace", None),
        "files.os": lambda: monkeypatch.setattr(files, "os", None),
        "a class of conftest": lambda: monkeypatch.setattr(conftest.ScratchBuilds, "_build", None),
        "site_facts, which tools/ imports": lambda: monkeypatch.setattr(site_facts, "ROOT", tmp_path),
        "the hooks package, which every hook imports": lambda: monkeypatch.setattr(hooks, "one_module", None),
        "a dotted name": lambda: monkeypatch.setattr("os.replace", None),
        "an instance": lambda: monkeypatch.setattr(reader_machines.DEFAULT, "threads", 3),
        "os.environ": lambda: monkeypatch.setitem(os.environ, "X", "1"),
        "setenv": lambda: monkeypatch.setenv("X", "1"),
        "delenv": lambda: monkeypatch.delenv("HOME"),
        "chdir": lambda: monkeypatch.chdir(tmp_path),
        "sys.path": lambda: monkeypatch.syspath_prepend(str(tmp_path)),
        "delattr": lambda: monkeypatch.delattr(os, "replace"),
    }
    for what, change in refused.items():
        with pytest.raises(SharedProcess, match=here) as err:
            change()
        assert "tests/shared_process.py" in str(err.value), (what, err.value)
    assert os.replace.__module__ == "posix" and files.os is os and "X" not in os.environ and Path.cwd() == ROOT
    with pytest.raises(SharedProcess, match=r"patches os\.replace \(outside hooks/\)"):
        monkeypatch.setattr(os, "replace", None)
    with pytest.raises(SharedProcess, match=r"patches tools\.files\.os \(tools/files\.py\)"):
        monkeypatch.setattr(files, "os", None)
    cache = highlight_cache._cache
    monkeypatch.setattr(highlight_cache, "_cache", "only tests read it")  # MkDocs runs the hooks elsewhere
    assert highlight_cache._cache == "only tests read it"
    monkeypatch.undo()
    assert highlight_cache._cache is cache


def test_no_test_changes_the_process_around_the_fixture():
    """The other ways to change what the jobs share, found in the tests' code: assigning to an imported
    module's attribute or to ``os.environ``, ``os.chdir``/``putenv``/``unsetenv``, ``unittest.mock.patch``,
    a ``MonkeyPatch`` of one's own (code in a string, run by a subprocess, is not this process)."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and n.module in ("hooks", "tools") for a in n.names}
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                base = t.value if isinstance(t, (ast.Attribute, ast.Subscript)) else None
                if isinstance(t, ast.Attribute) and isinstance(base, ast.Name) and base.id in modules:
                    found.append(f"{where} assigns {base.id}.{t.attr}")
                if isinstance(t, ast.Subscript) and ast.unparse(base) == "os.environ":
                    found.append(f"{where} assigns os.environ[...]")
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.chdir", "os.putenv", "os.unsetenv",
                                                                          "os.environ.update", "os.environ.pop"):
                found.append(f"{where} calls {ast.unparse(node.func)}")
            if isinstance(node, (ast.Name, ast.Attribute)) and path.name not in ("conftest.py", "shared_process.py"):
                name = node.id if isinstance(node, ast.Name) else node.attr
                if name == "MonkeyPatch" or (name == "patch" and "mock" in ast.unparse(node)):
                    found.append(f"{where} uses {ast.unparse(node)}")
    assert found == [], "changes the pytest process the background jobs share:\n" + "\n".join(found)


def test_a_hooks_module_is_shared_if_the_jobs_import_it_through_another(tmp_path):
    """tools/a.py imports hooks.x, which imports hooks.y: both are the jobs' as much as tools/a.py is."""
    from shared_process import shared_hooks

    for rel, text in {"tools/a.py": "from hooks import x\n", "tests/conftest.py": "import hooks.z\n",
                      "hooks/x.py": "from hooks import y\n", "hooks/y.py": "", "hooks/z.py": "",
                      "hooks/alone.py": "from hooks import y\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert shared_hooks(tmp_path) == {"__init__", "x", "y", "z"}


class _Item:
    """A collected test as tests/order.py sees it: its module, the jobs it waits for, pytest's hook."""

    def __init__(self, name, module, jobs, ran):
        self.name, self.module, self.jobs = name, module, frozenset(jobs)
        self.config = type("Config", (), {"hook": type("Hook", (), {"pytest_runtest_protocol": self._protocol})()})()
        self._ran = ran

    def _protocol(self, item, nextitem):
        self._ran.append((item.name, nextitem.name if nextitem else None))

    def __repr__(self):
        return self.name


def test_pytest_s_thread_runs_next_a_test_whose_jobs_are_done_and_tells_pytest_which():
    """Collected in the order [build-only tests] [visit tests] [snippet tests]: with the snippet runs done
    and the visit not yet, the snippet tests run before the visit's; a bucket whose jobs are done is
    finished before another is started, and a ready one of the same module comes next (its module's fixtures
    stay set up); nothing waits that need not, nothing runs twice, and the next test
    pytest is told of (to tear fixtures down for) is the one that runs next. Run in collection order
    (``order.Order`` ignoring the jobs: the mutant), the visit's tests come before the snippets'."""
    import order

    ran: list = []
    done = {"build"}
    items = [_Item("build-1", "a", {"build"}, ran), _Item("visit-1", "b", {"build", "visit"}, ran),
             _Item("build-2", "a", {"build"}, ran), _Item("visit-2", "b", {"build", "visit"}, ran),
             _Item("snippets-1", "c", {"snippets"}, ran), _Item("snippets-2", "c", {"snippets"}, ran),
             _Item("none", "d", set(), ran), _Item("a-late", "a", set(), ran)]

    def finished(job):
        if len(ran) == 2:  # the snippet runs end while build-2 runs, the visit after snippets-1
            done.add("snippets")
        if len(ran) == 4:
            done.add("visit")
        return job in done

    session = type("Session", (), {"testsfailed": 0, "shouldfail": False, "shouldstop": False,
                                   "config": type("C", (), {"option": type("O", (), {"collectonly": False})()})()})()
    by_module = lambda item: item.module  # noqa: E731
    assert order.run(session, order.Order(items, lambda item: item.jobs, by_module), finished) is True
    names = [name for name, _ in ran]
    assert names == ["build-1", "build-2", "a-late", "snippets-1", "snippets-2", "visit-1", "visit-2", "none"], names
    assert [nxt for _, nxt in ran] == names[1:] + [None], ran

    ran.clear()
    done.clear()
    done.add("build")
    blind = order.Order(items, lambda item: frozenset(), by_module)
    order.run(session, blind, finished)
    assert [name for name, _ in ran].index("visit-1") < [name for name, _ in ran].index("snippets-1"), ran
