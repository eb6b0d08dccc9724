"""Search loads when the reader starts to search, not with every page.

Material 9.8.2's bundle fetches ``search/search_index.json`` (zh 328 KB, en 243 KB) and starts its
search worker as soon as any page loads, so a first visit spent about 40% of its bytes on a search
the reader may never make. Material has no option for this (over ``file://`` it already waits for
the search dialog; over HTTP it does not). This hook edits two lines of the bundle after the build
(``hooks/minified.py``: a line not found exactly once fails the build, naming it), handing both to
``residualNotesSearch`` (``docs/assets/js/search-lazy.js``, loaded just before the bundle by
``overrides/main.html``):

* the index is fetched, once, when the reader starts to search (focus on the search field, which a
  click, the search icon on phones and the ``/`` ``s`` ``f`` shortcuts all give it; the search
  dialog opening; a page opened with Material's ``?q=`` or ``?h=``);
* the worker is created when Material hands it the index, its first message.

Without that script (it failed to load) the bundle does what it shipped doing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import minified, one_module  # noqa: E402

one_module(__name__, __file__)

BUNDLE_GLOB = "assets/javascripts/bundle.*.min.js"
SCRIPT = "assets/js/search-lazy.js"  # defines residualNotesSearch; overrides/main.html loads it
_API = "self.residualNotesSearch"
BUNDLE_PATCHES: list[minified.Edit] = [
    # bundle.ts: `const index$ = document.forms.namedItem("search") ? fetchSearchIndex() : NEVER`
    ('zi=document.forms.namedItem("search")?ks():tt',
     f'zi=document.forms.namedItem("search")?({_API}?{_API}.index(ks):ks()):tt'),
    # setupSearchWorker(url, index$): `const worker$ = watchWorker<SearchMessage>(url)`, whose
    # default second argument is `new Worker(url)`
    ("function Ei(e,t){let r=Mn(e);",
     f"function Ei(e,t){{let r=Mn(e,{_API}?{_API}.worker(e):void 0);"),
]
_WHO = "hooks/search_lazy.py"
_HINT = ("Material's bundle changed: find where it fetches search/search_index.json and creates the search "
         "worker, and update BUNDLE_PATCHES")


def patch_bundle(source: str, name: str) -> str:
    return minified.apply(source, BUNDLE_PATCHES, name, _WHO, _HINT)


@plugins.event_priority(-100)
def on_post_build(config, **kwargs) -> None:
    if not (Path(config.site_dir) / SCRIPT).is_file():
        raise PluginError(f"{_WHO}: {SCRIPT} is not in the site; without it every page loads the search index")
    minified.edit_one(Path(config.site_dir), BUNDLE_GLOB, BUNDLE_PATCHES, _WHO, _HINT)
