"""Every file the built site ships, read for URLs the browser would load from another host by itself
(promise 5: works offline).

* HTML and SVG: the attributes that load (``<script src>``, ``<img src>``, ``<link rel=stylesheet>``,
  SVG ``<image href>``, …, not ordinary ``<a>`` links), ``url()`` in style attributes and ``<style>``,
  and the string literals of inline ``<script>`` (as JavaScript below);
* CSS: ``url()`` and ``@import``;
* JavaScript: every string literal that holds an address on another host (comments are skipped).
  Shipped scripts hold a few such addresses that they only load under a condition; :data:`KNOWN`
  lists each with that condition, the markup a page would need to meet it, which is then looked for
  in every built page (Material's repository widget calls api.github.com for an element
  ``data-md-component="source"``: ``overrides/partials/source.html`` drops that attribute);
* files no browser runs as a page (data, fonts, images, notebooks, …): :data:`NOT_LOADED`, by
  suffix. A file of any other kind fails the scan, naming it, until it is classified here.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

# Shipped files that are no document, style sheet or script: the browser loads nothing they name.
NOT_LOADED = {".json": "data (the search index)", ".xml": "the sitemap", ".gz": "the compressed sitemap",
              ".ipynb": "notebooks to download", ".pdf": "the PDF edition, to download (tools/site/pdf.py)", ".map": "source maps (developer tools only)",
              ".woff2": "a font", ".woff": "a font", ".ttf": "a font", ".png": "an image", ".jpg": "an image",
              ".jpeg": "an image", ".gif": "an image", ".webp": "an image", ".ico": "an icon", ".txt": "text"}
# XML namespace names are identifiers in the form of an address, never fetched.
NAMESPACE = re.compile(r"https?://www\.w3\.org/(?:1999/xhtml|1999/xlink|2000/svg|1998/Math/MathML|2000/xmlns/?|"
                       r"XML/1998/namespace)$")


@dataclass(frozen=True)
class Known:
    """An address a shipped script holds but loads only under a condition the site never meets."""

    file: str  # glob of the script under the site root
    url: str  # regular expression of the address
    condition: str  # when the script would load it
    trigger: re.Pattern | None = None  # markup in a built page that meets the condition (None: none can)


KNOWN = (
    Known("assets/javascripts/bundle.*.min.js", r"https://api\.github\.com/",
          "Material's repository widget fetches stars and forks for an element data-md-component=\"source\" "
          "(overrides/partials/source.html renders the repository link without it)",
          re.compile(r'data-md-component="source"')),
    Known("assets/javascripts/bundle.*.min.js", r"https://unpkg\.com/mermaid@",
          "Material loads Mermaid for a diagram of class mermaid", re.compile(r'class="[^"]*\bmermaid\b')),
    Known("assets/javascripts/bundle.*.min.js", r"https://unpkg\.com/resize-observer-polyfill",
          "a polyfill for browsers without ResizeObserver, which every supported browser has"),
    Known("assets/javascripts/glightbox.min.js", r"https://cdn\.plyr\.io/",
          "GLightbox loads the Plyr video player for a video slide",
          re.compile(r'<video\b|data-type="video"|href="[^"]*(?:youtube\.com|youtu\.be|vimeo\.com|\.mp4|\.webm|\.ogv)"')),
    Known("assets/javascripts/lunr/wordcut.js", r"https://github\.com/isaacs/node-glob/issues/",
          "the text of an error message"),
    Known("assets/javascripts/workers/search.*.min.js", r"https://bit\.ly/", "the text of an error message"),
)


class _AssetScanner(HTMLParser):
    """Collects every URL a browser would load by itself (not ordinary <a> links), in HTML or SVG,
    and the text of inline scripts."""

    LOADS = {"script": ("src",), "img": ("src", "srcset"), "iframe": ("src",), "frame": ("src",),
             "source": ("src", "srcset"), "video": ("src", "poster"), "audio": ("src",),
             "embed": ("src",), "object": ("data",), "track": ("src",), "image": ("href", "xlink:href"),
             "use": ("href", "xlink:href"), "input": ("src",), "feimage": ("href", "xlink:href")}
    LINK_RELS = {"stylesheet", "icon", "preload", "prefetch", "modulepreload", "manifest",
                 "apple-touch-icon", "preconnect", "dns-prefetch", "mask-icon"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in: str | None = None  # "style" or "script" while inside one

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in self.LOADS.get(tag, ()):
            if a.get(name):
                self.urls += [part.strip().split(" ")[0] for part in a[name].split(",")]
        if tag == "link" and set((a.get("rel") or "").lower().split()) & self.LINK_RELS and a.get("href"):
            self.urls.append(a["href"])
        if a.get("style"):
            self.urls += css_urls(a["style"])
        code = tag == "script" and not a.get("src") and (a.get("type") or "text/javascript").endswith(
            ("javascript", "module", "ecmascript"))
        self._in = "style" if tag == "style" else "script" if code else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "style":
            self.urls += css_urls(data)
        elif self._in == "script":
            self.urls += js_urls(data)


def css_urls(css: str) -> list[str]:
    return re.findall(r"""url\(\s*['"]?([^'")\s]+)""", css) + re.findall(r"""@import\s+['"]([^'"]+)""", css)


_URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9][-A-Za-z0-9.]*\.[A-Za-z]{2,}(?::\d+)?[^\s"'`<>()\\]*""")
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORD = re.compile(r"(?:^|[^\w$])(?:return|typeof|case|in|of|void|throw|delete|new|yield|await)$")
_NEXT = re.compile(r"""['"`/]""")
_LITERAL = {"'": re.compile(r"'(?:[^'\\\n]|\\.)*'?"), '"': re.compile(r'"(?:[^"\\\n]|\\.)*"?'),
            "`": re.compile(r"`(?:[^`\\]|\\.)*`?", re.S)}
