"""Checks of a built site that hold for every language: each language's search index holds only
its pages, Material's ``base`` of each page is its language's root, every ``assets/…`` link
resolves, every notebook is a rendered page whose figures are images of the site's figure files,
every page is built and declares every language as an alternate, every code block of a page is a
snippet it includes. Each returns the problems found, naming the page (empty: all good)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urljoin

from hooks import notebook_figures, site_facts
from tools import sources
from tools.runner import selection
from tools.generators import notebooks

INDEX = "search/search_index.json"


def pages(site: Path, facts: site_facts.Facts):
    """(language, URL path under the site root, HTML) of every built page but the 404 pages."""
    for path in sorted(site.rglob("index.html")):
        rel = path.parent.relative_to(site).as_posix()
        rel = "" if rel == "." else rel + "/"
        lang = next((o for o in facts.others if rel.startswith(f"{o}/")), facts.default)
        yield lang, rel, path.read_text(encoding="utf-8")


def search_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Each language's index exists and holds entries of its own pages only."""
    facts = facts or site_facts.load()
    found = []
    for lang in facts.languages:
        index = site / facts.prefix(lang) / INDEX
        if not index.exists():
            found.append(f"{facts.prefix(lang)}{INDEX} does not exist: {lang} pages would search another language")
            continue
        docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
        if not docs:
            found.append(f"{facts.prefix(lang)}{INDEX} is empty")
        for entry in docs:
            page = entry["location"].split("#")[0]
            target = site / facts.prefix(lang) / page / "index.html"
            owner = next((o for o in facts.others if (facts.prefix(lang) + page).startswith(f"{o}/")), facts.default)
            if not target.exists() or owner != lang:
                found.append(f"{facts.prefix(lang)}{INDEX}: entry {entry['location']!r} is no {lang} page")
                break
    return found


_CONFIG = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)


def base_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Material's ``base`` of every page is its language's root."""
    facts = facts or site_facts.load()
    found = []
    for lang, rel, text in pages(site, facts):
        m = _CONFIG.search(text)
        if not m:
            found.append(f"{rel or '/'}: no Material __config script")
            continue
        base = json.loads(m.group(1))["base"]
        resolved = urljoin(f"https://x/{rel}", base.rstrip("/") + "/")
        if resolved != f"https://x/{facts.prefix(lang)}":
            found.append(f"{rel or '/'}: Material's base {base!r} resolves to {resolved[9:]!r}, not {facts.prefix(lang) or '/'!r}")
    return found


_ASSET_LINK = re.compile(r'(?:src|href)="((?:\.\./)*assets/[^"#?]+)"')


def shared_asset_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Every ``assets/…`` a page links to or loads is a built file."""
    facts = facts or site_facts.load()
    found = []
    for lang, rel, text in pages(site, facts):
        for url in sorted(set(_ASSET_LINK.findall(text))):
            if not (site / rel / url).resolve().is_file():
                found.append(f"{rel or '/'}: {url} does not resolve")
    return found


def _notebook_pages(site: Path, facts: site_facts.Facts):
    """(language, committed .ipynb, the built page it should be) for every notebook."""
    for lang in facts.languages:
        for nb in sorted((facts.docs / lang / "notebooks").glob("*.ipynb")):
            yield lang, nb, site / facts.url_of(lang, f"notebooks/{nb.name}") / "index.html"


