"""Vendored browser libraries: fetch a pinned version from npm, and check the committed files.

    python -m tools.generators.vendor fetch   # maintainer: npm pack each package, verify, write the files
    python -m tools.generators.vendor check   # every committed file has the sha256 the manifest records

``docs/assets/vendor/manifest.json`` is the one record: for each package its version, the npm
tarball's integrity (sha512, as the registry publishes it), the folder it is vendored in
(``docs/assets/vendor/<name>-<version>/``) and, for each file, where it sits in the tarball and its
sha256. The site never fetches anything at build or page time: the files are committed, and the
tests run ``check``. ``fetch`` uses npm's own client (``npm pack``), refuses a tarball whose integrity
differs from the manifest's and a file whose sha256 differs, and writes each file atomically.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from tools.files import write_atomic

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "docs" / "assets" / "vendor"
MANIFEST = "manifest.json"


def manifest(vendor: Path = VENDOR) -> dict:
    return json.loads((vendor / MANIFEST).read_text(encoding="utf-8"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder(name: str, entry: dict, vendor: Path = VENDOR) -> Path:
    return vendor / f"{name}-{entry['version']}"


def check(vendor: Path = VENDOR) -> list[str]:
    """Problems, each naming the file: a missing file, a sha256 other than the manifest's, a file it does not list."""
    found = []
    for name, entry in manifest(vendor).items():
        where = folder(name, entry, vendor)
        for file, meta in entry["files"].items():
            path = where / file
            rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            if not path.is_file():
                found.append(f"{rel}: missing (manifest {MANIFEST} lists it for {name} {entry['version']})")
            elif sha256(path.read_bytes()) != meta["sha256"]:
                found.append(f"{rel}: sha256 {sha256(path.read_bytes())}, the manifest records {meta['sha256']} "
                             f"({name} {entry['version']}; run python -m tools.generators.vendor fetch)")
        if where.is_dir():
            extra = sorted(p.name for p in where.iterdir() if p.name not in entry["files"])
            found += [f"{where.name}/{e}: not in {MANIFEST}" for e in extra]
    return found


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def fetch(vendor: Path = VENDOR) -> list[Path]:
    """npm pack each package at its version, verify the tarball and every file, write the files."""
    written = []
    for name, entry in manifest(vendor).items():
        with tempfile.TemporaryDirectory() as tmp:
            spec = f"{entry['package']}@{entry['version']}"
            proc = subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp, capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(f"npm pack {spec} failed:\n{proc.stderr}")
            [tgz] = Path(tmp).glob("*.tgz")
            data = tgz.read_bytes()
            if _integrity(data) != entry["integrity"]:
                raise SystemExit(f"{spec}: the tarball's integrity is {_integrity(data)}, "
                                 f"{MANIFEST} records {entry['integrity']}: not written")
            with tarfile.open(tgz) as tar:
                files = {f: tar.extractfile(meta["from"]).read() for f, meta in entry["files"].items()}
        for file, content in files.items():
            if sha256(content) != entry["files"][file]["sha256"]:
                raise SystemExit(f"{spec}: {entry['files'][file]['from']} has sha256 {sha256(content)}, "
                                 f"{MANIFEST} records {entry['files'][file]['sha256']}: not written")
        where = folder(name, entry, vendor)
        where.mkdir(parents=True, exist_ok=True)
        for file, content in files.items():
            write_atomic(where / file, content)
            written.append(where / file)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.generators.vendor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fetch", "check"])
    args = parser.parse_args(argv)
    if args.command == "fetch":
        for path in fetch():
            print("wrote", path.relative_to(ROOT))
    problems = check()
    print(*problems, sep="\n") if problems else print("vendored files match", MANIFEST)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
