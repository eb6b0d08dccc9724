"""Shared fixtures, and the suite's schedule: the slow work starts at once, in the background.

The slow work of the suite is done by other processes: the strict build (``mkdocs build``), the snippet
runs on each reader machine (``tools/runner/``), pytest-codeblocks' own run over ``snippets/``.
As the session starts, every one of them that a selected test needs is started in a thread of its own
(``Background``), so the two cores are busy with them while the tests that need none of them run; a
fixture then waits for its job's result. So are the clean scratch builds (``ScratchBuilds.PREFETCH``), and
the work a test module names in its ``AFTER_BUILD`` (the browser visits, the PDF editions): each such job
starts as soon as the strict build is done, so the visits, which mostly wait on Chromium, overlap the
reader machines instead of following them on one core. The work a module names in its ``AT_START`` (the
runs of bad blocks, the third-language build, the builds with and without the caches: the heaviest
checks that need no strict build) starts as the session begins (after the strict build, if one runs), off pytest's own thread, whose
tests run one at a time; its test then asks for the result. Tests that wait for a job come after those that do not
(``pytest_collection_modifyitems``), the build's and the browser's before the snippet ones; and the next test run
is one whose jobs are done, if there is one (``tests/order.py``): pytest's thread does not wait for a job while
tests it could run wait behind it.

``--quick`` (``./run test --quick``): the contributor's loop. Only the first reader machine of
``reader_machines.VARIANTS`` (native kernels, one thread), no browser (no test that needs ``BROWSER_FIXTURES``),
no pytest-codeblocks run, no check of what each machine's kernels are (it needs them all).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.runner import execution, reader_machines, selection  # noqa: E402
from tools.runner.execution import stop_descendants  # noqa: E402
from tools.site.build import build, copy_project  # noqa: E402

from background import Background, CpuAccount  # noqa: E402
from order import Order, run as run_in_order  # noqa: E402
from shared_process import OwnPatches  # noqa: E402

SNIPPET_SECONDS: dict[str, float] = {}  # wall time of each reader machine, for the summary
SNIPPET_CPU: dict[str, float] = {}  # CPU seconds of each reader machine's blocks (their processes), for the summary
TESTS_GROUP = "tests in pytest's own thread"  # its CPU account: each test, what it starts included
TEST_CPU: dict[str, float] = {}  # nodeid -> CPU seconds of its setup, call and teardown (with an account)
QUICK_SKIPS = ("tests/test_browser.py",)  # what --quick leaves out, with the codeblocks run and other machines
BROWSER_FIXTURES = {"chromium", "own_browser", "after_build"}  # a test that needs one drives Chromium: not --quick
CODEBLOCKS = [sys.executable, "-m", "pytest", "--codeblocks", "snippets/"]  # as a reader types it (pytest.ini: no cache)
NATIVE = next(iter(reader_machines.VARIANTS))
RECORD = Path(tempfile.mkdtemp(prefix="codeblocks-record-"))  # what the codeblocks run saw of each block
SESSION = {"quick": False, "start": time.perf_counter()}


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true",
                     help="the contributor's loop: snippets on the first reader machine only, no browser, "
                          "no pytest-codeblocks run")
    parser.addoption("--screenshots", action="store_true",
                     help="the browser tests also save a full-page screenshot of every page, light and dark, in "
                          "screenshots/ (for a person to look at; about four CPU minutes)")


# CPU seconds counted where Linux allows; the jobs yield to the tests' own thread, except the scratch builds,
# which its tests wait for (tests/background.py)
BACKGROUND = Background(CpuAccount(), nice=15, gating=lambda name: name.startswith("scratch build"))
SITE_DIRS: list[Path] = []  # built sites, removed when pytest ends
# fixture name -> (its work: fn(site, tmp, config), the job it waits for first or None): the test modules'
# AFTER_BUILD, read when they are collected; each runs as a background job once the strict build is done
AFTER_BUILD: dict[str, tuple[Callable, str | None]] = {}
# job name -> its work, fn(tmp, scratch): the test modules' AT_START, each a background job from the start
# (``scratch()``: the session's ScratchBuilds, for the work that copies a built project)
AT_START: dict[str, Callable] = {}


def _strict_build() -> tuple[Path, subprocess.CompletedProcess]:
    out = Path(tempfile.mkdtemp(prefix="residual-notes-site-"))
    SITE_DIRS.append(out)
    return out, build(out)


def _codeblocks() -> subprocess.CompletedProcess:
    """``pytest --codeblocks snippets/`` in a reader's fresh shell on the native machine (its environment:
    PATH, HOME, the locale; one thread), recording what each block does (``execution.RECORD``)."""
    env = {k: v for k, v in reader_machines.machine_env(reader_machines.DEFAULT).items() if k != "PYTHONPATH"}
    env[execution.RECORD] = str(RECORD)
    return subprocess.run(CODEBLOCKS, cwd=ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)


class SnippetRuns:
    """Every snippet block, run once per reader machine (reader_machines.VARIANTS), in the background.

    The native machine is the ``pytest --codeblocks`` run (which the suite runs anyway): it watches each
    block as the worker does and records it (``snippets/conftest.py``), so the blocks run four times, not
    five; its kernels are still probed by the worker. Under ``--quick`` (no codeblocks run) the worker
    runs the native machine too."""

    def __init__(self, variants: list[str] | None = None):
        self.blocks = selection.collect()
        self.variants = list(variants or reader_machines.VARIANTS)  # started together; any other one on request
        self.codeblocks = not SESSION["quick"]  # the native machine's results: the codeblocks run's record

    def _run(self, labels: list[str]):
        by_codeblocks = self.codeblocks and NATIVE in labels
        own = {label: reader_machines.VARIANTS[label] for label in labels if not (by_codeblocks and label == NATIVE)}
        runs, seconds = execution.run_variants(self.blocks, own) if own else ({}, {})
        if by_codeblocks:
            execution.run_variants([], {NATIVE: reader_machines.DEFAULT})  # its kernel probe, alone
            BACKGROUND.result("codeblocks", _codeblocks)
            runs[NATIVE], seconds[NATIVE] = execution.recorded(self.blocks, RECORD), BACKGROUND.seconds["codeblocks"]
        SNIPPET_SECONDS.update(seconds)
        SNIPPET_CPU.update({label: sum(r.cpu for r in runs[label]) for label in labels})
        return {label: runs[label] for label in labels}

    def _job(self, variant: str) -> tuple[str, list[str]]:
        return ("snippets", self.variants) if variant in self.variants else (f"snippets on {variant}", [variant])

    def start(self) -> None:
        if self.codeblocks:
            BACKGROUND.start("codeblocks", _codeblocks)
        BACKGROUND.start("snippets", self._run, self.variants)

    def results(self, variant: str) -> list[execution.Result]:
        name, labels = self._job(variant)
        return BACKGROUND.result(name, self._run, labels)[variant]


class Shared:
    """The session's shared objects, each made once, by whichever thread asks first: its SnippetRuns
    (``"snippets"``), its ScratchBuilds (``"scratch"``). Under a lock, because several threads ask at the
    same moment: the scratch prefetch and every AT_START job start when the strict build ends. Two
    ScratchBuilds made at once are two folders, and a warm copy then looked for the ``.cache`` of a
    ``root`` project that the other one had built (an official CI run of c1c5b0d: FileNotFoundError)."""

    def __init__(self):
        self._made: dict[str, object] = {}
        self._lock = threading.Lock()

    def get(self, key: str, make: Callable[[], object]) -> object:
        with self._lock:
            if key not in self._made:
                self._made[key] = make()
            return self._made[key]

    def made(self, key: str) -> object | None:
        """``key``'s object if one was made, else None."""
        return self._made.get(key)