def notebook_page_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Every notebook is a rendered page with its code blocks, and its .ipynb sits beside it."""
    facts = facts or site_facts.load()
    found = []
    for lang, nb, page in _notebook_pages(site, facts):
        if not page.exists():
            found.append(f"docs/{lang}/notebooks/{nb.name} was not built as a page")
            continue
        text = page.read_text(encoding="utf-8")
        if 'class="language-python highlight"' not in text or "jp-Cell" not in text:
            found.append(f"{page.relative_to(site)}: not a rendered notebook")
        if not (page.parent / nb.name).exists():
            found.append(f"{page.relative_to(site)}: no {nb.name} beside it to download")
    return found


_FIGURE_OUTPUT = re.compile(r'<div class="jp-RenderedSVG[^"]*"[^>]*>(.*?)</div>', re.S)
_IMG = re.compile(r"<img\b([^>]*)>")
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')


def notebook_figure_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Each figure output of every notebook is, on its page, one ``<img>`` with an alt text whose
    source is the built copy of the figure file the output names (the chapter's URL); no figure
    is embedded in a notebook page."""
    facts = facts or site_facts.load()
    found = []
    for lang, nb, page in _notebook_pages(site, facts):
        if not page.exists():
            continue  # notebook_page_problems names it
        rel, text = page.relative_to(site), page.read_text(encoding="utf-8")
        names = [notebook_figures.figure_name(o) for _, _, o in
                 notebook_figures.svg_outputs(json.loads(nb.read_text(encoding="utf-8")))]
        shown = _FIGURE_OUTPUT.findall(text)
        if "data:image/" in text:
            found.append(f"{rel}: embeds an image as a data: URL")
        if len(shown) != len(names):
            found.append(f"{rel}: {len(shown)} figure outputs, docs/{lang}/notebooks/{nb.name} has {len(names)}")
        for name, inner in zip(names, shown):
            images = [dict(_ATTR.findall(attrs)) for attrs in _IMG.findall(inner)]
            if len(images) != 1:
                found.append(f"{rel}: the output of {name} holds {len(images)} <img>, not one")
                continue
            img, want = images[0], site / notebook_figures.FIGURES / str(name)
            target = (page.parent / img.get("src", "")).resolve()
            if target != want.resolve() or not target.is_file():
                found.append(f"{rel}: the figure {name} shows {img.get('src')!r}, not the built {want.relative_to(site)}")
            elif target.read_bytes() != (facts.docs / notebook_figures.FIGURES / str(name)).read_bytes():
                found.append(f"{rel}: {want.relative_to(site)} differs from docs/{notebook_figures.FIGURES}/{name}")
            if not img.get("alt", "").strip():
                found.append(f"{rel}: the figure {name} has no alt text")
    return found


_SITEMAP_URL = re.compile(r"<loc>([^<]+)</loc>(.*?)</url>", re.S)
_SITEMAP_ALTERNATE = re.compile(r'hreflang="([\w-]+)" href="([^"]+)"')
_HEAD_ALTERNATE = re.compile(r'<link rel="alternate"[^>]*hreflang')


def missing_page_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Every page of every language is built."""
    facts = facts or site_facts.load()
    return [f"docs/{lang}/{page} was not built" for lang in facts.languages for page in sorted(sources.pages(lang, facts.docs))
            if not (site / facts.url_of(lang, page) / "index.html").exists()]


def alternate_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """Every page's entry in ``sitemap.xml`` names the page in every language (hreflang), and no page
    head declares alternates: Material fetches a ``sitemap.xml`` under each one (hooks/alternates.py)."""
    facts = facts or site_facts.load()
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    entries = {m.group(1): dict(_SITEMAP_ALTERNATE.findall(m.group(2))) for m in _SITEMAP_URL.finditer(sitemap)}
    found = []
    for lang in facts.languages:
        for page in sorted(sources.pages(lang, facts.docs)):
            url = facts.public_url(lang, page)
            want = {x: facts.public_url(x, page) for x in facts.languages}
            if entries.get(url) != want:
                found.append(f"sitemap.xml: {url} has alternates {entries.get(url)}, expected {want}")
    for lang, rel, text in pages(site, facts):
        if _HEAD_ALTERNATE.search(text.split("</head>")[0]):
            found.append(f"{rel or '/'}: the head declares language alternates (Material fetches a sitemap under each)")
    return found


_ARTICLE = re.compile(r"<article\b.*?</article>", re.S)
_GENERATED = '<pre class="rn-citation" data-generated-from='
_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)


def _block_text(code: str) -> str:
    """What a code block shows: its text without annotation markers and outer blank lines."""
    return notebooks.strip_annotations(code).strip("\n")


def _pre_text(fragment: str) -> str:
    """The text of a ``<pre>`` element's HTML."""
    return _block_text(html.unescape(re.sub(r"<[^>]+>", "", fragment)))


def pasted_code(article: str, page: str, snippet_files: list[Path]) -> list[str]:
    """Code blocks (``<pre>``) of a page's HTML that are neither the code nor the output of a snippet
    it includes: an indented block, a fence or raw ``<pre>`` typed into the page is code no test runs."""
    shown = set()
    for path in snippet_files:
        for block in selection.extract(path):
            shown |= {_block_text(block.code)} | ({_block_text(block.expected)} if block.expected else set())
    found = []
    for n, m in enumerate(_PRE.finditer(article), 1):
        if m.group(0).startswith(_GENERATED):
            continue  # made by a hook from a committed file (hooks/citation.py: CITATION.cff), not typed
        text = _pre_text(m.group(1))
        if text not in shown:
            first = "\n    ".join(text.splitlines()[:3])
            found.append(f"{page}: code block {n} on the page is no snippet it includes (write it as a file under "
                         f"snippets/ and include it with --8<--):\n    {first}")
    return found


