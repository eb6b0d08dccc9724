"""The PDF edition of each language, printed by Chromium from the built pages.

    python -m tools.pdf SITE_DIR     # after `mkdocs build --strict -d SITE_DIR`; `./run pdf` does both

For each language this joins the ``<article>`` of every page in nav order into one print page (the
math is the pages' MathML, the code blocks carry their verified outputs, the figures are the
language's own SVG files), opens it from the site served as published (``tools/browser.py``) and
prints it with Playwright's ``page.pdf`` (tagged, with an outline from the headings). A title page
gives the date and commit (git), a contents list links every chapter. Ids are prefixed with their
page's slug, and links between pages become links inside the PDF. Chromium embeds the fonts it
used: the Chinese edition carries a CJK font (the site's font stack falls back to the system's
WenQuanYi Zen Hei, ``fonts-wqy-zenhei``), so it prints the same on any machine; the print page
serves that font itself, subset to its characters (:func:`subset_font`: Chromium embedded the whole
collection file otherwise).

Writes ``SITE_DIR/pdf/<repo>.<lang>.pdf`` (:func:`pdf_name`), then points the home pages' links at
them (:func:`localize`; a plain build links the published edition, ``hooks/pdf_link.py``).
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

from hooks import citation, pdf_link, site_facts
from tools import browser, files

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
.md-source-file, .md-content__button, .rn-pdf-note { display: none !important; }
.md-typeset pre > code { white-space: pre-wrap; word-break: break-all; }
.md-typeset details { break-inside: avoid; }
.md-typeset img { max-width: 100%; break-inside: avoid; }
"""


pdf_name = pdf_link.pdf_name  # pdf/<repo>.<lang>.pdf under the site root: the hook links the same file


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


# The CJK font: Chromium (Skia) embeds a font of a TrueType collection whole when it cannot subset it,
# and it did so for the Chinese edition: the whole 16.8 MB wqy-zenhei.ttc (9.2 MB deflated, 44 % of the
# file). So the print page carries its own font for every character from CJK radicals on: the font
# fontconfig picks for them (what Chromium falls back to on the web pages), one face of it, subset by
# fontTools to the characters the page uses. The glyphs are the same; only what is embedded shrinks.
WIDE_FROM = 0x2E80
PRINT_FONT = "rn-print-wide"
_TAG = re.compile(r"<[^>]*>")


def wide_chars(html_text: str) -> str:
    """The characters from ``WIDE_FROM`` on in the page's text (tags dropped, entities read)."""
    return "".join(sorted({c for c in html.unescape(_TAG.sub(" ", html_text)) if ord(c) >= WIDE_FROM}))


def fallback_font(chars: str) -> tuple[Path, int]:
    """The font file and face index fontconfig matches for ``chars`` (``fc-match :charset=...``)."""
    out = _run("fc-match", "-f", "%{file}|%{index}", ":charset=" + " ".join(f"{ord(c):x}" for c in chars[:64]),
               package="fontconfig")
    path, _, index = out.partition("|")
    if not path or not Path(path).is_file():
        raise SystemExit(f"tools/pdf.py: fc-match names no font file for {chars[:8]!r}...: {out!r}")
    return Path(path), int(index or 0)


def subset_font(chars: str, out: Path) -> Path:
    """One face of :func:`fallback_font` (matched on the first 64 of ``chars``), reduced to ``chars``, written
    to ``out`` (TrueType). A character the face lacks is left out: Chromium falls back for it as on the web."""
    import logging

    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "BDF NOT subset; dropped": bitmaps we do not print

    path, index = fallback_font(chars)
    with TTFont(path, fontNumber=index, lazy=True, recalcTimestamp=False) as font:  # closes the .ttc it reads
        missing = [c for c in chars if ord(c) not in font.getBestCmap()]
        options = subset.Options()
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        sub = subset.Subsetter(options)
        sub.populate(unicodes=[ord(c) for c in chars if c not in missing])
        sub.subset(font)
        font.save(str(out))
    return out


def _with_font(html_text: str, font_url: str) -> str:
    style = (f'<style>@font-face {{ font-family: "{PRINT_FONT}"; src: url("{font_url}") format("truetype"); '
             f"unicode-range: U+{WIDE_FROM:X}-10FFFF; }}\n"
             f':root {{ --md-text-font: "{PRINT_FONT}"; --md-code-font: "{PRINT_FONT}"; }}</style>')
    return html_text.replace("</head>", style + "</head>", 1) if "</head>" in html_text else style + html_text


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
    fd, tmp_font = tempfile.mkstemp(prefix=".print-", suffix=".ttf", dir=site)
    os.close(fd)
    chars = wide_chars(html_text)
    if chars:
        subset_font(chars, Path(tmp_font))
        html_text = _with_font(html_text, Path(tmp_font).name)
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
        compact(Path(tmp_pdf), out)
    finally:
        Path(tmp_html).unlink(missing_ok=True)
        Path(tmp_pdf).unlink(missing_ok=True)
        Path(tmp_font).unlink(missing_ok=True)


def localize(site: Path, facts: site_facts.Facts | None = None) -> list[Path]:
    """Point each home page's PDF link (``hooks/pdf_link.py``) at the edition written into ``site``,
    rewriting the pages atomically. A PDF missing, or a home page without the link, fails loudly,
    naming the file: no link may point at a missing file."""
    facts = facts or site_facts.load()
    done = []
    for lang in facts.languages:
        page = site / facts.url_of(lang, "index.md") / "index.html"
        name = pdf_name(facts, lang)
        if not (site / name).is_file():
            raise SystemExit(f"tools/pdf.py: {site / name} does not exist: {page} may not link it")
        text = page.read_text(encoding="utf-8")
        if name not in {m.group(1) for m in pdf_link.LINK.finditer(text)}:
            raise SystemExit(f'tools/pdf.py: {page} has no PDF link to {name} (<span class="rn-pdf-edition" '
                             f'data-pdf="{name}">, written by hooks/pdf_link.py)')
        files.write_atomic(page, pdf_link.LINK.sub(
            lambda m: pdf_link.link(facts, lang, local=True) if m.group(1) == name else m.group(0), text))
        done.append(page)
    return done


