"""The home pages' link to the PDF edition: ``<!-- pdf-edition -->`` on a line of its own becomes a link
that never points at a missing file.

``mkdocs build`` and ``mkdocs serve`` write no PDF (``tools/site/pdf.py`` prints it afterwards, from the built
pages), so at build time the link points at the published edition (``site_url`` as mkdocs.yml says, plus
:func:`pdf_name`), which the Pages workflow prints before it publishes, with a note
(``extra.strings.pdf_remote_note``) that ``./run pdf`` prints a local one. ``tools/site/pdf.py`` then
(``localize``) turns each home page's link into a link to the file it has just written beside
the page (relative, with ``download``). A link the reader clicks loads nothing by itself: the offline
promise holds either way.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

MARKER = re.compile(r"^[ \t]*<!--[ \t]*pdf-edition[ \t]*-->[ \t]*$", re.M)
FOLDER = "pdf"
# the element the hook writes and tools/site/pdf.py's localize() rewrites: no span nests inside it (<a>, <small>, <code>)
LINK = re.compile(r'<span class="rn-pdf-edition" data-pdf="([^"]+)">(?:(?!</?span\b).)*</span>', re.S)


def pdf_name(facts: site_facts.Facts, lang: str) -> str:
    """``pdf/<repo>.<lang>.pdf`` under the site root."""
    repo = facts.repo_url.rstrip("/").rsplit("/", 1)[-1] or "site"
    return f"{FOLDER}/{repo}.{lang}.pdf"


def link(facts: site_facts.Facts, lang: str, site_url: str | None = None, local: bool = False) -> str:
    """The link of ``lang``'s home page: to the published edition (``site_url``: the published one), or,
    ``local``, to the file beside the page."""
    name = pdf_name(facts, lang)
    text = html.escape(facts.text(lang, "pdf_download"))
    if local:
        depth = len(PurePosixPath(facts.url_of(lang, "index.md")).parts)
        inner = f'<a href="{"../" * depth}{name}" download>{text}</a>'
    else:
        note = html.escape(facts.text(lang, "pdf_remote_note")).replace("./run pdf", "<code>./run pdf</code>")
        inner = f'<a href="{html.escape((site_url or facts.site_url) + name)}">{text}</a><small class="rn-pdf-note">{note}</small>'
    return f'<span class="rn-pdf-edition" data-pdf="{name}">{inner}</span>'


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    facts = site_facts.load(Path(config.config_file_path))  # as mkdocs.yml says: `mkdocs serve` changes site_url
    lang = facts.lang_of(page.file.src_uri)
    if PurePosixPath(page.file.src_uri).name != "index.md" or facts.url_of(lang, "index.md") != page.url:
        raise PluginError(f"hooks/pdf_link.py: {page.file.src_uri} has <!-- pdf-edition -->, which only a home page may carry")
    return MARKER.sub(lambda m: link(facts, lang), markdown)
