"""Every conclusion is what its output shows: experiment blocks print verdicts, pages state only those.

``tools/checks/verdicts.py`` detects experiment blocks by rule (a loop that computes gradients and updates
parameters; ``manual_seed`` called with a seed that varies), reads the verdict lines (``✔ claim: evidence``)
of their recorded outputs (``tests/test_snippets.py`` checks those outputs are what the code prints), and
compares them with the markers (``<!-- ✔ claim -->``) that each page puts after the sentence drawing
that conclusion. The mutation tests break each promise on a small fixture tree.
"""

from __future__ import annotations

from pathlib import Path

from hooks import site_facts
from tools.checks import verdicts

SITE = site_facts.load()

HELPER = '''def verdict(claim, holds, evidence):
    print(f"{'✔' if holds else '✘'} {claim}: {evidence}")
'''
EXPERIMENT = HELPER + '''
import torch

for seed in range(3):
    torch.manual_seed(seed)
    print(f"{torch.rand(1).item():.2f}")
verdict("the draws differ", True, "3 distinct values")
'''


def _snippet(code: str, output: str) -> str:
    return f"```python\n{code}```\n<!--pytest-codeblocks:expected-output-->\n```text\n{output}```\n"


def _tree(tmp_path: Path, page: dict[str, str], code: str = EXPERIMENT,
          output: str = "0.50\n0.76\n0.09\n✔ the draws differ: 3 distinct values\n") -> tuple[Path, Path]:
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    for lang in SITE.languages:
        (docs / lang).mkdir(parents=True)
        (docs / lang / "p.md").write_text(page[lang], encoding="utf-8")
    (snippets / "p").mkdir(parents=True)
    (snippets / "p" / "draws.md").write_text(_snippet(code, output), encoding="utf-8")
    return docs, snippets


def _pages(marker: str = "<!-- ✔ the draws differ -->") -> dict[str, str]:
    return {lang: f"# P {{ #top }}\n\n--8<-- \"p/draws.md\"\n\nThe draws differ. {marker}\n"
            for lang in SITE.languages}


def test_every_experiment_prints_its_verdicts_and_every_page_states_only_those():
    found = verdicts.problems()
    assert not found, "verdicts missing, unstated, or stated against their output:\n" + "\n".join(found)


def test_a_consistent_fixture_passes(tmp_path):
    assert verdicts.problems(*_tree(tmp_path, _pages())) == []


def test_an_experiment_block_without_a_verdict_fails(tmp_path):
    code = EXPERIMENT.replace('verdict("the draws differ", True, "3 distinct values")\n', "")
    docs, snippets = _tree(tmp_path, _pages(""), code=code, output="0.50\n0.76\n0.09\n")
    found = verdicts.problems(docs, snippets)
    assert len(found) == 1 and "snippets/p/draws.md" in found[0] and "prints no verdict" in found[0], found


def test_a_training_loop_is_an_experiment_without_any_seed(tmp_path):
    code = ("import torch\nw = torch.zeros(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
            "for _ in range(3):\n    opt.zero_grad()\n    (w - 1).pow(2).sum().backward()\n    opt.step()\n"
            "print(f\"{w.item():.3f}\")\n")
    assert verdicts.experiment_kind(code) == ["trains"]
    docs, snippets = _tree(tmp_path, _pages(""), code=code, output="0.488\n")
    found = verdicts.problems(docs, snippets)
    assert found and "snippets/p/draws.md" in found[0] and "(trains)" in found[0], found


def test_a_demonstration_with_one_literal_seed_is_no_experiment():
    assert verdicts.experiment_kind("import torch\ntorch.manual_seed(0)\nprint(torch.randn(2))\n") == []


def test_a_page_stating_a_failed_verdict_fails(tmp_path):
    output = "0.50\n0.76\n0.09\n✘ the draws differ: 2 distinct values\n"
    docs, snippets = _tree(tmp_path, _pages(), output=output)
    found = verdicts.problems(docs, snippets)
    assert found and all("states ✔" in f and "prints ✘" in f and "snippets/p/draws.md" in f for f in found), found
    assert {f.split(":")[0] for f in found} == {f"docs/{lang}/p.md" for lang in SITE.languages}


