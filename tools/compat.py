"""Run every snippet block under the newest torch, NumPy, Matplotlib and scikit-learn, and say what differs.

The outputs on the pages come from the versions pinned in ``requirements.txt``. A reader may have newer
ones. This maintainer command installs the newest releases that this machine's pip can install into a
separate virtual environment (``.cache/compat-venv`` by default), runs each block there alone, as
``python block.py`` in an empty folder of its own, and compares its stdout with the output the page
shows. It writes what it measured, and when, to ``compat/`` (a table per language, included on both
home pages by ``hooks/compat.py``, and the raw results with the diffs)::

    ./run compat                         # install or upgrade .cache/compat-venv, run every block, write compat/
    ./run compat --no-install            # reuse the environment as it is
    ./run compat snippets/home           # only some snippet files (the table is then not written)
    ./run compat --venv .cache/cuda-venv --install torch==2.13.0   # another install, e.g. PyPI's CUDA build
                                         # of the pinned torch (reported, the table is not written)

Exit status: 0 when it ran (differences are results, not errors), 1 when the environment could not be made.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import difflib
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from hooks import site_facts
from tools import snippets

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".cache" / "compat-venv"
OUT = ROOT / "compat"
# distribution name -> import name
PACKAGES = {"torch": "torch", "numpy": "numpy", "matplotlib": "matplotlib", "scikit-learn": "sklearn"}
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
    source: str = ""  # fingerprint of the block's code and shown output (see fingerprint)


def fingerprint(block: snippets.Block) -> str:
    """Changes when the block's code or its shown output does: a table measured before is stale."""
    return hashlib.sha256(f"{block.code}\0{block.expected or ''}".encode()).hexdigest()[:16]


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
    return found


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def make_env(venv: Path, install: bool = True, requirements: list[str] | None = None) -> Path:
    """Create ``venv`` if needed and install or upgrade the newest releases pip allows here
    (or ``requirements``, plus the other packages unpinned)."""
    py = venv_python(venv)
    if not py.exists():
        print(f"creating {venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        install = True
    if install:
        wanted = list(requirements or [])
        named = {re.split(r"[=<>!~ \[]", r, maxsplit=1)[0].lower() for r in wanted}
        wanted += [dist for dist in PACKAGES if dist not in named]
        print(f"installing {' '.join(wanted)} into {venv} (the CUDA build of torch is a few GB) ...", flush=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--upgrade", *wanted], check=True)
    return py


def versions(python: Path | str) -> dict[str, str]:
    proc = subprocess.run([str(python), "-c", VERSIONS_JS % (PACKAGES,)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if proc.returncode != 0:
        raise SystemExit(f"{python}: cannot import {', '.join(PACKAGES)}:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def newest_on_index(python: Path | str) -> dict[str, str]:
    """The newest release of each package that pip's index lists (it may not be installable here)."""
    found = {}
    for dist in PACKAGES:
        proc = subprocess.run([str(python), "-m", "pip", "index", "versions", dist], capture_output=True, text=True)
        m = re.search(rf"^{re.escape(dist)} \(([^)]+)\)", proc.stdout, re.M | re.I)
        if m:
            found[dist] = m.group(1)
    return found


def run_block(python: Path | str, block: snippets.Block, timeout: float = TIMEOUT) -> Outcome:
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
        expected.splitlines(True), stdout.splitlines(True), "page", "newest"))
    error = "" if code == 0 else "\n".join(stderr.strip().splitlines()[-15:])
    return Outcome(block.name, same, round(seconds, 1), diff, error, fingerprint(block))


def compare(python: Path | str, blocks: list[snippets.Block], jobs: int = 2,
            timeout: float = TIMEOUT) -> list[Outcome]:
    """Every block under ``python``, in input order, ``jobs`` at a time."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda b: run_block(python, b, timeout), blocks))


# --------------------------------------------------------------------------- the table

def _labels(lang: str) -> dict:
    """This language's table strings (mkdocs.yml: the i18n language's ``extra.strings.compat``)."""
    return site_facts.load().text(lang, "compat")


def _version_cell(lang: str, version: str, build: str | None) -> str:
    if not build:
        return version
    kind = "CUDA" if build.startswith("CUDA") else "CPU"
    lab = _labels(lang)
    return lab["build_cell"].format(version=version, label=lab["torch_build"][kind])


def table(lang: str, result: dict) -> str:
    """The markdown the home page of ``lang`` shows."""
    lab = _labels(lang)
    rows = [lab["head"], "|---|---|---|"]
    for dist in PACKAGES:
        page = result["pinned"][dist]
        newest = result["newest"][dist]
        build = result["newest"]["torch_build"] if dist == "torch" else None
        page_cell = lab["pinned_torch"].format(version=page) if dist == "torch" else page
        rows.append(f"| {dist} | {page_cell} | {_version_cell(lang, newest, build)} |")
    rows.append(f"| Python | {result['pinned_python']} | {result['newest']['python']} |")
    differing = [o["name"] for o in result["outcomes"] if not o["same"]]
    summary = lab["summary"].format(when=result["date"], machine=result["machine"], total=len(result["outcomes"]),
                                    same=len(result["outcomes"]) - len(differing))
    if differing:
        names = ", ".join(f"`{n}`" for n in differing)
        summary += lab["join"] + lab["differs"].format(names=names)
        if any(n.startswith("snippets/home/versions.md") for n in differing):
            summary += lab["versions_note"]
    else:
        summary += lab["join"] + lab["none_differs"]
    summary += lab["join"] + lab["cap"]
    for dist, newer in result.get("newest_on_index", {}).items():
        if newer != result["newest"][dist].split("+")[0]:
            summary += lab["not_measured"].format(dist=dist, newer=newer)
    return "\n".join(rows) + "\n\n" + summary + "\n"


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


def write(result: dict, out: Path = OUT) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in site_facts.load().languages:
        path = out / f"table.{lang}.md"
        path.write_text(table(lang, result), encoding="utf-8")
        written.append(path)
    path = out / "results.json"
    path.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return written + [path]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="./run compat", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="snippet files or folders (default: all)")
    ap.add_argument("--venv", type=Path, default=VENV, help=f"environment to use (default {VENV.relative_to(ROOT)})")
    ap.add_argument("--no-install", action="store_true", help="do not install or upgrade packages")
    ap.add_argument("--install", action="append", default=[], metavar="REQ",
                    help="install this requirement instead of the newest release (repeatable); "
                         "the table is then not written")
    ap.add_argument("--jobs", type=int, default=2, help="blocks run at once (default 2)")
    ap.add_argument("--out", type=Path, default=OUT, help="where the tables go (default compat/)")
    ap.add_argument("--tables", action="store_true",
                    help="only rewrite each language's table from the last results.json (no run): for a new language")
    args = ap.parse_args(argv)
    if args.tables:
        result = json.loads((args.out / "results.json").read_text(encoding="utf-8"))
        for path in write(result, args.out):
            print(f"wrote {path.relative_to(args.out.resolve().parent) if path.is_absolute() else path}")
        return 0
    args.venv = args.venv.resolve()

    py = make_env(args.venv, install=not args.no_install, requirements=args.install)
    newest = versions(py)
    pins = pinned()
    blocks = snippets.collect(args.paths or None)
    print(f"running {len(blocks)} blocks under " + ", ".join(f"{d} {newest[d]}" for d in PACKAGES)
          + f" ({newest['torch_build']}) ...", flush=True)
    start = time.perf_counter()
    outcomes = compare(py, blocks, jobs=args.jobs)
    for o in outcomes:
        print(f"{'same   ' if o.same else 'DIFFERS'} {o.name} ({o.seconds} s)")
        if o.diff:
            print("    " + o.diff.replace("\n", "\n    ").rstrip())
        if o.error:
            print("    " + o.error.replace("\n", "\n    "))
    differing = sum(not o.same for o in outcomes)
    print(f"{len(outcomes) - differing} of {len(outcomes)} blocks print the same; {differing} differ "
          f"({time.perf_counter() - start:.0f} s)")
    if args.paths or args.install or args.venv.resolve() != VENV:
        print("not the newest versions in .cache/compat-venv over every snippet: the table is not written")
        return 0
    result = {
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "pinned": pins,
        "pinned_python": "3.11",
        "newest": newest,
        "newest_on_index": newest_on_index(py),
        "outcomes": [asdict(o) for o in outcomes],
    }
    for path in write(result, args.out):
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
