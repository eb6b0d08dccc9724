"""Jupyter notebooks generated from the chapter pages — never a second copy written by hand.

Every chapter (a page of ``docs/<lang>/`` other than the home page that includes at least one
snippet) gets ``docs/<lang>/notebooks/<slug>.ipynb``, titled as that chapter's notebook
("<title> · 笔记本", "<title> · notebook"). In page order it holds the chapter's headings that have
code under them as markdown cells, in the page's language (a heading with no code under it would
be an empty section), and each snippet the page includes as a code cell, with the snippet's verified
output stored as the cell's stdout and the figure it draws (the page's language's SVG, shown on the
page after the snippet) as the display output of the cell whose code or output names that file; the
output names the file in its metadata (the site shows the file there, ``hooks/notebook_figures.py``). Code and outputs come from
``snippets/`` and headings from the page, so a notebook is a function of files that are already
checked; the tests regenerate every notebook in memory and compare it with the committed one.

    python -m tools.notebooks write    # generate or refresh the notebooks, list what changed
    python -m tools.notebooks check    # report stale, missing or orphaned notebooks, change nothing

``./run refresh`` runs ``write`` after refreshing the snippets, so outputs and notebooks move
together. The site renders the notebooks with mkdocs-jupyter (``hooks/notebooks.py``).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from hooks import notebook_figures, site_facts, snippet_files
from tools import compat, exercises, snippets, sources
from tools.files import write_atomic

ROOT = site_facts.ROOT
FOLDER = "notebooks"  # docs/<lang>/notebooks/<slug>.ipynb


_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.+?)[ \t]*(?:\{[^}\n]*#(?P<id>[\w-]+)[^}\n]*\})?[ \t]*$")
_ANNOTATION = re.compile(r"[ \t]*# \(\d+\)!$", re.M)
_FIGURE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]*assets/figures/(?P<name>[^)\s]+\.svg))\)")

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of CPU-only wheels
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

@dataclass
class Heading:
    level: int
    text: str
    id: str | None


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


def setup_text(lang: str, requirements: Path = ROOT / "requirements.txt") -> str:
    """The first cell's note, in the notebook's language: the pins the stored outputs were made with
    (requirements.txt) and how to install them in Colab: the CPU wheel of the pinned torch from
    PyTorch's CPU index, then the other pins."""
    pins = compat.pinned(requirements)
    torch = pins.pop("torch")
    install = (f"%pip install torch=={torch} --index-url {TORCH_CPU_INDEX}\n"
               "%pip install " + " ".join(f"{dist}=={version}" for dist, version in pins.items()))
    shown = "`" + " ".join(f"{dist}=={version}" for dist, version in {"torch": torch, **pins}.items()) + "`"
    return site_facts.load().text(lang, "notebook_setup").format(pins=shown, install=install)


def notebook_path(lang: str, slug: str, docs: Path | None = None) -> Path:
    return (docs or site_facts.load().docs) / lang / FOLDER / f"{slug}.ipynb"


