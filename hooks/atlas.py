"""The atlas of open models' residual recipes: ``<!-- model-atlas -->`` on a line of its own becomes the
table of ``data/model-atlas.yml`` in the page's language.

Every cell of that file says what the model does and where it was read: a file, a class (or function) and
the commit of a repository that the references page lists, or a section of a paper it lists; a cell that
could not be read says so and why. :func:`problems` is the one check of the file (the build and
``tests/test_atlas.py`` both run it): a cell without its source, a language without its text, a commit that
is not a full hash or a reference the references page does not have fails, naming the model and the column.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

MARKER = re.compile(r"^[ \t]*<!--[ \t]*model-atlas[ \t]*-->[ \t]*$", re.M)
DATA = Path("data") / "model-atlas.yml"  # relative to mkdocs.yml
COMMIT = re.compile(r"^[0-9a-f]{40}$")


def load(root: Path) -> dict:
    path = root / DATA
    if not path.is_file():
        raise PluginError(f"hooks/atlas.py: a page shows the model atlas, but {DATA} does not exist")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def reference_keys(root: Path, lang: str) -> set[str]:
    page = root / "docs" / lang / "references.md"
    return set(re.findall(r"^\{ #([\w-]+) \}\s*$", page.read_text(encoding="utf-8"), re.M)) if page.is_file() else set()


def problems(atlas: dict, langs: list[str], refs: dict[str, set[str]]) -> list[str]:
    """What is wrong with the atlas, each naming ``data/model-atlas.yml``, the model and the column."""
    out = []
    columns = atlas.get("columns") or {}
    if not columns:
        return [f"{DATA}: no columns"]
    for key, header in columns.items():
        for lang in langs:
            if not (header or {}).get(lang):
                out.append(f"{DATA}: column {key!r} has no header in {lang!r}")
    names = [m.get("name") for m in atlas.get("models") or []]
    if not names:
        out.append(f"{DATA}: no models")
    for dup in sorted({n for n in names if names.count(n) > 1}):
        out.append(f"{DATA}: model {dup!r} is listed twice")
    for model in atlas.get("models") or []:
        name = model.get("name", "?")
        cells = model.get("cells") or {}
        for extra in sorted(set(cells) - set(columns)):
            out.append(f"{DATA}: {name}: column {extra!r} is not one of the atlas's columns")
        for key in columns:
            cell = cells.get(key)
            where = f"{DATA}: {name}, {key}"
            if not isinstance(cell, dict):
                out.append(f"{where}: no cell")
                continue
            for lang in langs:
                if not str(cell.get(lang) or "").strip():
                    out.append(f"{where}: no text in {lang!r}")
            src = cell.get("source")
            if not isinstance(src, dict):
                out.append(f"{where}: no source (a file, class and commit, a paper section, or unread: why)")
                continue
            if "unread" in src:
                if not str(src["unread"]).strip():
                    out.append(f"{where}: unread, but no reason given")
                continue
            ref = src.get("ref")
            for lang in langs:
                if ref not in refs.get(lang, set()):
                    out.append(f"{where}: source ref {ref!r} is not on docs/{lang}/references.md")
            if "section" in src:
                continue
            for field in ("path", "symbol", "commit", "repo"):
                if not src.get(field):
                    out.append(f"{where}: the source names no {field}")
            if src.get("commit") and not COMMIT.match(str(src["commit"])):
                out.append(f"{where}: commit {src['commit']!r} is not a full 40-digit hash")
    return out


def _source(src: dict, strings: dict) -> str:
    """One compact link per cell: the file and class at the commit read (or the paper's section)."""
    if "unread" in src:
        return f"{strings['unread']}: {src['unread']}"
    if "section" in src:
        return f"[{src.get('label') or src['ref']}, {src['section']}](references.md#{src['ref']})"
    url = f"https://github.com/{src['repo']}/blob/{src['commit']}/{src['path']}"
    return f"[`{src['path'].rsplit('/', 1)[-1]}` · `{src['symbol']}` @ `{src['commit'][:7]}`]({url})"


def _references(model: dict) -> str:
    """The references a row's cells were read from, each once, linked to the references page."""
    seen = {}
    for cell in model["cells"].values():
        src = cell["source"]
        if "ref" in src:
            seen.setdefault(src["ref"], src.get("label") or src["ref"])
    return ", ".join(f"[{label}](references.md#{ref})" for ref, label in seen.items())


def table(atlas: dict, lang: str) -> str:
    strings = atlas["strings"][lang]
    columns = atlas["columns"]
    head = [strings["model"], *(columns[k][lang] for k in columns)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for model in atlas["models"]:
        cells = [f"**{model['name']}**<br><small>{_references(model)}</small>"]
        for key in columns:
            cell = model["cells"][key]
            text = str(cell[lang]).strip().replace("|", "\\|").replace("\n", " ")
            cells.append(f"{text}<br><small class=\"atlas-source\">{_source(cell['source'], strings)}</small>")
        rows.append("| " + " | ".join(cells) + " |")
    return '<div class="atlas" id="atlas-table" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


def page_problems(html: str, page: str, names: list[str], code_cells: int) -> list[str]:
    """A built atlas page must show every model, in order, with one link per cell read from code."""
    if 'id="atlas-table"' not in html:
        return [f"{page}: no atlas table"]
    part = html.split('id="atlas-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td><strong>(.*?)</strong>", part)
    out = [] if rows == names else [f"{page}: the atlas shows {rows}, data/model-atlas.yml has {names}"]
    links = len(re.findall(r'href="https://github.com/[^"]+/blob/[0-9a-f]{40}/', part))
    if links != code_cells:
        out.append(f"{page}: {links} links to code at a commit, {code_cells} cells read from code")
    return out


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    root = Path(config["config_file_path"]).resolve().parent
    atlas = load(root)
    lang = (config.theme.get("language") or "").split("-")[0]
    langs = list(atlas.get("strings") or {})
    found = problems(atlas, langs, {code: reference_keys(root, code) for code in langs})
    if lang not in langs:
        found.append(f"{DATA}: no strings for the language {lang!r}")
    if found:
        raise PluginError("hooks/atlas.py: " + "; ".join(found[:10]))
    return MARKER.sub(lambda m: table(atlas, lang), markdown)
