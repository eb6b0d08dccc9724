"""The site's facts, read from ``mkdocs.yml`` through MkDocs' own config loader: the one place
that knows the languages, the default one, ``site_url``, the nav and each language's strings.

Not a hook (``mkdocs.yml`` does not list it): the hooks call :func:`from_config` on the config
MkDocs hands them, the tools and tests call :func:`load`. Everything else asks this module; no
other code names a language.

* Languages: ``plugins.i18n.languages`` (mkdocs-static-i18n), in their order, the one with
  ``default: true`` first in meaning (it is served at ``/``, every other at ``/<locale>/``).
* Per-language strings: each language's ``extra.strings`` in the i18n entry. i18n merges a
  language's ``extra`` into ``config.extra`` for that language's build, so templates read
  ``config.extra.strings.<key>`` and hooks :meth:`Facts.text`.
* URLs: :meth:`Facts.url_of` gives a page's path under the site root, :meth:`Facts.public_url`
  the published address (``site_url`` + that path). :meth:`Facts.source_url` is a file's address in
  the repository (``repo_url`` + ``edit_uri``), :meth:`Facts.colab_url` the address that opens a
  notebook of the repository in Google Colab (``github/<owner>/<repo>/`` + ``edit_uri`` + the path).

Adding a language is a new entry under ``plugins.i18n.languages`` (with its ``extra.strings`` and
``nav_translations``) and its tree ``docs/<locale>/``: see CONTRIBUTING.md.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

ROOT = Path(__file__).resolve().parent.parent
CONFIG_FILE = ROOT / "mkdocs.yml"
I18N = "i18n"  # the plugin's name in mkdocs.yml
PAGE_SUFFIXES = (".md", ".ipynb")
# Every language must define these in its i18n entry's `extra.strings` (checked on load).
REQUIRED_STRINGS = ("notebook_open", "notebook_download", "notebook_chapter", "notebook_bar",
                    "notebooks_nav", "notebook_title", "notebook_intro", "notebook_colab", "notebook_setup",
                    "notebook_caption",
                    "search_terms", "script", "digit_group", "exercises", "permalink_title", "label_colon",
                    "fold", "verified")
COLAB = "https://colab.research.google.com/github/"  # + <owner>/<repo>/blob/<branch>/<path> (Colab's GitHub URLs)


@dataclass(frozen=True)
class Facts:
    root: Path
    docs: Path
    languages: tuple[str, ...]  # every built language, in mkdocs.yml's order
    default: str
    site_url: str  # ends in "/"
    repo_url: str = ""  # no trailing "/"
    edit_uri: str = ""  # "blob/main/docs/": a docs file's path in the repository, after repo_url
    nav: list = field(default_factory=list)  # the default language's nav, as written in mkdocs.yml
    names: dict[str, str] = field(default_factory=dict)  # locale -> its name in the language switcher
    strings: dict[str, dict] = field(default_factory=dict)  # locale -> extra.strings
    nav_titles: dict[str, list] = field(default_factory=dict)  # locale -> its nav section titles, as readers see them

    @property
    def others(self) -> tuple[str, ...]:
        """Every language but the default one."""
        return tuple(lang for lang in self.languages if lang != self.default)

    @property
    def nav_pages(self) -> list[str]:
        """The page files the nav lists (relative to a language folder, in nav order), at any depth
        of sections; links to other sites (``http…``) are no pages."""
        found: list[str] = []

        def walk(item) -> None:
            if isinstance(item, dict):
                for value in item.values():
                    walk(value)
            elif isinstance(item, list):
                for value in item:
                    walk(value)
            elif isinstance(item, str) and "://" not in item:
                found.append(item)

        walk(self.nav)
        return found

    @property
    def base_path(self) -> str:
        """The path of ``site_url`` ("/residual-notes/"), where the site is served."""
        return urlsplit(self.site_url).path.rstrip("/") + "/"

    def prefix(self, lang: str) -> str:
        """Where a language lives under the site root: "" for the default one, else "<lang>/"."""
        self._known(lang)
        return "" if lang == self.default else f"{lang}/"

    def url_of(self, lang: str, page: str) -> str:
        """Path of a page under the site root (directory URLs): ``url_of("en", "ffn-design.md")``
        is "en/ffn-design/", ``url_of(<default>, "index.md")`` is ""."""
        path = PurePosixPath(page)
        if path.suffix in PAGE_SUFFIXES:
            path = path.with_suffix("")
        if path.name == "index":
            path = path.parent
        rel = "" if path.as_posix() in (".", "") else f"{path.as_posix()}/"
        return self.prefix(lang) + rel

    def public_url(self, lang: str, page: str) -> str:
        return self.site_url + self.url_of(lang, page)

    def source_url(self, docs_path: str) -> str:
        """A file under docs/ in the repository: ``repo_url`` + ``edit_uri`` + ``docs_path``."""
        self._repo()
        return f"{self.repo_url}/{self.edit_uri}{docs_path}"

    def colab_url(self, docs_path: str) -> str:
        """The address that opens a notebook under docs/ in Google Colab, from the repository on GitHub."""
        owner_repo = self._repo()
        return f"{COLAB}{owner_repo}/{self.edit_uri}{docs_path}"

    def _repo(self) -> str:
        """``<owner>/<repo>`` of ``repo_url``; it must be a GitHub repository with an ``edit_uri`` of
        the form ``blob/<branch>/<docs folder>/``."""
        parts = urlsplit(self.repo_url)
        path = parts.path.strip("/")
        if parts.netloc != "github.com" or path.count("/") != 1:
            raise PluginError(f"mkdocs.yml: repo_url {self.repo_url!r} is no https://github.com/<owner>/<repo>")
        if not self.edit_uri.startswith("blob/") or not self.edit_uri.endswith("/"):
            raise PluginError(f"mkdocs.yml: edit_uri {self.edit_uri!r} is no blob/<branch>/<docs folder>/")
        return path

    def lang_of(self, src_uri: str) -> str:
        """The language of a file under docs/ (``en/x.md`` -> "en"); files outside every
        language folder (``assets/...``) belong to the default language."""
        first = PurePosixPath(src_uri).parts[0] if "/" in src_uri else ""
        return first if first in self.languages else self.default

    def text(self, lang: str, key: str):
        """One of a language's strings (``extra.strings.<key>`` of its i18n entry)."""
        self._known(lang)
        try:
            return self.strings[lang][key]
        except KeyError:
            raise PluginError(f"mkdocs.yml: plugins.i18n.languages[{lang}].extra.strings has no {key!r}") from None

    def _known(self, lang: str) -> None:
        if lang not in self.languages:
            raise PluginError(f"language {lang!r} is not in mkdocs.yml's plugins.i18n.languages {self.languages}")


