"""Run every snippet block under each supported Python, with the pinned and with the newest releases of
torch, NumPy, Matplotlib and scikit-learn, and say what differs.

The outputs on the pages come from the versions pinned in ``requirements.txt``, installed in ``.venv``.
A reader may have another Python (``tools/python-versions.txt`` lists the supported ones) or newer
releases. This maintainer command measures, one environment at a time, each pair of a supported Python
and a set of versions:

* ``pinned``: the versions of ``requirements.txt``, as pip gives them from the index for that Python
  (on Linux, PyPI's torch is the CUDA build; it runs on the CPU);
* ``newest``: the newest release of each package on the index for that Python (``pip index versions``),
  each asked for by its exact version.

Each package is installed alone, by its exact version (``pip install NAME==VERSION``, one at a time, never
an ``--upgrade`` of several that lets the resolver back off). If pip cannot install one, the table says so
with pip's own error line and that environment runs no block: nothing is guessed. A site-wide pip
constraint file (``pip.conf``'s ``constraint``) is replaced by ``--constraint`` (default: none), because a
reader's machine has no such file. The pages' own environment (the Python of ``.venv`` with the pins) is
not measured here: the test suite checks it on four reader machines.

Each block runs alone, as ``python block.py`` in an empty folder of its own, and its stdout is compared
with the output the page shows. What was measured goes to ``compat/results.json``: every environment's
versions and each block's outcome (with its diff), the fingerprint of the snippet file it ran, the date and
the commit (``git rev-parse HEAD``) it was measured at. The verification pages' table is computed from it at build
time (``hooks/compat.py``), against the snippet files as they are then: a block added or changed since it
was measured shows as not measured, so a new snippet needs no compat run to be published truthfully (the
scheduled workflow ``.github/workflows/compat.yml`` measures everything weekly and opens a pull request).
Each environment is one row; measuring one replaces only its row; measuring some snippet files merges
their outcomes into each row::

    ./run compat                          # every supported Python found here, pinned and newest
    ./run compat --python 3.13 --set newest   # one environment (its row is replaced, the others kept)
    ./run compat snippets/practice/x.md   # these blocks, in each environment, merged into its row
    ./run compat --no-install             # reuse the environments as they are
    ./run compat --tables                 # print each language's table as the home pages show it (no run)

The environments live in ``.cache/compat/<python>-<set>`` (the CUDA build of torch makes each a few GB).
A merge keeps a row's other outcomes only if the environment still has the versions the row was measured
with; otherwise the row holds just the blocks measured now, and the others show as not measured.
Exit status: 0 when it ran (differences are results, not errors), 1 when an environment could not be
made (no such Python here, or ``pip install`` failed: its row then says so).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import difflib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from hooks import site_facts
from hooks.compat import PACKAGES, fingerprint, snippet_of, table, today
from tools.runner import selection
from tools.files import write_atomic

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "compat"
OUT = ROOT / "compat"
PYTHONS = ROOT / "tools" / "python-versions.txt"  # also read by ./run
SETS = ("pinned", "newest")
TIMEOUT = 600  # seconds per block; a first CUDA-build import of torch is slow

VERSIONS_JS = r"""
import importlib, json, platform, sys
out = {"python": platform.python_version()}
for dist, mod in %r.items():
    m = importlib.import_module(mod)
    out[dist] = m.__version__
