"""Explorable figures: ``<figure data-explore="name …">`` on a page gets its data and the chart library.

A page writes, around a figure's static SVG, ``<figure markdown="span" data-explore="a b">``: the
names of data files under ``docs/assets/data/`` (``a.json``, ``b.json``), each written by the snippet
that draws the figure (``tools/runner/comparison.py`` compares them on every reader machine). On such a page,
and only there, this hook puts each figure's files, as they are committed, in a
``<script type="application/json" class="explore-data">`` inside the figure (no request at page time,
so it works from ``file://`` too), the page's language and its ``extra.strings.explore`` as data
attributes, and, before ``</body>``, the vendored uPlot (``docs/assets/vendor/manifest.json`` names its
folder) and ``assets/js/explore.js``. Pages without one load nothing more: the home pages' first-visit
weight is unchanged. It runs on the finished HTML (``on_post_page``), so the data never reaches the
search index. A missing file, an unknown name or a language without ``explore`` strings fails the
build (``PluginError`` naming the page and the file), and so does a data file without labels for the
page's language.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

DATA = "assets/data"  # under docs/, published at the same path
VENDOR = "assets/vendor"
SCRIPT = "assets/js/explore.js"
LIBRARY = "uplot"  # its entry in the manifest
FILES = ("uPlot.min.css", "uPlot.iife.min.js")
_FIGURE = re.compile(r'<figure\b(?P<attrs>[^>]*?)\sdata-explore="(?P<names>[^"]*)"(?P<rest>[^>]*)>')
_NAME = re.compile(r"^[\w.-]+$")


def library_folder(docs: Path) -> str:
    """``assets/vendor/<name>-<version>``, as the manifest records it."""
    path = docs / VENDOR / "manifest.json"
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))[LIBRARY]
    except (OSError, ValueError, KeyError) as err:
        raise PluginError(f"hooks/explorables.py: {path} must record {LIBRARY!r} ({err})") from err
    return f"{VENDOR}/{LIBRARY}-{entry['version']}"


def _refuse_constant(name: str):
    raise ValueError(f"{name} is no JSON number")


def data_of(docs: Path, names: str, where: str, lang: str) -> list:
    files = []
    for name in names.split():
        if not _NAME.match(name):
            raise PluginError(f"{where}: data-explore names {name!r}, not a file name under docs/{DATA}/")
        path = docs / DATA / f"{name}.json"
        if not path.is_file():
            raise PluginError(f"{where}: data-explore names {name}, but docs/{DATA}/{name}.json does not exist "
                              "(run ./run refresh on the snippet that writes it)")
        try:  # NaN / Infinity: Python reads them, the browser's JSON.parse refuses the page's data
            data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
        except ValueError as err:
            raise PluginError(f"{where}: docs/{DATA}/{name}.json is not valid JSON ({err}): the snippet that writes "
                              "it must write finite numbers (json.dump(..., allow_nan=False))") from None
        if lang not in data.get("labels", {}):
            raise PluginError(f"{where}: docs/{DATA}/{name}.json has no labels for {lang!r} (it has "
                              f"{sorted(data.get('labels', {}))}): add the language to the LABELS of the snippet that writes it")
        files.append(data)
    if not files:
        raise PluginError(f"{where}: a figure's data-explore names no data file")
    return files


def explorable(output: str, docs: Path, lang: str, strings: dict, url: str, where: str) -> str:
    """The page's HTML with its explorable figures' data and scripts; unchanged if it has none."""
    found = list(_FIGURE.finditer(output))
    if not found:
        return output
    if "explore" not in strings:
        raise PluginError(f"{where}: has an explorable figure, but mkdocs.yml's extra.strings of {lang!r} "
                          "has no 'explore'")
    attrs = (f' data-lang="{html.escape(lang)}"'
             f' data-strings="{html.escape(json.dumps(strings["explore"], ensure_ascii=False))}"')
    parts, last = [], 0
    for m in found:
        files = data_of(docs, m.group("names"), where, lang)
        blob = json.dumps(files, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        parts += [output[last:m.end()].replace(m.group(0), m.group(0)[:-1] + attrs + ">"),
                  f'<script type="application/json" class="explore-data">{blob}</script>']
        last = m.end()
    parts.append(output[last:])
    page = "".join(parts)
    folder = library_folder(docs)
    rel = lambda path: get_relative_url(path, url)  # noqa: E731
    tags = (f'<link rel="stylesheet" href="{rel(f"{folder}/{FILES[0]}")}">'
            f'<script src="{rel(f"{folder}/{FILES[1]}")}" defer></script>'
            f'<script src="{rel(SCRIPT)}" defer></script>')
    if page.count("</body>") != 1:
        raise PluginError(f"{where}: expected one </body> in the page to add the explorable's scripts")
    return page.replace("</body>", tags + "</body>")


def on_post_page(output: str, page, config) -> str:
    facts = site_facts.from_config(config)
    lang = facts.lang_of(page.file.src_uri)
    return explorable(output, facts.docs, lang, facts.strings.get(lang, {}), page.url, page.file.src_uri)
