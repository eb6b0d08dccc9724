"""A 404 page per language: ``404.html`` (the default language, which GitHub Pages serves for any
missing path) and ``<lang>/404.html``, each with a way onward: the home page and search of its
language, a line in the other language, and a language switcher that leads to the other home page.

MkDocs renders the theme's ``404.html`` once per build into the site's root, and mkdocs-static-i18n
runs one build per language into the same folder, so the last language overwrote the others; and its
language links were those of the last page built. This hook gives the template its links and labels
(``not_found`` in the context, used by ``overrides/404.html``) and, after each language's build, moves
that language's page to its folder and puts the default language's back at the root.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

_saved: dict[str, str] = {}  # site_dir -> the default language's 404.html


def _languages(config) -> list[dict]:
    plugin = config.plugins.get("i18n")
    langs = getattr(getattr(plugin, "config", None), "languages", None)
    if not langs:
        raise PluginError("hooks/not_found.py: expected the mkdocs-static-i18n plugin (`i18n`) with `languages`")
    found = [{"lang": lang.locale, "name": lang.name, "default": bool(lang.default),
              "home": "" if lang.default else f"{lang.locale}/"} for lang in langs if lang.build]
    facts = site_facts.from_config(config)
    for x in found:
        x["labels"] = facts.text(x["lang"], "not_found")  # mkdocs.yml: extra.strings.not_found
    missing = []
    if sum(x["default"] for x in found) != 1:
        raise PluginError(f"hooks/not_found.py: expected one default language and labels for each; "
                          f"languages {[x['lang'] for x in found]}, no labels for {missing}")
    return found


def on_template_context(context, template_name, config):
    if template_name != "404.html":
        return context
    langs = _languages(config)
    current = (config.theme.get("language") or "").split("-")[0]
    here = next((x for x in langs if x["lang"] == current), None)
    if here is None:
        raise PluginError(f"hooks/not_found.py: theme language {current!r} is none of {[x['lang'] for x in langs]}")
    # The 404 page is served at any address: absolute links. The switcher leads to each home page.
    # (static-i18n sets the switcher's links as an attribute of config.extra, Material's template
    # reads that attribute before the item: set both.)
    root = urlsplit(config.get("site_url") or "/").path.rstrip("/") + "/"
    alternates = [{"name": x["name"], "lang": x["lang"], "link": root + x["home"]} for x in langs]
    config.extra["alternate"] = alternates
    config.extra.alternate = alternates
    context["not_found"] = {
        "lang": current, "href": root + here["home"], **here["labels"],
        "others": [{"lang": x["lang"], "href": root + x["home"], "name": x["name"], **x["labels"]}
                   for x in langs if x is not here],
    }
    return context


def on_post_build(config):
    site = Path(config["site_dir"])
    page = site / "404.html"
    if not page.exists():
        raise PluginError(f"hooks/not_found.py: the build wrote no {page}")
    text = page.read_text(encoding="utf-8")
    m = re.search(r'<html lang="([\w-]+)"', text)
    if not m:
        raise PluginError(f'hooks/not_found.py: {page} has no <html lang="…">')
    lang = m.group(1).split("-")[0]
    default = next(x for x in _languages(config) if x["default"])
    if lang == default["lang"]:
        _saved[str(site)] = text
        return
    (site / lang).mkdir(parents=True, exist_ok=True)
    (site / lang / "404.html").write_text(text, encoding="utf-8")
    if str(site) not in _saved:
        raise PluginError(f"hooks/not_found.py: the {lang} build ran before the default language's "
                          f"({default['lang']}); its 404 page is missing")
    page.write_text(_saved[str(site)], encoding="utf-8")
