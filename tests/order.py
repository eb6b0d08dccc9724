"""The order pytest's own thread runs the tests in: next, a test whose background jobs are done.

The suite's slow work runs in background jobs (``tests/background.py``, started by ``tests/conftest.py``), and
a test that needs a job's result waits for it. Run in a fixed order, pytest's thread sat waiting for the browser
visits while the tests of the snippet runs, whose job had ended minutes before, waited behind them; they then ran
alone at the end, one core idle. ``Order`` keeps the tests in buckets (a module's tests that wait for the same
jobs, in the order collected) and picks the next test when the one before it starts (pytest tears a test's
fixtures down knowing the next one): the next of the bucket being run if its jobs are done, else a bucket of the
same module whose jobs are done (its module's fixtures stay set up), else the first bucket whose jobs are done,
else the first bucket (its fixture waits). Each test still runs exactly once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable


class Order:
    def __init__(self, items: Iterable, jobs: Callable[[object], frozenset[str]], module: Callable[[object], Hashable]):
        """``items`` in the order they were collected; ``jobs(item)``: the job names it waits for;
        ``module(item)``: what it shares fixtures with (its module)."""
        self.buckets: dict[tuple, deque] = {}
        for item in items:
            self.buckets.setdefault((module(item), jobs(item)), deque()).append(item)
        self.current: tuple | None = None

    def next(self, done: Callable[[str], bool]):
        """The test to run next (None when all have run); ``done(job)``: whether job ``job`` has ended."""
        ready = lambda key: all(map(done, key[1]))  # noqa: E731
        keys = [k for k, bucket in self.buckets.items() if bucket]
        if not keys:
            return None
        if self.current in keys and ready(self.current):
            key = self.current
        else:  # a ready bucket of the same module first: its module's fixtures are not set up twice
            same = [k for k in keys if self.current is not None and k[0] == self.current[0] and ready(k)]
            key = same[0] if same else next((k for k in keys if ready(k)), keys[0])
        self.current = key
        return self.buckets[key].popleft()


def run(session, order: Order, done: Callable[[str], bool]) -> bool:
    """pytest's own run loop (``_pytest.main.pytest_runtestloop``, pytest 9) over ``order``'s tests."""
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        raise session.Interrupted(
            f"{session.testsfailed} error{'s' if session.testsfailed != 1 else ''} during collection")
    if session.config.option.collectonly:
        return True
    item = order.next(done)
    while item is not None:
        nextitem = order.next(done)
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)
        item = nextitem
    return True
