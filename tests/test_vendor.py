"""Vendored browser libraries are the files the manifest records (tools/generators/vendor.py), never fetched at build or page time."""

from __future__ import annotations

import shutil

from tools.generators import vendor


def test_vendored_files_have_the_sha256_of_the_manifest():
    assert vendor.manifest(), "docs/assets/vendor/manifest.json lists no package"
    assert vendor.check() == []


def test_a_vendored_file_with_one_byte_changed_fails_naming_it(tmp_path):
    copy = tmp_path / "vendor"
    shutil.copytree(vendor.VENDOR, copy)
    name, entry = next(iter(vendor.manifest(copy).items()))
    target = vendor.folder(name, entry, copy) / next(iter(entry["files"]))
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    [problem] = vendor.check(copy)
    assert target.name in problem and "sha256" in problem and entry["version"] in problem


def test_a_missing_or_unlisted_vendored_file_fails_naming_it(tmp_path):
    copy = tmp_path / "vendor"
    shutil.copytree(vendor.VENDOR, copy)
    name, entry = next(iter(vendor.manifest(copy).items()))
    where = vendor.folder(name, entry, copy)
    first = next(iter(entry["files"]))
    (where / first).unlink()
    (where / "extra.js").write_text("0")
    problems = vendor.check(copy)
    assert any(first in p and "missing" in p for p in problems)
    assert any("extra.js" in p and "not in manifest.json" in p for p in problems)
