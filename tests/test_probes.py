"""Honest mistakes and careless edits that the checks must refuse, each named by what it is.

Each test reproduces one probe of a reliability review, in a scratch copy, through the function the real
check uses, and the probe's neighbours (another hand edit of a figure, another non-finite number, ...).
The includes of pages have their own module (tests/test_includes.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from hooks import explorables, notebook_figures
from tools.runner import comparison, execution, refresh, selection

BLACK = (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M 0 0 L 5 5" '
         b'style="fill: none; stroke: #000000; stroke-width: 1.5"/><rect fill="#1f77b4" x="1" y="2"/></svg>')


@pytest.mark.parametrize("old, new", [
    (b"stroke: #000000", b"stroke: #00e000"),  # the probe: both read as the number 0
    (b"stroke: #000000", b"stroke: #000e00"),
    (b"stroke: #000000", b"stroke: #0e0"),
    (b'fill="#1f77b4"', b'fill="#1e77b4"'),
    (b'fill="#1f77b4"', b'fill="#1f77b4c0"'),
])
def test_a_figure_recoloured_by_hand_fails(old, new):
    diff = comparison.compare_svg(BLACK, BLACK.replace(old, new))
    assert diff is not None and diff.moved, diff


def test_a_colour_written_otherwise_with_the_same_meaning_passes():
    assert comparison.compare_svg(BLACK, BLACK.replace(b"#000000", b"#000")) is None
    assert comparison.compare_svg(BLACK, BLACK.replace(b"#1f77b4", b"#1F77B4")) is None
    nearly = BLACK.replace(b"stroke-width: 1.5", b"stroke-width: 1.5000001")
    diff = comparison.compare_svg(BLACK, nearly)
    assert diff is None or not diff.moved


def test_a_figure_edited_by_hand_is_never_advised_into_the_notebooks(tmp_path):
    """The notebook check told a reader with a hand-edited figure to run `tools.generators.notebooks write`, which copies it."""
    import base64

    name = "f.en.svg"
    (tmp_path / name).write_bytes(BLACK.replace(b"#000000", b"#00e000"))
    output = {"output_type": "display_data", "data": {"image/svg+xml": BLACK.decode(), "text/plain": "a figure"},
              "metadata": notebook_figures.output_metadata(name)}
    nb = {"cells": [{"cell_type": "code", "id": "c1", "outputs": [output], "source": "", "metadata": {}}]}
    content = ('<div class="jp-RenderedSVG jp-OutputArea-output"><img src="data:image/svg+xml;base64,'
               + base64.b64encode(BLACK).decode() + '"></div>')
    with pytest.raises(PluginError) as err:
        notebook_figures.show_figures(content, nb, "docs/en/notebooks/x.ipynb", ("docs/en/x.md", {name}), tmp_path,
                                      lambda n: n)
    assert "differs from" in str(err.value) and "./run refresh" in str(err.value)
    assert "run `python -m tools.notebooks write`" not in str(err.value)


def _data(value) -> bytes:
    return json.dumps({"labels": {"en": {}}, "series": [1.0, value, 3.0]}).encode()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_number_in_a_data_file_is_refused_compared_written_and_built(tmp_path, bad):
    """NaN / Infinity counted as within tolerance both ways; the browser's JSON.parse then refused the file."""
    diff = comparison.compare_json(_data(bad), _data(bad))
    assert diff is not None and diff.moved and "is no JSON number" in str(diff)
    assert comparison.compare_json(_data(2.0), _data(bad)).moved
    assert comparison.compare_json(_data(bad), _data(2.0)).moved
    path = tmp_path / "writes.md"
    path.write_text("```python\nprint('saved')\n```\n" + f"{selection.MARKER}\n```text\nsaved\n```\n", encoding="utf-8")
    [block] = selection.extract(path)
    data = tmp_path / "data"
    data.mkdir()
    found = refresh.reconcile(block, execution.Result("saved\n", files={"f.json": _data(bad)}), True,
                               tmp_path / "figures", data)
    assert [f.fixed for f in found] == [False] and "is no JSON number" in found[0].message
    assert not (data / "f.json").exists()  # refresh writes no file the browser refuses
    (tmp_path / explorables.DATA).mkdir(parents=True)
    (tmp_path / explorables.DATA / "f.json").write_bytes(_data(bad))
    with pytest.raises(PluginError, match="f.json is not valid JSON"):
        explorables.data_of(tmp_path, "f", "docs/en/p.md", "en")