import torch
out["torch_build"] = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU"
print(json.dumps(out))
"""


@dataclass
class Outcome:
    name: str  # snippet file:line
    same: bool
    seconds: float
    diff: str = ""  # unified diff, page output -> this environment's output
    error: str = ""  # stderr tail when the block failed
    source: str = ""  # fingerprint of the snippet file it ran (hooks/compat.py: fingerprint)
    date: str = ""  # the day it was measured
    commit: str = ""  # HEAD of the repository when it was measured ("" without git)


class EnvError(Exception):
    """An environment that could not be made; the message is what the table shows."""


def block_fingerprint(block: selection.Block) -> str:
    """The fingerprint of the snippet file a block was read from, as it was read."""
    return fingerprint(block.source if block.source is not None else block.path.read_bytes())


def head_commit(root: Path = ROOT) -> str:
    """The commit measured (``git rev-parse HEAD``), or "" where git cannot say."""
    try:
        proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def supported(path: Path = PYTHONS) -> list[str]:
    """The Python versions the project supports (``3.11``, ...), from tools/python-versions.txt."""
    found = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    bad = [v for v in found if not re.fullmatch(r"3\.\d+", v)]
    if bad or not found:
        raise SystemExit(f"{path}: expected one version like 3.12 a line, got {bad or 'nothing'}")
    return found


def pinned(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """The versions the pages were produced with, from requirements.txt."""
    found = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)", line.strip())
        if m and m.group(1).lower() in PACKAGES:
            found[m.group(1).lower()] = m.group(2)
    missing = sorted(set(PACKAGES) - set(found))
    if missing:
        raise SystemExit(f"{requirements}: no `==` pin for {missing}")
    return {dist: found[dist] for dist in PACKAGES}


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _version_of(python: str | Path) -> str | None:
    try:
        proc = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def find_python(minor: str) -> Path:
    """An interpreter of Python ``minor`` (e.g. "3.12"): ``python3.12`` on PATH, else pyenv's."""
    candidates = [shutil.which(f"python{minor}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += sorted(pyenv.glob(f"{minor}.*/bin/python{minor}"), reverse=True)
    for c in candidates:
        version = c and _version_of(c)
        if version and ".".join(version.split(".")[:2]) == minor:
            return Path(c)
    raise EnvError(f"no Python {minor} on this machine (neither python{minor} on PATH nor {pyenv}/{minor}.*)")


def pip_env(constraint: str) -> dict[str, str]:
    """pip's environment: the constraint file replaced (a site-wide one would cap what is measured)."""
    return {**os.environ, "PIP_CONSTRAINT": constraint, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def pip_error(stderr: str) -> str:
    """pip's own error line: the first line of its output that starts with ``ERROR:``."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return next((line for line in lines if line.startswith("ERROR:")), lines[-1] if lines else "pip failed")


def newest_on_index(python: Path | str, constraint: str = os.devnull) -> dict[str, str]:
    """The newest release of each package that pip's index lists for ``python`` (its tags matter:
    a release without a wheel or support for that Python is not listed)."""
    found = {}
    for dist in PACKAGES:
        for _ in range(3):  # a lookup that times out on a busy network is asked again, not taken as "none"
            proc = subprocess.run([str(python), "-m", "pip", "index", "versions", dist], capture_output=True,
                                  text=True, env=pip_env(constraint))
            m = re.search(rf"^{re.escape(dist)} \(([^)]+)\)", proc.stdout, re.M | re.I)
            if m:
                break
        if not m:
            raise EnvError(f"`pip index versions {dist}` found no release: {pip_error(proc.stderr)}")
        found[dist] = m.group(1)
    return found


def install(python: Path | str, wanted: dict[str, str], constraint: str = os.devnull) -> None:
    """``pip install NAME==VERSION`` for each package alone, in order; then check that every one is
    installed at exactly that version (a later install may have moved an earlier one)."""
    for dist, version in wanted.items():
        req = f"{dist}=={version}"
        start = time.perf_counter()
        proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", req], capture_output=True,
                              text=True, env=pip_env(constraint))
        print(f"  pip install {req} ({time.perf_counter() - start:.0f} s)", flush=True)
        if proc.returncode != 0:
            raise EnvError(f"`pip install {req}` failed: `{pip_error(proc.stderr)}`")
    have = versions(python)
    moved = [f"{d} {have[d]} (asked {v})" for d, v in wanted.items() if have[d].split("+")[0] != v]
    if moved:
        raise EnvError(f"after installing each pin, pip left {', '.join(moved)}")


def versions(python: Path | str) -> dict[str, str]:
    proc = subprocess.run([str(python), "-c", VERSIONS_JS % (PACKAGES,)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if proc.returncode != 0:
        raise EnvError(f"{python}: cannot import {', '.join(PACKAGES)}: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fingerprints_at(pairs: set[tuple[str, str]], root: Path = ROOT) -> dict[tuple[str, str], str | None]:
    """The fingerprint of each (commit, snippet file) in git, by one ``git cat-file --batch`` (None: not there,
    or no git)."""
    keys = sorted(pairs)
    try:
        proc = subprocess.run(["git", "cat-file", "--batch"], cwd=root, capture_output=True,
                              input="".join(f"{c}:{p}\n" for c, p in keys).encode())
    except OSError:
        return dict.fromkeys(keys)
    found, out = {}, proc.stdout
    for key in keys:
        head, _, out = out.partition(b"\n")
        if not head or head.endswith((b" missing", b" ambiguous")):
            found[key] = None
            continue
        size = int(head.split()[2])
        found[key], out = fingerprint(out[:size]), out[size + 1:]
    return found


def committed_only(outcomes: list[dict], root: Path = ROOT) -> list[dict]:
    """The outcomes with the commit they name kept only where that commit holds the snippet file they ran: a
    block measured on a file not committed as it was has no commit ("" : the table shows its date alone)."""
    at = fingerprints_at({(o["commit"], snippet_of(o["name"])) for o in outcomes if o.get("commit")}, root)
    return [{**o, "commit": o["commit"] if at.get((o["commit"], snippet_of(o["name"]))) == o["source"] else ""}
            if o.get("commit") else o for o in outcomes]


def run_block(python: Path | str, block: selection.Block, timeout: float = TIMEOUT) -> Outcome:
    """Run one block alone in a fresh interpreter, in an empty folder, and compare with the page."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="compat-") as tmp:
        script = Path(tmp) / "block.py"
        script.write_text(block.code, encoding="utf-8")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "TMPDIR": tmp,
               "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "PYTHONIOENCODING": "utf-8"}
        try:
            proc = subprocess.run([str(python), script.name], cwd=tmp, env=env, capture_output=True,
                                  text=True, timeout=timeout)
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as err:
            stdout = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
            stderr, code = f"timed out after {timeout} s", -1
    seconds = time.perf_counter() - start
    expected = block.expected or ""
    same = code == 0 and stdout == expected
    diff = "" if stdout == expected else "".join(difflib.unified_diff(
        expected.splitlines(True), stdout.splitlines(True), "page", "measured"))
    error = "" if code == 0 else "\n".join(stderr.strip().splitlines()[-15:])
    return Outcome(block.name, same, round(seconds, 1), diff, error, block_fingerprint(block),
                   dt.date.today().isoformat(), head_commit())


def compare(python: Path | str, blocks: list[selection.Block], jobs: int = 2,
            timeout: float = TIMEOUT) -> list[Outcome]:
    """Every block under ``python``, in input order, ``jobs`` at a time."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda b: run_block(python, b, timeout), blocks))


def measure(minor: str, which: str, blocks: list[selection.Block], do_install: bool = True, jobs: int = 2,
            constraint: str = os.devnull, cache: Path = CACHE) -> dict:
    """One environment (Python ``minor``, versions ``which``): made, installed, every block run.
    Returns its row of results.json; an environment that cannot be made is a row with its ``error``."""
    row = {"python": minor, "set": which, "date": dt.date.today().isoformat(), "commit": head_commit(),
           "asked": {}, "versions": {}, "error": "", "outcomes": []}
    venv = cache / f"{minor}-{which}"
    try:
        py = venv_python(venv)
        if not py.exists():
            base = find_python(minor)
            print(f"creating {venv} with {base} ...", flush=True)
            subprocess.run([str(base), "-m", "venv", str(venv)], check=True)
            do_install = True
        if do_install:
            row["asked"] = pinned() if which == "pinned" else newest_on_index(py, constraint)
            print(f"installing into {venv}, each by its exact version (the CUDA build of torch is a few GB):",
                  flush=True)
            install(py, row["asked"], constraint)
        row["versions"] = versions(py)
        if not do_install:  # as it is: what it has is what was asked
            row["asked"] = {d: row["versions"][d].split("+")[0] for d in PACKAGES}
    except EnvError as err:
        row["error"] = str(err)
        print(f"Python {minor}, {which}: {err}", flush=True)
        return row
    v = row["versions"]
    print(f"running {len(blocks)} blocks under Python {v['python']}, " + ", ".join(f"{d} {v[d]}" for d in PACKAGES)
          + f" ({v['torch_build']}) ...", flush=True)
    start = time.perf_counter()
    outcomes = compare(py, blocks, jobs=jobs)
    for o in outcomes:
        print(f"{'same   ' if o.same else 'DIFFERS'} {o.name} ({o.seconds} s)")
        if o.diff:
            print("    " + o.diff.replace("\n", "\n    ").rstrip())
        if o.error:
            print("    " + o.error.replace("\n", "\n    "))
    differing = sum(not o.same for o in outcomes)
    print(f"Python {minor}, {which}: {len(outcomes) - differing} of {len(outcomes)} blocks print the same; "
          f"{differing} differ ({time.perf_counter() - start:.0f} s)", flush=True)
    row["outcomes"] = committed_only([asdict(o) for o in outcomes])
    return row


# --------------------------------------------------------------------------- results.json

def machine() -> str:
    """e.g. ``Linux x86_64, Intel(R) Xeon(R) Processor (AVX-512)``."""
    cpu, isa = "", ""
    try:
        info = Path("/proc/cpuinfo").read_text()
        cpu = re.search(r"^model name\s*:\s*(.+)$", info, re.M).group(1).strip()
        flags = set(re.search(r"^flags\s*:\s*(.+)$", info, re.M).group(1).split())
        isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    except (OSError, AttributeError):
        pass
    return f"{platform.system()} {platform.machine()}" + (f", {cpu}" if cpu else "") + (f" ({isa})" if isa else "")


def merge(result: dict | None, rows: list[dict], pages: dict, order: list[str]) -> dict:
    """results.json with ``rows`` replacing the environments of the same Python and set; the others kept,
    in the order of the supported Pythons, pinned before newest."""
    kept = {(r["python"], r["set"]): r for r in (result or {}).get("environments", [])}
    kept.update({(r["python"], r["set"]): r for r in rows})
    rank = {v: i for i, v in enumerate(order)}
    envs = sorted(kept.values(), key=lambda r: (rank.get(r["python"], len(rank)), r["python"], SETS.index(r["set"])))
    return {"machine": machine(), "pages": pages, "environments": envs}


def merge_blocks(old: dict | None, new: dict) -> tuple[dict, str]:
    """The row of one environment after measuring some of its blocks (``new``): their outcomes replace
    those of the same snippet files in ``old`` and the others are kept, if the environment still has the
    versions ``old`` was measured with. Otherwise (no old row, it could not be installed then, or its
    versions moved) the row is ``new`` alone and the others are not measured. A ``new`` that could not be
    made keeps ``old``: it is still what was measured. Returns the row and what happened, in a sentence."""
    env = f"Python {new['python']}, {new['set']}"
    if new["error"]:
        return (old or new), f"{env}: {new['error']}; its row is kept as it was"
    if not old or old["error"]:
        return new, f"{env}: a new row with {len(new['outcomes'])} blocks; the others are not measured"
    if old["versions"] != new["versions"]:
        moved = ", ".join(f"{d} {old['versions'].get(d)} -> {v}" for d, v in new["versions"].items()
                          if old["versions"].get(d) != v)
        return new, (f"{env}: the versions moved since the row was measured ({moved}): the row now holds only the "
                     f"{len(new['outcomes'])} blocks measured now; `./run compat --python {new['python']} --set "
                     f"{new['set']}` measures the others")
    measured = {snippet_of(o["name"]) for o in new["outcomes"]}
    outcomes = [o for o in old["outcomes"] if snippet_of(o["name"]) not in measured] + new["outcomes"]
    for o in outcomes:  # an outcome merged before carries its own; those of the row's own run get the row's
        o.setdefault("date", old["date"])
        o.setdefault("commit", old.get("commit", ""))
    row = {**old, "outcomes": sorted(outcomes, key=lambda o: o["name"])}
    return row, f"{env}: {len(new['outcomes'])} blocks merged into its row"


def write(result: dict, out: Path = OUT) -> list[Path]:
    """results.json, written atomically (the home pages' table is computed from it at build time)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    write_atomic(path, json.dumps(result, ensure_ascii=False, indent=1) + "\n")
    return [path]


def _shown(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="./run compat", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path,
                    help="snippet files or folders: measure only their blocks and merge them into each row (default: all)")
    ap.add_argument("--python", action="append", default=[], metavar="3.X",
                    help="only this Python (repeatable; default: every one of tools/python-versions.txt)")
    ap.add_argument("--set", action="append", default=[], choices=SETS, help="only these versions (repeatable)")
    ap.add_argument("--no-install", action="store_true", help="do not install packages into existing environments")
    ap.add_argument("--constraint", default=os.devnull, metavar="FILE",
                    help="pip constraint file for the installs (default: none, replacing a site-wide one)")
    ap.add_argument("--jobs", type=int, default=2, help="blocks run at once (default 2)")
    ap.add_argument("--out", type=Path, default=OUT, help="where results.json goes (default compat/)")
    ap.add_argument("--cache", type=Path, default=CACHE, help="where the environments live (default .cache/compat/)")
    ap.add_argument("--discard", action="store_true",
                    help="remove each environment once it is measured (a few GB each: for CI runners' disks)")
    ap.add_argument("--tables", action="store_true",
                    help="only print each language's table from results.json, as the home pages show it (no run)")
    args = ap.parse_args(argv)
    results = args.out / "results.json"
    if args.tables:
        facts, now = site_facts.load(), today(ROOT)
        for lang in facts.languages:
            print(f"<!-- {lang} -->\n{table(lang, json.loads(results.read_text(encoding='utf-8')), now, facts)}")
        return 0
    order = supported()
    unknown = [v for v in args.python if v not in order]
    if unknown:
        raise SystemExit(f"./run compat: Python {', '.join(unknown)} is not supported ({PYTHONS.name}: {', '.join(order)})")
    pages = {**versions(sys.executable)}
    blocks = selection.collect(args.paths or None)
    unreadable = [b.error for b in blocks if b.error]
    if unreadable:
        raise SystemExit("./run compat: these snippet files cannot be read; fix them first:\n" + "\n".join(unreadable))
    failed = False
    for minor in args.python or order:
        for which in args.set or SETS:
            if which == "pinned" and minor == ".".join(pages["python"].split(".")[:2]):
                continue  # the pages' own environment: the test suite checks it
            row = measure(minor, which, blocks, do_install=not args.no_install, jobs=args.jobs,
                          constraint=args.constraint, cache=args.cache)
            failed |= bool(row["error"])
            if args.discard:
                shutil.rmtree(args.cache / f"{minor}-{which}", ignore_errors=True)
            old = json.loads(results.read_text(encoding="utf-8")) if results.exists() else None
            if args.paths:
                before = next((r for r in (old or {}).get("environments", [])
                               if (r["python"], r["set"]) == (minor, which)), None)
                row, said = merge_blocks(before, row)
                print(said, flush=True)
            for path in write(merge(old, [row], pages, order), args.out):  # each row as soon as it is measured
                print(f"wrote {_shown(path)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
