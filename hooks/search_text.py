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
and strips ``data-search-*`` attributes from it. Our pages carry none, so the real content is put
back unchanged; a page that has one fails with ``PluginError``, since the swap would lose
Material's edit.
"""

from __future__ import annotations

import html
import re

from mkdocs import plugins
from mkdocs.exceptions import PluginError

_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
_MATH = re.compile(r"<math\b[^>]*>(.*?)</math>", re.S)
_TAG = re.compile(r"<[^>]+>")
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


def on_pre_build(config):
    _originals.clear()


@plugins.event_priority(-100)  # the last on_page_content: after math, notebooks, every other edit
def on_page_content(html, page, config, files):
    if html and not (page.meta.get("search") or {}).get("exclude"):
        if "data-search-" in html:
            raise PluginError(f"hooks/search_text.py: {page.file.src_uri} carries data-search-* attributes, which "
                              "Material's search plugin strips from page.content; remove them or drop this hook")
        _originals[id(page)] = html
        return lean(html)
    return html


@plugins.event_priority(-10)  # after Material's search plugin (0) has indexed the page
def on_page_context(context, page, config, nav):
    original = _originals.pop(id(page), None)
    if original is not None:
        page.content = original
    return context


def on_post_page(output, page, config):
    if id(page) in _originals:
        raise PluginError(f"hooks/search_text.py: {page.file.src_uri} was rendered without its content put back")
    return output
