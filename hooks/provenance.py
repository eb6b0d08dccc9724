"""Where each page comes from: its source file, each snippet's file, and the date it last changed.

* After every ``--8<-- "<page>/<what>.md"`` include (after the last one, for a file included in
  sections), a small link to that snippet's file in the repository (``repo_url``), so a reader can
  see the code and its recorded output as committed.
* At the end of every page, a line with a link to the page's own source file and the date the page
  last changed: the newest commit date (``git log -1 --format=%cs``) over the page and the snippet
  files it includes. Where git cannot say (no git, a file never committed, or a shallow clone whose
  history stops before that change) the line says so instead of showing a wrong date.

Links point at ``<repo_url>/blob/<branch>/<path>``; the branch is read from ``edit_uri``, which must
be ``blob/<branch>/<docs_dir>/``.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

# the include syntax of pymdownx.snippets (a line that starts with ";" is an escaped include)
INCLUDE = re.compile(r"""^(?P<indent>[ \t]*)-{1,}8<-{1,}[ \t]+(?P<q>["'])(?P<name>[^"']+)(?P=q)[ \t]*$""")
SECTION = re.compile(r":[a-z][-_0-9a-z]*$|(:\d*)+$")

def _labels(config, lang: str) -> dict:
    """This language's provenance strings (mkdocs.yml: the i18n language's ``extra.strings.provenance``)."""
    return site_facts.from_config(config).text(lang, "provenance")


def blob_root(config) -> str:
    """``<repo_url>/blob/<branch>/``: the repository's files as GitHub shows them."""
    repo = (config.get("repo_url") or "").rstrip("/")
    edit_uri = config.get("edit_uri") or ""
    docs = Path(config["docs_dir"]).name
    m = re.fullmatch(rf"blob/(?P<branch>[^/]+)/{re.escape(docs)}/", edit_uri)
    if not repo or not m:
        raise PluginError(f"hooks/provenance.py: expected repo_url and edit_uri: blob/<branch>/{docs}/ in "
                          f"mkdocs.yml, found repo_url={repo!r}, edit_uri={edit_uri!r}")
    return f"{repo}/blob/{m.group('branch')}/"


def _lang(page, config) -> str:
    lang = (config.theme.get("language") or "").split("-")[0]
    if lang not in site_facts.from_config(config).languages:
        raise PluginError(f"hooks/provenance.py: theme language {lang!r} is no site language ({page.file.src_path})")
    return lang


def _root(config) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def snippet_base(config) -> Path:
    opts = config["mdx_configs"].get("pymdownx.snippets", {})
    base = opts.get("base_path")
    base = base[0] if isinstance(base, list) else base
    if not base:
        raise PluginError("hooks/provenance.py: expected pymdownx.snippets with a base_path in mkdocs.yml")
    return Path(base).resolve()


def included(markdown: str) -> list[str]:
    """Snippet names a page includes, in order (a ``:section`` or line-range suffix names the same file)."""
    return [SECTION.sub("", m.group("name")) for line in markdown.splitlines() if (m := INCLUDE.match(line))]


def on_page_markdown(markdown, page, config, files):
    lang = _lang(page, config)
    root, base, blob = _root(config), snippet_base(config), blob_root(config)
    lines = markdown.splitlines()
    # one link per snippet file, after its last include: a file included in sections (code, then a
    # list of code annotations, then output) gets it after the output, never between code and list
    last = {SECTION.sub("", m.group("name")): i for i, line in enumerate(lines) if (m := INCLUDE.match(line))}
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        m = INCLUDE.match(line)
        if not m or last[SECTION.sub("", m.group("name"))] != i:
            continue
        path = base / SECTION.sub("", m.group("name"))
        rel = path.resolve().relative_to(root).as_posix()
        label = _labels(config, lang)["snippet"]
        out += ["", f'{m.group("indent")}<p class="rn-source"><span class="rn-source__label">{label}</span>'
                    f'<a href="{html.escape(blob + rel)}"><code>{html.escape(rel)}</code></a></p>', ""]
    page.rn_provenance = {"files": [Path(page.file.abs_src_path).resolve()]
                          + [base / name for name in included(markdown)]}
    return "\n".join(out)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None


def _shallow_boundary(root: Path) -> set[str]:
    proc = _git(root, "rev-parse", "--git-path", "shallow")
    if proc is None or proc.returncode != 0:
        return set()
    path = Path(proc.stdout.strip())
    path = path if path.is_absolute() else root / path
    return set(path.read_text().split()) if path.exists() else set()


def last_changed(root: Path, paths: list[Path]) -> tuple[str | None, str | None, bool]:
    """(date, reason it is unknown, uncommitted changes) over ``paths``, from git."""
    rels = tuple(p.resolve().relative_to(root).as_posix() for p in paths)
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != "true":
        return None, "no-git", False
    proc = _git(root, "log", "-1", "--format=%H %cs", "--", *rels)
    if proc is None or proc.returncode != 0 or not proc.stdout.strip():
        return None, "untracked", False
    commit, date = proc.stdout.split()
    dirty = _git(root, "status", "--porcelain", "--", *rels)
    uncommitted = bool(dirty and dirty.stdout.strip())
    if commit in _shallow_boundary(root):
        # the oldest commit of a shallow clone appears to add every file: its date says nothing
        return None, "shallow", uncommitted
    return date, None, uncommitted


def on_page_content(html_text, page, config, files):
    lang = _lang(page, config)
    labels = _labels(config, lang)
    root, blob = _root(config), blob_root(config)
    info = getattr(page, "rn_provenance", None) or {"files": [Path(page.file.abs_src_path).resolve()]}
    source = info["files"][0].relative_to(root).as_posix()
    date, why, uncommitted = last_changed(root, info["files"])
    if date:
        page.update_date = date  # sitemap.xml's lastmod: the page's last change, not the build's day
        when = (f'<span class="rn-provenance__date">{labels["changed"]}<time datetime="{date}">{date}</time>'
                + (labels["uncommitted"] if uncommitted else "") + "</span>")
    else:
        when = f'<span class="rn-provenance__unknown">{labels["unknown"].format(why=labels["why"][why])}</span>'
    return (html_text + f'\n<aside class="rn-provenance"><span class="rn-provenance__source">{labels["page"]}'
            f'<a href="{html.escape(blob + source)}"><code>{html.escape(source)}</code></a></span>{when}</aside>')