_SESSION = Shared()


class Schedule:
    """When the session's jobs start: ``start(needs, variants)`` starts the jobs behind the fixtures in
    ``needs`` (the snippets on ``variants``); a test module's ``AFTER_BUILD`` job ``name`` runs
    ``after_build(name, config)``. Its jobs, its strict build and its registry of after-build work are
    arguments, so a test schedules fakes on a ``Schedule`` of its own and patches nothing the session's
    jobs read (tests/shared_process.py)."""

    def __init__(self, jobs: Background, strict_build: Callable, registry: dict[str, tuple[Callable, str | None]],
                 at_once: dict[str, Callable] | None = None, scratch: Callable | None = None):
        self.jobs, self.strict_build, self.registry = jobs, strict_build, registry
        self.at_once, self.scratch = ({} if at_once is None else at_once), scratch

    def start(self, needs: set[str], variants: list[str], config=None) -> None:
        if "built_site" in needs:
            self.jobs.start("build", self.strict_build)
        if "snippet_runs" in needs:
            _SESSION.get("snippets", lambda: SnippetRuns(variants)).start()
        if "codeblocks_run" in needs:
            self.jobs.start("codeblocks", _codeblocks)
        if "scratch_builds" in needs:
            self.jobs.start("scratch builds", _prefetch_scratch)
        for name in self.at_once:
            if name in needs and config is not None:
                self.jobs.start(name, self.at_start, name, config)
        for name in self.registry:  # in the modules' order: a job's predecessor is started before it
            if name in needs and config is not None:
                self.jobs.start(name, self.after_build, name, config)

    def at_start(self, name: str, config) -> object:
        """Job ``name`` of a test module's ``AT_START``: its work, in a folder of its own, once the strict
        build is done if one was started (it needs none: run alone, it starts at once)."""
        if name not in self.at_once:
            raise LookupError(f"no test module collected names {name!r} in its AT_START")
        # not beside the strict build, if one was started: the browser's jobs wait for it (a clean-clone run
        # that started these with it took 261 s for the build, against 100 s)
        self.jobs.wait("build")
        tmp = Path(tempfile.mkdtemp(prefix=f"residual-notes-{name}-"))
        SITE_DIRS.append(tmp)
        return self.at_once[name](tmp, self.scratch)

    def after_build(self, name: str, config) -> object:
        """Job ``name`` of a test module's ``AFTER_BUILD``: once the strict build (and the job it follows,
        whatever that one's outcome: its own fixture reports it) is done, its work on the built site."""
        if name not in self.registry:
            raise LookupError(f"no test module collected names {name!r} in its AFTER_BUILD")
        fn, after = self.registry[name]
        site, proc = self.jobs.result("build", self.strict_build)
        if proc.returncode != 0:
            raise RuntimeError(f"{name}: the strict build failed (the built_site fixture shows its log)")
        if after:
            self.jobs.wait(after)
        tmp = Path(tempfile.mkdtemp(prefix=f"residual-notes-{name}-"))
        SITE_DIRS.append(tmp)
        return fn(site, tmp, config)


