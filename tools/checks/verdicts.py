"""Verdicts: every experiment block prints the conclusions its page draws, and the page states only those.

An *experiment block* is detected from its code, by rule (no list of files):

* it **trains**: a ``for``/``while`` loop computes gradients (``.backward()`` or ``torch.autograd.grad``)
  and updates parameters in the same loop (an optimizer's ``.step()``, or in-place ``sub_``/``add_``/``copy_``);
* or it **draws seeds**: ``torch.manual_seed(...)`` (or ``Generator().manual_seed``) is called with an
  argument that is not a literal, i.e. the block runs under several seeds (a sweep over runs).

* or, whatever its source looks like, it **ran** as one (``run_kinds``, from ``execution.Result.ran``, counted in
  the block's own process by ``tools/runner/worker.Ran``): an optimizer took ``STEPS`` steps or more (a step in a
  helper function counts), or ``SEEDS`` distinct seeds or more were set (torch, NumPy, ``random``).

Such a block defines a small helper (blocks are self-contained, so each block has its own copy)::

    def verdict(claim, holds, evidence):
        print(f"{'✔' if holds else '✘'} {claim}: {evidence}")

and calls it after its table, each ``holds`` computed from the data with its criterion in the code; the
output then carries lines ``✔ <claim>: <evidence>`` / ``✘ <claim>: <evidence>`` (the claim has no ": ").
No string literal outside ``verdict`` may hold ✔ or ✘, so a verdict cannot be typed.

Every page that includes the block names each of its verdicts where it draws that conclusion, with an
invisible marker that repeats the symbol and the claim: ``<!-- ✔ <claim> -->`` (or ``<!-- ✘ <claim> -->``
where the page says the claim does not hold). A marker whose symbol differs from the printed one, a marker
naming no verdict of the page's blocks, a printed verdict no marker names, a claim printed more than once by
the blocks of one page (one marker could not say which result it means), and an experiment block with no
verdict are problems (``python -m tools.checks.verdicts`` lists them; ``tests/test_verdicts.py``).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.runner import execution, selection

HOLDS, FAILS = "✔", "✘"
HELPER = "verdict"
_LINE = re.compile(rf"^(?P<sign>[{HOLDS}{FAILS}]) (?P<claim>.+?): (?P<evidence>\S.*)$")
_MARKER = re.compile(rf"<!--\s*(?P<sign>[{HOLDS}{FAILS}])\s+(?P<claim>.+?)\s*-->")
_GRADIENT = {"backward", "grad"}
_UPDATE = {"step", "sub_", "add_", "copy_"}


@dataclass(frozen=True)
class Verdict:
    sign: str
    claim: str
    evidence: str

    @property
    def holds(self) -> bool:
        return self.sign == HOLDS


def _called(node: ast.AST) -> list[str]:
    names = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            f = call.func
            names.append(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


def experiment_kind(code: str) -> list[str]:
    """Why a block is an experiment ("trains", "draws seeds"), empty if it is not one."""
    tree = ast.parse(code)
    kinds = []
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            called = set(_called(loop))
            if called & _GRADIENT and called & _UPDATE:
                kinds.append("trains")
                break
    for call in ast.walk(tree):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "manual_seed"
                and not (call.args and isinstance(call.args[0], ast.Constant))):
            kinds.append("draws seeds")
            break
    return kinds


SEEDS = 3  # distinct seeds set while a block runs that make it a sweep over runs (two: a demonstration
# of "another seed", as add-and-norm/article2-ranges.md and batch-first.md do)
STEPS = 2  # optimizer steps taken while it runs that make it a training run


def run_kinds(ran: dict) -> list[str]:
    """Why a block is an experiment by what it did when it ran (``execution.Result.ran``, counted by
    ``tools/runner/worker.Ran``): an optimizer stepped, in a helper function or not; several seeds set, by torch,
    NumPy or ``random``. Empty if it is not one."""
    kinds = []
    if ran.get("optimizer_steps", 0) >= STEPS:
        kinds.append(f"trains: {ran['optimizer_steps']} optimizer steps ran")
    if len(ran.get("seeds", [])) >= SEEDS:
        kinds.append(f"draws seeds: {len(ran['seeds'])} seeds set as it ran")
    return kinds


def run_problems(block: selection.Block, result: execution.Result) -> list[str]:
    """An experiment by what ran that prints no verdict (the source rule, ``experiment_kind``, is checked too)."""
    if block.error or result.error or block.expected is None and not result.stdout:
        return []
    kinds = run_kinds(result.ran)
    if kinds and not verdicts(result.stdout) and not experiment_kind(block.code):
        return [f"{block.name}: an experiment block ({'; '.join(kinds)}) prints no verdict: define "
                f"{HELPER}(claim, holds, evidence) and print the page's conclusions after its table"]
    return []


def verdicts(output: str) -> list[Verdict]:
    """The verdict lines of a block's output, in order."""
    return [Verdict(m["sign"], m["claim"], m["evidence"]) for m in map(_LINE.match, output.splitlines()) if m]


