"""A page that is indexed as it was the build before gets the same search entries, without parsing it again.

Material's search plugin parses every page's HTML and segments its Chinese text with jieba in its
``on_page_context``, on every build: on a ``mkdocs serve`` reload that is the second largest cost
after the Markdown conversion, though only the edited pages changed. Its index
(``SearchIndex.add_entry_from_context(page)``) appends the page's entries (``location``,
``title``, ``text``, and ``tags`` and ``boost`` from the page's metadata) to ``entries``; what it
appends depends on the page's HTML, URL, title, metadata and table of contents, the plugin's
settings and jieba's dictionaries, and nothing else.

So this hook wraps that method of each index it meets (before Material's ``on_page_context``): a
page whose key (those inputs, and the bytes of the jieba dictionary files named in the settings) is
the one it had the last time in this process gets copies of the entries it got then; any other
page is indexed by Material and its entries kept. One entry per page URL is kept, the last.

Upstream assumption, checked on every page: Material's search plugin (``material/search``) has a
``search_index`` with ``add_entry_from_context`` and an ``entries`` list it appends to. If not,
the build fails with ``PluginError`` naming what was expected; ``tests/test_build_speed.py``
checks that a build with this cache gives the same search index, byte for byte, as one without.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

SEARCH = "material/search"
log = logging.getLogger("mkdocs.hooks.search_cache")  # shown by `mkdocs build -v`


@dataclass
class Stats:
    reused: int = 0
    indexed: int = 0


_entries: dict[str, tuple[str, bytes]] = {}  # page URL: (key, the entries it got, pickled)
stats = Stats()


def _json(value):
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=repr)
    return repr(value)


def _toc(items) -> list:
    return [[item.id, item.url, item.title, _toc(item.children)] for item in items]


def _dictionaries(settings: Mapping) -> list:
    """jieba's dictionary files named in the settings, by their bytes."""
    out = []
    for name in ("jieba_dict", "jieba_dict_user"):
        path = settings.get(name)
        if path:
            try:
                out.append([name, hashlib.sha256(Path(os.path.normpath(path)).read_bytes()).hexdigest()])
            except OSError:
                out.append([name, None])
    return out


def key_of(page, settings: Mapping, dictionaries: list) -> str:
    text = json.dumps([page.content, page.url, page.title, page.meta, _toc(page.toc), settings, dictionaries],
                      sort_keys=True, ensure_ascii=False, default=_json)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _wrap(index) -> None:
    add = getattr(index, "add_entry_from_context", None)
    if not callable(add) or not isinstance(getattr(index, "entries", None), list):
        raise PluginError(f"hooks/search_cache.py: expected the {SEARCH} plugin's search_index to have "
                          f"add_entry_from_context() and an `entries` list (Material 9.x); it is {type(index)!r}")
    settings = getattr(index, "config", {}) or {}

    def cached_add(page) -> None:
        key = key_of(page, settings, _dictionaries(settings))
        kept = _entries.get(page.url)
        if kept is not None and kept[0] == key:
            index.entries.extend(pickle.loads(kept[1]))
            stats.reused += 1
            return
        start = len(index.entries)
        add(page)
        stats.indexed += 1
        _entries[page.url] = (key, pickle.dumps(index.entries[start:], protocol=pickle.HIGHEST_PROTOCOL))

    cached_add.__wrapped__ = add
    index.add_entry_from_context = cached_add


@plugins.event_priority(10)  # before Material's search (0) indexes the page
def on_page_context(context, page, config, nav):
    plugin = config.plugins.get(SEARCH)
    if plugin is None or not plugin.config.get("enabled", True):
        return context
    index = getattr(plugin, "search_index", None)
    if index is None:
        raise PluginError(f"hooks/search_cache.py: expected the {SEARCH} plugin to have a search_index "
                          "(made in its on_config, Material 9.x)")
    if not hasattr(index.add_entry_from_context, "__wrapped__"):
        _wrap(index)
    return context


@plugins.event_priority(-200)
def on_post_build(config):
    log.debug(f"hooks/search_cache.py: {stats.reused} pages' search entries reused, {stats.indexed} indexed")