def from_config(config) -> Facts:
    """The facts of a loaded MkDocs config (``MkDocsConfig``, as hooks receive it)."""
    i18n = config.plugins.get(I18N)
    if i18n is None:
        raise PluginError(f"mkdocs.yml: the site needs the mkdocs-static-i18n plugin (plugins: - {I18N})")
    langs = [lang for lang in i18n.config.languages if lang.build and lang.locale != "null"]
    defaults = [lang.locale for lang in langs if lang.default]
    if len(defaults) != 1:
        raise PluginError(f"mkdocs.yml: exactly one i18n language needs `default: true`, found {defaults}")
    strings = {}
    for lang in langs:
        mine = (lang.extra or {}).get("strings") or {}
        missing = [k for k in REQUIRED_STRINGS if k not in mine]
        if missing:
            raise PluginError(f"mkdocs.yml: plugins.i18n.languages[{lang.locale}].extra.strings lacks {missing}")
        strings[lang.locale] = dict(mine)
    sections = _nav_sections(config.nav or [])
    nav_titles = {lang.locale: sections if lang.default else
                  [(lang.nav_translations or {}).get(t, t) for t in sections] for lang in langs}
    config_file = Path(config.config_file_path) if config.config_file_path else CONFIG_FILE
    return Facts(
        root=config_file.resolve().parent,
        docs=Path(config.docs_dir),
        languages=tuple(lang.locale for lang in langs),
        default=defaults[0],
        site_url=(config.site_url or "/").rstrip("/") + "/",
        repo_url=(config.repo_url or "").rstrip("/"),
        edit_uri=(config.edit_uri or "").lstrip("/"),
        nav=list(config.nav or []),
        names={lang.locale: lang.name for lang in langs},
        strings=strings,
        nav_titles=nav_titles,
    )


def _nav_sections(nav: list) -> list[str]:
    """The titles of the nav's sections and titled pages, in order (``- 入门: [...]``, ``- 术语表: glossary.md``)."""
    titles = []
    for item in nav:
        if isinstance(item, dict):
            for title, value in item.items():
                titles.append(title)
                if isinstance(value, list):
                    titles += _nav_sections(value)
    return titles


@functools.lru_cache(maxsize=None)
def load(config_file: Path = CONFIG_FILE) -> Facts:
    """The facts of ``mkdocs.yml`` (or another config file), through ``mkdocs.config.load_config``,
    without running its hooks: the facts need none, and a hook already imported (``hooks.x``) must not
    run a second time (see hooks/__init__.py)."""
    from mkdocs.config import load_config

    return from_config(load_config(config_file=str(config_file), hooks=[]))
