"""``python -m tools.snippets``: run the site's code snippets, check their shown outputs and figures, and refresh them.

The runner's parts (``tools/runner/``): ``selection`` (which blocks), ``reader_machines`` (where),
``execution`` (each block in its own process, ``worker`` inside it), ``comparison`` (figures and data files
within a tolerance), ``refresh`` (check and refresh: one path), ``kernel_facts`` (what each machine ran).

Maintainer commands (the test suite never rewrites files):

    python -m tools.snippets refresh [PATH ...]   # rerun, rewrite outputs and moved figures, list changes
    python -m tools.snippets check [PATH ...]     # rerun and report problems, change nothing
    python -m tools.snippets check --variants     # also on every reader machine of VARIANTS
    python -m tools.snippets time [--variants]    # seconds per block, and per machine
    python -m tools.snippets replicate --seed-offset N [PATH ...]  # rerun the experiment blocks with every
                                                  # seed shifted by N; compare verdicts (tools/checks/replicate.py)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tools.runner.execution import TIMEOUT, run_variants
from tools.runner.kernel_facts import describe, kernel_reports, machine_checks, unverifiable_note
from tools.runner.reader_machines import DEFAULT, VARIANTS, host_isa
from tools.runner.refresh import Finding, check
from tools.runner.selection import ROOT, collect, page_paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.snippets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["refresh", "check", "time", "replicate"])
    parser.add_argument("paths", nargs="*", type=Path, help="snippet files or folders (default: all)")
    parser.add_argument("--variants", action="store_true", help="also run on every reader machine of VARIANTS")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="CPU seconds per block (wall-clock: worker.WALL_FACTOR times as many)")
    parser.add_argument("--seed-offset", type=int, metavar="N",
                        help="replicate: shift every seed an experiment block sets by N (tools/checks/replicate.py)")
    args = parser.parse_intermixed_args(argv)
    if args.command == "replicate":
        if args.seed_offset is None or args.variants:
            parser.error("replicate takes --seed-offset N (and runs on the native machine: no --variants)")
        # tools/checks/replicate.py runs its blocks with this module: its command line is its own process, not an import
        return subprocess.call([sys.executable, "-m", "tools.checks.replicate", "--seed-offset", str(args.seed_offset),
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
