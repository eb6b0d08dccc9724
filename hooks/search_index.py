"""Search that finds whole Chinese terms, ranks prose first and loads only what it needs.

Material's search (lunr in a web worker) indexes each section's text. Measured on this site
before this hook: the index held every code block and every formula twice (MathML text and TeX),
332 KB that every page loads; previews began with 40 lines of code or flattened math; and
"normalization" ranked the References page first (its paper titles repeat the word). This hook:

* marks code blocks, formulas and display math with ``data-search-exclude`` (Material's documented
  way to keep a block out of the index; it removes the attribute from the page), so the index
  holds headings and prose: previews show prose, and a word in a heading or sentence outranks the
  same word in code; the source lines of ``hooks/provenance.py`` ("source of this code: …", the
  page's file and date) are kept out the same way: they were each page's preview text;
* gives the References page a lower search boost (``search.boost``, documented front matter), so
  a chapter that explains a term ranks before the list of papers that name it;
* repairs Material's Chinese query segmentation in the search worker it ships (a private detail of
  Material 9.8.2, patched after the build; a missing pattern fails the build, naming it):
  its greedy segmenter never tried a word that ends the query ("残差连接" became "残差" + "连",
  which highlighted every 连), and it appended a second ``*`` to each segment, so the first
  segment matched nothing and every hit was marked "missing: 残差".
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs import plugins

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import minified, one_module  # noqa: E402

one_module(__name__, __file__)

EXCLUDE = ' data-search-exclude="not-prose"'
# code blocks (Material's highlight wrappers), display math boxes, inline formulas, and the source
# lines of hooks/provenance.py (a snippet's file, the page's file and date)
_BLOCKS = re.compile(r'<(div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"|div class="math-display"|math\b'
                     r'|p class="rn-source"|aside class="rn-provenance"|div class="rn-citation")')
BOOSTS = {"references": 0.2}

# Material 9.8.2's search worker, minified: (what it ships, what it should do)
WORKER_GLOB = "assets/javascripts/workers/search.*.min.js"
WORKER_PATCHES = [
    # segment(): `for (let j = i + 1; j < query.length; j++)` never tries the query's last word
    ("for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s);",
     "for(let o=s+1;o<=t.length;o++)t.slice(s,o)in e&&(n[s]=o-s);"),
    # search(): the segments are joined with "* ", and transform() adds another "*" to each
    ('[...fe(s,this.index.invertedIndex)].join("* ")', '[...fe(s,this.index.invertedIndex)].join(" ")'),
]


@plugins.event_priority(100)  # before Material's search plugin (0) opens the dictionary
def on_config(config):
    """``search.jieba_dict_user`` (the Chinese terms jieba keeps whole) is written relative to mkdocs.yml;
    Material opens it relative to the working directory, so `mkdocs build -f path/to/mkdocs.yml` from
    another folder warned (and failed under --strict). The path is made absolute first."""
    search = config.plugins.get("material/search") or config.plugins.get("search")
    terms = search.config.get("jieba_dict_user") if search else None
    if terms and not Path(terms).is_absolute():
        search.config.jieba_dict_user = str(Path(config.config_file_path).resolve().parent / terms)


def exclude_from_search(html: str) -> str:
    return _BLOCKS.sub(lambda m: f"<{m.group(1)}{EXCLUDE}", html)


@plugins.event_priority(-50)  # after hooks/provenance.py (0) adds its lines, before search_text.py (-100)
def on_page_content(html: str, page, **kwargs) -> str:
    return exclude_from_search(html)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    boost = BOOSTS.get(Path(page.file.src_uri).stem)
    if boost is not None:
        page.meta["search"] = {**(page.meta.get("search") or {}), "boost": boost}
    return markdown


_WHO = "hooks/search_index.py"
_HINT = "Material's search worker changed: check its Chinese query segmentation and update WORKER_PATCHES"


def patch_worker(source: str, name: str) -> str:
    return minified.apply(source, WORKER_PATCHES, name, _WHO, _HINT)


@plugins.event_priority(-100)
def on_post_build(config, **kwargs) -> None:
    minified.edit_one(Path(config.site_dir), WORKER_GLOB, WORKER_PATCHES, _WHO, _HINT)