def pasted_code_problems(site: Path, facts: site_facts.Facts | None = None,
                         snippet_dir: Path = selection.SNIPPETS) -> list[str]:
    """Every code block in the article of every built Markdown page is a snippet that page includes."""
    facts = facts or site_facts.load()
    found = []
    for lang in facts.languages:
        for page in sorted(sources.pages(lang, facts.docs)):
            built = site / facts.url_of(lang, page) / "index.html"
            if not page.endswith(".md") or not built.exists():
                continue  # notebooks are generated from the snippets; missing_page_problems names a missing page
            article = _ARTICLE.search(built.read_text(encoding="utf-8"))
            names = sources.includes(sources.read(lang, page, facts.docs))
            found += pasted_code(article.group(0) if article else "", f"docs/{lang}/{page}",
                                 [snippet_dir / n for n in dict.fromkeys(names)])
    return found


_COLAB_HREF = re.compile(r'<a\b[^>]*\bhref="(' + re.escape(site_facts.COLAB) + r'[^"]*)"')


def tracked_files(root: Path) -> set[str]:
    """The files git tracks in ``root`` (``git ls-files``), as repository paths."""
    import subprocess

    proc = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git ls-files in {root} failed: {proc.stderr.strip()}")
    return set(filter(None, proc.stdout.split("\0")))


def colab_problems(site: Path, facts: site_facts.Facts | None = None, tracked: set[str] | None = None) -> list[str]:
    """Every notebook page and every chapter with a notebook links its notebook in Colab (an ``<a href>``:
    opened by the reader, nothing loaded), and every Colab link of every page opens a notebook that git
    tracks at the path ``repo_url`` + ``edit_uri`` name."""
    facts = facts or site_facts.load()
    tracked = tracked_files(facts.root) if tracked is None else tracked
    docs = facts.docs.resolve().relative_to(facts.root.resolve()).as_posix()
    found = []
    for lang, nb, page in _notebook_pages(site, facts):
        want = facts.colab_url(f"{lang}/notebooks/{nb.name}")
        chapter = site / facts.url_of(lang, f"{nb.stem}.md") / "index.html"
        for built in (page, chapter):
            if built.exists() and want not in _COLAB_HREF.findall(built.read_text(encoding="utf-8")):
                found.append(f"{built.relative_to(site)}: no Colab link to docs/{lang}/notebooks/{nb.name} ({want})")
    prefix = facts.colab_url("")
    for lang, rel, text in pages(site, facts):
        for href in _COLAB_HREF.findall(text):
            path = f"{docs}/{href.removeprefix(prefix)}" if href.startswith(prefix) else None
            if path is None or path not in tracked:
                found.append(f"{rel}index.html: Colab link {href} opens no notebook git tracks "
                             f"(expected {prefix}<path under {docs}/> of a tracked file)")
    return found


_CITATION = re.compile(r'<pre class="rn-citation" data-generated-from="CITATION\.cff"><code>(.*?)</code></pre>(?:</div>)?\s*'
                       r'<p class="rn-citation-text">(.*?)</p>', re.S)
_BIB_ENTRY = re.compile(r"@(\w+)\{([^,\s]+),\s*(.*)\}\s*$", re.S)
_BIB_FIELD = re.compile(r"(\w+)\s*=\s*")


def parse_bibtex(text: str) -> dict[str, str]:
    """One BibTeX entry's fields (lower-case names; a value's outer braces or quotes removed, inner braces
    kept), with ``ENTRYTYPE`` and ``ID``. Values are read by brace depth, so ``{{A} and {B}}`` is one."""
    m = _BIB_ENTRY.match(text.strip())
    if not m:
        raise ValueError(f"no BibTeX entry @type{{key, ...}} in:\n{text}")
    fields, body, i = {"ENTRYTYPE": m.group(1).lower(), "ID": m.group(2)}, m.group(3), 0
    while i < len(body):
        f = _BIB_FIELD.match(body, i)
        if not f:
            if body[i] in " \t\n,":
                i += 1
                continue
            raise ValueError(f"BibTeX: no field at {body[i:i + 40]!r}")
        i, depth, start = f.end(), 0, f.end()
        opener = body[i]
        if opener not in "{\"":
            raise ValueError(f"BibTeX: field {f.group(1)} is neither braced nor quoted")
        while True:
            i += 1
            if i >= len(body):
                raise ValueError(f"BibTeX: field {f.group(1)} is not closed")
            c = body[i]
            if opener == "{" and c == "{":
                depth += 1
            elif opener == "{" and c == "}":
                if depth == 0:
                    break
                depth -= 1
            elif opener == '"' and c == '"' and depth == 0:
                break
        fields[f.group(1).lower()] = body[start + 1:i]
        i += 1
    return fields


