"""What each reader machine's libraries really ran (oneDNN, MKL, ATen, the threads), read from the kernel
probe each machine runs after its blocks (``execution.KERNEL_PROBE``), and whether that is what the machine's
name says (``machine_checks``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tools.runner.execution import LAST_PROBES, run_variants
from tools.runner.reader_machines import _ISA_RANK, VARIANTS, Variant

# MKL names the processor class it dispatches for ("Intel(R) AVX2 enabled processors") on Intel CPUs only.
_ISA_WORDS = [("AVX-512", r"avx-?512"), ("AVX2", r"avx2"), ("SSE4.2", r"sse4[._]?2"), ("SSE4.1", r"sse4[._]?1")]
# What each library reports under each cap (oneDNN has no SSE4.2 level: ONEDNN_MAX_CPU_ISA=SSE41).
CAP_REPORTS = {"AVX2": {"oneDNN": "AVX2", "ATen": "AVX2", "MKL": "AVX2"},
               "SSE4.2": {"oneDNN": "SSE4.1", "ATen": "DEFAULT", "MKL": "SSE4.2"}}
_ATEN_HOST = {"AVX-512": "AVX512", "AVX2": "AVX2", "AVX": "DEFAULT", "SSE4.2": "DEFAULT"}


def isa_named(text: str | None) -> str | None:
    for isa, pattern in _ISA_WORDS:
        if text and re.search(pattern, text, re.I):
            return isa
    return None


@dataclass
class KernelReport:
    """What the libraries said inside one block's process on one reader machine."""

    aten: str  # torch.backends.cpu.get_cpu_capability()
    threads: int  # torch.get_num_threads()
    onednn_isa: str  # oneDNN's "isa:" line
    onednn_kernel: str  # the implementation that ran F.gelu, e.g. jit:avx2
    mkl_processors: str  # MKL's version line: the processors it dispatches for
    mkl_cnr: str  # MKL's conditional numerical reproducibility mode for the matmul (CNR:OFF, CNR:COMPATIBLE)
    mkl_threads: int  # MKL's NThr for the matmul


def parse_kernel_report(stdout: str, where: str) -> KernelReport:
    """Fails loudly, naming the machine and what was expected, if a library stopped reporting."""
    def find(pattern: str, what: str) -> re.Match:
        m = re.search(pattern, stdout, re.M)
        if m is None:
            raise RuntimeError(f"{where}: expected {what} in the probe's output (pattern {pattern!r}); "
                               f"a torch upgrade may have changed it. Output:\n{stdout[:2000]}")
        return m

    aten, threads = json.loads(find(r"^ATEN (.*)$", "the ATen capability line").group(1))
    isa = find(r"^onednn_verbose,.*,info,cpu,isa:(.*)$", "oneDNN's ISA line (ONEDNN_VERBOSE)").group(1)
    kernel = find(r"^onednn_verbose,.*,exec,cpu,eltwise,([^,]+),", "oneDNN's eltwise exec line").group(1)
    version = find(r"^MKL_VERBOSE (?:oneMKL|Intel\(R\) MKL) .*$", "MKL's version line (MKL_VERBOSE)").group(0)
    call = find(r"^MKL_VERBOSE SGEMM\(.*CNR:(\S+).*NThr:(\d+)", "MKL's SGEMM line")
    return KernelReport(aten, int(threads), isa.strip(), kernel, version, call.group(1), int(call.group(2)))





def kernel_reports(variants: dict[str, Variant] | None = None) -> dict[str, KernelReport]:
    """What each machine's libraries really used: from the probe of the last ``run_variants`` over these
    machines (the test suite's snippet runs), or from a run of the probe alone."""
    variants = VARIANTS if variants is None else variants
    if not set(variants) <= set(LAST_PROBES):
        run_variants([], variants, timeout=120)
    out = {}
    for label in variants:
        result = LAST_PROBES[label]
        if result.error:
            raise RuntimeError(f"[{label}] the kernel probe failed:\n{result.error}")
        out[label] = parse_kernel_report(result.stdout, f"[{label}]")
    return out


ASPECTS = ("threads and MKL's mode", "oneDNN and ATen kernels", "MKL's instruction set")


