"""The reader machines a block runs on: this host as readers' CPUs and installs differ (an older instruction
set, more threads than cores, MKL's reproducible mode), each a set of environment variables and a thread count
(``VARIANTS``; ``DEFAULT`` is the native one), and the clean environment a block's process gets."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Reader machines, relative to the host. Each moves the kernels that really do the work in torch
# 2.13.0+cpu (torch.__config__.show(): BLAS_INFO=mkl; oneDNN v3.12 for many NN ops such as F.gelu; ATen's
# own vectorized kernels), and the thread count. ATEN_CPU_CAPABILITY reaches only ATen's kernels, so an
# older CPU needs the oneDNN and MKL caps too. A cap at or above what the host has changes nothing (an
# AVX2 cap on an AVX2 host): the names say what each machine caps relative to this host, and
# ``kernel_reports`` asks the libraries what each machine really ran (tests/test_snippets.py).
# torch caps OMP_NUM_THREADS at the core count, so the thread count is set in each block's process with
# torch.set_num_threads (tools/runner/worker.py); "more threads than cores" is computed from this machine.
_ISA_RANK = {"SSE4.2": 0, "AVX": 1, "AVX2": 2, "AVX-512": 3}


def cores() -> int:
    """The cores this process may run on (its affinity), not a number written down for one machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def host_isa() -> str:
    """The best vector ISA of this CPU, in the libraries' terms: AVX-512 (F, BW, DQ, VL), AVX2, AVX or SSE4.2.

    From the CPU flags (cheap, no torch import); the native machine's ATen report is checked against it.
    """
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), None)
    if line is None:  # not Linux: ask torch, in a process of its own
        cap = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                             capture_output=True, text=True, env=machine_env(Variant({}, 1, 1))).stdout.strip()
        return {"AVX512": "AVX-512", "AVX2": "AVX2"}.get(cap, "SSE4.2")
    flags = set(line.split(":", 1)[1].split())
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "AVX-512"
    if "avx2" in flags:
        return "AVX2"
    return "AVX" if "avx" in flags else "SSE4.2"


@dataclass(frozen=True)
class Variant:
    env: dict[str, str]  # set before torch is imported (the forkserver's environment)
    threads: int  # torch.set_num_threads in each block's process
    workers: int  # blocks at a time
    cap: str | None = None  # the ISA oneDNN, MKL and ATen are capped to ("AVX2", "SSE4.2"); None: the host's

    def caps_something(self, host: str) -> bool:
        """Whether the cap is below what the host has (an AVX2 cap on an AVX2 host runs the native kernels)."""
        return self.cap is not None and _ISA_RANK[self.cap] < _ISA_RANK[host]


def _threads(n: int) -> dict[str, str]:
    return {"OMP_NUM_THREADS": str(n), "MKL_NUM_THREADS": str(n)}


def reader_machines(host: str | None = None, ncores: int | None = None) -> dict[str, Variant]:
    """The four reader machines on this host. Machines of one thread run a block per core; machines of
    several threads run one block at a time (oversubscribed OpenMP threads that spin-wait cost several
    times their CPU time), and one of them has more threads than the cores on purpose."""
    host = host_isa() if host is None else host
    ncores = cores() if ncores is None else ncores
    one = max(1, min(ncores, 8))
    many = ncores + 1

    def capped(isa: str) -> str:
        return f"capped to {isa}" + ("" if _ISA_RANK[isa] < _ISA_RANK[host] else f" (host: {host}, nothing to cap)")

    return {
        f"native (host: {host}), 1 thread": Variant(_threads(1), 1, workers=one),
        f"{capped('SSE4.2')}, 1 thread": Variant(
            {"ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ATEN_CPU_CAPABILITY": "default",
             **_threads(1)}, 1, workers=one, cap="SSE4.2"),
        f"{capped('AVX2')}, 2 threads": Variant(
            {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2",
             **_threads(2)}, 2, workers=max(1, ncores // 2), cap="AVX2"),
        f"MKL_CBWR=COMPATIBLE, more threads than cores ({many} on {ncores})": Variant(
            {"MKL_CBWR": "COMPATIBLE", **_threads(many)}, many, workers=1),
    }


VARIANTS: dict[str, Variant] = reader_machines()
DEFAULT = next(iter(VARIANTS.values()))
# Environment a block gets: only what it needs, never the caller's proxies, library caps or hash seed.
_KEPT_ENV = ("PATH", "HOME", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "LC_CTYPE")


def machine_env(variant: Variant) -> dict[str, str]:
    """A clean environment: nothing of the caller's (proxies, MKL_*/ONEDNN_* caps, PYTHONHASHSEED) but what
    ``_KEPT_ENV`` names, then the machine's own settings."""
    env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
    # Passive OpenMP waiting changes no result, only keeps a busy machine from crawling.
    return {**env, "MPLBACKEND": "Agg", "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT), **variant.env}
