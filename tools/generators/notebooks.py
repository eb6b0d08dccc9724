"""Jupyter notebooks generated from the chapter pages — never a second copy written by hand.

Every chapter (a page of ``docs/<lang>/`` other than the home page that includes at least one
snippet) gets ``docs/<lang>/notebooks/<slug>.ipynb``, titled as that chapter's notebook
("<title> · 笔记本", "<title> · notebook"), a course a reader can learn from in Jupyter or Colab:

* first a note (the pins, that the next cell installs them in Colab) and the setup cell
  (:func:`setup_code`): in Colab it installs the pinned versions from requirements.txt, torch as its
  CPU build; anywhere else it does nothing;
* then the whole chapter in page order, in the page's language: its prose as Markdown cells that
  Jupyter and Colab render (:func:`page_cells`: math as ``$…$``/``$$…$$``, admonitions as quoted
  text under a bold title, diagrams as images on the published site, figure captions, links to the
  published pages; no heading ids, attribute lists or verdict markers), and each snippet the page
  includes as a code cell with its verified output as the cell's stdout and the figure it draws (the
  page's language's SVG) as the display output of the cell whose code or output names that file; the
  output names the file in its metadata (the site shows the file there, ``hooks/notebook_figures.py``);
* the exercises where the page has them, and their solutions (text and code) at the end.

Code and outputs come from ``snippets/`` and the text from the page, so a notebook is a function of
files that are already checked; the tests regenerate every notebook in memory and compare it with
the committed one.

    python -m tools.notebooks write    # generate or refresh the notebooks, list what changed
    python -m tools.notebooks check    # report stale, missing or orphaned notebooks, change nothing

``./run refresh`` runs ``write`` after refreshing the snippets, so outputs and notebooks move
together. The site renders the notebooks with mkdocs-jupyter (``hooks/notebooks.py``).
"""

from __future__ import annotations

import argparse
import difflib
import html
import json
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from hooks import notebook_figures, site_facts, snippet_files
from hooks.compat import PACKAGES
from tools import exercise_section, sources
from tools.runner import selection
from tools.generators import compat
from tools.files import write_atomic

ROOT = site_facts.ROOT
FOLDER = "notebooks"  # docs/<lang>/notebooks/<slug>.ipynb


_ANNOTATION = re.compile(r"[ \t]*# \(\d+\)!$", re.M)
_FIGURE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]*assets/figures/(?P<name>[^)\s]+\.svg))\)")

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of CPU-only wheels
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

@dataclass
class Figure:
    name: str  # file under docs/assets/figures/
    alt: str


def strip_annotations(code: str) -> str:
    """Code without Material's ``# (1)!`` annotation markers and without its fold markers
    (``hooks/snippet_files.py``, ``reader_code``): what a reader copies from the page."""
    return _ANNOTATION.sub("", snippet_files.reader_code(code))


def page_url(lang: str, slug: str) -> str:
    """Public URL of a chapter page."""
    return site_facts.load().public_url(lang, f"{slug}.md")


def _install_commands(pins: dict[str, str]) -> tuple[list[str], list[str]]:
    """pip's arguments for the pinned torch (its CPU build, from PyTorch's index) and for the other pins."""
    others = [f"{dist}=={version}" for dist, version in pins.items() if dist != "torch"]
    return [f"torch=={pins['torch']}", "--index-url", TORCH_CPU_INDEX], others


def setup_text(lang: str, requirements: Path = ROOT / "requirements.txt") -> str:
    """The note before the first code cell, in the notebook's language: the pins the stored outputs were made
    with (requirements.txt), that the next cell installs them in Colab and does nothing elsewhere, and the
    commands that install them elsewhere."""
    pins = compat.pinned(requirements)
    torch, others = _install_commands(pins)
    install = "pip install " + " ".join(torch) + "\npip install " + " ".join(others)
    shown = "`" + " ".join(f"{dist}=={version}" for dist, version in pins.items()) + "`"
    return site_facts.load().text(lang, "notebook_setup").format(pins=shown, install=install)


