"""Trim built pages without changing what a reader sees, so long chapters stay light.

* Pygments wraps every name and every run of spaces in code in its own ``<span>``; Material gives
  names the plain code colour (``--md-code-hl-name-color: var(--md-code-fg-color)``) and spaces no
  style, so those spans are unwrapped. Together they were ~13 % of a long chapter's HTML.
* Spaces before a code annotation marker are dropped, so copied code has no trailing blanks.
* Indentation outside ``<pre>``, ``<textarea>`` and ``<script>`` is folded: a run of white space
  that holds a line break becomes one line break, which renders the same.
* A line break between two Chinese characters is dropped: browsers render it as a space, which
  Chinese text does not have (the Markdown source wraps lines for easy diffs).
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

_PLAIN_SPAN = re.compile(r'<span class="(?:n|w)">([^<]*)</span>')
# Material turns a `# (1)!` comment into an annotation marker; the spaces before it would be copied
# as trailing white space by the copy button.
_BEFORE_ANNOTATION = re.compile(r'[ \t]+(?=<span class="c1"># \(\d+\)!</span>)')
_KEEP = re.compile(r"(<pre\b.*?</pre>|<textarea\b.*?</textarea>|<script\b.*?</script>)", re.S)
_INDENT = re.compile(r"\n[ \t\n]*")
_CJK = "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
# the line break first, then what is behind it: a lookbehind first is tried at every character
_CJK_BREAK = re.compile(f"\n(?<=[{_CJK}]\n)(?=[{_CJK}])")
_MARKER = "# ("  # in every annotation marker: a block without it has no blanks to drop


def compact(html: str) -> str:
    parts = _KEEP.split(html)
    for i, part in enumerate(parts):
        if i % 2:  # kept verbatim, apart from the plain spans inside code
            if part.startswith("<pre"):
                part = _PLAIN_SPAN.sub(r"\1", part)
                parts[i] = _BEFORE_ANNOTATION.sub("", part) if _MARKER in part else part
        else:
            parts[i] = _CJK_BREAK.sub("", _INDENT.sub("\n", part))
    return "".join(parts)


# A page whose HTML did not change since the last build in this process (every page but the edited
# ones on a `mkdocs serve` reload) is compacted once; 128 pages of ~0.2 MB at most are kept.
_compact_once = functools.lru_cache(maxsize=128)(compact)


def on_post_page(output: str, **kwargs) -> str:
    return _compact_once(output)
