"""What a page includes from ``snippets/``, as pymdownx.snippets itself reads it, and the rules an include obeys.

The includes are found by running pymdownx.snippets' own preprocessor over the page's Markdown (every syntax it
knows: ``--8<-- "x.md"``, the block form between two ``--8<--`` lines, line ranges, sections, nested includes),
watching each file it reads through its documented extension point ``process_snippet_lines``. So what is checked
is what the build shows, whatever the spelling. An include is refused, naming the page, its line and the file, if:

* it is not a snippet the runners run: not ``<chapter>/<name>.md`` (lower-case letters, digits, ``-``; a
  ``.markdown``, ``.txt`` or ``.py`` file, a hidden folder or one pytest does not collect such as ``build/``),
  or a file whose shape ``tools.snippets`` refuses (it must hold exactly one ```` ```python```` fence and its
  output): ``python -m tools.snippets`` and ``pytest --codeblocks snippets/`` run every such file;
* it takes part of a file by line numbers, a section other than ``code`` / ``output``, or comes from inside a
  snippet file (a nested include): what is shown would not be what ran;
* it shows a block's output anywhere but directly under that same block's code: ``x.md:output`` must follow
  ``x.md:code`` with nothing but blank lines between, and ``x.md:code`` of a block with an output is followed
  by its ``x.md:output``;
* it is spelled otherwise than ``--8<-- "x.md"`` on a line of its own (the block form between two ``--8<--``
  lines): the other hooks and tools read that one spelling (the source link and date of ``hooks/provenance.py``);
* it lies inside an HTML comment or an element whose content is never shown (``<script>``, ``<template>``,
  ``<style>``, ``<textarea>``, ``<noscript>``): the snippet's own ``<!--…-->`` lines would close the comment early,
  hide the code and show the output, and the hidden block would still count as evidence; the same for a snippet
  file whose own fence sits inside a comment of its own.

``hooks/page_checks.py`` fails the strict build on these; ``tools.snippets check <page>`` and the tests report them.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

# The runners' own rule for a snippet file's shape (hooks/snippet_files.py, which tools/runner/selection.py uses too).
# Imported now: while MkDocs loads the hooks the project folder is on sys.path, later in the build it is not.
from hooks import snippet_files as snippets  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"
MARKER = "<!--pytest-codeblocks:expected-output-->"
SECTIONS = ("code", "output")
NAME = re.compile(r"[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*\.md")  # snippets/<chapter>/<what-it-shows>.md
# pytest's default ``norecursedirs`` (_pytest/main.py): folders ``pytest --codeblocks snippets/`` never enters
# (tests/test_failures.py checks this copy against pytest's own).
PYTEST_SKIPS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
HIDDEN = ("script", "template", "style", "textarea", "noscript")
_ONE_LINE = re.compile(r"""^[ \t]*-{1,}8<-{1,}[ \t]+(["'])([^"'\n]+)\1[ \t]*$""")
_START, _END = "\x00rn-include-start-{}\x00", "\x00rn-include-end-{}\x00"
_SENTINEL = re.compile(r"\x00rn-include-(start|end)-(\d+)\x00")


@dataclass
class Include:
    """One include pymdownx.snippets met, in the order it met them."""

    name: str  # as written, without its line range or section
    section: str | None
    ranged: bool  # a line range was given
    parent: str | None  # the snippet file whose text holds the include; None: the page itself
    path: Path | None = None  # the file read; None if none was found


def _preprocessor(base: Path, options: dict | None):
    import markdown

    opts = {k: v for k, v in (options or {}).items() if k not in ("base_path", "check_paths", "auto_append")}
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={
        "pymdownx.snippets": {**opts, "base_path": [str(base)], "check_paths": False}})
    try:
        pre = md.preprocessors["snippet"]
    except KeyError:
        raise RuntimeError("hooks/includes.py: expected pymdownx.snippets' preprocessor registered as 'snippet' "
                           "(a new pymdownx? update hooks/includes.py)") from None
    for attr in ("parse_snippets", "parse_snippet_target", "process_snippet_lines", "run"):
        if not callable(getattr(pre, attr, None)):
            raise RuntimeError(f"hooks/includes.py: expected SnippetPreprocessor.{attr} in pymdownx.snippets "
                               "(a new pymdownx? update hooks/includes.py)")
    return pre


def expand(text: str, base: Path | None = None, options: dict | None = None) -> tuple[list[Include], list[str]]:
    """The includes of ``text`` and its lines as pymdownx.snippets expands them, each included part between a
    start and an end sentinel line (``_START`` / ``_END`` with the include's index)."""
    pre = _preprocessor(Path(base or SNIPPETS).resolve(), options)
    found: list[Include] = []
    stack: list[str | None] = []
    parse, target, process = pre.parse_snippets, pre.parse_snippet_target, pre.process_snippet_lines

    def parse_snippets(lines, file_name=None, is_url=False, is_section=False):
        stack.append(file_name)
        try:
            return parse(lines, file_name, is_url, is_section)
        finally:
            stack.pop()

    def parse_snippet_target(path):
        t = target(path)
        if t is not None:
            found.append(Include(t["path"], t["section"], bool(t["start"] or t["end"]),
                                 stack[-1] if stack else None))
        return t

    def process_snippet_lines(lines, t):
        i = len(found) - 1
        found[i].path = Path(t["snippet"])
        return [_START.format(i), *process(lines, t), _END.format(i)]

    pre.parse_snippets, pre.parse_snippet_target, pre.process_snippet_lines = (
        parse_snippets, parse_snippet_target, process_snippet_lines)
    lines = pre.run(text.split("\n"))
    return found, lines


def names(text: str, base: Path | None = None) -> list[str]:
    """The snippet files the page itself includes, in order (a section or line range names the same file)."""
    return [inc.name for inc in expand(text, base)[0] if inc.parent is None]


def _skeleton(lines: list[str]) -> tuple[str, dict[int, int]]:
    """The expanded page with each top-level include's text replaced by one placeholder, and for each include
    index the offset of its placeholder."""
    out, at, depth = [], {}, 0
    for line in lines:
        m = _SENTINEL.search(line)
        if m and m.group(1) == "start":
            if depth == 0:
                at[int(m.group(2))] = sum(len(x) + 1 for x in out)
                out.append("\x00")
            depth += 1
        elif m:
            depth -= 1
        elif depth == 0:
            out.append(line)
    return "\n".join(out), at


_HIDING = re.compile(r"<!--|-->|<(/?)(" + "|".join(HIDDEN) + r")\b[^>]*>"
                     r"|<(?P<tag>[a-z][a-z0-9]*)\b(?=[^>]*(?:\shidden\b|display\s*:\s*none|visibility\s*:\s*hidden))[^>]*>"
                     r"|</(?P<close>[a-z][a-z0-9]*)\s*>|\x00", re.I)


def _hidden(skeleton: str) -> dict[int, str]:
    """Offsets of placeholders that lie where nothing is shown, and what hides them."""
    out, comment, element = {}, False, None
    for m in _HIDING.finditer(skeleton):
        token = m.group(0)
        if token == "\x00":
            if comment or element:
                out[m.start()] = "an HTML comment <!-- … -->" if comment else f"a <{element}> element"
        elif comment:
            comment = token != "-->"
        elif token == "<!--":
            comment = True
        elif m.group("tag") and element is None:
            element = m.group("tag").lower()  # hidden by an attribute: until its closing tag
        elif m.group(2) and element is None and not m.group(1):
            element = m.group(2).lower()
        elif m.group(2) and m.group(1) and m.group(2).lower() == element:
            element = None
        elif m.group("close") and m.group("close").lower() == element:
            element = None
    return out


def _hidden_fences(path: Path, name: str) -> list[str]:
    """A snippet file whose code or output fence sits inside an HTML comment (or a hidden element) of its own:
    the runners run it, the page would hide it."""
    text = snippets.read(path)
    lines = text.splitlines()
    found = snippets.fences(text, name)
    starts = {f.start for f in found}
    inside = {i for f in found for i in range(f.start + 1, f.end + 1)}
    skeleton = "\n".join("\x00" if i in starts else "" if i in inside else line for i, line in enumerate(lines))
    hidden = _hidden(skeleton)
    out = []
    for f in found:
        off = sum(len("\x00" if i in starts else "" if i in inside else line) + 1 for i, line in enumerate(lines[:f.start]))
        if off in hidden:
            out.append(f"{name}:{f.start + 1}: the fence lies inside {hidden[off]} of the file: the runners run it, "
                       "the page would not show it")
    return out


def _page_line(text: str, inc: Include) -> int:
    """The page line that holds an include of ``inc.name`` (first match; 0 if none is found)."""
    for i, line in enumerate(text.splitlines(), 1):
        if inc.name in line and "8<" in line or line.strip() == inc.name:
            return i
    return 0


def _annotations(between: list[str], code: str) -> bool:
    """Whether the lines between a block's code and output are the list of its code annotations (Material's
    ``# (1)!`` markers, explained by a numbered list right under the code), and nothing else."""
    items = [int(m.group(1)) for ln in between if (m := re.match(r"(\d+)\.\s", ln))]
    marked = sorted({int(n) for n in re.findall(r"#\s*\((\d+)\)!?", code)})
    return (bool(items) and re.match(r"\d+\.\s", between[0]) is not None and items == marked
            and all(re.match(r"\d+\.\s|[ \t]", ln) for ln in between))


def problems(text: str, where: str, base: Path | None = None, options: dict | None = None) -> list[str]:
    """What is wrong with the includes of one page (``where``: ``docs/<lang>/<page>.md``), each naming it."""
    base = Path(base or SNIPPETS).resolve()
    found, lines = expand(text, base, options)
    out: list[str] = []
    top = [i for i, inc in enumerate(found) if inc.parent is None]
    spans: dict[int, tuple[int, int]] = {}
    for n, line in enumerate(lines):
        for kind, i in _SENTINEL.findall(line):
            a, b = spans.get(int(i), (n, n))
            spans[int(i)] = (n, b) if kind == "start" else (a, n)
    shapes: dict[Path, list[str]] = {}

    def at(inc: Include) -> str:
        return f"{where}:{_page_line(text, inc)}"

    for i, inc in enumerate(found):
        shown = f"snippets/{inc.name}" + (f":{inc.section}" if inc.section else "")
        if inc.parent is not None:
            parent = Path(inc.parent).resolve()
            out.append(f"{where}: snippets/{parent.relative_to(base).as_posix() if parent.is_relative_to(base) else parent}"
                       f" includes {inc.name!r}: a snippet file holds its own code and output, never an include")
            continue
        if inc.path is None:
            continue  # not found: the strict build stops on it (check_paths), naming it
        rel = inc.path.resolve().relative_to(base).as_posix() if inc.path.resolve().is_relative_to(base) else inc.name
        skipped = [p for p in rel.split("/")[:-1] if any(fnmatch.fnmatch(p, s) for s in PYTEST_SKIPS)]
        if not NAME.fullmatch(rel) or skipped or inc.path.is_symlink():
            out.append(f"{at(inc)}: includes {shown}, which no runner runs: a page includes only snippet files "
                       "snippets/<chapter>/<name>.md (lower-case letters, digits, '-'; the .md suffix; no hidden "
                       f"or {'/'.join(PYTEST_SKIPS[2:])} folder), each run by `python -m tools.snippets` and "
                       "`pytest --codeblocks snippets/`")
            continue
        if inc.path not in shapes:
            try:
                shapes[inc.path] = snippets.fence_problems(inc.path) or (
                    [] if snippets.code_fences(snippets.read(inc.path), f"snippets/{rel}")
                    else [f"snippets/{rel}: no ```python block"]) or _hidden_fences(inc.path, f"snippets/{rel}")
            except snippets.SnippetError as err:
                shapes[inc.path] = [str(err)]
        if shapes[inc.path]:
            out.append(f"{at(inc)}: includes snippets/{rel}, whose shape the runners refuse (so it never runs):\n  "
                       + "\n  ".join(shapes[inc.path]))
            continue
        if inc.ranged:
            out.append(f"{at(inc)}: includes lines of {shown}: a page shows a whole block, or its code and output "
                       "sections (`:code`, `:output`), never lines picked by number")
        elif inc.section not in (None, *SECTIONS):
            out.append(f"{at(inc)}: includes the section {inc.section!r} of snippets/{rel}: a snippet has two "
                       "sections, `code` and `output`")
        elif inc.section:
            a, b = spans.get(i, (0, 0))
            part = "\n".join(lines[a + 1:b])
            holds_code = bool(re.search(r"^\s*(`{3,}|~{3,})python\s*$", part, re.M))
            if (inc.section == "code") != holds_code or (inc.section == "code") == (MARKER in part):
                out.append(f"{at(inc)}: the section {inc.section!r} of snippets/{rel} does not hold "
                           + ("exactly its code fence" if inc.section == "code" else "exactly its output")
                           + ": put [start:code]/[end:code] around the ```python fence and [start:output]/[end:output] "
                             "around the marker and the output fence")
    # one spelling: ``--8<-- "x.md"`` on a line of its own, the one every hook reads (provenance links, dates)
    lines_of_page = [m.group(2) for m in map(_ONE_LINE.match, text.splitlines()) if m]
    written = [re.sub(r":[a-z][-_0-9a-z]*$|(:-?\d*)+(,.*)?$", "", n, flags=re.I).strip() for n in lines_of_page]
    if [found[i].name for i in top] != written:
        for i in top:
            if found[i].name not in written:
                out.append(f"{at(found[i])}: snippets/{found[i].name} is included in another spelling than "
                           f"`--8<-- \"{found[i].name}\"` on a line of its own (the block form between two --8<-- "
                           "lines, or a marker the page's other tools do not read): write it that way")
    # output only directly under the same block's code
    for k, i in enumerate(top):
        inc = found[i]
        if inc.section not in SECTIONS or inc.path is None:
            continue
        prev = found[top[k - 1]] if k else None
        nxt = found[top[k + 1]] if k + 1 < len(top) else None
        same = lambda other, section: (other is not None and other.path is not None and other.section == section
                                       and other.path.resolve() == inc.path.resolve())
        if inc.section == "output":
            if not same(prev, "code"):
                what = (f"snippets/{prev.name}" + (f":{prev.section}" if prev.section else "")) if prev else "no include"
                out.append(f"{at(inc)}: shows the output of snippets/{inc.name} under {what}: a page shows a "
                           f"block's output only directly under that block's code (`{inc.name}:code`, then "
                           f"`{inc.name}:output`)")
            else:
                between = [ln for ln in lines[spans[top[k - 1]][1] + 1:spans[i][0]] if ln.strip()]
                if between and not _annotations(between, "\n".join(lines[spans[top[k - 1]][0]:spans[top[k - 1]][1]])):
                    out.append(f"{at(inc)}: text stands between the code of snippets/{inc.name} and its output: "
                               "a page shows a block's output directly under its code (only blank lines, or the "
                               "numbered list of the code's annotations `# (1)!`, between)")
        elif inc.section == "code" and MARKER in inc.path.read_text(encoding="utf-8") and not same(nxt, "output"):
            out.append(f"{at(inc)}: shows the code of snippets/{inc.name} without its output under it: follow "
                       f"`{inc.name}:code` with `{inc.name}:output`")
    skeleton, offsets = _skeleton(lines)
    hidden = _hidden(skeleton)
    for i, off in offsets.items():
        if off in hidden:
            inc = found[i]
            out.append(f"{at(inc)}: the include of snippets/{inc.name} lies inside {hidden[off]}: the snippet's own "
                       "<!--…--> lines would close it early, hide the code and show the output; remove the include "
                       "instead of hiding it")
    return out
