"""Language alternates live in sitemap.xml and in the language switcher, not in each page's <head>.

Material's JavaScript reads every ``<link rel="alternate">`` of a page as the root of a language
site and fetches ``sitemap.xml`` under it. mkdocs-static-i18n makes those links the page itself in
each language (right for the switcher), so each page fetched ``<page>/sitemap.xml`` twice and logged
two 404s. The hreflang alternates of every page are in the site's ``sitemap.xml`` (written by
static-i18n, one ``<xhtml:link rel="alternate" hreflang>`` per language for each page, a form
search engines read), and the switcher's links carry ``hreflang``; so this hook drops the
``<link rel="alternate" hreflang>`` lines Material writes into <head>, and nothing fetches a
sitemap that does not exist.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

HEAD_ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">[ \t]*\n?')


def on_post_page(output, page, config):
    if not config.extra.get("alternate"):
        return output
    head, sep, body = output.partition("</head>")
    new_head, n = HEAD_ALTERNATE.subn("", head)
    if n == 0:
        raise PluginError(f"hooks/alternates.py: {page.file.src_path}: expected Material 9.8's "
                          '<link rel="alternate" href="…" hreflang="…"> in <head>, found none')
    return new_head + sep + body


def on_post_template(output_content, template_name, config):
    """The same for the theme's own pages (404.html)."""
    if not template_name.endswith(".html") or "</head>" not in output_content:
        return output_content
    head, sep, body = output_content.partition("</head>")
    return HEAD_ALTERNATE.sub("", head) + sep + body