@pytest.mark.parametrize("newline", ["\r\n", "\n"])
def test_refresh_rewrites_a_snippet_saved_with_windows_line_endings_and_keeps_them(tmp_path, newline):
    """Refresh said 'run refresh again' for a CRLF snippet forever: advice that never worked."""
    path = tmp_path / "crlf.md"
    text = f"```python\nprint(1)\nprint(2)\n```\n{selection.MARKER}\n```text\n1\n```\n"
    path.write_bytes(text.replace("\n", newline).encode())
    [block] = selection.extract(path)
    assert refresh.rewrite_output(path, block, "1\n2\n")
    assert path.read_bytes() == text.replace("1\n```\n", "1\n2\n```\n").replace("\n", newline).encode()
    [again] = selection.extract(path)
    assert again.expected == "1\n2\n" and not refresh.rewrite_output(path, again, "1\n2\n")


def test_a_byte_order_mark_is_named_not_reported_as_an_unclosed_fence(tmp_path):
    path = tmp_path / "bom.md"
    path.write_bytes(b"\xef\xbb\xbf```python\nprint(1)\n```\n")
    [block] = selection.collect([path])
    assert "bom.md:1: the file starts with a byte order mark" in block.error and "never closed" not in block.error


def test_an_output_too_long_for_pytest_codeblocks_is_not_written_and_such_a_file_fails_alone(tmp_path):
    """A block printing 10 000 lines: refresh wrote a file pytest-codeblocks then refused at collection,
    which stopped every block of `pytest --codeblocks snippets/`."""
    limit = selection.codeblocks_line_limit()
    path = tmp_path / "long.md"
    text = "```python\nfor i in range(10000):\n    print(i)\n```\n"
    path.write_text(text, encoding="utf-8")
    [block] = selection.extract(path)
    stdout = "".join(f"{i}\n" for i in range(limit))
    [finding] = refresh.reconcile(block, execution.Result(stdout), write=True)
    assert not finding.fixed and "more than pytest-codeblocks reads" in finding.message
    assert path.read_text(encoding="utf-8") == text
    path.write_text(text + f"{selection.MARKER}\n```text\n{stdout}```\n", encoding="utf-8")
    (tmp_path / "zz-good.md").write_text(f"```python\nprint(1)\n```\n{selection.MARKER}\n```text\n1\n```\n",
                                         encoding="utf-8")
    bad, good = selection.collect([tmp_path])
    assert "long.md: " in bad.error and "more than pytest-codeblocks reads" in bad.error and good.error is None


def test_a_write_killed_midway_leaves_only_an_ignored_temporary_that_the_next_write_removes(tmp_path):
    """SIGKILL during refresh's write left a 9 MB .name.md.XXXX.tmp beside the snippet, neither tracked nor ignored."""
    import subprocess
    import sys

    from tools import files

    target = tmp_path / "snippet.md"
    target.write_text("old\n", encoding="utf-8")
    code = ("import os, signal, sys; sys.path.insert(0, sys.argv[1]); from tools import files; "
            "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL); "
            "files.write_atomic(__import__('pathlib').Path(sys.argv[2]), 'x' * 9_000_000)")
    proc = subprocess.run([sys.executable, "-c", code, str(selection.ROOT), str(target)], capture_output=True)
    assert proc.returncode == -9, proc.stderr
    [left] = [p for p in tmp_path.iterdir() if p != target]
    assert target.read_text(encoding="utf-8") == "old\n" and left.name.startswith(".snippet.md.")
    ignored = subprocess.run(["git", "-C", str(selection.ROOT), "check-ignore", "-q", "--no-index",
                              f"snippets/home/{left.name}"])
    assert ignored.returncode == 0, f"{left.name} in snippets/ would not be ignored by git"
    (tmp_path / "other.md").write_text("x", encoding="utf-8")
    files.write_atomic(tmp_path / "other.md", "new\n")  # the next run's first write into the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.md", "snippet.md"]