def typed_verdicts(code: str) -> list[int]:
    """Lines of string literals holding ✔/✘ outside the ``verdict`` helper (a verdict typed, not computed)."""
    tree = ast.parse(code)
    helper = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == HELPER
              for n in ast.walk(f)}
    return sorted({n.lineno for n in ast.walk(tree) if id(n) not in helper and isinstance(n, ast.Constant)
                   and isinstance(n.value, str) and (HOLDS in n.value or FAILS in n.value)})


def block_problems(block: selection.Block) -> list[str]:
    if block.error or block.expected is None:
        return []
    found, kinds = verdicts(block.expected), experiment_kind(block.code)
    out = []
    if kinds and not found:
        out.append(f"{block.name}: an experiment block ({', '.join(kinds)}) prints no verdict: define "
                   f"{HELPER}(claim, holds, evidence) and print the page's conclusions after its table")
    for line in typed_verdicts(block.code):
        out.append(f"{block.name}: line {line} of the code types {HOLDS}/{FAILS} outside {HELPER}(): "
                   f"a verdict must be computed")
    for v in found:
        if ": " in v.claim:
            out.append(f"{block.name}: verdict claim {v.claim!r} holds ': ' (the claim ends at the first ': ')")
    return out


def page_problems(lang: str, page: str, text: str, printed: dict[str, list[Verdict]]) -> list[str]:
    """``printed``: snippet file (relative to snippets/) -> its verdicts. Markers against verdicts."""
    where = f"docs/{lang}/{page}"
    shown: dict[str, tuple[Verdict, str]] = {}
    every: dict[str, list[tuple[Verdict, str]]] = {}
    for name in dict.fromkeys(sources.includes(text)):
        for v in printed.get(name, []):
            shown[v.claim] = (v, name)
            every.setdefault(v.claim, []).append((v, name))
    out, named = [], set()
    for claim, seen in every.items():  # one marker names a claim: it must mean one verdict
        if len(seen) > 1:
            out.append(f"{where}: the claim {claim!r} is printed {len(seen)} times by the page's blocks ("
                       + ", ".join(f"{v.sign} by snippets/{name}" for v, name in seen)
                       + "): a claim has one verdict per page, so one marker names one result; word each "
                         "block's claim so it names what differs (its setting, its data)")
    for m in _MARKER.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        claim, sign = m["claim"], m["sign"]
        if claim not in shown:
            out.append(f"{where}:{line}: marker {sign} {claim!r} names no verdict printed by the page's blocks "
                       f"(printed: {sorted(shown) or 'none'})")
            continue
        v, name = shown[claim]
        named.add(claim)
        if sign != v.sign:
            out.append(f"{where}:{line}: the page states {sign} {claim!r}, but snippets/{name} prints "
                       f"{v.sign} {v.claim}: {v.evidence}")
    for claim, (v, name) in shown.items():
        if claim not in named:
            out.append(f"{where}: snippets/{name} prints '{v.sign} {claim}: {v.evidence}', and the page names "
                       f"it nowhere (write the conclusion and <!-- {v.sign} {claim} --> after it)")
    return out


def problems(docs: Path | None = None, snippets_dir: Path | None = None) -> list[str]:
    site = site_facts.load()
    docs, snippets_dir = docs or site.docs, (snippets_dir or selection.SNIPPETS).resolve()
    blocks = selection.collect(sorted(snippets_dir.rglob("*.md")))
    out, printed = [], {}
    for block in blocks:
        out += block_problems(block)
        if block.expected is not None:
            printed.setdefault(block.path.relative_to(snippets_dir).as_posix(), []).extend(verdicts(block.expected))
    for lang in site.languages:
        for page in sorted(sources.pages(lang, docs)):
            out += page_problems(lang, page, sources.read(lang, page, docs), printed)
    return out


def main() -> int:
    found = problems()
    print("\n".join(found) or "every experiment prints its verdicts, and every page states only what they say")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