def outline(text: str) -> list[Heading | Figure | str]:
    """Headings, snippet includes and figures of a page, in page order (each snippet file once)."""
    items: list[Heading | Figure | str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            items.append(Heading(len(m.group("hashes")), m.group("text").strip(), m.group("id")))
            continue
        items += [Figure(f.group("name"), f.group("alt")) for f in _FIGURE.finditer(line)]
        for name in sources.includes(line):
            if name not in seen:  # `file.md:code` and `file.md:output` are one snippet
                seen.add(name)
                items.append(name)
    return items


def _cell_id(prefix: str, name: str, taken: set[str]) -> str:
    base = (prefix + re.sub(r"[^A-Za-z0-9_-]+", "-", name)).strip("-")[:60] or prefix
    cid, n = base, 2
    while cid in taken:
        cid, n = f"{base[:56]}-{n}", n + 1
    taken.add(cid)
    return cid


def _with_content(items: list[Heading | Figure | str]) -> list[Heading | Figure | str]:
    """The items without the headings that have no snippet under them (the title stays)."""
    kept = []
    for i, item in enumerate(items):
        if isinstance(item, Heading) and item.level > 1:
            following = []
            for later in items[i + 1:]:
                if isinstance(later, Heading) and later.level <= item.level:
                    break
                following.append(later)
            if not any(isinstance(x, str) for x in following):
                continue
        kept.append(item)
    return kept


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


_LINK = re.compile(r"\]\((?P<file>[\w-]+\.md)?(?P<anchor>#[\w-]+)?\)")
_INLINE_MATH = re.compile(r"\\\((.+?)\\\)", re.S)
_HEADING_ID = re.compile(r"[ \t]*\{[^}\n]*#[\w-]+[^}\n]*\}[ \t]*$", re.M)


def notebook_markdown(md: str, lang: str, slug: str) -> str:
    """Page markdown as a notebook's markdown cell: links to the site's public URLs (a downloaded
    notebook has no pages beside it), inline math ``\\( … \\)`` as ``$…$`` (what Jupyter renders), no
    heading ids."""
    def link(m):
        url = site_facts.load().public_url(lang, m["file"]) if m["file"] else page_url(lang, slug)
        return f"]({url}{m['anchor'] or ''})"
    md = _LINK.sub(lambda m: link(m) if m["file"] or m["anchor"] else m[0], md)
    md = _INLINE_MATH.sub(lambda m: "$" + m[1].strip() + "$", md)
    return _HEADING_ID.sub("", md)


def _code_cells(item: str, snippet_dir: Path, taken: set[str], count: int) -> list:
    """The code cells of one included snippet (numbered from ``count + 1``), with verified outputs."""
    cells = []
    for block in snippets.extract(snippet_dir / item):
        count += 1
        cell = nbformat.v4.new_code_cell(strip_annotations(block.code).rstrip("\n"), id=_cell_id("code-", Path(item).stem, taken))
        cell.execution_count = count
        cell.metadata["snippet"] = f"snippets/{item}"
        if block.expected:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=block.expected)]
        cells.append(cell)
    return cells


def _split_at_includes(md: str) -> list[str]:
    """Markdown chunks and include names, alternating in page order (an include line is one item)."""
    parts, chunk = [], []
    for line in md.splitlines():
        names = sources.includes(line)
        if names:
            parts += ["\n".join(chunk).strip("\n"), names[0]]
            chunk = []
        else:
            chunk.append(line)
    return parts + ["\n".join(chunk).strip("\n")]


def _exercise_cells(section: exercises.Section, lang: str, slug: str, snippet_dir: Path, taken: set[str],
                    count: int) -> tuple[list, list[str]]:
    """The exercises where the page has them (each one's heading and task), then the solutions at the end,
    after the language's "solutions" heading: a reader who runs the notebook meets the tasks first."""
    words = exercises.strings(lang)
    cells, ids = [], []

    def add(parts: list[str], heading: str, hid: str):
        nonlocal count
        md = [heading]
        ids.append(hid)
        for i, part in enumerate(parts):
            if i % 2 == 0:
                if part.strip():
                    md.append(notebook_markdown(part, lang, slug))
                continue
            if md:
                cells.append(nbformat.v4.new_markdown_cell("\n\n".join(md), id=_cell_id("md-", hid, taken)))
                md = []
            code = _code_cells(part, snippet_dir, taken, count)
            count += len(code)
            cells.extend(code)
        if md:
            cells.append(nbformat.v4.new_markdown_cell("\n\n".join(md), id=_cell_id("md-", hid, taken)))

    for n, ex in enumerate(section.exercises, 1):
        heading = f"### {ex.heading}"
        if n == 1:
            heading = f"## {section.heading}\n\n{heading}"
            ids.append(exercises.SECTION_ID)
        add(_split_at_includes(ex.task), heading, ex.id or f"exercise-{n}")
    for n, ex in enumerate(section.exercises, 1):
        heading = f"### {ex.heading}"
        if n == 1:
            heading = f"## {words['solutions']}\n\n{heading}"
            ids.append("solutions")
        add(_split_at_includes(ex.solution), heading, f"solution-{n}")
    return cells, ids


