"""The shape of a snippet file, as every runner and the build read it: one ```python fence, then the output
marker and one ```text fence with what it prints.

Shared by ``tools/runner/`` (the runners, refresh) and ``hooks/includes.py`` (the build refuses an include of a
file of another shape), so the site's hooks never import ``tools/``. Not itself a hook.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

ROOT = Path(__file__).resolve().parent.parent
MARKER = "<!--pytest-codeblocks:expected-output-->"

# A fence opening or closing line, as CommonMark reads it (up to 3 spaces of indentation).
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<ticks>`{3,}|~{3,})(?P<info>.*?)[ \t]*$")


@dataclass
class Block:
    """One runnable code block of a snippet file (or, with ``error``, a snippet file that cannot be read)."""

    path: Path  # snippet file
    lineno: int  # line of the opening fence (1-based)
    code: str
    expected: str | None
    error: str | None = None
    source: str | None = None  # the file's text when the block was read: refresh writes only onto that

    @property
    def name(self) -> str:
        return f"{_rel(self.path)}:{self.lineno}"


def _rel(path: Path) -> str:
    path = Path(path)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


class SnippetError(ValueError):
    """A snippet file that cannot be read; the message names it."""


def read(path: Path) -> str:
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SnippetError(f"{_rel(path)}:{line}: not UTF-8 ({err.reason} at byte {err.start}); "
                           "save the file as UTF-8") from None


@dataclass
class Fence:
    start: int  # 0-based line of the opening fence
    end: int  # 0-based line of the closing fence
    ticks: str
    info: str


def fences(text: str, name: str) -> list[Fence]:
    """Every fenced block of a Markdown text; an unclosed fence is an error naming ``name:line``."""
    lines = text.splitlines()
    found, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or (m.group("ticks")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        ticks, j = m.group("ticks"), i + 1
        while j < len(lines):
            c = _FENCE.match(lines[j])
            if c and c.group("ticks")[0] == ticks[0] and len(c.group("ticks")) >= len(ticks) and not c.group("info").strip():
                break
            j += 1
        if j == len(lines):
            raise SnippetError(f"{name}:{i + 1}: the fence {lines[i].strip()!r} is never closed "
                               f"(close it with a line of {ticks})")
        found.append(Fence(i, j, ticks, m.group("info")))
        i = j + 1
    return found


# A fold: a run of a block's lines that serve the site rather than the subject (drawing and saving the
# figures, the explorable's data, the verdict helper, rounding for the same digits on every CPU), or a long
# step of an experiment. Marked in the code by two comment lines, pymdownx.snippets' own section markers,
# which it drops from what a page includes: the page shows the code without them, folded by hooks/code_folds.py.
FOLD = re.compile(r"^(?P<indent>[ \t]*)# --8<-- \[(?P<type>start|end):(?P<kind>[a-z][a-z-]*)\][ \t]*$")
# any line pymdownx.snippets would read as a section marker (and drop from the page: snippets.py, RE_SNIPPET_SECTION)
_ANY_SECTION = re.compile(r"-{1,}8<-{1,}[ \t]+\[[ \t]*(start|end)[ \t]*:", re.I)
FOLD_KINDS = ("imports", "figure", "data", "verdict", "checks", "seeds", "digits", "table", "setup", "model", "training", "helpers")


@dataclass
class Fold:
    kind: str
    first: int  # 0-based index of its first line in the code as the page shows it
    count: int  # its lines


def reader_code(code: str) -> str:
    """A block's code as the page shows it, the copy button copies it and the notebook holds it: without its
    fold markers (comment lines, so the code runs the same with or without them)."""
    return "".join(line for line in code.splitlines(keepends=True) if not FOLD.match(line))


def folds(code: str, name: str = "snippet") -> list[Fold]:
    """The folds of a block's code, numbered on its lines as the page shows them; a marker that is not a
    whole line of its own, an unknown kind, a nested, empty or unclosed fold is an error naming the line."""
    out, shown, open_ = [], 0, None
    for n, line in enumerate(code.splitlines(), 1):
        m = FOLD.match(line)
        if m is None:
            if _ANY_SECTION.search(line):
                raise SnippetError(f"{name}: code line {n}: {line.strip()!r} holds a section marker that is not a "
                                   "line of its own `# --8<-- [start:<kind>]`: the page would drop the whole line")
            shown += 1
            continue
        kind = m.group("kind")
        if kind not in FOLD_KINDS:
            raise SnippetError(f"{name}: code line {n}: fold kind {kind!r} is none of {', '.join(FOLD_KINDS)}")
        if m.group("type") == "start":
            if open_ is not None:
                raise SnippetError(f"{name}: code line {n}: a fold starts inside the {open_.kind!r} fold "
                                   "(folds do not nest)")
            open_ = Fold(kind, shown, 0)
        else:
            if open_ is None or open_.kind != kind:
                raise SnippetError(f"{name}: code line {n}: [end:{kind}] closes no open {kind!r} fold")
            open_.count = shown - open_.first
            if open_.count == 0:
                raise SnippetError(f"{name}: code line {n}: the {kind!r} fold holds no line")
            out.append(open_)
            open_ = None
    if open_ is not None:
        raise SnippetError(f"{name}: the {open_.kind!r} fold is never closed (`# --8<-- [end:{open_.kind}]`)")
    return out


def codeblocks_line_limit() -> int | None:
    """The most lines pytest-codeblocks reads in one file (``extract_from_buffer``'s ``max_num_lines``); a longer
    file raises while pytest collects, which stops the session before any block runs. ``None`` where
    pytest-codeblocks is not installed (the docs-only environment of ``requirements-docs.txt``, which builds the
    site and runs no block: the runners, which need it, check the length)."""
    import importlib.util
    import inspect

    if importlib.util.find_spec("pytest_codeblocks") is None:
        return None
    from pytest_codeblocks import main as codeblocks

    p = inspect.signature(codeblocks.extract_from_buffer).parameters.get("max_num_lines")
    if p is None or not isinstance(p.default, int):
        raise RuntimeError("hooks/snippet_files.py: expected pytest_codeblocks.main.extract_from_buffer(f, max_num_lines=<int>)"
                           " (a new pytest-codeblocks? update codeblocks_line_limit)")
    return p.default


def code_fences(text: str, name: str) -> list[Fence]:
    """The fences of a snippet file that hold code (every fence but the output one after the marker)."""
    lines = text.splitlines()
    return [f for f in fences(text, name) if not (f.start > 0 and lines[f.start - 1].strip() == MARKER)]


def fence_problems(path: Path) -> list[str]:
    """What is wrong with the shape of one snippet file, each naming ``file:line``; [] if it is right.

    The shape is one fence whose info string is exactly ``python``, optionally followed by the marker and
    one output fence: every other fence would be skipped by pytest-codeblocks (``` python, ```Python,
    ```ipython, ```py, ~~~python: its output would be published without its code ever running), executed
    as a shell script (```bash, ```sh), or be a second block that refresh and the notebooks would mix up.
    """
    name, text = _rel(path), read(path)
    if text.startswith("\ufeff"):  # pytest-codeblocks would not see a first line that starts with it
        return [f"{name}:1: the file starts with a byte order mark (BOM, U+FEFF), which hides its first fence from "
                "pytest-codeblocks: save it as UTF-8 without a BOM"]
    lines = text.splitlines()
    limit = codeblocks_line_limit()
    if limit is not None and len(lines) > limit:
        return [f"{name}: {len(lines)} lines, more than pytest-codeblocks reads ({limit}; it stops "
                "the whole collection on such a file): print a summary, not every line"]
    try:
        found = fences(text, name)
    except SnippetError as err:
        return [str(err)]
    bad = []
    code = [f for f in found if not (f.start > 0 and lines[f.start - 1].strip() == MARKER)]
    for f in code:
        info, where = f.info.strip(), f"{name}:{f.start + 1}"
        if f.ticks[0] == "`" and f.info == "python":
            continue
        if re.fullmatch(r"(?i)\{?\s*\.?(ba|z)?sh(ell)?\b.*|console", info):
            bad.append(f"{where}: a {info!r} fence: pytest-codeblocks executes shell fences; a snippet holds "
                       "one ```python fence only")
        elif re.search(r"(?i)py", info) or f.info != info:
            bad.append(f"{where}: fence info string {f.ticks + f.info!r}: pytest-codeblocks runs only exactly "
                       "```python (no space, lower case, no attributes), so its output would be shown unrun")
        else:
            bad.append(f"{where}: a {f.ticks + f.info!r} fence: a snippet holds one ```python fence and its "
                       "output, nothing else")
    if len(code) > 1 and not bad:
        bad.append(f"{name}:{code[1].start + 1}: a second code fence (the first is at line {code[0].start + 1}): one "
                   "block per file (refresh and the notebooks take one block per file); split it into two files")
    for f in found:
        if f not in code and (f.ticks[0] != "`" or f.info.strip() not in ("text", "")):
            bad.append(f"{name}:{f.start + 1}: the output fence after {MARKER} must be ```text, not {f.ticks + f.info!r}")
    for i, line in enumerate(lines):
        if line.strip() == MARKER and not any(f.start == i + 1 for f in found):
            bad.append(f"{name}:{i + 1}: {MARKER} is not followed by an output fence")
    if not bad and code and any(f.start < code[0].start for f in found):
        bad.append(f"{name}:{found[0].start + 1}: an output fence before the code fence")
    for f in code if not bad else []:
        try:
            folds("\n".join(lines[f.start + 1:f.end]), name)
        except SnippetError as err:
            bad.append(str(err))
    return bad


def skipped_fences(path: Path) -> list[int]:
    """Line numbers of fences that pytest-codeblocks would not run (or would run as a shell script)."""
    return sorted({int(m.group(1)) for p in fence_problems(path) if (m := re.match(r".*?:(\d+): (a '|fence info)", p))})


def extract(path: Path) -> list[Block]:
    """The python block of one snippet file, as pytest-codeblocks sees it; a file of any other shape is
    refused with a SnippetError naming ``file:line``."""
    from pytest_codeblocks import extract_from_file

    text = read(path)  # a clear error first, naming the file
    bad = fence_problems(path)
    if bad:
        raise SnippetError("\n".join(bad))
    try:
        found = extract_from_file(path)
    except Exception as err:  # noqa: BLE001 - its parse errors name no file
        raise SnippetError(f"{_rel(path)}: pytest-codeblocks cannot read it: {err}") from None
    blocks = [Block(Path(path), b.lineno, b.code, b.expected_output, source=text)
              for b in found if b.syntax == "python"]
    ours = [f for f in fences(text, _rel(path)) if not (f.start and text.splitlines()[f.start - 1].strip() == MARKER)]
    if len(found) != len(ours) or len(blocks) != len(ours) or (blocks and blocks[0].lineno != ours[0].start + 1):
        raise SnippetError(f"{_rel(path)}: pytest-codeblocks reads {len(found)} blocks here "
                           f"({', '.join(b.syntax for b in found)}): a snippet holds one ```python block")
    return blocks
