"""Fail the strict build on what a page would show broken: a ``$$`` left open, a heading id used twice.

* A display formula opened with ``$$`` and never closed is not math for arithmatex: the page would show
  the raw TeX, and nothing else warns. Any ``$$`` left in a page's text (outside code) is an error.
* Two headings with one id (``{ #same }`` twice) make one of them unreachable by its link, and the
  language switcher lands on the wrong one. Each heading id appears once per page.

* An include the runners would not run, or a block's output anywhere but directly under its own code, or an
  include hidden in a comment (``hooks/includes.py``, read from the page's Markdown before it is converted).

All fail with a PluginError naming the page (``docs/<lang>/<page>.md``) and what was found. Notebook
pages are generated from their chapter page (checked) and carry nbconvert's own MathJax setup: skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path
import collections
import functools
import html
import re

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import includes, one_module  # noqa: E402

one_module(__name__, __file__)

_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]*>")
_HEADING_ID = re.compile(r"<h[1-6]\b[^>]*\bid=\"([^\"]+)\"")


@functools.lru_cache(maxsize=128)  # a page unchanged since the last build in this process: checked once
def problems(html_text: str, where: str) -> tuple[str, ...]:
    found = []
    text = html.unescape(_TAG.sub(" ", _CODE.sub(" ", html_text)))
    if "$$" in text:
        i = text.index("$$")
        found.append(f"{where}: a $$ left open (the page would show raw TeX): "
                     f"{' '.join(text[max(0, i - 40):i + 60].split())!r}")
    twice = [i for i, n in collections.Counter(_HEADING_ID.findall(html_text)).items() if n > 1]
    if twice:
        found.append(f"{where}: heading ids used more than once: {', '.join(sorted(twice))}")
    return tuple(found)


def on_page_markdown(markdown: str, page, config, **kwargs) -> str:
    """Every include of a page is a snippet the runners run, shown whole or code-then-output, never hidden."""
    if page.file.src_uri.endswith(".ipynb"):
        return markdown
    opts = dict(config["mdx_configs"].get("pymdownx.snippets", {}))
    base = opts.get("base_path")
    base = base[0] if isinstance(base, list) else base
    if not base:
        raise PluginError("hooks/page_checks.py: expected pymdownx.snippets with a base_path in mkdocs.yml")
    # not cached: a snippet file can change while the page does not (serve)
    found = includes.problems(markdown, f"docs/{page.file.src_uri}", Path(base).resolve(), opts)
    if found:
        raise PluginError("\n".join(found))
    return markdown


def on_page_content(html_text: str, page, **kwargs) -> str:
    if page.file.src_uri.endswith(".ipynb"):  # generated from its chapter page, which is checked
        return html_text
    found = problems(html_text, f"docs/{page.file.src_uri}")
    if found:
        raise PluginError("\n".join(found))
    return html_text
