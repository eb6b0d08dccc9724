"""A page whose Markdown and everything it reads are unchanged is not converted again in this process.

A ``mkdocs serve`` reload builds every page of both languages, though an edit of one snippet
changes one page of each: the Markdown conversion of the others (about a third of a reload) gave
the same HTML the build before. This hook wraps each page's ``render`` (``Page.render(config,
files)``, MkDocs' public page API) for the build. The first time, the real ``render`` runs, and the
hook keeps what it set on the page: every attribute it added or replaced (the HTML, the table of
contents, the title found in it, the anchors it has and the anchors it links to). The next time, if
the key and the inputs are the same, the hook sets those again (copies) and does not convert.

The key is the page's Markdown after every ``on_page_markdown``, its source, destination and URL,
every file of the build (links are resolved against them), and the Markdown extensions and their
settings, the validation settings and ``use_directory_urls`` of the config. The inputs are every
file the conversion opened for reading (Python's ``open`` audit event, in the building thread: the
snippets it included, the snippets those included), compared by their bytes. Not kept: a page whose
conversion logged anything at INFO or above (its warnings are emitted again on every build, so
``--strict`` fails every time), opened a file for writing, or is not a plain MkDocs page (notebook
pages have mkdocs-jupyter's own render and cache). One entry per page is kept, the last; ``stats`` counts
what this process reused and converted.

Upstream assumption, checked on every page: MkDocs calls ``page.render(config, files)`` between
``on_page_markdown`` and ``on_page_content`` (``commands/build.py``: ``_populate_page``) and render
sets plain values (text, sets, dicts, lists, the table of contents). A render that sets anything
else fails with ``PluginError`` naming it, and ``tests/test_build_speed.py`` checks that a build
with this cache gives the same site, byte for byte, as one without.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

log = logging.getLogger("mkdocs.hooks.render_cache")  # shown by `mkdocs build -v`
_PLAIN = (str, int, float, bool, type(None))
_COPIED = (set, frozenset, dict, list, tuple)


def _reusable(value) -> bool:
    """Text, numbers, containers, or the table of contents (MkDocs' or ProperDocs' ``structure.toc``)."""
    return isinstance(value, _PLAIN + _COPIED) or type(value).__module__.endswith(".structure.toc")


def _plain_render(cls) -> bool:
    """Whether ``cls`` renders as MkDocs' (or ProperDocs') own ``Page`` does, not a subclass's own render."""
    render = getattr(cls, "render", None)
    return (getattr(render, "__qualname__", None) == "Page.render"
            and getattr(render, "__module__", "").endswith(".structure.pages"))


@dataclass
class Entry:
    key: str
    inputs: dict[str, str | None]  # path: sha256 of its bytes when the page was converted
    attributes: bytes  # what render set on the page, pickled: each reuse unpickles a copy


@dataclass
class Stats:
    reused: int = 0
    converted: int = 0
    not_kept: int = 0


_entries: dict[tuple[str, str], Entry] = {}  # (src_uri, dest_uri): the page's last conversion
stats = Stats()


class _Recorder(logging.Handler):
    """What one conversion does beyond its return value: files opened, records logged."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.thread = threading.get_ident()
        self.read: set[str] = set()
        self.wrote: list[str] = []
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


_recording: _Recorder | None = None


def _audit(event: str, args: tuple) -> None:
    recorder = _recording
    if recorder is None or event != "open" or recorder.thread != threading.get_ident():
        return
    path, mode, flags = args
    if isinstance(path, int) or path is None:
        return  # an open file descriptor: its opening was recorded
    path = os.path.realpath(os.fsdecode(path))
    writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & (os.O_WRONLY | os.O_RDWR))
    (recorder.wrote.append if writes else recorder.read.add)(path)


sys.addaudithook(_audit)  # once per process: this module is imported once (hooks/__init__.py)


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _json(value):
    """A setting that is no JSON value: a mapping (MkDocs' sub-configs) as its items, a path (``!relative``)
    as its text, a function by its name."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"


def key_of(page, config, files) -> str:
    extensions = [e if isinstance(e, str) else [_json(type(e)), getattr(e, "config", None)]
                  for e in config["markdown_extensions"]]
    listing = [(f.src_uri, f.dest_uri, f.url, str(f.inclusion)) for f in files]
    text = json.dumps([page.markdown, page.file.src_uri, page.file.dest_uri, page.url, listing, extensions,
                       config["mdx_configs"], config["validation"], config["use_directory_urls"]],
                      sort_keys=True, ensure_ascii=False, default=_json)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _render(page, render, config, files) -> None:
    global _recording
    slot = (page.file.src_uri, page.file.dest_uri)
    key = key_of(page, config, files)
    entry = _entries.get(slot)
    if entry is not None and entry.key == key and all(_digest(p) == d for p, d in entry.inputs.items()):
        for name, value in pickle.loads(entry.attributes).items():
            setattr(page, name, value)
        stats.reused += 1
        return
    before = dict(vars(page))
    recorder = _Recorder()
    loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
    for logger in loggers:
        logger.addHandler(recorder)
    _recording = recorder
    try:
        render(config, files)
    finally:
        _recording = None
        for logger in loggers:
            logger.removeHandler(recorder)
    stats.converted += 1
    changed = {k: v for k, v in vars(page).items() if k not in before or before[k] is not v}
    changed.pop("render", None)
    odd = {k: type(v).__name__ for k, v in changed.items() if not _reusable(v)}
    if odd:
        raise PluginError(f"hooks/render_cache.py: {page.file.src_uri}: Page.render set {odd}; this hook reuses "
                          "text, numbers, sets, dicts, lists and the table of contents only (MkDocs 1.6's render)")
    if "content" not in changed:
        raise PluginError(f"hooks/render_cache.py: {page.file.src_uri}: Page.render set no `content`; expected "
                          "MkDocs' render to convert the page's Markdown into page.content")
    if recorder.records or recorder.wrote:
        _entries.pop(slot, None)  # its messages are emitted again on every build; its writes made again
        stats.not_kept += 1
        return
    _entries[slot] = Entry(key, {p: _digest(p) for p in sorted(recorder.read)},  # None: gone since
                           pickle.dumps(changed, protocol=pickle.HIGHEST_PROTOCOL))


@plugins.event_priority(-200)  # the last on_pre_page: the page object MkDocs will render
def on_pre_page(page, config, files):
    if not callable(getattr(page, "render", None)):
        raise PluginError(f"hooks/render_cache.py: {page.file.src_uri}: expected MkDocs' Page to have render()")
    if _plain_render(type(page)) and "render" not in vars(page):
        def cached_render(config, files):
            del page.render  # the page is left as MkDocs made it
            _render(page, page.render, config, files)

        page.render = cached_render
    return page


@plugins.event_priority(-200)
def on_post_build(config):
    log.debug(f"hooks/render_cache.py: {stats.reused} pages reused, {stats.converted} converted, "
              f"{stats.not_kept} not kept")