SETUP_CODE = '''\
# In Google Colab: install the versions this notebook's outputs were made with.
# Anywhere else this cell does nothing.
import sys

if "google.colab" in sys.modules:
    import importlib.metadata
    import os
    import subprocess

    PINS = {pins}
    # what each one is imported as
    MODULES = {modules}
    TORCH_INDEX = "{index}"  # PyTorch's CPU wheels

    def installed(dist):
        try:
            return importlib.metadata.version(dist).split("+")[0]
        except importlib.metadata.PackageNotFoundError:
            return None

    wanted = [dist for dist, version in PINS.items() if installed(dist) != version]
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    if "torch" in wanted:
        wheel = f"torch=={{PINS['torch']}}"
        subprocess.run(pip + [wheel, "--index-url", TORCH_INDEX], check=True)
    others = [f"{{dist}}=={{PINS[dist]}}" for dist in wanted if dist != "torch"]
    if others:
        subprocess.run(pip + others, check=True)
    # A module imported before the install keeps its old version until the session
    # restarts (Colab imports NumPy when a session starts).
    stale = [name for dist, name in MODULES.items() if name in sys.modules and
             getattr(sys.modules[name], "__version__", "").split("+")[0] != PINS[dist]]
    if stale:
        print(f"Restarting the session: {{', '.join(stale)}} was imported before the "
              "install. Then run all cells again (Runtime > Run all).")
        os.kill(os.getpid(), 9)  # Colab starts a new session, with the new versions
'''


def _literal(value: dict) -> str:
    """A dict as the setup cell writes it: one entry a line, indented inside its ``if``."""
    return json.dumps(value, indent=4).replace("\n", "\n    ")


def setup_code(requirements: Path = ROOT / "requirements.txt") -> str:
    """The first code cell: in Colab (``google.colab`` imported), pip installs each pinned version that is not
    installed, torch from PyTorch's CPU index, then restarts the session if a module it replaced was already
    imported; anywhere else it only imports ``sys``."""
    pins = compat.pinned(requirements)
    return SETUP_CODE.format(pins=_literal(pins), modules=_literal({d: PACKAGES[d] for d in pins}),
                             index=TORCH_CPU_INDEX).rstrip("\n")


def setup_cell(requirements: Path = ROOT / "requirements.txt"):
    cell = nbformat.v4.new_code_cell(setup_code(requirements), id="setup")
    cell.execution_count = 1
    cell.metadata["residual_notes"] = {"setup": True}
    return cell


def is_setup(cell) -> bool:
    return cell.get("cell_type") == "code" and bool((cell.get("metadata", {}).get("residual_notes") or {}).get("setup"))


def notebook_path(lang: str, slug: str, docs: Path | None = None) -> Path:
    return (docs or site_facts.load().docs) / lang / FOLDER / f"{slug}.ipynb"


def _cell_id(prefix: str, name: str, taken: set[str]) -> str:
    base = (prefix + re.sub(r"[^A-Za-z0-9_-]+", "-", name)).strip("-")[:60] or prefix
    cid, n = base, 2
    while cid in taken:
        cid, n = f"{base[:56]}-{n}", n + 1
    taken.add(cid)
    return cid


def _saves(cell, name: str, lang: str) -> bool:
    """A code cell saves the figure file ``name`` (``x.<lang>.svg``) if its code names it (or
    ``x.{lang}.svg``) or its verified output does (``saved x.<lang>.svg``)."""
    stdout = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    return name in cell.source or name.replace(f".{lang}.", ".{lang}.") in cell.source or name in stdout


def _figure_output(figure: Figure, where: str):
    path = site_facts.load().docs / "assets" / "figures" / figure.name
    if not path.is_file():
        raise FileNotFoundError(f"{where} shows {figure.name}, but docs/assets/figures/{figure.name} does not exist")
    return nbformat.v4.new_output("display_data", data={"image/svg+xml": path.read_text(encoding="utf-8"),
                                                        "text/plain": figure.alt},
                                  metadata=notebook_figures.output_metadata(figure.name))


# --------------------------------------------------------------------------- page Markdown as Jupyter Markdown

