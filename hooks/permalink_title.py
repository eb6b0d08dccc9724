"""Heading anchors' tooltip in the page's language.

The ``toc`` extension gives every heading's permalink (``<a class="headerlink">``) the title
``permalink_title`` ("Permanent link" unless set), one value for the whole build: MkDocs renders every
language with the same ``markdown_extensions``, and mkdocs-static-i18n refuses to override them per
language. A Chinese reader hovering over "¶" read "Permanent link" on every heading. On each page's
HTML this hook sets that title to the page language's ``extra.strings.permalink_title`` (mkdocs.yml),
for the chapter pages and the notebook pages (hooks/notebooks.py writes Material's markup). A language
without that string fails the build (``PluginError``), and so does a page whose headings carry a
title other than the expected one: the markup changed upstream and this hook would silently do nothing.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

UPSTREAM = "Permanent link"  # toc's default permalink_title (markdown/extensions/toc.py)
_ANCHOR = re.compile(r'(<a class="headerlink" href="[^"]*" title=")([^"]*)(">)')


def retitle(page_html: str, title: str, where: str = "") -> str:
    """Every heading anchor's title set to ``title``; an anchor with another title is an error."""
    def one(m: re.Match) -> str:
        if m.group(2) not in (UPSTREAM, html.escape(title)):
            raise PluginError(f"{where}: a heading anchor's title is {m.group(2)!r}, expected {UPSTREAM!r} "
                              "(the toc extension's markup changed; hooks/permalink_title.py)")
        return m.group(1) + html.escape(title) + m.group(3)
    return _ANCHOR.sub(one, page_html)


def on_page_content(html_text: str, page, config, **kwargs) -> str:
    facts = site_facts.from_config(config)
    lang = facts.lang_of(page.file.src_uri)
    return retitle(html_text, facts.text(lang, "permalink_title"), page.file.src_uri)
