"""Figures on notebook pages shown from the site's figure files, not embedded in the HTML.

A notebook's figure output (``image/svg+xml``, written by ``tools/generators/notebooks.py``) is the very SVG
its chapter shows from ``docs/assets/figures/<name>``; nbconvert embeds it in the page twice as
base64 (the ``<img>`` and, after mkdocs-glightbox, its link), most of a notebook page's bytes. Each
such output becomes ``<img class="figure">`` pointing at that file (the chapter's URL, so the
browser's cache serves it; dark mode and the full-size view as on the chapter), with the output's
``text/plain`` as its alt text. The downloadable ``.ipynb`` keeps its embedded outputs.

The output names its file in its metadata (:func:`output_metadata`). The mapping is checked on
every build, and anything else is a ``PluginError`` naming the notebook, the cell and the file: an
output that names no file, a file its chapter page does not show (e.g. another language's), a missing file, an SVG that differs from the
file (decoded from the page itself), a file absent from the build, an empty alt text.

Upstream detail relied on: nbconvert renders an SVG output as ``<div class="jp-RenderedSVG
jp-OutputArea-output"><img src="data:image/svg+xml;base64,…"></div>``; the count must equal the
notebook's SVG outputs (tested on mkdocs-jupyter's own converter in ``tests/test_site_hooks.py``).
Runs before mkdocs-glightbox's ``on_page_content`` (priority 0), which then links the new image.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

KEY = "residual_notes"  # the output metadata this site writes
SVG = "image/svg+xml"
FIGURES = "assets/figures"  # under docs/, published at the same path
_CHAPTER_FIGURE = re.compile(rf"{FIGURES}/([\w.-]+\.svg)")
_OUTPUT = re.compile(r'(?P<open><div class="jp-RenderedSVG jp-OutputArea-output[^"]*"[^>]*>)\s*'
                     r'<img\b[^>]*?\ssrc="data:image/svg\+xml;base64,(?P<data>[^"]*)"[^>]*>\s*</div>', re.S)


def output_metadata(name: str) -> dict:
    """Metadata of a figure output drawn from ``docs/assets/figures/<name>``."""
    return {KEY: {"figure": name}}


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


def svg_outputs(nb: dict) -> Iterator[tuple[int, str, dict]]:
    """(cell number from 1, cell id, output) of every SVG output, in page order."""
    for n, cell in enumerate(nb.get("cells", []), 1):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if SVG in output.get("data", {}):
                yield n, cell.get("id", "?"), output


def figure_name(output: dict) -> str | None:
    return ((output.get("metadata") or {}).get(KEY) or {}).get("figure")


def _first_difference(a: str, b: str) -> str:
    for k, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {k}: {x[:80]!r} in the page, {y[:80]!r} in the file"
    return f"lengths {len(a)} and {len(b)} characters"


def chapter_figures(chapter: Path) -> set[str]:
    """The figure files (names under docs/assets/figures/) a chapter page shows."""
    return set(_CHAPTER_FIGURE.findall(chapter.read_text(encoding="utf-8")))


def show_figures(content: str, nb: dict, notebook: str, chapter: tuple[str, set[str]], figures: Path,
                 url: Callable[[str], str | None]) -> str:
    """``content`` with each SVG output of ``nb`` an ``<img>`` of its figure file.

    ``chapter`` is the notebook's chapter page and the figures it shows (a notebook shows the same
    ones); ``figures`` is docs/assets/figures; ``url(name)`` is the page-relative URL of a built
    figure file, or None when the build has no such file."""
    wanted = list(svg_outputs(nb))
    found = list(_OUTPUT.finditer(content))
    where = f"hooks/notebook_figures.py: {notebook}"
    if len(found) != len(wanted):
        raise PluginError(f"{where}: {len(wanted)} SVG outputs in the notebook but {len(found)} nbconvert figures "
                          '<div class="jp-RenderedSVG jp-OutputArea-output"><img src="data:image/svg+xml;base64,…">: '
                          "nbconvert's markup changed")
    images = []
    for (n, cell_id, output), m in zip(wanted, found):
        name = figure_name(output)
        cell = f"{where}, cell {n} ({cell_id})"
        fix = "run `python -m tools.notebooks write` (or `./run refresh`)"
        if not name:
            raise PluginError(f"{cell}: a figure output that names no file (output metadata {KEY}.figure, "
                              f"a file of docs/{FIGURES}/): {fix}")
        expected = f"docs/{FIGURES}/{name}"
        if name not in chapter[1]:
            raise PluginError(f"{cell}: shows {expected}, which its chapter {chapter[0]} does not show "
                              f"(another language's figure?): {fix}")
        path = figures / name
        if not path.is_file():
            raise PluginError(f"{cell}: its figure output names {expected}, which does not exist: {fix}")
        try:
            drawn = base64.b64decode(m["data"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as err:
            raise PluginError(f"{cell}: the embedded figure (expected {expected}) is no base64 UTF-8 SVG: {err}") from None
        committed = path.read_text(encoding="utf-8")
        if drawn != committed:  # the file or the notebook changed: only a run of the block says which is right
            raise PluginError(f"{cell}: its figure output differs from {expected} "
                              f"({_first_difference(drawn, committed)}): run `./run refresh`, which draws the "
                              f"figure again from its block (a hand edit of {expected} is undone) and then writes "
                              "the notebooks; `python -m tools.notebooks write` alone would copy the file as it is")
        src = url(name)
        if src is None:
            raise PluginError(f"{cell}: {expected} is not part of the build (hooks/shared_assets.py publishes "
                              f"docs/{FIGURES}/ in every language)")
        alt = _text(output["data"].get("text/plain")).strip()
        if not alt:
            raise PluginError(f"{cell}: the figure output for {expected} has no text/plain to serve as alt text: {fix}")
        images.append(f'{m["open"]}<img alt="{html.escape(alt)}" class="figure" src="{html.escape(src)}"></div>')
    pieces = iter(images)
    return _OUTPUT.sub(lambda m: next(pieces), content)


@plugins.event_priority(50)  # before mkdocs-glightbox (0) links every <img> to its full size
def on_page_content(content, page, config, files):
    if not page.file.src_uri.endswith(".ipynb"):
        return content
    facts = site_facts.from_config(config)
    source = Path(page.file.abs_src_path)
    nb = json.loads(source.read_text(encoding="utf-8"))
    chapter = f"{facts.lang_of(page.file.src_uri)}/{source.stem}.md"  # notebooks/<slug>.ipynb's chapter page

    def url(name: str) -> str | None:
        built = files.get_file_from_path(f"{FIGURES}/{name}")
        return built.url_relative_to(page.file) if built else None

    if not (facts.docs / chapter).is_file():
        raise PluginError(f"hooks/notebook_figures.py: docs/{page.file.src_uri} has no chapter page docs/{chapter}")
    return show_figures(content, nb, f"docs/{page.file.src_uri}",
                        (f"docs/{chapter}", chapter_figures(facts.docs / chapter)), facts.docs / FIGURES, url)
