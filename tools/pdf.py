"""The PDF edition of each language, printed by Chromium from the built pages.

    python -m tools.pdf SITE_DIR     # after `mkdocs build --strict -d SITE_DIR`; `./run pdf` does both

For each language this joins the ``<article>`` of every page in nav order into one print page (the
math is the pages' MathML, the code blocks carry their verified outputs, the figures are the
language's own SVG files), opens it from the site served as published (``tools/browser.py``) and
prints it with Playwright's ``page.pdf`` (tagged, with an outline from the headings). A title page
gives the date and commit (git), a contents list links every chapter. Ids are prefixed with their
page's slug, and links between pages become links inside the PDF. Chromium embeds the fonts it
used: the Chinese edition carries a CJK font (the site's font stack falls back to the system's
WenQuanYi Zen Hei, ``fonts-wqy-zenhei``), so it prints the same on any machine.

Writes ``SITE_DIR/pdf/<repo>.<lang>.pdf`` (:func:`pdf_name`), the address the home pages link.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import tempfile
import threading
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

from hooks import citation, site_facts
from tools import browser

FOLDER = "pdf"
_ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_ATTR_URL = re.compile(r'\b(href|src)="([^"]*)"')
_ID = re.compile(r'\bid="([^"]*)"')
_FOR = re.compile(r'\bfor="([^"]*)"')

PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
html { font-size: 112%; }
body { margin: 0; }
.rn-title-page { break-after: page; padding-top: 30vh; text-align: center; }
.rn-title-page h1 { font-size: 2.4em; margin: 0 0 .6em; }
.rn-toc { break-after: page; }
.rn-chapter { break-before: page; }
.md-typeset .headerlink, .md-code__nav, .md-code__button, .md-clipboard, .rn-notebook-links,
.md-source-file, .md-content__button { display: none !important; }
.md-typeset pre > code { white-space: pre-wrap; word-break: break-all; }
.md-typeset details { break-inside: avoid; }
.md-typeset img { max-width: 100%; break-inside: avoid; }
"""


def pdf_name(facts: site_facts.Facts, lang: str) -> str:
    """``pdf/<repo>.<lang>.pdf`` under the site root."""
    repo = facts.repo_url.rstrip("/").rsplit("/", 1)[-1] or "site"
    return f"{FOLDER}/{repo}.{lang}.pdf"


def _slug(page: str) -> str:
    stem = PurePosixPath(page).with_suffix("").as_posix()
    return "home" if stem == "index" else stem.replace("/", "-")


def print_page(site: Path, lang: str, facts: site_facts.Facts, commit: str | None, date: str) -> str:
    """The print HTML of one language: title page, contents, every nav page's article in order."""
    base = facts.base_path  # pages are served at <base><url_of>
    pages = facts.nav_pages
    by_url = {base + facts.url_of(lang, p): _slug(p) for p in pages}
    head_css, chapters, toc, site_name = [], [], [], ""
    for page in pages:
        url = base + facts.url_of(lang, page)
        text = (site / facts.url_of(lang, page) / "index.html").read_text(encoding="utf-8")
        m = _ARTICLE.search(text)
        if not m:
            raise SystemExit(f"tools/pdf.py: {facts.url_of(lang, page)}index.html has no <article>")
        if not head_css:
            head_css = [urljoin(url, h) for h in _STYLESHEET.findall(text)]
            title = html.unescape(_TITLE.search(text).group(1))
            site_name = title.rsplit(" - ", 1)[-1].strip()
        slug = _slug(page)

        def url_attr(a, slug=slug, url=url):
            name, value = a.group(1), html.unescape(a.group(2))
            if value.startswith("#"):
                return f'{name}="#{slug}--{html.escape(value[1:])}"' if value[1:] else f'{name}="#{slug}"'
            if urlsplit(value).scheme or value.startswith(("data:", "mailto:")):
                return a.group(0)
            absolute = urljoin(url, value)
            parts = urlsplit(absolute)
            target = by_url.get(parts.path)
            if name == "href" and target:
                return f'href="#{target}--{parts.fragment}"' if parts.fragment else f'href="#{target}"'
            return f'{name}="{html.escape(absolute)}"'

        body = _ATTR_URL.sub(url_attr, m.group(1))
        body = _ID.sub(lambda i, slug=slug: f'id="{slug}--{i.group(1)}"', body)
        body = _FOR.sub(lambda i, slug=slug: f'for="{slug}--{i.group(1)}"', body)
        body = body.replace("<details", "<details open")
        h1 = re.search(r"<h1\b[^>]*>(.*?)</h1>", body, re.S)
        name = html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))).replace("¶", "").strip() if h1 else slug
        toc.append(f'<li><a href="#{slug}">{html.escape(name)}</a></li>')
        chapters.append(f'<section class="rn-chapter md-typeset" id="{slug}">{body}</section>')
    edition = facts.text(lang, "pdf_edition").format(date=date, commit=commit[:12] if commit else
                                                      facts.text(lang, "citation_no_commit"))
    links = "".join(f'<link rel="stylesheet" href="{html.escape(h)}">' for h in head_css)
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(site_name)}</title>'
            f"{links}<style>{PRINT_CSS}</style></head><body>"
            f'<div class="md-typeset rn-title-page"><h1>{html.escape(site_name)}</h1><p>{html.escape(edition)}</p>'
            f'<p>{html.escape(facts.site_url)}</p></div>'
            f'<nav class="md-typeset rn-toc"><h2>{html.escape(facts.text(lang, "pdf_contents"))}</h2><ol>{"".join(toc)}</ol></nav>'
            + "".join(chapters) + "</body></html>")