def _untex(value: str) -> str:
    return re.sub(r"\\([&%#_$])", r"\1", value)


def citation_problems(site: Path, cff: dict, commit: str | None, date: str,
                      facts: site_facts.Facts | None = None) -> list[str]:
    """Each home page cites the site as ``cff`` (CITATION.cff) says, at ``commit`` and ``date``: its BibTeX
    parses to the same title, authors, url and repository, and its text names the same."""
    facts = facts or site_facts.load()
    found = []
    for lang in facts.languages:
        rel = facts.url_of(lang, "index.md") + "index.html"
        page = site / rel
        m = _CITATION.search(page.read_text(encoding="utf-8")) if page.exists() else None
        if not m:
            found.append(f"{rel}: no citation (<!-- citation --> in docs/{lang}/index.md, hooks/citation.py)")
            continue
        try:
            bib = parse_bibtex(html.unescape(m.group(1)))
        except ValueError as err:
            found.append(f"{rel}: the BibTeX does not parse: {err}")
            continue
        names = [a.get("name") or " ".join(filter(None, (a.get("given-names"), a.get("family-names"))))
                 for a in cff["authors"]]
        want = {"title": cff["title"], "author": " and ".join("{" + n + "}" for n in names), "url": cff["url"],
                "date": date, "year": date[:4], "version": commit}
        got = {k: _untex(bib.get(k)) if bib.get(k) is not None else None for k in want}
        for key in want:
            if got[key] != want[key]:
                found.append(f"{rel}: BibTeX {key} is {got[key]!r}, CITATION.cff and git say {want[key]!r}")
        if cff["repository-code"] not in (bib.get("note") or ""):
            found.append(f"{rel}: BibTeX note does not name the repository {cff['repository-code']}")
        text = html.unescape(m.group(2))
        for what in (cff["title"], cff["url"], date, *names, *([commit[:12]] if commit else [])):
            if what not in text:
                found.append(f"{rel}: the text citation lacks {what!r}: {text}")
    return found


_API_LINK = re.compile(r'<a class="rn-api" href="([^"]*)" title="([^"]*)">')


def torch_links(site: Path, facts: site_facts.Facts | None = None) -> dict[str, set[str]]:
    """Public torch name -> the hrefs its code links carry, over every built page."""
    facts = facts or site_facts.load()
    found: dict[str, set[str]] = {}
    for _, _, text in pages(site, facts):
        for href, name in _API_LINK.findall(text):
            found.setdefault(html.unescape(name), set()).add(html.unescape(href))
    return found


def torch_link_problems(links: dict[str, set[str]], pinned_torch: str) -> list[str]:
    """Each linked name is a class or function of the installed torch (asked of torch itself, not of the
    inventory the hook linked from), whose version is the pinned one, and links to that name's page in
    the docs of that version (hooks/torch_docs.py)."""
    import torch

    from hooks import torch_docs
    from tools.generators import torch_names

    found = []
    want_version = ".".join(pinned_torch.split(".")[:2])
    have = ".".join(torch.__version__.split(".")[:2])
    if have != want_version:
        found.append(f"the installed torch is {torch.__version__}, requirements.txt pins {pinned_torch}")
    if torch_docs.version() != want_version:
        found.append(f"{torch_docs.INVENTORY.name} was made from torch {torch_docs.version()}, requirements.txt pins {pinned_torch}")
    for name, hrefs in sorted(links.items()):
        if not torch_names.linkable(torch_names.resolve(name)):
            found.append(f"{name}: linked to {sorted(hrefs)}, but the installed torch has no class or function of that name")
        if hrefs != {torch_docs.doc_url(name)} or f"/docs/{want_version}/" not in torch_docs.doc_url(name):
            found.append(f"{name}: links to {sorted(hrefs)}, expected {torch_docs.doc_url(name)}")
    return found
