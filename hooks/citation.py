"""How to cite the site: ``<!-- citation -->`` on a line of its own (the home pages) becomes a BibTeX
entry and a plain-text citation in the page's language, made at build time from ``CITATION.cff`` at
the repository root (title, authors, url, repository) and git (the commit built and its date), so the
citation never drifts from the file GitHub shows as "Cite this repository" nor from the build.

``CITATION.cff``'s ``url`` and ``repository-code`` must be mkdocs.yml's ``site_url`` and ``repo_url``
(``hooks/site_facts.py``): a difference fails the build, naming both. A copy without git history
cites no commit and says so (``extra.strings.citation_no_commit``), dated the day of the build.
The plain-text form is ``extra.strings.citation_text`` of the page's language.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import re
import subprocess
import sys
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

MARKER = re.compile(r"^[ \t]*<!--[ \t]*citation[ \t]*-->[ \t]*$", re.M)
CFF = "CITATION.cff"
_TEX_SPECIAL = re.compile(r"([&%#_$])")


def read_cff(root: Path) -> dict:
    path = root / CFF
    if not path.is_file():
        raise PluginError(f"hooks/citation.py: a page cites the site, but {path} does not exist")
    cff = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    missing = [k for k in ("title", "authors", "url", "repository-code") if not cff.get(k)]
    if missing:
        raise PluginError(f"hooks/citation.py: {path} lacks {missing}")
    return cff


def authors(cff: dict) -> list[str]:
    """Each author's name: an entity's ``name``, or a person's ``given-names family-names``."""
    return [a.get("name") or " ".join(filter(None, (a.get("given-names"), a.get("family-names")))) for a in cff["authors"]]


def git_version(root: Path) -> tuple[str | None, str]:
    """(commit, its date YYYY-MM-DD) of HEAD in ``root``; (None, today in UTC) without git history."""
    try:
        proc = subprocess.run(["git", "log", "-1", "--format=%H %cs", "HEAD"], cwd=root, capture_output=True, text=True)
    except FileNotFoundError:
        proc = None
    if proc is None or proc.returncode != 0 or not proc.stdout.strip():
        return None, dt.datetime.now(dt.timezone.utc).date().isoformat()
    commit, date = proc.stdout.split()
    return commit, date


def _tex(value: str) -> str:
    return _TEX_SPECIAL.sub(r"\\\1", value)


def bibtex(cff: dict, commit: str | None, date: str) -> str:
    """The BibTeX entry (``@misc``, one field a line); an entity author is braced whole."""
    key = f"{cff['repository-code'].rstrip('/').rsplit('/', 1)[-1]}-{date[:4]}"
    fields = {
        "title": _tex(cff["title"]),
        "author": " and ".join("{" + _tex(a) + "}" for a in authors(cff)),
        "year": date[:4],
        "date": date,
        **({"version": commit} if commit else {}),
        "url": cff["url"],
        "note": (f"Commit {commit}, " if commit else "") + cff["repository-code"],
    }
    return "@misc{" + key + ",\n" + "".join(f"  {k} = {{{v}}},\n" for k, v in fields.items()) + "}"


def citation(facts, lang: str, root: Path, site_url: str | None = None) -> str:
    """The Markdown (a raw ``<pre>`` of BibTeX and a paragraph) that replaces the marker. ``site_url`` is the
    published one, as the config file says (``mkdocs serve`` replaces ``config.site_url`` by its own address)."""
    cff = read_cff(root)
    for key, want, where in (("url", site_url or facts.site_url, "site_url"), ("repository-code", facts.repo_url, "repo_url")):
        if str(cff[key]).rstrip("/") != want.rstrip("/"):
            raise PluginError(f"hooks/citation.py: {CFF} has {key}: {cff[key]} but mkdocs.yml's {where} is {want}")
    commit, date = git_version(root)
    shown = commit[:12] if commit else facts.text(lang, "citation_no_commit")
    text = facts.text(lang, "citation_text").format(authors=", ".join(authors(cff)), title=cff["title"],
                                                    commit=shown, date=date, url=cff["url"])
    return (f'<div class="rn-citation"><pre class="rn-citation" data-generated-from="{CFF}"><code>'
            f'{html.escape(bibtex(cff, commit, date))}</code></pre></div>\n\n'
            f'<p class="rn-citation-text">{html.escape(text)}</p>')


@functools.lru_cache(maxsize=4)
def _published_site_url(config_file: str) -> str:
    return site_facts.load(Path(config_file)).site_url


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    facts = site_facts.from_config(config)
    block = citation(facts, facts.lang_of(page.file.src_uri), facts.root, _published_site_url(config.config_file_path))
    return MARKER.sub(lambda m: block, markdown)
