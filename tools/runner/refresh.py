"""Check and refresh are one code path (``reconcile``): a block's run compared with the output its file shows,
the figures committed in ``docs/assets/figures/`` and the data in ``docs/assets/data/``. The test suite calls it
with ``write=False``; ``refresh`` with ``write=True`` rewrites the output under the block and the figures and
data it saves, atomically, so what the tests compare and what refresh writes cannot drift apart."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from tools.files import write_atomic
from tools.runner.comparison import DATA_SUFFIX, compare_file, json_problem
from tools.runner.execution import Result
from tools.runner.selection import (MARKER, ROOT, Block, SnippetError, _rel, codeblocks_line_limit, fence_problems,
                                    fences, read)

FIGURES = ROOT / "docs" / "assets" / "figures"
DATA = ROOT / "docs" / "assets" / "data"  # explorable figures' data (JSON), written by the block that draws the SVG


# --------------------------------------------------------------------------- check and refresh: one path


@dataclass
class Finding:
    block: str  # file:line
    message: str
    fixed: bool = False  # refresh rewrote the file


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def _newline(text: str) -> str:
    """The line ending a file uses: ``\r\n`` if its first line ends so (a file saved on Windows), else ``\n``."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def rewrite_output(path: Path, block: Block, stdout: str) -> bool:
    """Put ``stdout`` under ``block`` in ``path``, atomically; return True if the file changed.

    The file is parsed again now and the block found by identity: its one code fence, and the text
    it was read from (a file edited while the block ran is refused, not overwritten).
    """
    text = read(path)
    if block.source is not None and text != block.source:
        raise SnippetError(f"{_rel(path)} changed while its block ran: not rewritten; run refresh again")
    bad = fence_problems(path)
    if bad:
        raise SnippetError("\n".join(bad))
    newline = _newline(text)  # the file's own line endings (CRLF from Windows), kept as they are
    lines = text.replace("\r\n", "\n").replace("\r", "\n").splitlines(keepends=True)
    found = fences(text, _rel(path))
    code = found[0]
    if code.start + 1 != block.lineno or "".join(lines[code.start + 1:code.end]) != block.code:
        raise SnippetError(f"{_rel(path)}:{code.start + 1}: the block there is not the one that ran "
                           f"(line {block.lineno}): not rewritten; run refresh again")
    fence = _fence_for(stdout)
    new_output = [MARKER + "\n", f"{fence}text\n", stdout if stdout.endswith("\n") else stdout + "\n", f"{fence}\n"]
    if len(found) == 2:  # the marker is the line before the output fence
        output = found[1]
        replaced = lines[:output.start - 1] + (new_output if stdout else []) + lines[output.end + 1:]
    else:
        replaced = lines[:code.end + 1] + (new_output if stdout else []) + lines[code.end + 1:]
    new = "".join(replaced).replace("\n", newline)
    if new.count("\n") > codeblocks_line_limit():
        raise SnippetError(f"{_rel(path)}: with this output the file would hold {new.count(chr(10))} lines, more than "
                           f"pytest-codeblocks reads ({codeblocks_line_limit()}); it would then stop every block of "
                           "`pytest --codeblocks` at collection: not rewritten; print a summary, not every line")
    if new != text:
        write_atomic(path, new)
        return True
    return False


def _run_problems(block: Block, result: Result) -> list[str]:
    """What no refresh can fix: the block raised, died, hung, broke out, or left state behind."""
    out = []
    if block.error:
        out.append(block.error)
        return out
    if result.error:
        out.append(f"{block.name} raised an exception (or its process ended):\n{result.error}")
    for v in result.violations:
        out.append(f"{block.name} did what a snippet must not: {v}")
    if result.stdout and not result.stdout.endswith("\n"):
        out.append(f"{block.name}: its output does not end with a newline ({result.stdout[-40:]!r}); an output fence "
                   "always does, so no refresh could make it pass: end the last print with a newline")
    if "\r" in result.stdout:
        line = result.stdout[:result.stdout.index("\r")].count("\n") + 1
        out.append(f"{block.name}: its output holds a carriage return (\\r, output line {line}); a Markdown file cannot "
                   "keep it, so no refresh could make it pass: print without \\r")
    if result.state:
        out.append(f"{block.name} leaves global state behind (the next cell of the chapter's notebook would see it;"
                   " pass dtype= explicitly, use context managers such as plt.rc_context, or restore it):\n    "
                   + "\n    ".join(result.state))
    return out


DIFF_LIMIT = 20_000  # characters of a diff shown; a block printing megabytes must not flood the log


