"""Each code block is highlighted once: the same code with the same options gives the same HTML.

Every snippet is included into each language's page, and every build (each ``mkdocs serve``
reload too) highlighted all of them again with Pygments: about 60 % of the Markdown conversion.
This hook gives pymdownx.superfences a catch-all custom fence (``name: "*"``, its documented way to
override the default fence) whose formatter looks the block up in a cache and, on a miss, calls
the default fence's own formatter, the ``highlight`` method of superfences' ``fenced_code_block``
preprocessor (what pymdown-extensions' own documentation tools call for stock output), so the
HTML is exactly what superfences makes without this hook; the validator is superfences' own
``highlight_validator``, as for its default fence.

The key is the code, the language, the fence's options, classes, id and attributes, the
pymdownx.highlight and pymdownx.superfences settings of ``mkdocs.yml``, and the versions of
Pygments, pymdown-extensions and Python-Markdown. Entries live in memory for the build (the second
language reuses the first's) and in ``.cache/highlight/blocks.json`` between builds (written
atomically after the last language; it keeps only the blocks the build used). Not cached: a block
whose HTML holds a Markdown stash placeholder (``title_mode: html``), and nothing at all when the
highlighter numbers line anchors or spans per block on a page (``line_spans``, ``line_anchors``,
``anchor_linenums``), since the same code then gives different HTML on different pages.

Upstream assumption, checked on every miss: superfences' ``fenced_code_block`` preprocessor has a
``highlight`` method; if not, the build fails naming it (a ``SuperFencesException``, the one
exception superfences lets through a formatter).
"""

from __future__ import annotations

import sys
import functools
import hashlib
import json
import logging
import os
import tempfile
from importlib import metadata
from pathlib import Path

from markdown.util import STX
from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)
from pymdownx.superfences import SuperFencesException, highlight_validator

FENCES = "pymdownx.superfences"
HIGHLIGHT = "pymdownx.highlight"
FORMAT = 1  # of the cache file; bump when the key or the entries change meaning
# settings that number something per block on a page: the same code then differs from page to page
PER_PAGE = ("line_spans", "line_anchors", "anchor_linenums")
DISTRIBUTIONS = ("Pygments", "pymdown-extensions", "Markdown")
log = logging.getLogger("mkdocs.hooks.highlight_cache")  # shown by `mkdocs build -v`


def _name(value) -> str:
    """A setting that is no JSON value (a function in ``custom_fences``, say), by its name."""
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"


class Cache:
    """Highlighted HTML by key: in memory for a build, in ``path`` between builds."""

    def __init__(self, path: Path | None, settings: str):
        self.path = path
        self.settings = settings
        self.entries: dict[str, str] = {}
        self.used: set[str] = set()
        self.hits = self.misses = 0
        self._stored: set[str] = set()
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}  # a damaged cache is rebuilt, never trusted
            if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("entries"), dict):
                self.entries = {k: v for k, v in data["entries"].items() if isinstance(v, str)}
                self._stored = set(self.entries)

    def key(self, src: str, language: str, options: dict, classes, id_value, attrs) -> str:
        block = json.dumps([self.settings, src, language, options, list(classes or []), id_value, attrs or {}],
                           sort_keys=True, ensure_ascii=False, default=_name)
        return hashlib.sha256(block.encode("utf-8")).hexdigest()

    def get(self, key: str) -> str | None:
        html = self.entries.get(key)
        if html is None:
            self.misses += 1
        else:
            self.hits += 1
            self.used.add(key)
        return html

    def put(self, key: str, html: str) -> None:
        if STX not in html:  # a stash placeholder belongs to one page's Markdown instance
            self.entries[key] = html
            self.used.add(key)

    def save(self) -> None:
        """Write the entries this build used, atomically; nothing when they are what is stored."""
        if self.path is None or self.used == self._stored:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, "entries": {k: self.entries[k] for k in sorted(self.used)}}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache is an ordinary file of the project
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stored = set(self.used)


def settings_of(mdx_configs: dict) -> str:
    """What besides the block decides its HTML: the highlight settings and the versions."""
    fences = {k: v for k, v in (mdx_configs.get(FENCES) or {}).items() if k != "custom_fences"}
    others = [f.get("name") for f in (mdx_configs.get(FENCES) or {}).get("custom_fences") or []]
    versions = {d: metadata.version(d) for d in DISTRIBUTIONS}
    return json.dumps({"format": FORMAT, "highlight": mdx_configs.get(HIGHLIGHT) or {}, "superfences": fences,
                       "fences": others, "versions": versions}, sort_keys=True, default=_name)


def default_highlight(md):
    """The default fence's formatter: superfences' ``fenced_code_block`` preprocessor's ``highlight``."""
    try:
        highlight = md.preprocessors["fenced_code_block"].highlight
    except (KeyError, AttributeError):
        highlight = None
    if not callable(highlight):
        raise SuperFencesException(
            "hooks/highlight_cache.py: expected pymdownx.superfences' 'fenced_code_block' preprocessor with a "
            "highlight() method (the default fence's formatter); this pymdown-extensions has none")
    return highlight


def fence(src, language, class_name, options, md, cache: Cache, **kwargs):
    """The catch-all fence's formatter: the cached HTML, or the default fence's, cached."""
    key = cache.key(src, language, options, kwargs.get("classes"), kwargs.get("id_value"), kwargs.get("attrs"))
    html = cache.get(key)
    if html is None:
        html = default_highlight(md)(src=src, language=language, options=options, md=md, **kwargs)
        cache.put(key, html)
    return html


def catch_all(cache: Cache) -> dict:
    """The ``custom_fences`` entry that routes every fence through ``cache``."""
    return {"name": "*", "class": "highlight", "format": functools.partial(fence, cache=cache),
            "validator": highlight_validator, "_cache": cache}


# MkDocs loads a hook's module afresh with each config (each `mkdocs serve` reload loads the
# config again), and i18n builds every language with that config: one Cache per build.
_cache: Cache | None = None


@plugins.event_priority(-150)  # after i18n's on_config (-100): it may reconfigure extensions
def on_config(config):
    global _cache
    if FENCES not in config.markdown_extensions:
        raise PluginError(f"hooks/highlight_cache.py: expected {FENCES} in markdown_extensions of mkdocs.yml")
    opts = config.mdx_configs.setdefault(FENCES, {})
    fences = [f for f in opts.get("custom_fences") or [] if "_cache" not in f]
    if any(f.get("name") == "*" for f in fences):
        raise PluginError("hooks/highlight_cache.py: mkdocs.yml already has a custom fence named '*'")
    highlight = config.mdx_configs.get(HIGHLIGHT) or {}
    if any(highlight.get(k) for k in PER_PAGE):
        opts["custom_fences"] = fences
        _cache = None  # per-page numbering: every block is highlighted on its page
        return config
    root = Path(config.config_file_path).resolve().parent
    if _cache is None:
        _cache = Cache(root / ".cache" / "highlight" / "blocks.json", settings_of(config.mdx_configs))
    opts["custom_fences"] = [*fences, catch_all(_cache)]
    return config


@plugins.event_priority(-200)  # after i18n's on_post_build (-100), which builds the other languages
def on_post_build(config):
    if _cache is not None:
        _cache.save()  # each language's build saves what the build used so far; unchanged, nothing
        log.debug(f"hooks/highlight_cache.py: {_cache.hits} code blocks from the cache, {_cache.misses} highlighted")
