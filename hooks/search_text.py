"""Material's search indexes a lighter copy of each page: the same index, a fraction of the parse.

Material's search plugin (``material/plugins/search``) runs Python's ``HTMLParser`` over every
page's HTML in its ``on_page_context``. Most of the tags it walks carry no text of their own:
Pygments wraps every token of every code block in a ``<span>``, and MathML wraps every symbol in
``<mi>``/``<mo>``. The parser keeps only the text inside them (of the tags it meets there it keeps
just ``<pre>`` and ``<code>``), so each ``<pre>`` block and each ``<math>`` element is handed to it
as its bare text: ``<pre><code>text</code></pre>`` and the formula's characters. The last
``on_page_content`` (priority -100) hands on that copy; the first ``on_page_context`` after
search's (priority -10) puts the real content back, before the page is rendered. The index is the same (``tests/test_site_hooks.py`` compares both for every
built page); the build parses about a third of the tags.

Upstream assumption, checked on every page: Material's search plugin only reads ``page.content``
and strips ``data-search-*`` attributes from it (``hooks/search_index.py`` marks code and math with
``data-search-exclude``). The real content is put back with the same attributes stripped the same
way; a page whose lean copy still carries one after Material's search has run fails with
``PluginError``: Material no longer does what this hook repeats.
"""

from __future__ import annotations

import functools
import html
import re
import sys
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
_MATH = re.compile(r"<math\b[^>]*>(.*?)</math>", re.S)
_TAG = re.compile(r"<[^>]+>")
# what Material 9.8.2's search plugin removes from page.content after indexing it
_SEARCH_ATTR = re.compile(r'\s?data-search-\w+="[^"]+"')
_originals: dict[int, str] = {}


def _math_text(inner: str) -> str:
    """A formula's text as the parser collects it outside <pre>: a run of white space between two
    tags counts as one space, and never two in a row."""
    out: list[str] = []
    for segment in _TAG.split(inner):
        if not segment:
            continue
        if html.unescape(segment).isspace():
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(segment)
    return "".join(out)


def lean(page_html: str) -> str:
    """The page as Material's search parser reads it: code blocks and formulas as plain text."""
    page_html = _PRE.sub(lambda m: "<pre><code>" + _TAG.sub("", m.group(1)) + "</code></pre>", page_html)
    return _MATH.sub(lambda m: _math_text(m.group(1)), page_html)


@functools.lru_cache(maxsize=128)
def _unmarked(page_html: str) -> str:
    """The page without the ``data-search-*`` attributes, as Material's search strips them."""
    return _SEARCH_ATTR.sub("", page_html)


# A page whose HTML did not change since the last build in this process (a `mkdocs serve` reload) is
# made lean once; 128 pages at most are kept (and the attributes stripped once, above).
_lean_once = functools.lru_cache(maxsize=128)(lean)


def on_pre_build(config):
    _originals.clear()


@plugins.event_priority(-100)  # the last on_page_content: after math, notebooks, every other edit
def on_page_content(html, page, config, files):
    if html and not (page.meta.get("search") or {}).get("exclude"):
        _originals[id(page)] = html
        return _lean_once(html)
    return html


@plugins.event_priority(-10)  # after Material's search plugin (0) has indexed the page
def on_page_context(context, page, config, nav):
    original = _originals.pop(id(page), None)
    if original is not None:
        if _SEARCH_ATTR.search(page.content or ""):
            raise PluginError(f"hooks/search_text.py: {page.file.src_uri}: Material's search plugin left data-search-* "
                              "attributes in page.content; this hook strips them as Material 9.8.2 does")
        page.content = _unmarked(original)
    return context


def on_post_page(output, page, config):
    if id(page) in _originals:
        raise PluginError(f"hooks/search_text.py: {page.file.src_uri} was rendered without its content put back")
    return output