_COMMENT = re.compile(r"[ \t]*<!--.*?-->", re.S)  # verdict markers (<!-- ✔ claim -->): the reader never sees them
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"\\\((.+?)\\\)", re.S)
_ATTR_LIST = re.compile(r"[ \t]*\{:?[ \t]*[#.][\w-]+(?:[ \t]+(?:[#.][\w-]+|[\w-]+=\"[^\"\n]*\"))*[ \t]*\}")
_TARGET = re.compile(r"(?P<open>\]\()(?P<target>[^)\s]+)\)")
_ADMONITION_LINE = re.compile(r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+"(?P<title>[^"\n]*)")?[ \t]*$')
_FIGURE_OPEN = re.compile(r"^[ \t]*<figure\b[^>]*>[ \t]*$")
_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)")
_CAPTION = re.compile(r"<figcaption\b[^>]*>(?P<text>.*?)</figcaption>", re.S)
_HEADING_LINE = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.+?)[ \t]*(?:\{[^}\n]*#(?P<id>[\w-]+)[^}\n]*\})?[ \t]*$")
_BLOCK_START = re.compile(r"^[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#{1,6}[ \t]|\||>|!\[|\x00D)")
_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_WIDE_PUNCT = "，。；：、（）“”‘’！？《》〈〉【】「」『』—…～\u3000"
_HTML_CODE = re.compile(r"<code>(.*?)</code>", re.S)  # in an HTML caption
_HTML_TAG = re.compile(r"</?[a-zA-Z][\w-]*(?:\s[^<>]*)?>")
# a caption's live slider value (explore.js): the notebook shows the static figure, so its value stays as text
_EXPLORE_VALUE = re.compile(r'<span data-explore-value="[^"]*">(.*?)</span>', re.S)


@dataclass
class Include:
    name: str  # a snippet file under snippets/


class _Protected:
    """Code spans and formulas of a page's Markdown set aside while its Markdown is rewritten, then put
    back as Jupyter writes them: inline ``\\( … \\)`` as ``$…$``, display ``$$ … $$`` on lines of their own
    (on one line inside a quotation or a list item, where a line prefix would enter the TeX)."""

    def __init__(self):
        self.items: list[tuple[str, str]] = []
        self.heading_ids: list[str] = []  # of the headings outside admonitions, in order

    def _keep(self, kind: str, text: str) -> str:
        self.items.append((kind, text))
        return f"\x00{kind}{len(self.items) - 1}\x00"

    def hide(self, md: str) -> str:
        md = _CODE_SPAN.sub(lambda m: self._keep("C", m[0]), md)
        md = _DISPLAY.sub(lambda m: self._keep("D", " ".join(m[1].split())), md)
        return _INLINE.sub(lambda m: self._keep("I", " ".join(m[1].split())), md)

    def show(self, md: str) -> str:
        def back(m):
            kind, text = self.items[int(m[2])]
            if kind == "C":
                return text
            if kind == "I":
                return f"${text}$"
            return f"$${text}$$"
        md = re.sub(r"^\x00D(\d+)\x00$", lambda m: f"$$\n{self.items[int(m[1])][1]}\n$$", md, flags=re.M)
        return re.sub(r"\x00([CDI])(\d+)\x00", lambda m: back(m), md)


def _url(target: str, lang: str, slug: str, where: str) -> str:
    """A link target of ``docs/<lang>/<slug>.md`` as an absolute address on the published site (a downloaded
    notebook has no pages beside it): a page, a page's anchor, or a file under ``docs/assets/``."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return target  # https:, mailto:
    facts = site_facts.load()
    path, _, anchor = target.partition("#")
    anchor = f"#{anchor}" if anchor else ""
    if not path:
        return page_url(lang, slug) + anchor
    resolved = posixpath.normpath(posixpath.join(lang, path))
    if resolved.startswith(f"{lang}/") and resolved.endswith(".md"):
        return facts.public_url(lang, resolved[len(lang) + 1:]) + anchor
    if resolved.startswith("assets/"):
        return facts.site_url + resolved + anchor
    raise ValueError(f"{where}: the link {target!r} leads to neither a page of docs/{lang}/ nor a file of docs/assets/, "
                     "so a notebook cannot link it on the published site")


def _unwrap(md: str) -> str:
    """Soft line breaks of each paragraph joined (Jupyter, like a browser, shows a line break inside a Chinese
    paragraph as a space): no space between two Chinese characters or next to full-width punctuation."""
    out: list[str] = []
    for line in md.split("\n"):
        prev = out[-1] if out else ""
        if (line.strip() and prev.strip() and not _BLOCK_START.match(line) and not prev.lstrip().startswith(("#", "|"))
                and not re.fullmatch(r"[ \t]*\x00D\d+\x00[ \t]*", prev)):
            a, b = prev.rstrip()[-1], line.lstrip()[0]
            tight = (_CJK.match(a) and _CJK.match(b)) or a in _WIDE_PUNCT or b in _WIDE_PUNCT
            out[-1] = prev.rstrip() + ("" if tight else " ") + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)


def _dedent(lines: list[str], width: int) -> list[str]:
    return [ln[width:] if ln[:width].strip() == "" else ln.lstrip() for ln in lines]


def page_cells(md: str, lang: str, slug: str, where: str = "", state: dict | None = None) -> list:
    """A page's Markdown as notebook content, in page order: Jupyter Markdown (``str``), each snippet include
    (:class:`Include`) and each figure drawn by a snippet (:class:`Figure`, the display output of the cell that
    saves it). What a reader sees on the page and what Jupyter and Colab render:

    * math as ``$…$`` and ``$$…$$`` (MathJax in Jupyter, KaTeX in Colab);
    * an admonition (``!!! kind "Title"``, ``??? kind "Title"``) as a quotation under its bold title;
    * a figure: a diagram as an image on the published site, a snippet's figure as its cell's output, each
      followed by its caption;
    * links to other pages and files as addresses on the published site (a downloaded notebook has no pages
      beside it), an anchor of this page as the chapter's address with that anchor;
    * no heading ids or attribute lists (``{ #id }``, ``{ .figure }``), no HTML comments (verdict markers).
    """
    where = where or f"docs/{lang}/{slug}.md"
    keep = _Protected()
    parts = _convert(keep.hide(_COMMENT.sub("", md)), lang, slug, where, keep, nested=False)
    if state is not None:
        state["heading_ids"] = keep.heading_ids
    return [str(p) if isinstance(p, str) else p for p in parts]


def _convert(md: str, lang: str, slug: str, where: str, keep: _Protected, nested: bool) -> list:
    items: list = []
    buffer: list[str] = []

    def flush():
        text = "\n".join(buffer).strip("\n")
        buffer.clear()
        if text.strip():
            items.append(text)

    lines = md.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        names = sources.includes(line)
        if names:
            flush()
            items += [Include(n) for n in names]
            i += 1
            continue
        if _FIGURE_OPEN.match(line):
            end = next((j for j in range(i, len(lines)) if "</figure>" in lines[j]), None)
            if end is None:
                raise ValueError(f"{where}: a <figure> without its </figure>")
            block = "\n".join(lines[i:end + 1])
            caption = _CAPTION.search(block)
            for m in _IMAGE.finditer(_CAPTION.sub("", block)):
                fig = _FIGURE.search(m[0])
                if fig:
                    flush()
                    items.append(Figure(fig["name"], fig["alt"]))
                else:
                    buffer.extend(["", f"![{m['alt']}]({m['src']})", ""])
            if caption:
                text = _EXPLORE_VALUE.sub(r"\1", caption["text"])
                text = _HTML_CODE.sub(lambda m: "`" + html.unescape(m[1]) + "`", text)
                text = [ln.strip() for ln in text.strip().split("\n")]
                text[0] = site_facts.load().text(lang, "notebook_caption").format(caption=text[0])
                buffer.extend(["", *text, ""])
            i = end + 1
            continue
        adm = _ADMONITION_LINE.match(line)
        if adm:
            width = len(adm["indent"]) + 4
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j][:width].strip() == ""):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1  # trailing blank lines belong to what follows
            flush()
            body = _convert("\n".join(_dedent(lines[i + 1:j], width)), lang, slug, where, keep, nested=True)
            title = adm["title"] if adm["title"] is not None else adm["kind"].capitalize()
            head = [f"**{keep.show(title)}**"] if title else []
            for item in body:
                if isinstance(item, str):
                    text = "\n".join(head + ([""] if head else []) + [item])
                    items.append(_Done("\n".join(("> " + ln).rstrip() for ln in text.split("\n"))))
                else:
                    if head:
                        items.append(_Done("> " + head[0]))
                    items.append(item)
                head = []
            if head:
                items.append(_Done("> " + head[0]))
            i = j
            continue
        buffer.append(line)
        i += 1
    flush()
    return [x if not isinstance(x, str) or isinstance(x, _Done) else _finish(x, lang, slug, where, keep, nested)
            for x in items]


class _Done(str):
    """Markdown already finished (an admonition's quoted body)."""


def _finish(md: str, lang: str, slug: str, where: str, keep: _Protected, nested: bool) -> str:
    """Markdown of one run of text: attribute lists dropped, links made absolute, soft breaks joined, code
    and math put back (display math on one line when ``nested``: a quotation prefixes every line)."""
    if not nested:
        keep.heading_ids += [m["id"] or "" for m in map(_HEADING_LINE.match, md.split("\n")) if m]
    md = _ATTR_LIST.sub("", md)
    md = _TARGET.sub(lambda m: m["open"] + _url(m["target"], lang, slug, where) + ")", md)
    md = _unwrap(md)
    if nested:
        md = re.sub(r"\x00D(\d+)\x00", lambda m: f"$${keep.items[int(m[1])][1]}$$", md)
    return _Done(re.sub(r"\n{3,}", "\n\n", keep.show(md)))


def notebook_markdown(md: str, lang: str, slug: str) -> str:
    """Page Markdown without snippets or figures (an exercise's task) as a notebook's Markdown."""
    parts = page_cells(md, lang, slug)
    if not all(isinstance(p, str) for p in parts):
        raise ValueError(f"docs/{lang}/{slug}.md: snippets or figures where only text was expected")
    return "\n\n".join(parts)


def _code_cells(item: str, snippet_dir: Path, taken: set[str], count: int) -> list:
    """The code cells of one included snippet (numbered from ``count + 1``), with verified outputs."""
    cells = []
    for block in selection.extract(snippet_dir / item):
        count += 1
        cell = nbformat.v4.new_code_cell(strip_annotations(block.code).rstrip("\n"), id=_cell_id("code-", Path(item).stem, taken))
        cell.execution_count = count
        cell.metadata["snippet"] = f"snippets/{item}"
        if block.expected:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=block.expected)]
        cells.append(cell)
    return cells


class _Cells:
    """The cells of one notebook as they are made: Markdown gathers until the next code cell."""

    def __init__(self, lang: str, slug: str, where: str, snippet_dir: Path):
        self.lang, self.slug, self.where, self.snippet_dir = lang, slug, where, snippet_dir
        self.cells: list = []
        self.taken: set[str] = set()
        self.markdown: list[str] = []
        self.md_id = "md"
        self.count = 1  # the setup cell is [1]
        self.seen: set[str] = set()

    def text(self, md: str, cid: str | None = None) -> None:
        if not self.markdown:
            self.md_id = cid or f"text-{len(self.cells) + 1}"
        self.markdown.append(md)

    def flush(self) -> None:
        if self.markdown:
            source = "\n\n".join(m.strip("\n") for m in self.markdown)
            self.cells.append(nbformat.v4.new_markdown_cell(source, id=_cell_id("md-", self.md_id, self.taken)))
            self.markdown = []

    def code(self, name: str) -> None:
        if name in self.seen:  # `file.md:code` and `file.md:output` are one snippet
            return
        self.seen.add(name)
        self.flush()
        code = _code_cells(name, self.snippet_dir, self.taken, self.count)
        self.count += len(code)
        self.cells.extend(code)

    def figure(self, figure: Figure) -> None:
        code = [c for c in self.cells if c.cell_type == "code" and "snippet" in c.metadata]
        if not code:
            raise ValueError(f"{self.where} shows {figure.name} before any snippet that draws it")
        # under the cell that saves it: a figure shown after several snippets belongs to one of them
        owner = next((c for c in reversed(code) if _saves(c, figure.name, self.lang)), None)
        if owner is None:
            raise ValueError(f"{self.where} shows {figure.name}, but no snippet above it names that file "
                             f"in its code or its output (print 'saved {figure.name}' from the block that draws it)")
        owner.outputs.append(_figure_output(figure, self.where))

    def add(self, parts: list, cid: str | None = None) -> None:
        for part in parts:
            if isinstance(part, Include):
                self.code(part.name)
            elif isinstance(part, Figure):
                self.figure(part)
            else:
                self.text(part, cid)


def _exercise_cells(section: exercise_section.Section, out: _Cells) -> list[str]:
    """The exercises where the page has them (each one's heading and task), then the solutions at the end,
    after the language's "solutions" heading: a reader who runs the notebook meets the tasks first.
    Returns the ids of the headings added, in order."""
    lang, slug = out.lang, out.slug
    words = exercise_section.strings(lang)
    ids: list[str] = []
    for n, ex in enumerate(section.exercises, 1):
        hid = ex.id or f"exercise-{n}"
        if n == 1:
            out.text(f"## {section.heading}", exercise_section.SECTION_ID)
            ids.append(exercise_section.SECTION_ID)
        out.text(f"### {ex.heading}", hid)
        ids.append(hid)
        out.add(page_cells(ex.task, lang, slug, f"{out.where}:{ex.line}"), hid)
    for n, ex in enumerate(section.exercises, 1):
        if n == 1:
            out.text(f"## {words['solutions']}", "solutions")
            ids.append("solutions")
        out.text(f"### {ex.heading}", f"solution-{n}")
        ids.append(f"solution-{n}")
        out.add(page_cells(ex.solution, lang, slug, f"{out.where}:{ex.line}"), f"solution-{n}")
    return ids


def build(lang: str, slug: str, docs: Path | None = None, snippet_dir: Path = selection.SNIPPETS):
    """The notebook of one chapter page, as a nbformat node."""
    where = f"docs/{lang}/{slug}.md"
    text = sources.read(lang, f"{slug}.md", docs)
    section = exercise_section.parse(text)
    if section is not None:  # its cells come last (the section closes the chapter)
        if _FIGURE.search(text, section.start, section.end):
            raise ValueError(f"{where} shows a figure in its exercises: a notebook has no place for it")
        text = text[:section.start] + text[section.end:]
    state: dict = {}
    parts = page_cells(text, lang, slug, where, state)
    heading_ids = list(state["heading_ids"])
    first = next((i for i, p in enumerate(parts) if isinstance(p, str)), None)
    m = re.match(r"# (?P<title>.+)\n?", parts[first]) if first == 0 else None
    if m is None:
        raise ValueError(f"{where} does not begin with its title (`# Title {{ #id }}`)")
    title = m["title"].strip()
    facts = site_facts.load()
    out = _Cells(lang, slug, where, snippet_dir)
    out.text("# " + facts.text(lang, "notebook_title").format(title=title), heading_ids[0] if heading_ids else "title")
    out.text(facts.text(lang, "notebook_intro").format(title=title, url=page_url(lang, slug)))
    out.text(setup_text(lang))
    out.flush()
    out.cells.append(setup_cell())
    rest = parts[0][m.end():].strip("\n")
    out.add(([rest] if rest else []) + parts[1:])
    if section is not None:
        heading_ids += _exercise_cells(section, out)
    out.flush()

    nb = nbformat.v4.new_notebook()
    nb.cells = out.cells
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "residual_notes": {
            "generated_by": "python -m tools.notebooks write",
            "page": where,
            "lang": lang,
            "heading_ids": heading_ids,
        },
    }
    return nb


def render(nb) -> str:
    """The notebook as it is committed: nbformat's canonical JSON."""
    return nbformat.writes(nb) + "\n"


def expected(docs: Path | None = None, snippet_dir: Path = selection.SNIPPETS) -> dict[Path, str]:
    """Every notebook that should exist, with its content."""
    out = {}
    for lang in site_facts.load().languages:
        for slug in sources.chapters(lang, docs):
            out[notebook_path(lang, slug, docs)] = render(build(lang, slug, docs, snippet_dir))
    return out


def committed(docs: Path | None = None) -> list[Path]:
    docs = docs or site_facts.load().docs
    return sorted(p for lang in site_facts.load().languages for p in (docs / lang / FOLDER).glob("*.ipynb"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def problems(docs: Path | None = None, snippet_dir: Path = selection.SNIPPETS) -> list[str]:
    """Notebooks that are stale, missing or belong to no chapter, each named."""
    want = expected(docs, snippet_dir)
    found = []
    for path, text in want.items():
        if not path.exists():
            found.append(f"{_rel(path)} is missing: run `./run refresh`")
        elif path.read_text(encoding="utf-8") != text:
            diff = difflib.unified_diff(path.read_text(encoding="utf-8").splitlines(True), text.splitlines(True),
                                        fromfile=f"{_rel(path)} (committed)", tofile=f"{_rel(path)} (from the page)",
                                        n=1)
            found.append(f"{_rel(path)} is out of date with its page or snippets: run `./run refresh`\n"
                         + "".join(list(diff)[:40]))
    for path in committed(docs):
        if path not in want:
            found.append(f"{_rel(path)} belongs to no chapter with snippets: run `./run refresh` to remove it")
    return found


def write(docs: Path | None = None, snippet_dir: Path = selection.SNIPPETS) -> list[str]:
    """Write every notebook that differs, delete orphans; return what changed."""
    want = expected(docs, snippet_dir)
    changed = []
    for path, text in want.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)  # a kill or a full disk leaves the old notebook, never an empty one
            changed.append(_rel(path))
    for path in committed(docs):
        if path not in want:
            path.unlink()
            changed.append(f"{_rel(path)} (removed)")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.notebooks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["write", "check"])
    args = parser.parse_args(argv)
    if args.command == "write":
        changed = write()
        print(f"notebooks: {len(expected())} generated; changed: {len(changed)}")
        for name in changed:
            print("  " + name)
        return 0
    found = problems()
    for p in found:
        print(p, end="\n\n")
    print(f"notebooks: {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