def machine_checks(label: str, variant: Variant, report: KernelReport, native: KernelReport,
                   host: str) -> dict[str, tuple[list[str], list[str]]]:
    """Whether one machine ran what its name says, from the libraries' own reports, per aspect of ``ASPECTS``.

    Each aspect gives (problems, unverifiable): what contradicts the name, and what this host cannot show
    (a cap at or above the host's ISA; MKL naming no ISA on a non-Intel CPU), each said in words.
    """
    threads: list[str] = []
    if report.threads != variant.threads:
        threads.append(f"[{label}] torch runs {report.threads} threads, the machine has {variant.threads}")
    if report.mkl_threads != variant.threads:
        threads.append(f"[{label}] MKL runs its matmul on {report.mkl_threads} threads, the machine has {variant.threads}")
    cbwr = variant.env.get("MKL_CBWR")
    if report.mkl_cnr != (cbwr or "OFF"):
        threads.append(f"[{label}] MKL reports CNR:{report.mkl_cnr}, the machine sets MKL_CBWR={cbwr or '(unset)'}")
    out = {ASPECTS[0]: (threads, [])}
    kernels: list[str] = []
    mkl: tuple[list[str], list[str]] = ([], [])
    if variant.cap is None:
        if report.aten != _ATEN_HOST[host]:
            kernels.append(f"[{label}] ATen runs {report.aten} kernels, the host has {host} "
                           f"({_ATEN_HOST[host]} expected)")
        for name, text in (("oneDNN's ISA line", report.onednn_isa), ("oneDNN's kernel", report.onednn_kernel)):
            if isa_named(text) != isa_named(native.onednn_isa):
                kernels.append(f"[{label}] {name} says {text!r}, the native machine's {native.onednn_isa!r}")
        # MKL_CBWR=COMPATIBLE may run MKL's compatible branch, which MKL names with no instruction set
        # ("Intel(R) Architecture processors"; seen on an AVX-512 + AMX Xeon, 2 Dec 2026)
        allowed = {isa_named(native.mkl_processors)} | ({None} if cbwr == "COMPATIBLE" else set())
        if isa_named(report.mkl_processors) not in allowed:
            mkl[0].append(f"[{label}] MKL dispatches for {report.mkl_processors!r}, natively {native.mkl_processors!r}")
        return {**out, ASPECTS[1]: (kernels, []), ASPECTS[2]: mkl}
    want = CAP_REPORTS[variant.cap]
    if not variant.caps_something(host):
        lower = [c for c in CAP_REPORTS if _ISA_RANK[c] < _ISA_RANK[host]]
        instead = f"the {lower[0]} cap is checked instead" if lower else "no lower cap exists here either"
        why = (f"[{label}] this host has nothing above {variant.cap} (its best is {host}): the cap runs the native "
               f"kernels here, so it cannot be seen to move them; {instead}")
        return {**out, ASPECTS[1]: ([], [why]), ASPECTS[2]: ([], [why])}
    for name, text in (("oneDNN's ISA line", report.onednn_isa), ("oneDNN's kernel for F.gelu", report.onednn_kernel)):
        if isa_named(text) != want["oneDNN"]:
            kernels.append(f"[{label}] {name} says {text!r}: ONEDNN_MAX_CPU_ISA did not reach oneDNN "
                           f"({want['oneDNN']} expected, natively {native.onednn_isa!r})")
    if report.aten != want["ATen"]:
        kernels.append(f"[{label}] ATen reports {report.aten}: ATEN_CPU_CAPABILITY did not reach it "
                       f"({want['ATen']} expected, natively {native.aten})")
    if isa_named(native.mkl_processors) is None:
        mkl[1].append(f"[{label}] MKL names no instruction set on this CPU ({native.mkl_processors!r}): whether "
                      f"MKL_ENABLE_INSTRUCTIONS={variant.env['MKL_ENABLE_INSTRUCTIONS']} reaches MKL cannot be read "
                      "here (MKL names it on Intel CPUs)")
    elif isa_named(report.mkl_processors) != want["MKL"]:
        mkl[0].append(f"[{label}] MKL dispatches for {report.mkl_processors!r}: MKL_ENABLE_INSTRUCTIONS did not reach "
                      f"MKL ({want['MKL']} expected)")
    return {**out, ASPECTS[1]: (kernels, []), ASPECTS[2]: mkl}


def describe(report: KernelReport) -> str:
    return (f"ATen {report.aten}, oneDNN {report.onednn_kernel}, MKL CNR:{report.mkl_cnr}, "
            f"{report.threads} torch / {report.mkl_threads} MKL threads")


def unverifiable_note(facts: list[str]) -> str:
    """What ``check --variants`` says of the kernel facts this CPU cannot show: a fact, not a problem."""
    if not facts:
        return ""
    return "\n".join([f"For information, nothing to do: {len(facts)} kernel facts this CPU cannot show "
                       "(a run on a CPU that can checks them):", *(f"  {c}" for c in facts)])