def test_a_verdict_the_page_never_names_fails(tmp_path):
    pages = _pages()
    pages[SITE.default] = pages[SITE.default].replace(" <!-- ✔ the draws differ -->", "")
    found = verdicts.problems(*_tree(tmp_path, pages))
    assert len(found) == 1 and found[0].startswith(f"docs/{SITE.default}/p.md") and "names it nowhere" in found[0]


def test_a_marker_naming_no_printed_verdict_fails(tmp_path):
    pages = _pages("<!-- ✔ the draws differ --> <!-- ✔ the draws are uniform -->")
    found = verdicts.problems(*_tree(tmp_path, pages))
    assert found and all("names no verdict" in f and "the draws are uniform" in f for f in found), found


def test_a_typed_verdict_fails(tmp_path):
    code = EXPERIMENT.replace('verdict("the draws differ", True, "3 distinct values")',
                              'print("✔ the draws differ: 3 distinct values")')
    found = verdicts.problems(*_tree(tmp_path, _pages(), code=code))
    assert found and "snippets/p/draws.md" in found[0] and "types" in found[0], found


def test_a_claim_printed_by_two_blocks_of_a_page_fails_whichever_sign_the_marker_has():
    """Two blocks on one page printed the same claim, one ✔ and one ✘: the last one won, one marker covered both."""
    holds, fails = verdicts.Verdict("✔", "warm-up helps", "a"), verdicts.Verdict("✘", "warm-up helps", "b")
    page = '--8<-- "p/one.md"\n\n--8<-- "p/two.md"\n\nWarm-up helps. <!-- {} warm-up helps -->\n'
    for printed in ({"p/one.md": [holds], "p/two.md": [fails]}, {"p/one.md": [fails], "p/two.md": [holds]},
                    {"p/one.md": [holds], "p/two.md": [holds]}, {"p/one.md": [holds, fails]}):
        for sign in "✔✘":
            found = verdicts.page_problems("en", "p.md", page.format(sign), printed)
            assert any("the claim 'warm-up helps' is printed 2 times" in f and "snippets/p/" in f for f in found), found
    assert verdicts.page_problems("en", "p.md", page.format("✔"), {"p/one.md": [holds]}) == []


RAN_EXPERIMENTS = {  # each an experiment by what it runs, none by the shape of its source
    "optimizer stepped in a helper": '''import torch

def fit(model, opt, x, y):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 2), torch.randn(8, 1)
for _ in range(5):
    fit(model, opt, x, y)
print(f"{model.weight.abs().sum().item() > 0}")
''',
    "numpy seed sweep": '''import numpy as np

means = [np.random.default_rng(seed).normal(size=100).mean() for seed in range(5)]
print(f"{max(means) - min(means) > 0}")
''',
    "random seed sweep": '''import random

draws = []
for s in (1, 2, 3):
    random.seed(s)
    draws.append(random.random())
print(len(set(draws)))
''',
}


def test_an_experiment_is_decided_by_what_runs_not_by_its_source(tmp_path):
    """A training loop whose backward()/step() sit in a helper, and a NumPy seed sweep, needed no verdict."""
    from tools.runner import execution, reader_machines, selection

    blocks = []
    for i, code in enumerate([*RAN_EXPERIMENTS.values(), "import torch\ntorch.manual_seed(0)\nprint(1)\n"]):
        path = tmp_path / f"b{i}.md"
        path.write_text(f"```python\n{code}```\n", encoding="utf-8")
        [block] = selection.extract(path)
        assert not verdicts.experiment_kind(block.code)  # the source rule misses each
        blocks.append(block)
    results = execution.run(blocks)
    for (what, _), block, result in zip(RAN_EXPERIMENTS.items(), blocks, results):
        assert result.error is None, result.error
        [problem] = verdicts.run_problems(block, result)
        assert f"{block.name}: an experiment block" in problem and "prints no verdict" in problem, what
    assert verdicts.run_problems(blocks[-1], results[-1]) == []  # one literal seed: a demonstration
    assert results[0].ran["optimizer_steps"] == 5 and len(results[1].ran["seeds"]) == 5


def test_every_block_that_ran_as_an_experiment_prints_its_verdicts(snippet_runs):
    from tools.runner import execution, reader_machines, selection

    results = snippet_runs.results(next(iter(reader_machines.VARIANTS)))
    found = [p for b, r in zip(snippet_runs.blocks, results) for p in verdicts.run_problems(b, r)]
    assert not found, "\n".join(found)
