"""Verification as one quiet mark: every output a block printed carries the same small link, "✓ verified", to
the page that says how the site is verified; the verdicts in an output are shown as results.

* An output is the block pymdownx.snippets includes after ``<!--pytest-codeblocks:expected-output-->`` (the marker
  every snippet file has before its output: ``hooks/snippet_files.py``); it is the only kind of ``text`` block a
  chapter shows (``tools/checks/built_site.py`` refuses any other). The mark goes inside its ``<div>``, before the
  ``<pre>``, in the row of the output's label ("stdout" / "输出", ``assets/css/site.css``): the copy button copies
  the ``<code>`` alone.
* Its text and tooltip are the page language's ``extra.strings.verified`` (``label``, ``title``); its link, the
  language's verification page (``VERIFICATION``, at the heading ``#checks``), relative to the page.
* A line of an output that a block's ``verdict(...)`` printed (``✔ claim: evidence`` or ``✘ …``,
  CONTRIBUTING.md, "Verdicts") becomes a styled result: the mark, the claim in bold, the evidence; the text, and
  so what the copy button copies, is unchanged.

A page that shows an output while its language has no verification page fails the build (PluginError).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

from hooks import site_facts  # noqa: E402

MARKER = "<!--pytest-codeblocks:expected-output-->"
VERIFICATION = "verification.md"
ANCHOR = "checks"
OUTPUT = re.compile(re.escape(MARKER) + r'(\s*)<div class="language-text highlight">(<pre\b[^>]*><span></span><code>)(.*?)(</code></pre>)',
                    re.S)
VERDICT = re.compile(r"^(✔|✘) ([^\n:]+?): ([^\n]*)$", re.M)


def styled(output_html: str) -> str:
    """The verdict lines of an output's HTML as styled results (the same text)."""
    def one(m: re.Match) -> str:
        kind = "holds" if m.group(1) == "✔" else "fails"
        return (f'<span class="rn-verdict rn-verdict--{kind}"><span class="rn-verdict__mark">{m.group(1)}</span> '
                f'<span class="rn-verdict__claim">{m.group(2)}</span>: '
                f'<span class="rn-verdict__evidence">{m.group(3)}</span></span>')
    return VERDICT.sub(one, output_html)


def mark(page_html: str, href: str, label: str, title: str) -> str:
    """Every output of a page's HTML with the mark, and its verdicts styled."""
    chip = (f'<a class="rn-verified" href="{html.escape(href)}" title="{html.escape(title)}">'
            f'<span class="rn-verified__tick" aria-hidden="true">✓</span> {html.escape(label)}</a>')

    def one(m: re.Match) -> str:
        return (f'{MARKER}{m.group(1)}<div class="language-text highlight rn-output">{chip}{m.group(2)}'
                f'{styled(m.group(3))}{m.group(4)}')
    return OUTPUT.sub(one, page_html)


def on_page_content(html_text: str, page, config, files):
    if MARKER not in html_text:
        return html_text
    facts = site_facts.from_config(config)
    lang = facts.lang_of(page.file.src_uri)
    strings = facts.text(lang, "verified")
    target = f"{lang}/{VERIFICATION}"
    found = files.get_file_from_path(target) or files.get_file_from_path(VERIFICATION if lang == facts.default else target)
    if found is None:
        raise PluginError(f"hooks/verified.py: {page.file.src_uri} shows outputs, but there is no docs/{target} "
                          "for their mark to link to")
    href = get_relative_url(found.url, page.url) + f"#{ANCHOR}"
    return mark(html_text, href, strings["label"], strings["title"])