SCHEDULE = Schedule(BACKGROUND, _strict_build, AFTER_BUILD, AT_START, lambda: _scratch())


def _whole_suite(config) -> bool:
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        return False  # pytest-xdist: each worker runs the fixtures it needs
    return (config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("keyword")
            and not config.getoption("markexpr") and not config.getoption("deselect"))


def pytest_sessionstart(session):
    """The whole suite (``./run test``, ``./run test --quick``): start its jobs before collecting, which
    takes a core for several seconds."""
    SESSION["quick"] = quick = session.config.getoption("quick")
    SESSION["start"] = time.perf_counter()
    BACKGROUND.account.join(TESTS_GROUP)  # threads started from here on begin in it; each job joins its own
    if _whole_suite(session.config):
        SCHEDULE.start({"built_site", "snippet_runs", "scratch_builds"} | (set() if quick else {"codeblocks_run"}),
               list(reader_machines.VARIANTS)[:1] if quick else list(reader_machines.VARIANTS))


def _needs(item) -> set[str]:
    return set(getattr(item, "fixturenames", ()))  # the fixture closure: fixtures of fixtures too


def _variant(item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("variant") if callspec else None


def pytest_collection_modifyitems(session, config, items):
    for module in dict.fromkeys(getattr(item, "module", None) for item in items):
        AFTER_BUILD.update(getattr(module, "AFTER_BUILD", {}))
        AT_START.update(getattr(module, "AT_START", {}))
    if config.getoption("quick"):
        first = next(iter(reader_machines.VARIANTS))
        keep, drop = [], []
        for item in items:
            left_out = (item.nodeid.startswith(QUICK_SKIPS) or _needs(item) & {"codeblocks_run", "kernels"}
                        or _needs(item) & BROWSER_FIXTURES or _variant(item) not in (None, first))
            (drop if left_out else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def group(item) -> int:  # what it waits for: nothing, a build, a job after it, the snippet or codeblocks runs
        needs = _needs(item)  # (the tests that need only the build run while the jobs after it do their work)
        return (3 if needs & {"snippet_runs", "codeblocks_run"}
                else 2 if needs & {*AT_START, *AFTER_BUILD}
                else 1 if needs & {"built_site", "scratch_builds"} else 0)

    items.sort(key=group)  # stable: pytest's order within each group


def _jobs(item) -> frozenset[str]:
    """The background jobs a test waits for, through the fixtures it needs (of the scratch builds, the ``root``
    one: a warm copy holds its cache)."""
    needs = _needs(item)
    by_fixture = {"built_site": "build", "scratch_builds": "scratch build root", "snippet_runs": "snippets",
                  "codeblocks_run": "codeblocks"}
    return frozenset({job for fixture, job in by_fixture.items() if fixture in needs}
                     | (needs & {*AT_START, *AFTER_BUILD}))


def _job_done(name: str) -> bool:
    job = BACKGROUND.jobs.get(name)
    return job is not None and job.done()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """Next, a test whose jobs are done (tests/order.py); under pytest-xdist, its own loop."""
    config = session.config
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        return None
    return run_in_order(session, Order(session.items, _jobs, lambda item: getattr(item, "module", None)), _job_done)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Count each test's CPU seconds (its own thread's group: what it runs and starts, no background job)."""
    before = BACKGROUND.account.seconds(TESTS_GROUP)
    try:
        return (yield)
    finally:
        after = BACKGROUND.account.seconds(TESTS_GROUP)
        if before is not None and after is not None:
            TEST_CPU[item.nodeid] = after - before


@pytest.fixture(scope="session", autouse=True)
def _background_jobs(request):
    """Before the first test: start every slow job the selected tests need (if not started yet)."""
    items = request.session.items
    wanted = [v for v in reader_machines.VARIANTS if v in {_variant(item) for item in items}]
    SCHEDULE.start(set().union(*map(_needs, items)) if items else set(), wanted or list(reader_machines.VARIANTS)[:1], request.config)


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The site as `mkdocs build --strict` makes it; a warning fails every test that needs it."""
    out, proc = BACKGROUND.result("build", _strict_build)
    if proc.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    return out


@pytest.fixture(scope="session")
def at_start(request) -> Callable[[str], object]:
    """``at_start(name)``: the result of the job ``name`` of a test module's ``AT_START`` (its exception is
    raised here), started as the session began (or now)."""
    return lambda name: BACKGROUND.result(name, SCHEDULE.at_start, name, request.config)


@pytest.fixture(scope="session")
def after_build(built_site, request) -> Callable[[str], object]:
    """``after_build(name)``: the result of the job ``name`` of a test module's ``AFTER_BUILD`` (its
    exception is raised here), started as soon as the strict build was done (or now)."""
    return lambda name: BACKGROUND.result(name, SCHEDULE.after_build, name, request.config)


class ScratchBuilds:
    """The builds in scratch copies of the project (tools/site/build.py), shared by every test module that
    needs one: each named build once per session, a job of its own started by ``prefetch`` (``PREFETCH``)
    or on first request; ``get(name)`` -> (site, process).

    ``root`` (the ``mkdocs`` console script in the copy's folder) and ``other-cwd`` (``-f`` from another
    folder) start clean, with no ``.cache``: they are the clean builds (two clean builds are identical,
    a cold build with the highlight cache is the build without it). Every other copy starts *warm*,
    with a copy of the ``root`` build's ``.cache`` (math font subset, highlighted blocks, compiled
    templates, converted notebooks: 26 -> 10 CPU seconds a build, measured under load), because what
    it tests is a command or a broken page, not a cold start; the warm and the clean builds are
    compared byte for byte (``test_properdocs_builds_the_same_site``, ``tests/test_build_speed.py``).
    """

    CLEAN = ("root", "other-cwd")
    PREFETCH = ("root", "other-cwd", "properdocs")  # built in the background once the strict build is done

    def __init__(self, tmp: Path, jobs: Background | None = None,
                 builder: Callable[[str], tuple[Path, subprocess.CompletedProcess]] | None = None):
        self.tmp = tmp
        self.jobs = jobs or Background()  # each build is a job: asked for twice, built once
        self.builder = builder or self._build  # a test passes its own: the class is shared with the jobs

    def prefetch(self) -> None:
        """Build ``PREFETCH``, one after the other (a failure is reported by the test that asks)."""
        for name in self.PREFETCH:
            with contextlib.suppress(BaseException):
                self.get(name)

    def project(self, name: str) -> Path:
        """The scratch copy ``name`` (its folder), made on first use: clean or warm (see above)."""
        folder = self.tmp / name / "project"
        if not folder.exists():
            if name in self.CLEAN:
                copy_project(folder)
            else:
                self.warm_copy(folder)
        return folder

    def warm_copy(self, dest: Path, without: tuple[str, ...] = ()) -> Path:
        """A scratch copy in ``dest`` holding the ``root`` build's ``.cache`` (but the folders named in
        ``without``); returns its mkdocs.yml."""
        config = copy_project(dest)
        self.site("root")
        shutil.copytree(self.project("root") / ".cache", dest / ".cache", ignore=shutil.ignore_patterns(*without))
        return config

    def get(self, name: str) -> tuple[Path, subprocess.CompletedProcess]:
        return self.jobs.result(f"scratch build {name}", self.builder, name)

    def _build(self, name: str) -> tuple[Path, subprocess.CompletedProcess]:
        from tools.site.build import console_script, reader_env

        site = self.tmp / name / "site"
        project = self.project(name)
        if name == "root":  # the plain command as typed in the project's folder, into its site/
            site = project / "site"
            proc = subprocess.run([str(console_script("mkdocs")), "build", "--strict"],
                                  capture_output=True, text=True, env=reader_env(), cwd=project)
        elif name == "other-cwd":  # -f from another folder
            elsewhere = self.tmp / name / "elsewhere"
            elsewhere.mkdir()
            proc = build(site, project / "mkdocs.yml", program=(console_script("mkdocs"),), cwd=elsewhere)
        else:  # a builder by its module name: python -m properdocs
            proc = build(site, project / "mkdocs.yml", program=(sys.executable, "-m", name))
        return site, proc

    def site(self, name: str) -> Path:
        from tools.site.build import warnings

        site, proc = self.get(name)
        if proc.returncode != 0 or warnings(proc):
            shown = "\n".join(warnings(proc)) or (proc.stdout + proc.stderr)[-4000:]
            pytest.fail(f"the {name!r} build failed (exit {proc.returncode}):\n{shown}", pytrace=False)
        return site


@pytest.fixture
def monkeypatch():
    """pytest's ``monkeypatch``, refusing what the background jobs' threads would see (tests/shared_process.py)."""
    patches = OwnPatches()
    yield patches
    patches.undo()


@pytest.fixture(scope="session")
def chromium() -> str:
    from tools.site.browser import CHROMIUM, NO_CHROMIUM, browser_decision
    if browser_decision() == "fail":
        pytest.fail(f"CI is set and Chromium is missing: {NO_CHROMIUM}", pytrace=False)
    return CHROMIUM


@pytest.fixture(scope="session")
def own_browser(built_site, chromium):
    """One Chromium driven through Playwright's sync API for the whole session, on the site served as
    published. One, because a sync Playwright keeps an event loop running in the main thread for as long
    as it lives, and a second one started there meanwhile fails ("using Playwright Sync API inside the
    asyncio loop"): every test module that drives a browser synchronously takes this one."""
    from playwright.sync_api import sync_playwright

    from tools.site.browser import CHROMIUM_ARGS, serve_published
    with serve_published(built_site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser, base
        browser.close()


def _prefetch_scratch() -> None:
    """The clean scratch builds, after the strict build (which the browser visits wait for)."""
    BACKGROUND.wait("build")
    _scratch().prefetch()


def _scratch() -> ScratchBuilds:
    """The session's scratch builds (one set, its folder removed when pytest ends)."""
    def make() -> ScratchBuilds:
        tmp = Path(tempfile.mkdtemp(prefix="residual-notes-scratch-builds-"))
        SITE_DIRS.append(tmp)
        return ScratchBuilds(tmp, BACKGROUND)

    return _SESSION.get("scratch", make)


@pytest.fixture(scope="session")
def scratch_builds() -> ScratchBuilds:
    return _scratch()


@pytest.fixture(scope="session")
def snippet_runs() -> SnippetRuns:
    return _SESSION.get("snippets", SnippetRuns)


@pytest.fixture(scope="session")
def codeblocks_run() -> subprocess.CompletedProcess:
    """``pytest --codeblocks snippets/``: pytest-codeblocks' own entry point, as a reader runs it."""
    return BACKGROUND.result("codeblocks", _codeblocks)


def pytest_sessionfinish(session, exitstatus):
    """A session that ends before a background job did (-x, Ctrl-C) stops what the jobs started."""
    if BACKGROUND.unfinished():
        stop_descendants()


def pytest_unconfigure(config):
    BACKGROUND.account.close()
    for site in [*SITE_DIRS, RECORD]:
        shutil.rmtree(site, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    if SNIPPET_SECONDS:
        terminalreporter.section("snippet runs per reader machine (wall seconds; CPU seconds of the blocks' processes)")
        runs = _SESSION.made("snippets")
        by_codeblocks = runs.codeblocks if runs is not None else False
        for label, seconds in SNIPPET_SECONDS.items():
            how = ("pytest --codeblocks, 1 block at a time" if by_codeblocks and label == NATIVE
                   else f"{reader_machines.VARIANTS[label].workers} block(s) at a time")
            cpu = BACKGROUND.cpu.get("codeblocks") if by_codeblocks and label == NATIVE else SNIPPET_CPU.get(label)
            terminalreporter.write_line(f"{seconds:6.1f} s  " + ("" if cpu is None else f"{cpu:7.1f} CPU s  ")
                                        + f"{label} ({how})")
    if BACKGROUND.seconds:
        account = BACKGROUND.account
        terminalreporter.section("background jobs, started as the session began (wall and CPU seconds)")
        for name, seconds in BACKGROUND.seconds.items():
            cpu = BACKGROUND.cpu.get(name)
            began = BACKGROUND.began.get(name, SESSION["start"]) - SESSION["start"]
            terminalreporter.write_line(f"{seconds:6.1f} s  " + ("" if cpu is None else f"{cpu:7.1f} CPU s  ") + name
                                        + f"  ({began:.0f} s to {began + seconds:.0f} s)")
        last = max((BACKGROUND.began[n] + s for n, s in BACKGROUND.seconds.items() if n in BACKGROUND.began), default=None)
        if last is not None:
            terminalreporter.write_line(f"the tests ran {time.perf_counter() - last:.0f} s after the last job ended, "
                                        "in pytest's own thread")
        total = account.seconds()
        if total is not None:
            wall, ncores = time.perf_counter() - SESSION["start"], len(os.sched_getaffinity(0))
            terminalreporter.write_line(f"the whole session, every process: {total:.1f} CPU s in {wall:.1f} s on {ncores} "
                                        f"cores ({total / (wall * ncores):.0%} of what they can give): a run takes "
                                        f"at least its CPU seconds / {ncores}")
        if account.why:
            terminalreporter.write_line(f"CPU seconds not counted: {account.why} (tests/background.py, CpuAccount)")
    if TEST_CPU:
        terminalreporter.section(f"the 15 tests that cost most CPU in pytest's own thread "
                                 f"(of {sum(TEST_CPU.values()):.1f} CPU s for {len(TEST_CPU)} tests)")
        for nodeid, cpu in sorted(TEST_CPU.items(), key=lambda kv: -kv[1])[:15]:
            terminalreporter.write_line(f"{cpu:7.1f} CPU s  {nodeid}")
        modules: dict[str, float] = {}
        for nodeid, cpu in TEST_CPU.items():
            modules[nodeid.split("::")[0]] = modules.get(nodeid.split("::")[0], 0.0) + cpu
        terminalreporter.section("the test modules by CPU in pytest's own thread")
        for module, cpu in sorted(modules.items(), key=lambda kv: -kv[1])[:10]:
            terminalreporter.write_line(f"{cpu:7.1f} CPU s  {module}")
