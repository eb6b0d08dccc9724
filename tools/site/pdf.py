"""The PDF edition of each language, printed by Chromium from the built pages.

    python -m tools.site.pdf SITE_DIR     # after `mkdocs build --strict -d SITE_DIR`; `./run pdf` does both

For each language this joins the ``<article>`` of every page in nav order into one print page (the
math is the pages' MathML, the code blocks carry their verified outputs, the figures are the
language's own SVG files), opens it from the site served as published (``tools/site/browser.py``) and
prints it with Playwright's ``page.pdf`` (tagged, with an outline from the headings). It is a book: a
title page (title, subtitle, edition date and commit, licence), a contents page with each chapter's
page number (two printings, :func:`print_edition`), each chapter's name as the running header of its
pages and a folio (CSS ``@page`` margin boxes). Ids are prefixed with their page's slug, and links
between pages become links inside the PDF. The Chinese edition is tagged ``zh-CN`` and set in Noto
Sans CJK SC (``fonts-noto-cjk``), regular and bold, which the print page serves itself, subset to its
characters (:func:`subset_font`), so it prints the same on any machine.

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
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

from hooks import citation, pdf_link, site_facts
from tools import files
from tools.site import browser

_ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_ATTR_URL = re.compile(r'\b(href|src)="([^"]*)"')
_ID = re.compile(r'\bid="([^"]*)"')
_FOR = re.compile(r'\bfor="([^"]*)"')

# The book's page geometry, its list markers (a bullet as text: Chromium draws a disc as a shape, which
# the PDF's text, a search or a screen reader never sees), its running header (the chapter's name, a named page per chapter: Chromium
# draws CSS margin boxes since version 131) and folio, the title page and the contents with page numbers.
PRINT_CSS = """
@page { size: A4; margin: 20mm 16mm 20mm 16mm;
  @bottom-center { content: counter(page) " / " counter(pages); font-size: 8pt; color: #555;
                   font-family: var(--rn-print-fonts); } }