def link_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """What is wrong with the home pages' PDF links in a built ``site``: a home page that links no edition
    of its language, or a link to a file the site does not hold. A link to the published edition
    (``site_url`` + :func:`pdf_name`) is right wherever the site has no PDF of its own (the Pages
    workflow prints that file before it publishes); once the site holds the file, the link must be
    the local one. Each problem names the page."""
    from posixpath import normpath

    facts = facts or site_facts.load()
    found = []
    for lang in facts.languages:
        home = facts.url_of(lang, "index.md")
        rel = f"{home}index.html"
        text = (site / home / "index.html").read_text(encoding="utf-8")
        name, published = pdf_name(facts, lang), facts.site_url + pdf_name(facts, lang)
        hrefs = [html.unescape(h) for h in re.findall(r'<a\b[^>]*\bhref="([^"]+\.pdf)"', text)]
        local = [h for h in hrefs if not urlsplit(h).scheme]
        if not any(normpath(f"/{home}{h}") == f"/{name}" for h in local) and published not in hrefs:
            found.append(f"{rel}: no link to its edition {name} (local) or {published}: {hrefs}")
        for h in local:
            target = normpath(f"{home}{h}")
            if not (site / target).is_file():
                found.append(f"{rel}: links {h}, which the site does not hold ({target})")
        if (site / name).is_file() and published in hrefs:
            found.append(f"{rel}: links the published {published} although the site holds {name}")
    return found


def compact(src: Path, out: Path) -> None:
    """Write ``src`` to ``out`` (atomically) with its objects in compressed object streams (qpdf, through
    pikepdf). Skia writes each object of the tagged PDF's structure tree (one per element of the page:
    every highlighted token, every MathML node) and of the links as a plain dictionary of its own:
    measured on 2026-12-02 on the English edition (224 pages), 101,825 such objects took 9.5 MB and
    their cross-reference table 2.1 MB of 17.2 MB; compacted, the edition is 5.2 MB. Streams are
    decoded and deflated again; content, fonts, outline and tags are unchanged."""
    import pikepdf

    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        with pikepdf.open(src) as doc:
            doc.save(tmp, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=True,
                     stream_decode_level=pikepdf.StreamDecodeLevel.generalized, recompress_flate=True,
                     deterministic_id=True)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)


def write(site: Path, facts: site_facts.Facts | None = None, out_dir: Path | None = None) -> list[Path]:
    """Print every language's edition to ``out_dir`` (default: the site), at :func:`pdf_name`; printed into
    the site, the home pages then link the local files (:func:`localize`)."""
    facts = facts or site_facts.load()
    commit, date = citation.git_version(facts.root)
    written = []
    for lang in facts.languages:
        out = (out_dir or site) / pdf_name(facts, lang)
        print_pdf(print_page(site, lang, facts, commit, date), site, out)
        written.append(out)
    if out_dir is None:
        localize(site, facts)
    return written


# --------------------------------------------------------------------------- checks (poppler-utils)

_TEX = re.compile(r"\\(?:frac|sqrt|mathrm|mathbf|begin|end|left|right|sum|cdot|partial|operatorname)\b|\$\$|\\\(|\\\[")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def _run(*cmd: str, package: str = "poppler-utils") -> str:
    import subprocess

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise SystemExit(f"{cmd[0]} is missing: apt-get install {package}") from None
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


# Size budget, measured on 2026-12-02 on the same pages (CONTRIBUTING, "PDF edition"): zh 208 pages 6.8 MB,
# en 224 pages 5.2 MB. Before: zh 28.0 MB (the whole wqy-zenhei.ttc embedded, 9.2 MB deflated), and
# 18.8 / 17.2 MB with the print font but before compact(). The largest font embedded now is 0.17 MB.
SIZE_BUDGET = 10_000_000
FONT_BUDGET = 1_000_000


def size_problems(pdf: Path, budget: int = SIZE_BUDGET, font_budget: int = FONT_BUDGET) -> list[str]:
    """An edition over ``budget`` bytes, or embedding a font file over ``font_budget`` (a font embedded
    whole instead of subset), or written without object streams (:func:`compact` skipped). Each problem
    names the file."""
    import pikepdf

    found = []
    size = pdf.stat().st_size
    if size > budget:
        found.append(f"{pdf.name}: {size / 1e6:.1f} MB, over its budget of {budget / 1e6:.1f} MB")
    with pikepdf.open(pdf) as doc:
        for obj in doc.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor":
                for key in ("/FontFile", "/FontFile2", "/FontFile3"):
                    if key in obj and len(obj[key].read_raw_bytes()) > font_budget:
                        found.append(f"{pdf.name}: the font {obj.get('/FontName')} is embedded in "
                                     f"{len(obj[key].read_raw_bytes()) / 1e6:.1f} MB, over {font_budget / 1e6:.1f} MB")
        if not any(isinstance(o, pikepdf.Stream) and o.get("/Type") == "/ObjStm" for o in doc.objects):
            found.append(f"{pdf.name}: no object streams (every object a plain dictionary of its own)")
    return found


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
