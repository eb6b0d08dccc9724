"""Every conclusion replicates: rerun each experiment block with other seeds and compare its verdicts.

``python -m tools.snippets replicate --seed-offset N [PATH ...]`` reruns every *experiment block* (a block whose
shown output prints verdicts, ``✔ <claim>: <evidence>``: ``tools/checks/verdicts.py``) on the native machine, one
thread, one block per core (``reader_machines.DEFAULT``), with every seed the block sets shifted by ``N``. The code the
reader sees is not changed: in the process that runs the block, before its code runs, the seeding functions
are patched (``tools/runner/seeds.py``, through ``seeds.OFFSET_ENV``). Each verdict of the rerun is compared with the
one the page shows, by its sign (✔/✘) and its claim, not by its evidence (the statistic, which moves with the
seeds). One line per block, then, for a block that does not replicate, one line per verdict that differs
naming the block, the claim and both statistics (the shown one and the rerun's); the last line is
``replicated: K/M experiment blocks (offset N)``. The exit code is 1 when any verdict differs (or a block
fails to run), else 0.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.runner import execution, reader_machines, selection
from tools.checks import verdicts
from tools.runner import seeds


def experiment_blocks(blocks: list[selection.Block]) -> list[selection.Block]:
    """The blocks whose shown output prints verdicts, in the order given."""
    return [b for b in blocks if b.error is None and b.expected and verdicts.verdicts(b.expected)]


def unshifted_seeds(blocks: list[selection.Block]) -> list[str]:
    """Each seeding call of the blocks that ``tools/runner/seeds.py`` does not shift, as ``file:line: form``: such a
    block would rerun on its page's own seeds and replicate trivially."""
    return [f"{b.name.rsplit(':', 1)[0]}:{b.lineno + line}: {form}(...) sets a seed that replicate does not "
            f"shift (the forms it shifts: tools/runner/seeds.py, COVERED)"
            for b in blocks if b.error is None for line, form in seeds.uncovered(b.code)]


def machine(offset: int) -> reader_machines.Variant:
    """The native reader machine (one thread, one block per core), each block's seeds shifted by ``offset``."""
    d = reader_machines.DEFAULT
    return reader_machines.Variant({**d.env, seeds.OFFSET_ENV: str(int(offset))}, d.threads, d.workers, d.cap)


@dataclass
class Outcome:
    block: selection.Block
    shown: list[verdicts.Verdict]
    rerun: list[verdicts.Verdict]
    error: str | None = None  # the rerun raised or died
    notes: list[str] = field(default_factory=list)  # what the runner saw besides (a file edited meanwhile)
    cpu: float = 0.0
    differences: list[str] = field(default_factory=list)

    @property
    def replicates(self) -> bool:
        return self.error is None and not self.differences


def compare(block: selection.Block, result: execution.Result, offset: int) -> Outcome:
    """The rerun's verdicts against the shown ones, matched by claim in order: each difference names the
    block, the claim, the shown sign and statistic and the rerun's."""
    shown = verdicts.verdicts(block.expected or "")
    rerun = verdicts.verdicts(result.stdout)
    # The runner's rules (no network, no writes, no processes) are the snippet checks' business; its tree watch
    # also sees a file the maintainer saves during the run: shown, not counted against the verdicts.
    out = Outcome(block, shown, rerun, cpu=result.cpu, notes=list(result.violations))
    if result.error:
        out.error = result.error
        return out
    left = list(rerun)
    for v in shown:
        now = next((r for r in left if r.claim == v.claim), None)
        if now is None:
            out.differences.append(f"{block.name}: {v.claim!r}: the page shows {v.sign} ({v.evidence}); "
                                   f"offset {offset} prints no such verdict")
            continue
        left.remove(now)
        if now.sign != v.sign:
            out.differences.append(f"{block.name}: {v.claim!r}: the page shows {v.sign} ({v.evidence}); "
                                   f"offset {offset} prints {now.sign} ({now.evidence})")
    for r in left:
        out.differences.append(f"{block.name}: {r.claim!r}: offset {offset} prints {r.sign} ({r.evidence}); "
                               "the page shows no such verdict")
    return out


def replicate(blocks: list[selection.Block], offset: int, timeout: float = execution.TIMEOUT
              ) -> tuple[list[Outcome], float]:
    """Rerun the experiment blocks among ``blocks`` with seeds shifted by ``offset``; their outcomes, in
    order, and the wall seconds of the run."""
    chosen = experiment_blocks(blocks)
    start = time.perf_counter()
    results = execution.run(chosen, machine(offset), timeout) if chosen else []
    return [compare(b, r, offset) for b, r in zip(chosen, results)], time.perf_counter() - start


def report(outcomes: list[Outcome], offset: int, seconds: float, refused: list[selection.Block] = ()) -> list[str]:
    """The command's lines: one per block (and one per difference), a timing line, then the summary."""
    lines = [f"cannot read {b.name}: {b.error}" for b in refused]
    for o in outcomes:
        n = len(o.shown)
        if o.error:
            first = o.error.strip().splitlines()[-1] if o.error.strip() else "no message"
            lines.append(f"failed      {o.block.name}: the rerun did not run through ({first}); "
                         f"{n} verdicts not compared")
            lines += ["    " + line for line in o.error.strip().splitlines()[-12:]]
        elif o.differences:
            lines.append(f"differs     {o.block.name}: {len(o.differences)} of {n} verdicts differ "
                         f"({o.cpu:.1f} CPU s)")
            lines += ["    " + d for d in o.differences]
        else:
            lines.append(f"replicates  {o.block.name}: {n} of {n} verdicts as shown ({o.cpu:.1f} CPU s)")
        if not o.error:
            lines += [f"    note: {line}" for note in o.notes for line in note.splitlines()[:6]]
    m = machine(offset)
    lines.append(f"{len(outcomes)} blocks rerun in {seconds:.1f} s, {sum(o.cpu for o in outcomes):.1f} CPU s in the "
                 f"blocks' processes ({next(iter(reader_machines.VARIANTS))}, {m.workers} at a time)")
    k = sum(o.replicates for o in outcomes)
    lines.append(f"replicated: {k}/{len(outcomes)} experiment blocks (offset {offset})")
    return lines


def main(paths: list[Path] | None, offset: int, timeout: float = execution.TIMEOUT) -> int:
    """``python -m tools.snippets replicate --seed-offset N [PATH ...]``: print the report; 1 if any block
    does not replicate (or a snippet file cannot be read), else 0."""
    blocks = selection.collect(paths or None)
    refused = [b for b in blocks if b.error is not None]
    unshifted = unshifted_seeds(experiment_blocks(blocks))
    for line in unshifted:
        print(line, flush=True)
    outcomes, seconds = replicate(blocks, offset, timeout)
    for line in report(outcomes, offset, seconds, refused):
        print(line, flush=True)
    return 0 if not refused and not unshifted and all(o.replicates for o in outcomes) else 1


if __name__ == "__main__":  # python -m tools.snippets replicate --seed-offset N [PATH ...] runs this
    import argparse

    cli = argparse.ArgumentParser(prog="python -m tools.snippets replicate")
    cli.add_argument("paths", nargs="*", type=Path)
    cli.add_argument("--seed-offset", type=int, required=True, metavar="N")
    cli.add_argument("--timeout", type=float, default=execution.TIMEOUT)
    a = cli.parse_args()
    sys.exit(main(a.paths or None, a.seed_offset, a.timeout))
