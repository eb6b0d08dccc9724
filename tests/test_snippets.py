"""Promise 2 — every output is real.

Each snippet block runs alone in a fresh process and must print exactly the output shown under
it on the page; figures it draws must match the committed SVGs within a tolerance no reader can
see (``comparison.FIGURE_TOLERANCE``, same structure and text). The same must hold on every reader
machine of ``reader_machines.VARIANTS``, named relative to the host: native; oneDNN, MKL and ATen capped to
AVX2 or to SSE4.2; MKL's reproducible mode with more threads than cores. What each machine really ran is
read from the libraries' own reports. The comparison is ``refresh.reconcile``, the function
``refresh`` writes with. A failure names the file and line and shows a unified diff.
"""

from __future__ import annotations

import dataclasses

import pytest

import re
import sys
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.runner import comparison, kernel_facts, reader_machines, refresh, selection

SITE = site_facts.load()

BLOCKS = selection.collect()
FILES = selection.snippet_files()


def _ids(blocks):
    return [b.name.removeprefix("snippets/") for b in blocks]


@pytest.mark.parametrize("variant", list(reader_machines.VARIANTS))
@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=_ids(BLOCKS))
def test_block_prints_what_the_page_shows(snippet_runs, index, variant):
    block = BLOCKS[index]
    result = snippet_runs.results(variant)[index]
    problems = [f.message for f in refresh.reconcile(block, result)]
    if problems:
        pytest.fail(f"[{variant}]\n" + "\n".join(problems), pytrace=False)


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(selection.SNIPPETS).as_posix() for p in FILES])
def test_snippet_file_is_run_and_shown(path):
    """A snippet that runs nothing, or that no page shows in both languages, is a silent gap."""
    rel = path.relative_to(selection.SNIPPETS).as_posix()
    bad = selection.fence_problems(path)
    assert not bad, "\n".join(bad)
    assert selection.extract(path), f"snippets/{rel} holds no block that pytest-codeblocks runs"
    for lang in SITE.languages:
        users = [p for p in sources.pages(lang) if p.endswith(".md")
                 and rel in sources.includes(sources.read(lang, p))]
        assert users, f"snippets/{rel} is included by no page in docs/{lang}/"


def test_every_figure_is_drawn_by_a_snippet(snippet_runs):
    """A committed figure that no snippet draws is a picture nobody can check."""
    drawn = {name for r in snippet_runs.results(next(iter(reader_machines.VARIANTS))) for name in r.figures}
    committed = {p.relative_to(refresh.FIGURES).as_posix() for p in refresh.FIGURES.rglob("*") if p.is_file()}
    assert committed <= drawn, f"figures no snippet draws: {sorted(committed - drawn)}"


def test_versions_block_shows_what_every_install_with_the_pins_prints():
    """home/versions.md is compared exactly like every block: so it must print what any reader's install
    of requirements.txt prints: the pinned versions, torch without its build tag (+cpu from the CPU
    index, +cu130 from PyPI on Linux), and the Python version the README asks for."""
    [block] = selection.extract(selection.SNIPPETS / "home" / "versions.md")
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


HOST = reader_machines.host_isa()
NATIVE = next(iter(reader_machines.VARIANTS))


@pytest.fixture(scope="module")
def kernels(snippet_runs):
    """What each machine's libraries said they used: the probe that ran with the suite's snippet runs."""
    for variant in reader_machines.VARIANTS:
        snippet_runs.results(variant)
    return kernel_facts.kernel_reports()


def test_the_native_machine_is_this_host(kernels):
    """The names are relative to the host: the native machine must run what the host has."""
    assert NATIVE.startswith(f"native (host: {HOST})"), NATIVE
    bad, _ = kernel_facts.machine_checks(NATIVE, reader_machines.VARIANTS[NATIVE], kernels[NATIVE], kernels[NATIVE],
                                     HOST)["oneDNN and ATen kernels"]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("aspect", kernel_facts.ASPECTS)
@pytest.mark.parametrize("variant", list(reader_machines.VARIANTS))
def test_each_reader_machine_runs_what_its_name_says(kernels, variant, aspect):
    """Verified from what oneDNN (ONEDNN_VERBOSE), MKL (MKL_VERBOSE) and ATen report inside a block's
    process, never from whether two outputs happen to differ. What this host cannot show is a skip that
    says why (e.g. an AVX2 cap on an AVX2 host), never a silent pass."""
    bad, cannot = kernel_facts.machine_checks(variant, reader_machines.VARIANTS[variant], kernels[variant], kernels[NATIVE],
                                          HOST)[aspect]
    assert not bad, "\n".join(bad)
    if cannot:
        pytest.skip("; ".join(cannot))


def test_some_cap_moves_the_kernels_on_this_host(kernels):
    """Whatever the host, at least one cap must be seen to move oneDNN and ATen off the native kernels."""
    moved = [label for label, v in reader_machines.VARIANTS.items() if v.caps_something(HOST)]
    assert moved, f"no cap of {list(reader_machines.VARIANTS)} is below this host's {HOST}"
    for label in moved:
        assert kernels[label].onednn_kernel != kernels[NATIVE].onednn_kernel, (label, kernels[label])
        assert kernels[label].aten != kernels[NATIVE].aten or HOST in ("AVX", "SSE4.2"), (label, kernels[label])


def test_more_threads_than_cores_is_counted_on_this_machine():
    cores = reader_machines.cores()
    most = max(v.threads for v in reader_machines.VARIANTS.values())
    assert most == cores + 1, (most, cores)
    assert any(f"({most} on {cores})" in label for label in reader_machines.VARIANTS)


def test_on_an_avx2_host_the_checks_say_what_they_cannot_see_and_check_the_sse_cap():
    """An AVX2-only host emulated here with the libraries' own caps on every machine: the AVX2 cap is
    reported as nothing to cap (a skip reason, not a pass), and the SSE4.2 cap is still seen to move the
    kernels, from what oneDNN and ATen report."""
    avx2 = {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"}
    machines = {label: dataclasses.replace(v, env={**avx2, **v.env})
                for label, v in reader_machines.reader_machines(host="AVX2").items() if "more threads" not in label}
    native, sse, capped = machines
    assert capped == "capped to AVX2 (host: AVX2, nothing to cap), 2 threads" and sse == "capped to SSE4.2, 1 thread"
    reports = kernel_facts.kernel_reports(machines)
    checks = {label: kernel_facts.machine_checks(label, v, reports[label], reports[native], "AVX2")
              for label, v in machines.items()}
    assert all(not bad for c in checks.values() for bad, _ in c.values()), checks
    [why] = checks[capped]["oneDNN and ATen kernels"][1]
    assert "nothing above AVX2" in why and "the SSE4.2 cap is checked instead" in why
    assert checks[sse]["oneDNN and ATen kernels"] == ([], [])
    assert reports[sse].onednn_kernel == "jit:sse41" and reports[native].onednn_kernel == "jit:avx2"
