"""Promise 2 — every output is real.

Each snippet block runs alone in a fresh process and must print exactly the output shown under
it on the page; figures it draws must match the committed SVGs within a tolerance no reader can
see (``snippets.FIGURE_TOLERANCE``, same structure and text). The same must hold on every reader
machine of ``snippets.VARIANTS``: oneDNN and MKL capped to AVX2 or SSE4, MKL's reproducible mode,
ATen without AVX2, 1, 2 or 3 threads. The comparison is ``snippets.reconcile``, the function
``refresh`` writes with. A failure names the file and line and shows a unified diff.
"""

from __future__ import annotations

import pytest

import re
import sys
from pathlib import Path

from hooks import site_facts
from tools import snippets, sources

SITE = site_facts.load()

BLOCKS = snippets.collect()
FILES = snippets.snippet_files()


def _ids(blocks):
    return [b.name.removeprefix("snippets/") for b in blocks]


@pytest.mark.parametrize("variant", list(snippets.VARIANTS))
@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=_ids(BLOCKS))
def test_block_prints_what_the_page_shows(snippet_runs, index, variant):
    block = BLOCKS[index]
    result = snippet_runs.results(variant)[index]
    problems = [f.message for f in snippets.reconcile(block, result)]
    if problems:
        pytest.fail(f"[{variant}]\n" + "\n".join(problems), pytrace=False)


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(snippets.SNIPPETS).as_posix() for p in FILES])
def test_snippet_file_is_run_and_shown(path):
    """A snippet that runs nothing, or that no page shows in both languages, is a silent gap."""
    rel = path.relative_to(snippets.SNIPPETS).as_posix()
    skipped = snippets.skipped_fences(path)
    assert not skipped, (f"snippets/{rel}: fences at lines {skipped} would be skipped by pytest-codeblocks;"
                         " the info string must be exactly `python`")
    assert snippets.extract(path), f"snippets/{rel} holds no block that pytest-codeblocks runs"
    for lang in SITE.languages:
        users = [p for p in sources.pages(lang) if p.endswith(".md")
                 and rel in sources.includes(sources.read(lang, p))]
        assert users, f"snippets/{rel} is included by no page in docs/{lang}/"


def test_every_figure_is_drawn_by_a_snippet(snippet_runs):
    """A committed figure that no snippet draws is a picture nobody can check."""
    drawn = {name for r in snippet_runs.results(next(iter(snippets.VARIANTS))) for name in r.figures}
    committed = {p.relative_to(snippets.FIGURES).as_posix() for p in snippets.FIGURES.rglob("*") if p.is_file()}
    assert committed <= drawn, f"figures no snippet draws: {sorted(committed - drawn)}"


def test_versions_block_shows_what_every_install_with_the_pins_prints():
    """home/versions.md is compared exactly like every block: so it must print what any reader's install
    of requirements.txt prints: the pinned versions, torch without its build tag (+cpu from the CPU
    index, +cu130 from PyPI on Linux), and the Python version the README asks for."""
    [block] = snippets.extract(snippets.SNIPPETS / "home" / "versions.md")
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (SITE.root / "requirements.txt").read_text(), re.M))
    shown = dict(line.split(None, 1) for line in block.expected.splitlines())
    assert shown["torch"] == pins["torch"] and "+" not in shown["torch"]
    for name in ("numpy", "scikit-learn", "matplotlib"):
        assert shown[name] == pins[name], f"snippets/home/versions.md shows {name} {shown[name]}, pinned {pins[name]}"
    # every supported Python prints the same line (the range of tools/python-versions.txt), this one too
    versions = (SITE.root / "tools" / "python-versions.txt").read_text(encoding="utf-8").split()
    assert shown["Python"] == f"{versions[0]}–{versions[-1]}", f"snippets/home/versions.md shows Python {shown['Python']}"
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in versions
    need = f"Python {', '.join(versions[:-1])} or {versions[-1]}"
    assert need in (SITE.root / "README.md").read_text(encoding="utf-8"), f"README.md does not say {need!r}"


def test_reader_machines_move_the_kernels_that_do_the_work():
    """Each cap must reach the library it names: a variant that changes nothing protects nothing."""
    envs = [v.env for v in snippets.VARIANTS.values()]
    assert {e.get("ONEDNN_MAX_CPU_ISA") for e in envs} >= {None, "AVX2", "SSE41"}
    assert {e.get("MKL_ENABLE_INSTRUCTIONS") for e in envs} >= {None, "AVX2", "SSE4_2"}
    assert any(e.get("MKL_CBWR") == "COMPATIBLE" for e in envs)
    assert any(e.get("ATEN_CPU_CAPABILITY") == "default" for e in envs)
    assert any(int(e["OMP_NUM_THREADS"]) > 2 for e in envs)  # more threads than this machine's cores


def test_the_avx2_laptop_really_takes_other_kernels(tmp_path):
    """float32 GELU is oneDNN's: its AVX-512 and AVX2 kernels round GELU(-3) differently. If the cap
    stopped reaching oneDNN (a torch upgrade, a renamed variable), this machine would emulate nothing."""
    path = tmp_path / "gelu.md"
    path.write_text("```python\nimport torch\nimport torch.nn.functional as F\n"
                    "print(F.gelu(torch.tensor([-3.0, 3.0])).tolist())\n```\n", encoding="utf-8")
    blocks = snippets.extract(path)
    runs, _ = snippets.run_variants(blocks, {k: v for k, v in snippets.VARIANTS.items()
                                             if k.startswith(("native", "AVX2"))})
    native, avx2 = (r[0].stdout for r in runs.values())
    assert native and avx2 and native != avx2, (native, avx2)