def print_pdf(html_text: str, site: Path, out: Path, footer_lang: str = "") -> None:
    """Print ``html_text`` (placed at the site root, served as published) to ``out`` with Chromium, in a
    thread of its own: Playwright's sync API refuses a thread where an asyncio loop runs (as in pytest,
    after the browser tests)."""
    failed: list[BaseException] = []

    def work():
        try:
            _print_pdf(html_text, site, out)
        except BaseException as err:  # noqa: BLE001 - raised in the caller's thread
            failed.append(err)

    thread = threading.Thread(target=work, name="print to PDF")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


def _print_pdf(html_text: str, site: Path, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_html = tempfile.mkstemp(prefix=".print-", suffix=".html", dir=site)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(html_text)
    fd, tmp_pdf = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        with browser.serve_published(site) as base, sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=browser.CHROMIUM, args=browser.CHROMIUM_ARGS)
            try:
                page = chromium.new_page()
                page.goto(base + Path(tmp_html).name, wait_until="load")
                page.emulate_media(media="print")
                page.pdf(path=tmp_pdf, format="A4", print_background=True, outline=True, tagged=True,
                         display_header_footer=True, header_template="<span></span>",
                         footer_template='<div style="font-size:8px;width:100%;text-align:center">'
                                         '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
                         margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
            finally:
                chromium.close()
        os.replace(tmp_pdf, out)
    finally:
        Path(tmp_html).unlink(missing_ok=True)
        Path(tmp_pdf).unlink(missing_ok=True)


def write(site: Path, facts: site_facts.Facts | None = None, out_dir: Path | None = None) -> list[Path]:
    """Print every language's edition to ``out_dir`` (default: the site), at :func:`pdf_name`."""
    facts = facts or site_facts.load()
    commit, date = citation.git_version(facts.root)
    written = []
    for lang in facts.languages:
        out = (out_dir or site) / pdf_name(facts, lang)
        print_pdf(print_page(site, lang, facts, commit, date), site, out)
        written.append(out)
    return written


# --------------------------------------------------------------------------- checks (poppler-utils)

_TEX = re.compile(r"\\(?:frac|sqrt|mathrm|mathbf|begin|end|left|right|sum|cdot|partial|operatorname)\b|\$\$|\\\(|\\\[")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def _run(*cmd: str) -> str:
    import subprocess

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise SystemExit(f"{cmd[0]} is missing: apt-get install poppler-utils") from None
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    return proc.stdout


def han_share(text: str) -> float:
    """Han characters among Han characters and Latin letters."""
    han, latin = len(_HAN.findall(text)), len(_LATIN.findall(text))
    return han / max(1, han + latin)


def problems(pdf: Path, script: str, titles: list[str], first_page: list[str], code: set[str],
             min_pages: int) -> list[str]:
    """What is wrong with one printed edition: too few pages, a chapter missing from the outline, text
    not in the edition's script (the prose, lines not in ``code``: ``han`` at least 40 % Han characters
    among letters, ``latin`` at most 2 %), raw TeX outside code (a line of TeX is allowed only where it
    is a line of ``code``, the snippets' code and outputs), a font not embedded, the
    title page without ``first_page``'s strings. Each problem names the file."""
    found = []
    info = _run("pdfinfo", str(pdf))
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    if pages < min_pages:
        found.append(f"{pdf.name}: {pages} pages, expected at least {min_pages}")
    outline = html.unescape(" ".join(re.findall(r"<item\b[^>]*>(.*?)</item>",
                                                _run("pdftohtml", "-xml", "-i", "-q", "-stdout", "-l", "1", str(pdf)), re.S)))
    found += [f"{pdf.name}: the outline lacks the chapter {t!r}" for t in titles if t not in outline]
    text = _run("pdftotext", "-layout", str(pdf), "-")
    share = han_share("\n".join(line for line in text.splitlines() if line.strip() not in code))  # the prose
    if (script == "han" and share < 0.4) or (script != "han" and share > 0.02):
        found.append(f"{pdf.name}: Han characters are {share:.1%} of the letters, not what a {script} edition holds")
    for n, page in enumerate(text.split("\f"), 1):
        for line in page.splitlines():
            if _TEX.search(line) and line.strip() not in code:
                found.append(f"{pdf.name}, page {n}: raw TeX outside code: {line.strip()[:100]}")
    fonts = _run("pdffonts", str(pdf)).splitlines()[2:]
    found += [f"{pdf.name}: font not embedded: {row.split()[0]}" for row in fonts if row.split()[-5:-4] != ["yes"]]
    cover = text.split("\f", 1)[0]
    found += [f"{pdf.name}: the title page lacks {s!r}" for s in first_page if s not in cover]
    return found


def missing(pdf: Path, lines: list[str]) -> list[str]:
    """The ``lines`` (e.g. the outputs of the exercises' solutions, printed only if their collapsed
    ``<details>`` were opened) that the edition's text lacks. The text is read with ``-layout``, which keeps
    a printed table's row on one line, and compared without whitespace, since Chromium wraps long code lines."""
    text = re.sub(r"\s+", "", _run("pdftotext", "-layout", str(pdf), "-"))
    return [f"{pdf.name}: lacks the line {line!r}" for line in lines if re.sub(r"\s+", "", line) not in text]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.pdf", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path, help="a site built by `mkdocs build --strict -d SITE`")
    args = ap.parse_args(argv)
    if browser.browser_decision() != "run":
        raise SystemExit(browser.NO_CHROMIUM)
    for path in write(args.site):
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