@page rn-cover { @bottom-center { content: none; } }
html { font-size: 112%; }
body { margin: 0; }
.rn-title-page { page: rn-cover; break-after: page; padding-top: 28vh; text-align: center; }
.md-typeset.rn-title-page h1 { font-size: 2.8em; font-weight: 400; margin: 0 0 .5em; color: var(--md-default-fg-color); }
.rn-title-page .rn-subtitle { font-size: 1.2em; margin: 0 auto 4em; max-width: 34em; }
.rn-title-page .rn-edition { margin: 0 0 .6em; }
.rn-title-page .rn-licence, .rn-title-page .rn-url { font-size: .9em; margin: .3em 0; color: var(--md-default-fg-color--light); }
.rn-toc { break-after: page; }
.md-typeset.rn-toc ol { list-style: none; margin: 0; padding: 0; font-size: 1.05em; }
.md-typeset.rn-toc ol li { margin: 0 0 .55em; }
.md-typeset.rn-toc a { color: inherit; text-decoration: none !important; display: flex; align-items: baseline; }
.rn-toc .rn-toc-title { flex: 0 1 auto; }
.rn-toc .rn-toc-dots { flex: 1 1 2em; border-bottom: 1px dotted #888; margin: 0 .4em; }
.rn-toc .rn-toc-page { flex: 0 0 3em; text-align: right; font-variant-numeric: tabular-nums; }
.rn-chapter { break-before: page; }
.md-typeset .headerlink, .md-code__nav, .md-code__button, .md-clipboard, .rn-notebook-links,
.md-source-file, .md-content__button, .rn-pdf-note { display: none !important; }
.md-typeset ul { list-style-type: "\\2022\\2002"; }
.md-typeset ul ul { list-style-type: "\\25E6\\2002"; }
.md-typeset pre > code { white-space: pre-wrap; word-break: break-all; }
.md-typeset details { break-inside: avoid; }
.md-typeset img { max-width: 100%; break-inside: avoid; }
"""

# The language tag of the print page: "zh" alone names no script, and Chromium then draws a CJK face's
# Traditional forms (punctuation centred in its box); a mainland reader expects "，：；" low on the left.
PRINT_LANG = {"zh": "zh-CN"}
TOC_PLACEHOLDER = "000"  # the first printing's page numbers: as wide as the real ones (tabular, right-aligned)

pdf_name = pdf_link.pdf_name  # pdf/<repo>.<lang>.pdf under the site root: the hook links the same file


def _slug(page: str) -> str:
    stem = PurePosixPath(page).with_suffix("").as_posix()
    return "home" if stem == "index" else stem.replace("/", "-")


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def print_page(site: Path, lang: str, facts: site_facts.Facts, commit: str | None, date: str,
               numbers: dict[str, int] | None = None) -> str:
    """The print HTML of one language: title page (title, subtitle, edition date and commit, licence),
    contents (each chapter's page from ``numbers``, by slug; :data:`TOC_PLACEHOLDER` where unknown), every
    nav page's article in order, each chapter a named page whose running header is its name."""
    base = facts.base_path  # pages are served at <base><url_of>
    pages = facts.nav_pages
    numbers = numbers or {}
    by_url = {base + facts.url_of(lang, p): _slug(p) for p in pages}
    head_css, chapters, toc, page_css, site_name, subtitle, body_dir = [], [], [], [], "", "", "ltr"
    for n, page in enumerate(pages):
        url = base + facts.url_of(lang, page)
        text = (site / facts.url_of(lang, page) / "index.html").read_text(encoding="utf-8")
        m = _ARTICLE.search(text)
        if not m:
            raise SystemExit(f"tools/site/pdf.py: {facts.url_of(lang, page)}index.html has no <article>")
        if not head_css:
            head_css = [urljoin(url, h) for h in _STYLESHEET.findall(text)]
            title = html.unescape(_TITLE.search(text).group(1))
            site_name = title.rsplit(" - ", 1)[-1].strip()
            desc = re.search(r'<meta name="description" content="([^"]*)"', text)
            subtitle = html.unescape(desc.group(1)) if desc else ""
            # Material's list indents and admonition icons are set for [dir=ltr] (its <body dir>): without
            # it the list markers fall outside the page and the icons cover the titles' first character
            body = re.search(r'<body\b[^>]*\bdir="([^"]+)"', text)
            if not body:
                raise SystemExit(f'tools/site/pdf.py: {facts.url_of(lang, page)}index.html: expected Material\'s <body dir="...">')
            body_dir = body.group(1)
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
        number = numbers.get(slug)
        toc.append(f'<li><a href="#{slug}"><span class="rn-toc-title">{html.escape(name)}</span>'
                   f'<span class="rn-toc-dots"></span><span class="rn-toc-page">{number or TOC_PLACEHOLDER}</span></a></li>')
        page_css.append(f"#{slug} {{ page: rn-{n}; }}\n@page rn-{n} {{ @top-center {{ content: {_css_string(name)}; "
                        "font-size: 8pt; color: #555; font-family: var(--rn-print-fonts); } }")
        chapters.append(f'<section class="rn-chapter md-typeset" id="{slug}">{body}</section>')
    edition = facts.text(lang, "pdf_edition").format(date=date, commit=commit[:12] if commit else
                                                      facts.text(lang, "citation_no_commit"))
    links = "".join(f'<link rel="stylesheet" href="{html.escape(h)}">' for h in head_css)
    contents = facts.text(lang, "pdf_contents")
    page_css.append(f"@page rn-contents {{ @top-center {{ content: {_css_string(contents)}; font-size: 8pt; "
                    "color: #555; font-family: var(--rn-print-fonts); } }\n.rn-toc { page: rn-contents; }")
    return (f'<!doctype html><html lang="{PRINT_LANG.get(lang, lang)}"><head><meta charset="utf-8">'
            f"<title>{html.escape(site_name)}</title>{links}<style>{PRINT_CSS}{chr(10).join(page_css)}</style></head>"
            f'<body dir="{body_dir}">'
            f'<div class="md-typeset rn-title-page"><h1>{html.escape(site_name)}</h1>'
            f'<p class="rn-subtitle">{html.escape(subtitle)}</p><p class="rn-edition">{html.escape(edition)}</p>'
            f'<p class="rn-licence">{html.escape(facts.text(lang, "pdf_licence"))}</p>'
            f'<p class="rn-url">{html.escape(facts.site_url)}</p></div>'
            f'<nav class="md-typeset rn-toc"><h2>{html.escape(contents)}</h2><ol>{"".join(toc)}</ol></nav>'
            + "".join(chapters) + "</body></html>")


# The CJK font: Noto Sans CJK SC (Debian's fonts-noto-cjk; Source Han Sans SC is the same design), the
# Simplified-Chinese face, whose "，：；" sit low on the left of their box as mainland readers expect
# (WenQuanYi Zen Hei, the font fontconfig picked before, centres them). Chromium (Skia) embeds a face of
# a font collection whole when it cannot subset it: it did so with wqy-zenhei.ttc (16.8 MB, 9.2 MB
# deflated, 44 % of the Chinese edition). So the print page carries its own copy of the regular and the
# bold face for every character from CJK radicals on, subset by fontTools to the characters the page uses.
WIDE_FROM = 0x2E80
PRINT_FONT = "rn-print-wide"
CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC")
CJK_PACKAGE = "fonts-noto-cjk"
_WEIGHTS = {400: 80, 700: 200}  # CSS font-weight -> fontconfig weight (regular, bold)
_TAG = re.compile(r"<[^>]*>")


def wide_chars(html_text: str) -> str:
    """The characters from ``WIDE_FROM`` on in the page's text (tags dropped, entities read)."""
    return "".join(sorted({c for c in html.unescape(_TAG.sub(" ", html_text)) if ord(c) >= WIDE_FROM}))


def cjk_font(weight: int = 400, families: tuple[str, ...] = CJK_FAMILIES) -> tuple[Path, int]:
    """The file and face index of the first of ``families`` that fontconfig has, at CSS ``weight`` (400 or
    700); fails naming the Debian package when none is installed (fontconfig would substitute another)."""
    for family in families:
        out = _run("fc-match", "-f", "%{file}|%{index}|%{family}", f"{family}:weight={_WEIGHTS[weight]}",
                   package="fontconfig")
        path, index, names = (out.split("|", 2) + ["", ""])[:3]
        if family in names.split(",") and Path(path).is_file():
            return Path(path), int(index or 0)
    raise SystemExit(f"tools/site/pdf.py: no Simplified-Chinese font ({' or '.join(families)}) for the print page: "
                     f"apt-get install {CJK_PACKAGE}")


def subset_font(chars: str, out: Path, weight: int = 400) -> Path:
    """The :func:`cjk_font` face of ``weight``, reduced to ``chars``, written to ``out`` (TrueType outlines: :func:`_cff_to_truetype`). A character
    the face lacks is left out: Chromium falls back for it as on the web."""
    import logging

    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "BDF NOT subset; dropped": bitmaps we do not print

    path, index = cjk_font(weight)
    with TTFont(path, fontNumber=index, lazy=True, recalcTimestamp=False) as font:  # closes the .ttc it reads
        cmap = font.getBestCmap()
        options = subset.Options()
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        sub = subset.Subsetter(options)
        sub.populate(unicodes=[ord(c) for c in chars if ord(c) in cmap])
        sub.subset(font)
        if "CFF " in font:
            _cff_to_truetype(font)
        font.save(str(out))
    return out


def _cff_to_truetype(font) -> None:
    """Redraw a CFF font's glyphs as TrueType outlines (cubic curves to quadratic ones within 1 unit of
    1000 per em, fontTools' cu2qu), in place. Skia writes an OpenType-CFF font as Type 3 fonts, one per
    256 glyphs, unsubset and unnamed (measured: 46 Type 3 fonts for three Chinese chapters); a TrueType
    font it embeds as one subset CID font, as it does every other font of the page."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable

    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    drawn = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, max_err=font["head"].unitsPerEm / 1000, reverse_direction=True))
        drawn[name] = pen.glyph()
    font["loca"] = newTable("loca")
    font["glyf"] = glyf = newTable("glyf")
    glyf.glyphOrder, glyf.glyphs = order, drawn
    for glyph in drawn.values():
        glyph.recalcBounds(glyf)
    for tag in ("CFF ", "VORG"):
        if tag in font:
            del font[tag]
    font["maxp"] = maxp = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for field in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
                  "maxStackElements", "maxSizeOfInstructions", "maxComponentElements"):
        setattr(maxp, field, 0)
    maxp.maxZones = 1
    maxp.compile(font)  # counts the points and contours
    font["head"].glyphDataFormat = 0
    post = font["post"]
    post.formatType, post.extraNames, post.mapping, post.glyphOrder = 2.0, [], {}, order
    font.sfntVersion = "\x00\x01\x00\x00"


def _with_font(html_text: str, fonts: dict[int, str]) -> str:
    """``html_text`` with the print font: ``fonts`` maps a CSS weight to the URL of its face."""
    faces = "".join(f'@font-face {{ font-family: "{PRINT_FONT}"; src: url("{url}") format("truetype"); '
                    f"font-weight: {weight}; unicode-range: U+{WIDE_FROM:X}-10FFFF; }}\n"
                    for weight, url in sorted(fonts.items()))
    style = (f"<style>{faces}"
             f':root {{ --md-text-font: "{PRINT_FONT}"; --md-code-font: "{PRINT_FONT}"; }}</style>')
    return html_text.replace("</head>", style + "</head>", 1) if "</head>" in html_text else style + html_text


MARGIN_FONTS = f'"{PRINT_FONT}", Helvetica, Arial, sans-serif'  # the running header and the folio


def print_pdf(html_text: str, site: Path, out: Path) -> None:
    """Print ``html_text`` (served at the site root beside the built ``site``, which it never writes into:
    other jobs may be reading it) to ``out`` with Chromium, in a
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
    # the print page and its fonts are served beside the site, never written into it: other jobs
    # (the tests) read the built site while an edition prints
    with tempfile.TemporaryDirectory(prefix="print-") as beside:
        beside = Path(beside)
        chars = wide_chars(html_text)
        if chars:
            fonts = {weight: subset_font(chars, beside / f".print-{weight}.ttf", weight).name for weight in _WEIGHTS}
            html_text = _with_font(html_text, fonts)
        html_text = html_text.replace("var(--rn-print-fonts)", MARGIN_FONTS)
        (beside / ".print.html").write_text(html_text, encoding="utf-8")
        tmp_pdf = beside.parent / f"{beside.name}.pdf"  # Chromium's own file, compacted into ``out``
        try:
            with browser.serve_published(site, beside=beside) as base, sync_playwright() as p:
                chromium = p.chromium.launch(executable_path=browser.CHROMIUM, args=browser.CHROMIUM_ARGS)
                try:
                    page = chromium.new_page()
                    page.goto(base + ".print.html", wait_until="load")
                    page.emulate_media(media="print")
                    # the page's @page rules give the size, the margins, the running header and the folio
                    page.pdf(path=tmp_pdf, print_background=True, outline=True, tagged=True, prefer_css_page_size=True)
                finally:
                    chromium.close()
            compact(Path(tmp_pdf), out)
        finally:
            Path(tmp_pdf).unlink(missing_ok=True)


def chapter_pages(pdf: Path) -> dict[str, int]:
    """The page (1-based) each chapter starts on, by slug: the named destinations Chromium writes for the
    ids the contents link (``#<slug>``; the ids inside a chapter are ``<slug>--<id>``)."""
    import pikepdf

    with pikepdf.open(pdf) as doc:
        index = {page.objgen: n for n, page in enumerate(doc.pages, 1)}
        dests = doc.Root.get("/Dests")
        if dests is None:
            raise SystemExit(f"tools/site/pdf.py: {pdf.name} has no named destinations (/Dests): "
                             "expected Chromium to write one for each id a link points at")
        return {str(key)[1:]: index[dests[key][0].objgen] for key in dests.keys() if "--" not in str(key)}


def print_edition(site: Path, lang: str, facts: site_facts.Facts, commit: str | None, date: str, out: Path) -> dict[str, int]:
    """Print ``lang``'s edition to ``out`` in two passes: the first with placeholder page numbers in the
    contents, read back (:func:`chapter_pages`), the second with the numbers. The placeholders are as wide
    as the numbers, so no chapter moves; if one did, the second pass would say so here."""
    print_pdf(print_page(site, lang, facts, commit, date), site, out)
    first = chapter_pages(out)
    print_pdf(print_page(site, lang, facts, commit, date, numbers=first), site, out)
    second = chapter_pages(out)
    slugs = [_slug(p) for p in facts.nav_pages]
    if [second.get(s) for s in slugs] != [first.get(s) for s in slugs] or None in second.values():
        raise SystemExit(f"tools/site/pdf.py: {out.name}: the chapters moved between the two printings "
                         f"({first} then {second}): the contents would give wrong page numbers")
    return second


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
            raise SystemExit(f"tools/site/pdf.py: {site / name} does not exist: {page} may not link it")
        text = page.read_text(encoding="utf-8")
        if name not in {m.group(1) for m in pdf_link.LINK.finditer(text)}:
            raise SystemExit(f'tools/site/pdf.py: {page} has no PDF link to {name} (<span class="rn-pdf-edition" '
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
        os.chmod(tmp, 0o666 & ~files._umask())  # as any file the build writes: a web server reads it (mkstemp: 0600)
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
        print_edition(site, lang, facts, commit, date, out)
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


class _Lists(HTMLParser):
    """The items of the chapters' outermost lists, as ``marker + first two letters``: ``1.交叉``, ``•Pr``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # open elements (tag, class)
        self.lists: list[list] = []  # open lists: [tag, next number]
        self.items: list[list[str]] = []  # [marker, text] of open outermost items
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("br", "img", "hr", "input", "meta", "link", "wbr"):
            return
        self.stack.append((tag, a.get("class") or ""))
        hidden = any("tabbed-set" in c or "rn-toc" in c or "grid" in c.split() or c.startswith("md-") and "md-typeset" not in c
                     for _, c in self.stack[:-1])
        if tag in ("ol", "ul"):
            self.lists.append([tag, int(a.get("start") or 1), hidden or bool(a.get("class")) or bool(a.get("type"))])
        elif tag == "li" and len(self.lists) == 1 and not self.lists[0][2]:
            kind, n, _ = self.lists[0]
            self.items.append([f"{n}." if kind == "ol" else "\u2022", ""])
            self.lists[0][1] += 1

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == "li" and len(self.lists) == 1 and self.items:
                marker, text = self.items.pop()
                head = re.sub(r"\s+", "", text)[:2]
                if len(head) == 2 and all(_HAN.match(c) or _LATIN.match(c) for c in head):
                    self.found.append(marker + head)
            if open_tag in ("ol", "ul") and self.lists:
                self.lists.pop()
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.items and not any(t in ("math", "code", "sup", "sub") for t, _ in self.stack):
            self.items[-1][1] += data
        elif self.items:
            self.items[-1][1] += "\u2400"  # math or code first: the item's words are not its first letters


def list_lines(print_html: str) -> list[str]:
    """What the edition's text must hold for each item of the chapters' outermost lists (not in tabs, not
    classed): its marker, then its first two letters (``4.第二``). An item that starts with math or code is
    left out: its printed text is not its source's."""
    parser = _Lists()
    parser.feed(print_html[print_html.find('<section class="rn-chapter'):])
    return parser.found


class _Titles(HTMLParser):
    """The text of each admonition title and ``<summary>`` (the boxes whose title carries an icon)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.found, self.text = 0, [], ""

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in ("br", "img", "input", "wbr")
        elif tag == "summary" or (tag == "p" and "admonition-title" in (dict(attrs).get("class") or "").split()):
            self.depth, self.text = 1, ""

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
            if not self.depth:
                self.found.append(" ".join(self.text.split()))

    def handle_data(self, data):
        if self.depth:
            self.text += data


def box_titles(print_html: str) -> list[str]:
    """The titles of the admonitions and collapsible boxes of the chapters, whitespace collapsed."""
    parser = _Titles()
    parser.feed(print_html[print_html.find('<section class="rn-chapter'):])
    return sorted({t for t in parser.found if t})


# Material draws a box title's icon 0.6rem from the box's left and writes the title 2rem from it
# (rem = 13.4 pt at the print page's 112 %): the icon spans 18.8 to 5.4 pt left of the title's first
# letter. Where the title starts at the box's edge (the icon over its first letter), the strip holds
# nothing but the page around the box.
ICON_STRIP = (14.0, 6.5)  # pt left of the title's first letter
_WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>')


def icon_problems(pdf: Path, titles: list[str], dpi: int = 100) -> list[str]:
    """A box title (from ``titles``, found as a whole printed line) whose icon is not beside it: the strip
    :data:`ICON_STRIP` left of its first letter holds no coloured pixel of the icon (pdftoppm). A title
    set on one line must be found at least once. Each problem names the file and page."""
    import subprocess

    from PIL import Image

    wanted = {" ".join(t.split()) for t in titles}
    found, seen = [], 0
    pages = _run("pdftotext", "-bbox", str(pdf), "-").split("<page ")[1:]
    with tempfile.TemporaryDirectory(prefix="rn-icons-") as tmp:
        for n, page in enumerate(pages, 1):
            lines: list[list] = []
            for m in _WORD.finditer(page):
                x0, y0, x1, y1 = map(float, m.groups()[:4])
                word = html.unescape(m.group(5))
                line = next((ln for ln in lines if abs(ln[1] - y0) < 2 and x0 >= ln[2] - 0.5), None)
                if line and x0 - line[2] < 12:
                    line[2], line[3], line[4] = x1, max(line[3], y1), line[4] + " " + word
                else:
                    lines.append([x0, y0, x1, y1, word])
            hits = [ln for ln in lines if ln[4] in wanted]
            if not hits:
                continue
            seen += len(hits)
            for x0, y0, _, y1, text in hits:  # only the strip is drawn (pdftoppm's crop, in pixels)
                scale = dpi / 72
                left, top = round((x0 - ICON_STRIP[0]) * scale), round(y0 * scale)
                width, height = round((ICON_STRIP[0] - ICON_STRIP[1]) * scale), max(1, round((y1 - y0) * scale))
                png = Path(tmp) / f"p{n}-{left}-{top}"
                subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(n), "-l", str(n), "-x", str(left), "-y", str(top),
                                "-W", str(width), "-H", str(height), "-png", "-singlefile", str(pdf), str(png)],
                               check=True, capture_output=True)
                with Image.open(f"{png}.png") as image:
                    strip = image.convert("RGB").getdata()
                    if sum(1 for r, g, b in strip if max(r, g, b) - min(r, g, b) >= 80) < 4:
                        found.append(f"{pdf.name}, page {n}: no icon beside the box title {text!r} (it lies over the title)")
    if not seen and any(len(t) < 30 for t in wanted):
        found.append(f"{pdf.name}: none of {len(wanted)} box titles found as a printed line")
    return found


def book_problems(pdf: Path, chapters: list[tuple[str, str]], lang_tag: str) -> list[str]:
    """What is wrong with the edition as a book: the catalogue's language is not ``lang_tag``; a Chinese
    edition without an embedded subset Simplified-Chinese face (Noto Sans CJK SC or Source Han Sans SC);
    a chapter (``(slug, name)``, in order) missing from the contents or listed there on the wrong page; a
    page of a chapter whose running header is not the chapter's name. Each problem names the file."""
    import pikepdf

    found = []
    with pikepdf.open(pdf) as doc:
        lang = str(doc.Root.get("/Lang", ""))
    if lang != lang_tag:
        found.append(f"{pdf.name}: its language is {lang!r}, not {lang_tag!r}")
    if lang_tag.startswith("zh"):
        rows = [row.split() for row in _run("pdffonts", str(pdf)).splitlines()[2:]]
        sc = [r[0] for r in rows if re.search(r"CJK-?sc|HanSans-?SC|SourceHanSansSC", r[0], re.I)
              and r[-5:-3] == ["yes", "yes"]]
        if not sc:
            found.append(f"{pdf.name}: no Simplified-Chinese face embedded (Noto Sans CJK SC or Source Han Sans SC, "
                         f"subset): {sorted({r[0] for r in rows})}")
    starts = chapter_pages(pdf)
    text = _run("pdftotext", "-layout", str(pdf), "-").split("\f")
    contents = {}
    for line in "\n".join(text[1:3]).splitlines():  # the contents: the page after the title page (and one more)
        m = re.match(r"\s*(.*?)[\s.]*?(\d+)\s*$", line)
        if m:
            contents[m.group(1).strip()] = int(m.group(2))
    order = [slug for slug, _ in chapters]
    for n, (slug, name) in enumerate(chapters):
        start = starts.get(slug)
        if start is None:
            found.append(f"{pdf.name}: the chapter {name!r} has no destination #{slug}")
            continue
        if contents.get(name) != start:
            found.append(f"{pdf.name}: the contents give {name!r} page {contents.get(name)}, it starts on page {start}")
        end = starts.get(order[n + 1], len(text)) if n + 1 < len(order) else len(text) - 1
        for page in range(start, end):
            lines = [ln.strip() for ln in text[page - 1].splitlines() if ln.strip()]
            if not lines or lines[0] != name:
                found.append(f"{pdf.name}, page {page}: the running header is {lines[:1]}, not the chapter {name!r}")
                break  # one page per chapter says enough
    return found


def missing(pdf: Path, lines: list[str]) -> list[str]:
    """The ``lines`` (e.g. the outputs of the exercises' solutions, printed only if their collapsed
    ``<details>`` were opened) that the edition's text lacks. The text is read with ``-layout``, which keeps
    a printed table's row on one line, and compared without whitespace, since Chromium wraps long code lines."""
    text = re.sub(r"\s+", "", _run("pdftotext", "-layout", str(pdf), "-"))
    return [f"{pdf.name}: lacks the line {line!r}" for line in lines if re.sub(r"\s+", "", line) not in text]


# Size budget, measured on 2026-12-02 on the same pages (CONTRIBUTING, "PDF edition"): zh 208 pages 6.8 MB,
# en 224 pages 5.2 MB. Before: zh 28.0 MB (the whole wqy-zenhei.ttc embedded, 9.2 MB deflated), and
# 18.8 / 17.2 MB with the print font but before compact(). On 2026-12-05, set in Noto Sans CJK SC (regular
# and bold, as TrueType): zh 149 pages 5.9 MB, en 156 pages 5.5 MB; the largest font embedded is the zh
# edition's regular face, 0.30 MB (bold 0.15 MB).
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
    ap = argparse.ArgumentParser(prog="python -m tools.site.pdf", description=__doc__,
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
