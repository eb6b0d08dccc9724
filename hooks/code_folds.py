"""Code that teaches: a block shows its subject; the lines that serve the site are folded, one click away.

A snippet marks a run of its code lines as a fold with two comment lines, pymdownx.snippets' own section markers
(``hooks/snippet_files.py``, ``FOLD``)::

    # --8<-- [start:figure]
    LABELS = {"en": {...}, "zh": {...}}
    ...
    # --8<-- [end:figure]

pymdownx.snippets drops marker lines from what a page includes, so the page's block is the code without them,
which is what the copy button copies, the notebook holds and the runners run (comment lines change nothing that
runs). This hook finds each Python block of a page whose text is the code of a snippet the page includes and
puts each fold of it, in place, in a closed ``<details class="rn-fold">`` inside the ``<code>``: its summary says
what the lines do and how many they are, in the page's language (``extra.strings.fold`` in mkdocs.yml); the label
is generated content (``data-label``), so the block's text stays the code. A folded block's ``<pre>`` carries the
whole code in ``data-copy``: Material's copy button copies the nearest ``[data-copy]`` of the ``<code>`` instead of
its ``innerText`` (which would leave out the closed folds); ``tests/test_browser.py`` reads the clipboard back.

Runs on the final HTML (``on_page_content``), after ``hooks/torch_docs.py`` has linked names in the code: a
highlighted line is cut at its line breaks, the open tags closed and opened again around each cut. A snippet with
folds whose block is not found on a page that includes it fails the build naming both (PluginError).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

from hooks import includes, site_facts, snippet_files  # noqa: E402

BLOCK = re.compile(r'(<div class="language-python highlight"><pre)([^>]*)(><span></span><code>)(.*?)(</code></pre></div>)',
                   re.S)
_TOKEN = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>|[^<]+")
_ANNOTATION = re.compile(r"[ \t]*# \(\d+\)!$", re.M)


def text_of(fragment: str) -> str:
    """The text of a piece of highlighted HTML (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def split_lines(code_html: str) -> list[str]:
    """Highlighted code cut into its lines, each a well-formed piece of HTML (the tags open at a line break are
    closed at its end and opened again on the next line), without the line breaks."""
    lines, current, stack = [], [], []  # stack: the open tags, as written
    for m in _TOKEN.finditer(code_html):
        token = m.group(0)
        if m.group(2):  # a tag
            if m.group(1):
                stack.pop()
            elif not token.endswith("/>"):
                stack.append((m.group(2), token))
            current.append(token)
            continue
        parts = token.split("\n")
        for k, part in enumerate(parts):
            if k:
                lines.append("".join(current) + "".join(f"</{name}>" for name, _ in reversed(stack)))
                current = [tag for _, tag in stack]
            current.append(part)
    tail = "".join(current)
    if text_of(tail):
        lines.append(tail)
    return lines


def _strings(config, page) -> dict:
    lang = (config.theme.get("language") or "").split("-")[0]
    try:
        return site_facts.from_config(config).text(lang, "fold")
    except PluginError:
        raise PluginError(f"hooks/code_folds.py: mkdocs.yml lacks extra.strings.fold for the language {lang!r} "
                          f"({page.file.src_path})") from None


def folded(code_html: str, code: str, found: list[snippet_files.Fold], strings: dict, where: str) -> str:
    """The ``<code>`` content of a block with each fold in a closed ``<details>``."""
    lines = split_lines(code_html)
    shown = code.rstrip("\n").split("\n")
    if [text_of(x) for x in lines] != shown:
        raise PluginError(f"hooks/code_folds.py: {where}: the highlighted block does not cut into its "
                          f"{len(shown)} code lines ({len(lines)} found): expected Pygments' HTML, one line per "
                          "line break")
    starts = {f.first: f for f in found}
    out, i = [], 0
    while i < len(lines):
        f = starts.get(i)
        if f is None:
            out.append(lines[i] + "\n")
            i += 1
            continue
        kind = strings["kinds"].get(f.kind)
        if kind is None:
            raise PluginError(f"hooks/code_folds.py: mkdocs.yml: extra.strings.fold.kinds has no {f.kind!r} ({where})")
        indent = len(shown[i]) - len(shown[i].lstrip(" "))
        label = " " * indent + strings["summary" if f.count > 1 else "summary_one"].format(label=kind, n=f.count)
        end = i + f.count
        # blank lines between this fold and the next one (or the end of the block) go inside it: closed folds
        # stand one under the other, and the block's text is unchanged
        after = end
        while after < len(lines) and not shown[after].strip():
            after += 1
        if after == len(lines) or after in starts:
            end = after
        body = "\n".join(lines[i:end])
        out.append(f'<details class="rn-fold" data-fold="{f.kind}"><summary data-label="{html.escape(label)}" '
                   f'aria-label="{html.escape(label.strip())}"></summary>{body}\n</details>')
        i = end
    return "".join(out)


def on_page_content(html_text: str, page, config, files):
    src = Path(page.file.abs_src_path or "")
    if src.suffix != ".md":  # a notebook page: its cells hold the code without fold markers
        return html_text
    base = Path(includes.SNIPPETS)
    opts = config["mdx_configs"].get("pymdownx.snippets", {})
    if opts.get("base_path"):
        b = opts["base_path"]
        base = Path(b[0] if isinstance(b, list) else b)
    try:
        text = src.read_text(encoding="utf-8")
    except OSError:
        return html_text
    wanted: dict[str, tuple[str, list]] = {}  # shown code -> (snippet name, its folds)
    for name in dict.fromkeys(includes.names(text, base)):
        path = base / name
        try:
            source = snippet_files.read(path)
            for fence in snippet_files.code_fences(source, f"snippets/{name}"):
                raw = "\n".join(source.splitlines()[fence.start + 1:fence.end])
                found = snippet_files.folds(raw, f"snippets/{name}")
                if found:
                    wanted[snippet_files.reader_code(raw + "\n").rstrip("\n")] = (name, found)
        except (OSError, snippet_files.SnippetError):
            continue  # hooks/page_checks.py fails the build on it, naming it
    if not wanted:
        return html_text
    strings, seen = _strings(config, page), set()
    where = page.file.src_path

    def fold(m: re.Match) -> str:
        code = text_of(m.group(4)).rstrip("\n")
        key = code if code in wanted else _ANNOTATION.sub("", code)
        if key not in wanted:
            return m.group(0)
        name, found = wanted[key]
        seen.add(key)
        body = folded(m.group(4), code, found, strings, f"{where}, snippets/{name}")
        copy = html.escape(_ANNOTATION.sub("", code), quote=True).replace("\n", "&#10;")
        return f'{m.group(1)}{m.group(2)} data-copy="{copy}"{m.group(3)}{body}{m.group(5)}'

    html_text = BLOCK.sub(fold, html_text)
    missing = [wanted[k][0] for k in wanted if k not in seen]
    if missing:
        raise PluginError(f"hooks/code_folds.py: {where} includes {', '.join('snippets/' + n for n in missing)}, "
                          "whose code block was not found on the page to fold (expected <div class=\"language-python "
                          "highlight\"><pre><span></span><code>, Pygments' HTML through pymdownx.highlight)")
    return html_text
