"""A page whose HTML reaches glightbox as it did the build before gets glightbox's result of then.

mkdocs-glightbox parses and serialises every page twice on every build (``on_page_content`` wraps
each figure in a link to its full size, ``on_post_page`` adds its script and style): on a ``mkdocs
serve`` reload that is about 0.4 s, though only the edited pages changed. Both methods are
functions of their input: the HTML they are given, the page's URL and metadata, the plugin's
settings and what its ``on_config`` noted (``vars(plugin)``), the theme's name and features, and
the versions of mkdocs-glightbox and selectolax (its parser).

So this hook wraps the two methods where MkDocs calls them (the plugin collection's ``events``
lists, in ``on_config``): a page whose key (those inputs) is the one it had the last time in this
process gets the text glightbox returned then; any other page goes through glightbox, and its
result is kept. One result per page and event is kept, the last; ``stats`` counts what this process
reused and passed on.

Upstream assumption, checked on every build: MkDocs 1.6's ``PluginCollection`` keeps each event's
methods in ``events[<event>]`` (a list it calls in order), where the ``glightbox`` plugin's bound
``on_page_content`` and ``on_post_page`` are. If they are not there, the build fails with
``PluginError`` naming what was expected; ``tests/test_build_speed.py`` checks that a build with
this cache gives the same site, byte for byte, as one without.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

GLIGHTBOX = "glightbox"
EVENTS = ("page_content", "post_page")  # on_page_content(html, page, ...), on_post_page(output, page, ...)
log = logging.getLogger("mkdocs.hooks.glightbox_cache")  # shown by `mkdocs build -v`


@dataclass
class Stats:
    reused: int = 0
    passed: int = 0  # given to glightbox


_results: dict[tuple[str, str, str], tuple[str, str]] = {}  # (event, src_uri, dest_uri): (key, what it returned)
stats = Stats()


def _json(value):
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=repr)
    return repr(value)  # an object glightbox did not keep before: its id changes the key, so no reuse


@functools.cache
def _versions() -> tuple[str, ...]:
    return tuple(metadata.version(name) for name in ("mkdocs-glightbox", "selectolax"))


def key_of(event: str, text: str, page, plugin, config) -> str:
    theme = config["theme"]
    state = json.dumps([event, page.url, page.meta, vars(plugin), theme.name, theme.get("features"), _versions()],
                       sort_keys=True, ensure_ascii=False, default=_json)
    return hashlib.sha256(state.encode("utf-8") + b"\0" + text.encode("utf-8")).hexdigest()


def _cached(event: str, method, plugin):
    @functools.wraps(method)
    def cached(text, page, config, **kwargs):
        slot = (event, page.file.src_uri, page.file.dest_uri)
        key = key_of(event, text, page, plugin, config)
        kept = _results.get(slot)
        if kept is not None and kept[0] == key:
            stats.reused += 1
            return kept[1]
        result = method(text, page=page, config=config, **kwargs)
        stats.passed += 1
        _results[slot] = (key, text if result is None else result)
        return result

    cached.__wrapped__ = method
    return cached


@plugins.event_priority(-200)
def on_config(config):
    plugin = config.plugins.get(GLIGHTBOX)
    if plugin is None:
        return config
    events = getattr(config.plugins, "events", None)
    for event in EVENTS:
        methods = events.get(event) if isinstance(events, dict) else None
        if not isinstance(methods, list):
            raise PluginError(f"hooks/glightbox_cache.py: expected MkDocs' plugin collection to keep the methods "
                              f"of each event in a list, config.plugins.events[{event!r}] (MkDocs 1.6)")
        at = [i for i, m in enumerate(methods)
              if getattr(getattr(m, "__wrapped__", m), "__self__", None) is plugin]
        if len(at) != 1:
            raise PluginError(f"hooks/glightbox_cache.py: expected the {GLIGHTBOX} plugin's on_{event} once in "
                              f"config.plugins.events[{event!r}]; found it {len(at)} times")
        if not hasattr(methods[at[0]], "__wrapped__"):  # i18n runs on_config again for each other language
            methods[at[0]] = _cached(event, methods[at[0]], plugin)
            origins = getattr(config.plugins, "_event_origins", None)
            if isinstance(origins, dict):  # only the name MkDocs shows in its debug log and errors
                origins[methods[at[0]]] = GLIGHTBOX
    return config


@plugins.event_priority(-200)
def on_post_build(config):
    log.debug(f"hooks/glightbox_cache.py: {stats.reused} pages' glightbox results reused, {stats.passed} passed on")
