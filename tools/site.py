"""Facts about the site's sources and its built HTML, shared by the tests and the tools."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGS = ("zh", "en")
DEFAULT_LANG = "zh"
PAGE_SUFFIXES = (".md", ".ipynb")

_INCLUDE = re.compile(r"""^[ \t]*-{1,}8<-{1,}[ \t]+["']([^"']+)["']""", re.M)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]", re.S)
_FIGURE = re.compile(r"assets/(?:figures|diagrams)/[\w./-]+")
_CITATION = re.compile(r"references\.md#([\w-]+)")


def pages(lang: str, docs: Path = DOCS) -> set[str]:
    """Page files of one language, relative to its folder."""
    root = docs / lang
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix in PAGE_SUFFIXES}


def includes(text: str) -> list[str]:
    """Snippet files a page includes, in order (a ``:section`` suffix names the same file)."""
    return [re.sub(r":[a-z][-_0-9a-z]*$|(:\d*)+$", "", m) for m in _INCLUDE.findall(text)]


def display_equations(text: str) -> int:
    return len(_DISPLAY_MATH.findall(text))


def figures(text: str) -> list[str]:
    """Figures and diagrams a page shows; ``name.zh.svg`` and ``name.en.svg`` count as one."""
    return [re.sub(r"\.(zh|en)(\.\w+)$", r"\2", f) for f in _FIGURE.findall(text)]


def citations(text: str) -> list[str]:
    return _CITATION.findall(text)


_REFERENCE_ENTRY = re.compile(r"^[ \t]*\{[ \t]*#([\w-]+)[ \t]*\}[ \t]*$", re.M)
REFERENCES = "references.md"


def reference_keys(text: str) -> list[str]:
    """Entry anchors of a references page, in order: the lines that hold only ``{ #key }``."""
    return _REFERENCE_ENTRY.findall(text)


def _citing_pages(lang: str, docs: Path) -> dict[str, list[str]]:
    """Keys each page of one language cites (``references.md#key``), the references page excluded."""
    return {page: citations((docs / lang / page).read_text(encoding="utf-8"))
            for page in sorted(pages(lang, docs)) if page.endswith(".md") and page != REFERENCES}


def citation_problems(docs: Path = DOCS) -> list[str]:
    """Citations without an entry in the references pages of both languages, each naming page and key."""
    found = []
    keys = {}
    for lang in LANGS:
        path = docs / lang / REFERENCES
        if not path.exists():
            found.append(f"docs/{lang}/{REFERENCES} does not exist")
            keys[lang] = []
        else:
            keys[lang] = reference_keys(path.read_text(encoding="utf-8"))
        dupes = sorted({k for k in keys[lang] if keys[lang].count(k) > 1})
        if dupes:
            found.append(f"docs/{lang}/{REFERENCES}: entries listed twice: {dupes}")
    for lang in LANGS:
        for page, cited in _citing_pages(lang, docs).items():
            for key in dict.fromkeys(cited):
                for target in LANGS:
                    if key not in keys[target]:
                        found.append(f"docs/{lang}/{page} cites {REFERENCES}#{key}, "
                                     f"but docs/{target}/{REFERENCES} has no entry {{ #{key} }}")
    return found


def reference_order_problems(docs: Path = DOCS) -> list[str]:
    """The two references pages must list the same entries in the same order."""
    found = []
    keys = {lang: reference_keys((docs / lang / REFERENCES).read_text(encoding="utf-8"))
            for lang in LANGS if (docs / lang / REFERENCES).exists()}
    if len(keys) < len(LANGS):
        return found  # citation_problems reports the missing page
    a, b = LANGS
    if keys[a] != keys[b]:
        only_a = [k for k in keys[a] if k not in keys[b]]
        only_b = [k for k in keys[b] if k not in keys[a]]
        detail = []
        if only_a:
            detail.append(f"only in docs/{a}/{REFERENCES}: {only_a}")
        if only_b:
            detail.append(f"only in docs/{b}/{REFERENCES}: {only_b}")
        if not detail:
            first = next(i for i, (x, y) in enumerate(zip(keys[a], keys[b])) if x != y)
            detail.append(f"same keys, different order from entry {first + 1}: "
                          f"{keys[a][first]} in {a}, {keys[b][first]} in {b}")
        found.append(f"docs/{a}/{REFERENCES} and docs/{b}/{REFERENCES} differ: " + "; ".join(detail))
    return found


def uncited_references(docs: Path = DOCS) -> list[str]:
    """Entries of a references page that no page of the same language cites."""
    found = []
    for lang in LANGS:
        path = docs / lang / REFERENCES
        if not path.exists():
            continue
        cited = {k for keys in _citing_pages(lang, docs).values() for k in keys}
        for key in reference_keys(path.read_text(encoding="utf-8")):
            if key not in cited:
                found.append(f"docs/{lang}/{REFERENCES}#{key} is cited by no page in docs/{lang}/")
    return found


def parity_problems(docs: Path = DOCS) -> list[str]:
    """Differences in structure between the language trees, each naming the file."""
    found = []
    zh, en = pages("zh", docs), pages("en", docs)
    for page in sorted(zh - en):
        found.append(f"docs/zh/{page} has no English page docs/en/{page}")
    for page in sorted(en - zh):
        found.append(f"docs/en/{page} has no Chinese page docs/zh/{page}")
    for page in sorted(zh & en):
        if not page.endswith(".md"):
            continue
        a = (docs / "zh" / page).read_text(encoding="utf-8")
        b = (docs / "en" / page).read_text(encoding="utf-8")
        for what, fn in (("snippet includes", includes), ("figures", figures)):
            if fn(a) != fn(b):
                found.append(f"{page}: {what} differ between zh and en\n  zh: {fn(a)}\n  en: {fn(b)}")
        if display_equations(a) != display_equations(b):
            found.append(f"{page}: {display_equations(a)} display equations in zh, {display_equations(b)} in en")
    return found


# --------------------------------------------------------------------------- built HTML


class _AssetScanner(HTMLParser):
    """Collects every URL a browser would load by itself (not ordinary <a> links)."""

    LOADS = {"script": ("src",), "img": ("src", "srcset"), "iframe": ("src",), "frame": ("src",),
             "source": ("src", "srcset"), "video": ("src", "poster"), "audio": ("src",),
             "embed": ("src",), "object": ("data",), "track": ("src",), "image": ("href", "xlink:href"),
             "use": ("href", "xlink:href"), "input": ("src",)}
    LINK_RELS = {"stylesheet", "icon", "preload", "prefetch", "modulepreload", "manifest",
                 "apple-touch-icon", "preconnect", "dns-prefetch", "mask-icon"}

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in self.LOADS.get(tag, ()):
            if a.get(name):
                self.urls += [part.strip().split(" ")[0] for part in a[name].split(",")]
        if tag == "link" and set((a.get("rel") or "").lower().split()) & self.LINK_RELS and a.get("href"):
            self.urls.append(a["href"])
        if a.get("style"):
            self.urls += css_urls(a["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.urls += css_urls(data)


def css_urls(css: str) -> list[str]:
    return re.findall(r"""url\(\s*['"]?([^'")\s]+)""", css) + re.findall(r"""@import\s+['"]([^'"]+)""", css)


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme in ("http", "https", "ftp")


def external_assets(site: Path) -> list[str]:
    """Every reference to another host that a built page or stylesheet would load, with its file."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix == ".html":
            scanner = _AssetScanner()
            scanner.feed(path.read_text(encoding="utf-8", errors="replace"))
            urls = scanner.urls
        elif path.suffix == ".css":
            urls = css_urls(path.read_text(encoding="utf-8", errors="replace"))
        else:
            continue
        found += [f"{path.relative_to(site).as_posix()}: {u}" for u in urls if is_external(u)]
    return found


def build(site_dir: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` into ``site_dir``; the caller checks the return code."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(config), "-d", str(site_dir)],
        capture_output=True, text=True, env=env, cwd=config.parent,
    )