def _output_diff(block: Block, stdout: str, limit: int = DIFF_LIMIT) -> str:
    diff = difflib.unified_diff(
        (block.expected or "").splitlines(keepends=True), stdout[: limit * 2].splitlines(keepends=True),
        fromfile=f"{block.name} (shown on the page)", tofile=f"{block.name} (printed now)",
    )
    shown, size = [], 0
    for line in diff:
        if size + len(line) > limit:
            shown.append(f"... (diff cut at {limit} characters; the block printed {len(stdout)} characters, "
                         f"{stdout.count(chr(10))} lines)\n")
            break
        shown.append(line)
        size += len(line)
    return "".join(shown)


def reconcile(block: Block, result: Result, write: bool = False, figures: Path | None = None,
              data: Path | None = None) -> list[Finding]:
    """Compare one block's run with its shown output, committed figures and data; with ``write``, make them match.

    The same comparisons decide what the tests report and what refresh rewrites.
    """
    figures = FIGURES if figures is None else figures
    data_dir = DATA if data is None else data
    found = [Finding(block.name, m) for m in _run_problems(block, result)]
    if block.error or result.error:
        return found  # its output and figures are not trustworthy: leave them as they are
    if write and found:  # it broke a runner rule (even if it caught the error): nothing it printed is trusted
        write = False
        found[-1].message += "\n(not rewritten: refresh trusts no output of a block that breaks a runner rule)"
    if write and block.source is not None and read(block.path) != block.source:
        write = False
        found.append(Finding(block.name, f"{_rel(block.path)} changed while its block ran: not rewritten; "
                                         "run refresh again"))
    stdout = result.stdout
    if (block.expected or "") != stdout:
        if block.expected is None:
            msg = f"{block.name} prints output but shows none: `./run refresh {_rel(block.path)}` writes it under the block"
        else:
            msg = f"{block.name}: output differs from the page\n" + _output_diff(block, stdout)
        try:
            before = read(block.path) if write else ""
            fixed = write and rewrite_output(block.path, block, stdout)
        except SnippetError as err:
            fixed, msg = False, f"{msg}\n{err}"
        if fixed:  # what refresh did, as the diff of the file it wrote
            msg = "".join(difflib.unified_diff(before.splitlines(True), read(block.path).splitlines(True),
                                               f"a/{_rel(block.path)}", f"b/{_rel(block.path)}")).rstrip("\n")
        found.append(Finding(block.name, msg, fixed))
    saved = [(figures / n, d) for n, d in result.figures.items()]
    saved += [(data_dir / n, d) for n, d in result.data.items()]
    for target, content in saved:
        name, rel = target.name, _rel(target)
        if not target.exists():
            msg = f"{block.name} saves {name}, but {rel} is not committed"
            done = f"wrote {rel} (new): {block.name} saves it"
        else:
            diff, how = compare_file(name, target.read_bytes(), content)
            if diff is None or not diff.moved:
                continue
            msg = f"{block.name} {'writes' if name.endswith(DATA_SUFFIX) else 'draws'} {rel} differently ({how}): {diff}"
            done = f"wrote {rel}: {block.name} {'writes' if name.endswith(DATA_SUFFIX) else 'draws'} it differently now ({how}): {diff}"
        bad = json_problem(content) if name.endswith(DATA_SUFFIX) else None
        if bad:  # no refresh writes a data file the browser refuses: the block must write finite numbers
            found.append(Finding(block.name, f"{msg}\n{block.name} writes {name}, which is {bad}: not written; write "
                                             "finite numbers (null for a gap) with json.dump(..., allow_nan=False)"))
            continue
        if write:
            msg = done
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, content)
        found.append(Finding(block.name, msg, write))
    return found


def problems(block: Block, result: Result) -> str | None:
    """What is wrong with one block's run and output, as a message naming file and line; None if fine."""
    msgs = [f.message for f in reconcile(block, Result(result.stdout, result.error, {}, result.seconds,
                                                        result.stderr, result.violations, result.state))]
    return "\n".join(msgs) or None


def figure_problems(block: Block, result: Result) -> list[str]:
    """Figures the block saves that differ beyond the tolerance from the committed ones, or are not committed."""
    only_figures = Result(block.expected or "", None, result.files)
    return [f.message for f in reconcile(Block(block.path, block.lineno, block.code, block.expected), only_figures)]


def check(blocks: list[Block], results: list[Result], write: bool = False) -> list[Finding]:
    return [f for b, r in zip(blocks, results) for f in reconcile(b, r, write)]
