"""Every conclusion replicates: ``python -m tools.snippets replicate --seed-offset N`` and its patch.

``tools/runner/seeds.py`` shifts every seed a block sets, at run time, in the block's own process; ``tools/checks/replicate.py``
reruns the experiment blocks so and compares their verdicts with the shown ones. Here: each seeding form the
patch covers is shifted, exactly (unit tests, in a process of their own: the patch never touches pytest's);
every seeding call in ``snippets/`` has a covered form; a scratch verdict that holds only on its own seeds is
reported, naming the block, the claim and both statistics, and a robust one replicates; the mutants (an
offset ignored, NumPy left unpatched, a form not recognised) fail those tests; and, in the suite, every
experiment block of the site replicates at ``SUITE_OFFSET``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mutation import mutated
from tools.runner import execution, reader_machines, selection
from tools.checks import replicate
from tools.runner import seeds

ROOT = Path(__file__).resolve().parent.parent

# The offset the suite replicates every experiment block at (one constant: pick another one here).
SUITE_OFFSET = 1000  # every experiment block must keep its verdicts with its seeds shifted by this (CONTRIBUTING, "Verdicts")

# --------------------------------------------------------------------------- (a) each form is shifted

HEADER = "import random\nimport numpy\nimport torch\n"
# form (as seeds.seeding_calls names it) -> code that seeds with S in that form and draws x
FORMS = {
    "torch.manual_seed": "torch.manual_seed(S)\nx = torch.rand(1).item()",
    "torch.random.manual_seed": "torch.random.manual_seed(S)\nx = torch.rand(1).item()",
    "torch.Generator().manual_seed": "x = torch.rand(1, generator=torch.Generator().manual_seed(S)).item()",
    "numpy.random.seed": "numpy.random.seed(S)\nx = numpy.random.rand()",
    "numpy.random.default_rng": "x = numpy.random.default_rng(S).random()",
    "numpy.random.RandomState": "x = numpy.random.RandomState(S).rand()",
    "numpy.random.RandomState().seed": "r = numpy.random.RandomState()\nr.seed(S)\nx = r.rand()",
    "random.seed": "random.seed(S)\nx = random.random()",
    "random.Random": "x = random.Random(S).random()",
    "random.Random().seed": "r = random.Random()\nr.seed(S)\nx = r.random()",
}
# In a fresh process: each form's draw at S and S + N unpatched, at S patched by N, and at S once undone.
FORMS_SCRIPT = '''
import importlib.util, json, sys
import random, numpy, torch
spec = importlib.util.spec_from_file_location("seeds_under_test", sys.argv[1])
seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seeds)
forms, S, N = json.loads(sys.argv[2]), 5, 7
def draw(code, s):
    ns = {"random": random, "numpy": numpy, "torch": torch, "S": s}
    exec(code, ns)
    return ns["x"]
plain = {f: draw(c, S) for f, c in forms.items()}
shifted = {f: draw(c, S + N) for f, c in forms.items()}
undo = seeds.shift_seeds(N)
patched = {f: draw(c, S) for f, c in forms.items()}
torch.manual_seed(3)
first = torch.randn(3)
torch.manual_seed(torch.initial_seed())
g = torch.Generator().manual_seed(4)
extra = {"initial_seed": torch.initial_seed(), "replayed": torch.equal(first, torch.randn(3)),
         "generator_initial_seed": g.initial_seed(),
         "isinstance": [isinstance(torch.default_generator, torch.Generator),
                        isinstance(numpy.random.mtrand._rand, numpy.random.RandomState),
                        isinstance(random._inst, random.Random)]}
undo()
restored = {f: draw(c, S) for f, c in forms.items()}
print(json.dumps({"plain": plain, "shifted": shifted, "patched": patched, "restored": restored, **extra}))
'''


def _forms_run(module_file: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", FORMS_SCRIPT, module_file, json.dumps(FORMS)], cwd=ROOT,
                          capture_output=True, text=True, env=reader_machines.machine_env(reader_machines.DEFAULT))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _unshifted_forms(run: dict) -> list[str]:
    return [f for f in FORMS if not (run["patched"][f] == run["shifted"][f] != run["plain"][f])]


def test_every_covered_form_has_an_example_that_seeding_calls_names_so():
    assert set(FORMS) == seeds.COVERED
    for form, code in FORMS.items():
        found = [f for _, f in seeds.seeding_calls(HEADER + code)]
        assert found == [form], (form, found)


def test_the_patch_shifts_each_seeding_form_by_the_offset_and_undoes():
    run = _forms_run(seeds.__file__)
    assert _unshifted_forms(run) == [], run
    assert run["restored"] == run["plain"]
    # initial_seed gives back the seed asked for: a replay from it replays, and no generator fails isinstance
    assert run["initial_seed"] == 3 and run["replayed"] and run["generator_initial_seed"] == 4, run
    assert run["isinstance"] == [True, True, True], run


def test_mutation_a_patch_that_leaves_numpy_alone_fails(tmp_path):
    mutant = mutated(seeds, '    put(np_random, "default_rng", shifted_default_rng)\n', "", tmp_path)
    assert _unshifted_forms(_forms_run(mutant.__file__)) == ["numpy.random.default_rng"]


def test_a_seed_that_is_not_an_integer_is_refused_not_kept():
    assert seeds.shifted(None, 3) is None and seeds.shifted(4, 3) == 7 and seeds.shifted([1, 2], 3) == [4, 5]
    for bad in ("abc", 1.5, True):
        with pytest.raises(TypeError, match="integer seeds"):
            seeds.shifted(bad, 3)


# --------------------------------------------------------------------------- every seeding call is covered


def test_every_seeding_call_in_the_snippets_is_shifted_by_the_patch():
    blocks = selection.collect()
    found = [form for b in blocks if b.error is None for _, form in seeds.seeding_calls(b.code)]
    assert len(found) > 50 and "torch.Generator().manual_seed" in found, found  # the enumeration sees them
    problems = replicate.unshifted_seeds(blocks)
    assert not problems, "seeding calls replicate would not shift:\n" + "\n".join(problems)


@pytest.mark.parametrize("code, line, form", [  # line: of the snippet file (the fence is line 1)
    ("import torch\ntorch.default_generator.manual_seed(3)\n", 3, "torch.default_generator.manual_seed"),
    ("import numpy as np\nrng = np.random.Generator(np.random.PCG64(3))\n", 3, "numpy.random.PCG64"),
    ("from numpy.random import SeedSequence\nss = SeedSequence(3)\n", 3, "numpy.random.SeedSequence"),
    ("import torch\n\n\ndef f(g):\n    g.manual_seed(3)\n", 6, "<...>.manual_seed"),
])
def test_mutation_a_seeding_form_the_patch_does_not_cover_is_named_with_its_file_and_line(tmp_path, code, line,
                                                                                         form):
    path = (tmp_path / "uncovered.md").resolve()
    path.write_text(f"```python\n{code}```\n", encoding="utf-8")
    problems = replicate.unshifted_seeds(selection.extract(path))
    assert len(problems) == 1 and problems[0].startswith(f"{path.as_posix()}:{line}: {form}(...)"), problems


# --------------------------------------------------------------------------- (b), (c), (d): scratch blocks

HELPER = '''def verdict(claim, holds, evidence):
    print(f"{'✔' if holds else '✘'} {claim}: {evidence}")
'''
# Each claim holds for its seed 0 and fails at OFFSET: torch 0.496 -> 0.004, NumPy 0.637 -> 0.086,
# Python 0.844 -> 0.238 (a draw of seed 3).
LUCKY = HELPER + '''
import random

import numpy as np
import torch

torch.manual_seed(0)
t = torch.rand(1).item()
n = np.random.default_rng(0).random()
random.seed(0)
p = random.random()
verdict("the torch draw exceeds 0.3", t > 0.3, f"draw {t:.3f}")
verdict("the NumPy draw exceeds 0.3", n > 0.3, f"draw {n:.3f}")
verdict("the Python draw exceeds 0.3", p > 0.3, f"draw {p:.3f}")
'''
LUCKY_SHOWN = ("✔ the torch draw exceeds 0.3: draw 0.496\n✔ the NumPy draw exceeds 0.3: draw 0.637\n"
               "✔ the Python draw exceeds 0.3: draw 0.844\n")
LUCKY_RERUN = {"the torch draw exceeds 0.3": "draw 0.004", "the NumPy draw exceeds 0.3": "draw 0.086",
               "the Python draw exceeds 0.3": "draw 0.238"}
ROBUST = HELPER + '''
import torch

torch.manual_seed(0)
m = torch.rand(100_000).mean().item()
verdict("the mean of many uniform draws is near 0.5", abs(m - 0.5) < 0.01, f"mean {m:.3f}")
'''
ROBUST_SHOWN = "✔ the mean of many uniform draws is near 0.5: mean 0.500\n"
OFFSET = 3


def _scratch(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    for name, code, shown in (("lucky", LUCKY, LUCKY_SHOWN), ("robust", ROBUST, ROBUST_SHOWN)):
        (folder / f"{name}.md").write_text(
            f"```python\n{code}```\n<!--pytest-codeblocks:expected-output-->\n```text\n{shown}```\n", encoding="utf-8")
    return folder


def _replication_problems(code: int, out: str, folder: Path) -> list[str]:
    """What the report of a replicate run over ``_scratch`` gets wrong: the lucky block must fail, each claim
    named with both statistics, the robust one replicate, the summary and exit code say so."""
    lines, bad = out.splitlines(), []
    lucky, robust = f"{(folder / 'lucky.md').as_posix()}:1", f"{(folder / 'robust.md').as_posix()}:1"
    if code != 1:
        bad.append(f"exit code {code}, not 1")
    if lines[-1:] != [f"replicated: 1/2 experiment blocks (offset {OFFSET})"]:
        bad.append(f"last line {lines[-1:]}")
    if not any(ln.startswith(f"differs     {lucky}: 3 of 3 verdicts differ") for ln in lines):
        bad.append("no 'differs' line for the lucky block")
    if not any(ln.startswith(f"replicates  {robust}: 1 of 1 verdicts as shown") for ln in lines):
        bad.append("no 'replicates' line for the robust block")
    shown = {v.split(": ")[0][2:]: v.split(": ")[1] for v in LUCKY_SHOWN.splitlines()}
    for claim, now in LUCKY_RERUN.items():
        want = f"    {lucky}: {claim!r}: the page shows ✔ ({shown[claim]}); offset {OFFSET} prints ✘ ({now})"
        if want not in lines:
            bad.append(f"missing: {want}")
    return bad


def test_a_verdict_missing_or_new_in_the_rerun_is_a_difference_and_statistics_alone_are_not():
    block = selection.Block(Path("snippets/p/x.md"), 1, "", "✔ a: 1\n✘ b: 2\n✔ c: 3\n")
    same = replicate.compare(block, execution.Result("✔ a: 9\n✘ b: 8\n✔ c: 7\n"), 5)
    assert same.replicates, same.differences
    moved = replicate.compare(block, execution.Result("✔ a: 9\n✔ c: 7\n✔ d: 6\n"), 5)
    assert moved.differences == [
        "snippets/p/x.md:1: 'b': the page shows ✘ (2); offset 5 prints no such verdict",
        "snippets/p/x.md:1: 'd': offset 5 prints ✔ (6); the page shows no such verdict"]
    died = replicate.compare(block, execution.Result("✔ a: 1\n", error="Traceback ...\nValueError: x"), 5)
    assert not died.replicates and "ValueError: x" in died.error
    edited = replicate.compare(block, execution.Result("✔ a: 9\n✘ b: 8\n✔ c: 7\n", violations=["the tree changed"]), 5)
    assert edited.replicates and edited.notes == ["the tree changed"]


def test_a_verdict_that_holds_only_on_its_seeds_is_reported_and_a_robust_one_replicates(tmp_path):
    folder = _scratch(tmp_path / "scratch")
    proc = subprocess.run([sys.executable, "-m", "tools.snippets", "replicate", "--seed-offset", str(OFFSET),
                           str(folder)], cwd=ROOT, capture_output=True, text=True)
    assert not _replication_problems(proc.returncode, proc.stdout, folder), proc.stdout + proc.stderr


def test_the_same_blocks_replicate_at_offset_zero(tmp_path, capsys):
    folder = _scratch(tmp_path / "scratch")
    assert replicate.main([folder], 0) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "replicated: 2/2 experiment blocks (offset 0)"


def test_mutation_a_replicate_that_ignores_the_offset_fails(tmp_path, capsys):
    mutant = mutated(replicate, "seeds.OFFSET_ENV: str(int(offset))", "seeds.OFFSET_ENV: str(0)", tmp_path)
    folder = _scratch(tmp_path / "scratch")
    code = mutant.main([folder], OFFSET)
    assert _replication_problems(code, capsys.readouterr().out, folder)


def test_the_command_names_a_block_that_cannot_rerun_and_refuses_a_missing_offset(tmp_path):
    folder = (tmp_path / "broken").resolve()
    folder.mkdir()
    (folder / "b.md").write_text("```python\n" + HELPER + "raise RuntimeError('no data')\n```\n"
                                 "<!--pytest-codeblocks:expected-output-->\n```text\n✔ it ran: yes\n```\n",
                                 encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tools.snippets", "replicate", "--seed-offset", "2", str(folder)],
                          cwd=ROOT, capture_output=True, text=True)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines[-1] == "replicated: 0/1 experiment blocks (offset 2)", proc.stdout
    assert any(ln.startswith(f"failed      {(folder / 'b.md').as_posix()}:1") and "RuntimeError: no data" in ln
               for ln in lines), proc.stdout
    proc = subprocess.run([sys.executable, "-m", "tools.snippets", "replicate", str(folder)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "--seed-offset" in proc.stderr


# --------------------------------------------------------------------------- (e) the site's experiment blocks


def _replication(tmp: Path, scratch) -> tuple[list[replicate.Outcome], list[str]]:
    """Every experiment block of the site, rerun at ``SUITE_OFFSET``: an ``AT_START`` job (tests/conftest.py)."""
    blocks = selection.collect()
    outcomes, seconds = replicate.replicate(blocks, SUITE_OFFSET)
    return outcomes, replicate.report(outcomes, SUITE_OFFSET, seconds)


AT_START = {"replication": _replication}  # tests/conftest.py starts it with the session


@pytest.fixture(scope="session")
def replication(at_start):
    return at_start("replication")


def test_every_experiment_block_replicates_at_the_suite_offset(replication):
    outcomes, lines = replication
    assert len(outcomes) >= 20, lines  # every experiment block of the site, not a few
    assert all(o.replicates for o in outcomes), (
        f"verdicts that do not hold on seeds shifted by {SUITE_OFFSET} (a verdict is a claim about the method: "
        "rewrite it as what holds on every seed set, or give it the seeds and margin its statistic needs):\n"
        + "\n".join(lines))
