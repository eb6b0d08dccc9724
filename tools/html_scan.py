"""The built HTML: every URL a page or stylesheet makes the browser load by itself, and which of
them point at another host (promise 5: works offline)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit


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