_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.S)
_REGEXP = re.compile(r"/(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/")


def js_strings(js: str) -> list[str]:
    """The string and template literals of JavaScript source (comments and regular expression
    literals skipped): where a script keeps the addresses it may load."""
    out, i = [], 0
    while m := _NEXT.search(js, i):
        i, c = m.start(), m.group(0)
        if c != "/":
            literal = _LITERAL[c].match(js, i).group(0)
            out.append(literal[1:-1] if len(literal) > 1 and literal.endswith(c) else literal[1:])
            i += len(literal)
        elif js.startswith("//", i):
            i = _LINE_COMMENT.match(js, i).end()
        elif js.startswith("/*", i):
            i = _BLOCK_COMMENT.match(js, i).end()
        else:  # a regular expression where an operand starts, else a division
            before = js[max(0, i - 12):i].rstrip()
            regexp = (not before or before[-1] in _REGEX_AFTER or _REGEX_AFTER_WORD.search(before)) and _REGEXP.match(js, i)
            i = regexp.end() if regexp else i + 1
    return out


def js_urls(js: str) -> list[str]:
    return [u for s in js_strings(js) for u in _URL.findall(s)]


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme in ("http", "https", "ftp")


def _urls(path: Path, text: str) -> list[str]:
    if path.suffix in (".html", ".htm", ".svg"):
        scanner = _AssetScanner()
        scanner.feed(text)
        return scanner.urls
    if path.suffix == ".css":
        return css_urls(text)
    return js_urls(text)  # .js, .mjs


def external_assets(site: Path, known: tuple[Known, ...] = KNOWN) -> list[str]:
    """Every reference to another host that a shipped file would make the browser load, with its
    file (and, for a known conditional one, the page that meets its condition)."""
    found, conditional, pages = [], [], {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if path.suffix in NOT_LOADED:
            continue
        if path.suffix not in (".html", ".htm", ".svg", ".css", ".js", ".mjs"):
            found.append(f"{rel}: a {path.suffix or 'suffix-less'} file the offline scan cannot read: "
                         "classify its suffix in tools/checks/html_scan.py")
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix in (".html", ".htm"):
            pages[rel] = text
        for url in _urls(path, text):
            if not is_external(url) or NAMESPACE.match(url):
                continue
            k = next((k for k in known if fnmatch.fnmatch(rel, k.file) and re.match(k.url, url)), None)
            if k is None:
                found.append(f"{rel}: {url}")
            elif k.trigger is not None:
                conditional.append((rel, url, k))
    for rel, url, k in conditional:
        hit = next(((name, m.group(0)) for name, text in pages.items() if (m := k.trigger.search(text))), None)
        if hit:
            found.append(f"{rel}: {url} (loaded: {k.condition}; {hit[0]} has {hit[1]!r})")
    return found