def build(lang: str, slug: str, docs: Path | None = None, snippet_dir: Path = snippets.SNIPPETS):
    """The notebook of one chapter page, as a nbformat node."""
    text = sources.read(lang, f"{slug}.md", docs)
    section = exercises.parse(text)
    if section is not None:  # its cells come last (the section closes the chapter)
        if _FIGURE.search(text, section.start, section.end):
            raise ValueError(f"docs/{lang}/{slug}.md shows a figure in its exercises: a notebook has no place for it")
        text = text[:section.start] + text[section.end:]
    items = _with_content(outline(text))
    title = next((h.text for h in items if isinstance(h, Heading) and h.level == 1), slug)
    cells, taken, heading_ids = [], set(), []
    pending: list[tuple[str, str]] = []  # consecutive headings go into one markdown cell
    count = 0

    def flush():
        if pending:
            source = "\n\n".join(md for md, _ in pending)
            cells.append(nbformat.v4.new_markdown_cell(source, id=_cell_id("md-", pending[0][1], taken)))
            pending.clear()

    for item in items:
        if isinstance(item, Heading):
            heading_ids.append(item.id or "")
            md = "#" * item.level + " " + item.text
            if item.level == 1 and not cells and not pending:
                facts = site_facts.load()
                md = "# " + facts.text(lang, "notebook_title").format(title=item.text)
                md += "\n\n" + facts.text(lang, "notebook_intro").format(title=title, url=page_url(lang, slug))
                md += "\n\n" + setup_text(lang)
            pending.append((md, item.id or "heading"))
            continue
        if isinstance(item, Figure):
            code = [c for c in cells if c.cell_type == "code"]
            if pending or not code:
                raise ValueError(f"docs/{lang}/{slug}.md shows {item.name} before any snippet that draws it")
            # under the cell that saves it: a figure shown after several snippets belongs to one of them
            owner = next((c for c in reversed(code) if _saves(c, item.name, lang)), None)
            if owner is None:
                raise ValueError(f"docs/{lang}/{slug}.md shows {item.name}, but no snippet above it names that file "
                                 f"in its code or its output (print 'saved {item.name}' from the block that draws it)")
            owner.outputs.append(_figure_output(item, f"docs/{lang}/{slug}.md"))
            continue
        flush()
        code = _code_cells(item, snippet_dir, taken, count)
        count += len(code)
        cells.extend(code)
    flush()
    if section is not None:
        more, more_ids = _exercise_cells(section, lang, slug, snippet_dir, taken, count)
        for cell in more:  # a task or a solution without code joins the markdown cell before it
            if cell.cell_type == "markdown" and cells and cells[-1].cell_type == "markdown":
                cells[-1].source += "\n\n" + cell.source
            else:
                cells.append(cell)
        heading_ids.extend(more_ids)

    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "residual_notes": {
            "generated_by": "python -m tools.notebooks write",
            "page": f"docs/{lang}/{slug}.md",
            "lang": lang,
            "heading_ids": heading_ids,
        },
    }
    return nb


def render(nb) -> str:
    """The notebook as it is committed: nbformat's canonical JSON."""
    return nbformat.writes(nb) + "\n"


def expected(docs: Path | None = None, snippet_dir: Path = snippets.SNIPPETS) -> dict[Path, str]:
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


def problems(docs: Path | None = None, snippet_dir: Path = snippets.SNIPPETS) -> list[str]:
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


def write(docs: Path | None = None, snippet_dir: Path = snippets.SNIPPETS) -> list[str]:
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
