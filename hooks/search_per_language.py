"""Search per language: each language searches its own pages.

mkdocs-static-i18n (``reconfigure_search: true``) writes one ``search/search_index.json`` for
every language, so an English reader searching "residual" also got Chinese pages.

* After the last language's build the index is split: ``search/search_index.json`` keeps the
  default language's entries, ``<lang>/search/search_index.json`` each other language's (with
  locations relative to ``<lang>/``).
* On the pages of every other language, Material's ``base`` (the ``base_url`` of the template
  context, which Material writes into its ``__config`` script) is that language's root, so those
  pages load their own index and resolve its result links. ``extra.scope`` keeps Material's
  storage scope (palette, consent) at the site root for every language.

The split runs once, after the outermost build: i18n builds the other languages inside its own
``on_post_build`` (priority -100), so this hook counts build depth with ``on_pre_build`` /
``on_post_build`` (public events) instead of reading i18n's private ``building`` flag, and runs at
-200, after i18n. Upstream assumptions, each a ``PluginError`` when broken: the merged index exists
where Material writes it, every entry belongs to a built language, each language gets entries,
and each other language's folder was built before the split.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

INDEX = "search/search_index.json"
_depth = 0


def on_startup(command, dirty):
    global _depth
    _depth = 0


@plugins.event_priority(-150)  # after i18n's on_config (-100)
def on_config(config):
    facts = site_facts.from_config(config)
    config.extra["scope"] = facts.base_path  # one storage scope for every language (Material's extra.scope)
    return config


def on_pre_build(config):
    global _depth
    _depth += 1


def on_build_error(error):
    global _depth
    _depth = 0


@plugins.event_priority(50)  # before Material renders the page
def on_page_context(context, page, config, nav):
    facts = site_facts.from_config(config)
    lang = facts.lang_of(page.file.src_uri)
    if "base_url" not in context:
        raise PluginError("hooks/search_per_language.py: the template context has no base_url "
                          "(mkdocs.commands.build.get_context); Material's search needs it")
    context["base_url"] = get_relative_url(facts.prefix(lang) or ".", page.url)
    return context


@plugins.event_priority(-200)  # after i18n's on_post_build (-100), which builds the other languages
def on_post_build(config):
    global _depth
    _depth -= 1
    if _depth > 0:
        return  # a language built inside i18n's on_post_build; the outermost build splits
    search = config.plugins.get("material/search") or config.plugins.get("search")
    if search is None or not search.config.enabled:
        return
    split_search_index(Path(config.site_dir), site_facts.from_config(config))


def split_search_index(site_dir: Path, facts: site_facts.Facts) -> None:
    index_file = site_dir / INDEX
    if not index_file.exists():
        raise PluginError(f"hooks/search_per_language.py: expected Material's search index at {INDEX} "
                          "(material/plugins/search, merged by mkdocs-static-i18n's reconfigure_search)")
    missing = [lang for lang in facts.others if not (site_dir / lang).is_dir()]
    if missing:
        raise PluginError(f"hooks/search_per_language.py: languages {missing} are not built yet: "
                          "mkdocs-static-i18n must build them in its on_post_build (priority -100) before this hook (-200)")
    index = json.loads(index_file.read_text(encoding="utf-8"))
    if not isinstance(index.get("docs"), list) or "config" not in index:
        raise PluginError(f"hooks/search_per_language.py: {INDEX} is not Material's format "
                          "({{'config': ..., 'docs': [{{'location', 'title', 'text'}}]}})")
    parts: dict[str, list] = {lang: [] for lang in facts.languages}
    for entry in index["docs"]:
        location = entry.get("location")
        if location is None:
            raise PluginError(f"hooks/search_per_language.py: a {INDEX} entry has no 'location': {entry}")
        lang = next((o for o in facts.others if location.startswith(f"{o}/")), facts.default)
        prefix = facts.prefix(lang)
        parts[lang].append({**entry, "location": location[len(prefix):]})
    empty = [lang for lang, docs in parts.items() if not docs]
    if empty:
        raise PluginError(f"hooks/search_per_language.py: the search index holds no entry of {empty}")
    for lang, docs in parts.items():
        target = site_dir / facts.prefix(lang) / INDEX
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**index, "docs": docs}, ensure_ascii=False, separators=(",", ":")),
                          encoding="utf-8")
