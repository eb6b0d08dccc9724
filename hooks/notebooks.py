"""Chapter notebooks as pages of both languages, and the links between chapter and notebook.

``tools/notebooks.py`` generates ``docs/<lang>/notebooks/<slug>.ipynb`` from each chapter page;
mkdocs-jupyter converts them to HTML (never executing them: they carry their verified outputs).
This hook makes that work with mkdocs-static-i18n and keeps the pages light:

* i18n rebuilds every file as a plain ``File`` (ultrabug/mkdocs-static-i18n#198), so a notebook
  would be copied raw instead of rendered. ``File.is_documentation_page`` is widened to accept
  ``.ipynb``, which also gives notebooks their language alternates and URLs (``notebooks/<slug>/``).
* mkdocs-jupyter evicts, after each build, cached conversions the build did not use; i18n runs
  one build per language, so each language evicted the other's cache. That eviction is dropped and
  done here once, after the last language.
* Shared assets: with ``fallback_to_default: false`` i18n leaves files outside the language folders
  (``docs/assets/…``: figures, diagrams) out of the other languages' builds, so an English page's
  ``../assets/figures/x.svg`` was neither checked nor rewritten and 404ed under ``/en/``. They are
  added back with their one published path (``assets/…``), so links resolve to the shared copy.
* A "Notebooks" nav section lists the notebooks that exist (so nav never names a missing file).
* nbconvert's output carries ~600 KB of inlined JupyterLab CSS, scripts from a CDN (MathJax,
  mermaid) and its own copy buttons. The page keeps only the cells: code cells become the same
  ``highlight`` blocks as on chapter pages (Material's copy button, colours and dark mode), stream
  outputs become ``text`` blocks marked stdout, and headings get the chapter page's ids. Search
  skips notebook pages: the chapter shows the same code, with its explanation.
* Search, per language: i18n writes one index for both languages, so an English reader searching
  "residual" also got Chinese pages. After the last language the index is split into
  ``search/search_index.json`` (zh) and ``en/search/search_index.json`` (en), and English pages
  point Material's ``base`` at ``en/`` so they load their own index and resolve its links.
* ``page.notebook`` tells ``overrides/partials/content.html`` which links to show: on a chapter,
  its notebook and the .ipynb download; on a notebook, the download and the chapter.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path, PurePosixPath

from mkdocs import plugins
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "notebooks"
DEFAULT_LANG = "zh"
NAV_TITLE = "笔记本"  # translated by i18n's nav_translations (mkdocs.yml)

LABELS = {
    "zh": {"open": "以 Jupyter 笔记本打开本章代码", "download": "下载 .ipynb", "chapter": "回到章节页面",
           "bar": "本章代码"},
    "en": {"open": "Open this chapter as a notebook", "download": "Download .ipynb", "chapter": "Back to the chapter",
           "bar": "This chapter's code"},
}

# --------------------------------------------------------------------------- notebooks are pages

_is_markdown_page = File.is_documentation_page


def _is_documentation_page(self: File) -> bool:
    return _is_markdown_page(self) or self.src_uri.endswith(".ipynb")


File.is_documentation_page = _is_documentation_page


def _parts(page) -> tuple[str, str, bool]:
    """(language, slug, is_notebook) of a page whose source is docs/<lang>/[notebooks/]<slug>.*"""
    parts = PurePosixPath(page.file.src_uri).parts
    lang = parts[0] if len(parts) > 1 else DEFAULT_LANG
    is_notebook = page.file.src_uri.endswith(".ipynb")
    return lang, PurePosixPath(page.file.src_uri).stem, is_notebook


def _docs(config) -> Path:
    return Path(config.docs_dir)


def _existing_notebooks(config) -> list[str]:
    return sorted(p.stem for p in (_docs(config) / DEFAULT_LANG / FOLDER).glob("*.ipynb"))


def _flatten(nav) -> list[str]:
    out = []
    for item in nav or []:
        if isinstance(item, dict):
            for value in item.values():
                out += _flatten(value) if isinstance(value, list) else [value]
        elif isinstance(item, list):
            out += _flatten(item)
        else:
            out.append(item)
    return out


_jupyter = None  # the mkdocs-jupyter plugin instance
_used_cache: set[Path] = set()


@plugins.event_priority(50)
def on_config(config):
    global _jupyter
    # drop mkdocs-jupyter's per-build cache eviction (see the module docstring)
    for method in list(config.plugins.events["post_build"]):
        if type(getattr(method, "__self__", None)).__module__ == "mkdocs_jupyter.plugin":
            _jupyter = method.__self__
            config.plugins.events["post_build"].remove(method)
    # the nav section, in the order the chapters appear in the nav (runs once per language build)
    if config.nav is not None and not any(isinstance(i, dict) and NAV_TITLE in i for i in config.nav):
        slugs = _existing_notebooks(config)
        order = [PurePosixPath(p).stem for p in _flatten(config.nav) if isinstance(p, str)]
        slugs.sort(key=lambda s: (order.index(s) if s in order else len(order), s))
        if slugs:
            config.nav.append({NAV_TITLE: [f"{FOLDER}/{s}.ipynb" for s in slugs]})
    return config


@plugins.event_priority(-150)  # after i18n (-100) has rebuilt the file list for one language
def on_files(files, config):
    docs = _docs(config)
    langs = {p.name for p in docs.iterdir() if p.is_dir()} & {DEFAULT_LANG, *_languages(config)}
    have = {f.src_uri for f in files}
    for path in sorted(docs.rglob("*")):
        rel = path.relative_to(docs).as_posix()
        if path.is_file() and rel.split("/")[0] not in langs and rel not in have and not rel.startswith("."):
            shared = File(rel, str(docs), config.site_dir, config.use_directory_urls)
            if not shared.is_documentation_page():
                files.append(shared)
    return files


def _languages(config) -> list[str]:
    i18n = config.plugins.get("i18n")
    return [lang.locale for lang in i18n.config.languages] if i18n is not None else []


@plugins.event_priority(-200)
def on_post_build(config):
    """After the last language: split the search index, evict unused notebook conversions."""
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return  # a nested build of one language; the outer build finishes the job
    if i18n is not None:
        _split_search_index(Path(config.site_dir), [lang.locale for lang in i18n.config.languages if lang.build])
    if _jupyter is not None and _jupyter.config["cache"]:
        cache_dir = Path(_jupyter.config["cache_dir"])
        if _used_cache:
            for path in cache_dir.glob("*.json"):
                if path not in _used_cache:
                    path.unlink()
    _used_cache.clear()


def _split_search_index(site_dir: Path, langs: list[str]) -> None:
    index_file = site_dir / "search" / "search_index.json"
    if not index_file.exists():
        return
    index = json.loads(index_file.read_text(encoding="utf-8"))
    others = tuple(f"{lang}/" for lang in langs if lang != DEFAULT_LANG)
    for lang in langs:
        if lang == DEFAULT_LANG:
            docs, target = [d for d in index["docs"] if not d["location"].startswith(others)], index_file
        else:
            prefix = f"{lang}/"
            docs = [{**d, "location": d["location"][len(prefix):]} for d in index["docs"]
                    if d["location"].startswith(prefix)]
            target = site_dir / lang / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**index, "docs": docs}, ensure_ascii=False, separators=(",", ":")),
                          encoding="utf-8")


_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": ")([^"]*)(")')


@plugins.event_priority(-50)
def on_post_page(output, page, config):
    """Record the notebook cache entries used; on other languages' pages, Material's base is
    the language's root (its search index and result links live there)."""
    if _jupyter is not None:
        _used_cache.update(getattr(_jupyter, "_used_cache_paths", ()))
    lang = _parts(page)[0]
    if lang != DEFAULT_LANG:
        output = _CONFIG_BASE.sub(lambda m: f"{m[1]}{m[2].rstrip('/')}/{lang}/{m[3]}", output, count=1)
    return output


# --------------------------------------------------------------------------- slimming the notebook HTML

_STYLE_OR_SCRIPT = re.compile(r"<(style|script)\b[^>]*>.*?</\1>\s*", re.S | re.I)
_COPY_BUTTON = re.compile(r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>\s*', re.S)
_COPY_TEXT = re.compile(r'<div (?:id="cell-\d+" )?class="clipboard-copy-txt"[^>]*>.*?</div>\s*', re.S)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_CODE = re.compile(r'<div class="highlight-ipynb hl-(?P<lang>[\w-]+)[^"]*"><pre>(?:<span></span>)?(?P<code>.*?)</pre></div>', re.S)
_STREAM = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output(?P<err> jp-OutputArea-executeResult)?[^"]*"'
    r'(?P<attrs>[^>]*)>\s*<pre>(?P<text>.*?)</pre>\s*</div>', re.S)
_HEADING = re.compile(r'<h(?P<level>[1-6])(?P<attrs>[^>]*)>(?P<inner>.*?)</h(?P=level)>', re.S)
_ANCHOR = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)


def _slim(content: str, meta: dict, page, config) -> str:
    content = _STYLE_OR_SCRIPT.sub("", content)
    content = _COPY_BUTTON.sub("", content)
    content = _COPY_TEXT.sub("", content)
    content = _COMMENT.sub("", content)
    content = re.sub(r'id="cell-id=([\w-]*)"', r'id="cell-\1"', content)  # "=" breaks Material's selectors
    content = content.replace('<div class="jp-Cell-inputWrapper" tabindex="0">', '<div class="jp-Cell-inputWrapper">')
    content = _CODE.sub(lambda m: f'<div class="language-{m["lang"]} highlight"><pre><span></span>'
                                  f'<code>{m["code"]}</code></pre></div>', content)
    content = _STREAM.sub(lambda m: f'<div class="language-text highlight jp-OutputArea-output"{m["attrs"]}>'
                                    f'<pre><span></span><code>{m["text"]}</code></pre></div>', content)

    # headings: the ids of the chapter page, in order; a permalink like Material's
    ids = iter(meta.get("heading_ids", []))
    toc_tokens, stack = [], []

    def heading(m):
        level, inner = int(m["level"]), _ANCHOR.sub("", m["inner"]).strip()
        hid = next(ids, "") or re.sub(r"[^\w-]+", "-", html.unescape(re.sub("<[^>]+>", "", inner))).strip("-").lower()
        token = {"level": level, "id": hid, "name": html.unescape(re.sub("<[^>]+>", "", inner)), "children": []}
        while stack and stack[-1]["level"] >= level:
            stack.pop()
        (stack[-1]["children"] if stack else toc_tokens).append(token)
        stack.append(token)
        return (f'<h{level} id="{hid}">{inner}<a class="headerlink" href="#{hid}" '
                f'title="Permanent link">&para;</a></h{level}>')

    content = _HEADING.sub(heading, content)
    page.toc = get_toc(toc_tokens)

    # links to the public site (written into the notebook for readers who download it) stay on this site
    site_url = (config.site_url or "").rstrip("/") + "/"
    if site_url != "/":
        def local(m):
            return 'href="' + get_relative_url(m.group(1) or ".", page.url).rstrip("/") + '/"'
        content = re.sub(r'href="' + re.escape(site_url) + r'([^"#?]*/)?"', local, content)
    return content


def on_page_content(content, page, config, files):
    lang, slug, is_notebook = _parts(page)
    if not is_notebook:
        return content
    meta = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8")).get("metadata", {})
    # the chapter page holds the same code with its explanation: search shows that one only
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    return _slim(content, meta.get("residual_notes", {}), page, config)


# --------------------------------------------------------------------------- links for the templates

def on_page_context(context, page, config, nav):
    lang, slug, is_notebook = _parts(page)
    labels = LABELS.get(lang, LABELS["en"])
    prefix = "" if lang == DEFAULT_LANG else f"{lang}/"
    if is_notebook:
        page.notebook = {
            "kind": "notebook", "labels": labels,
            "download": f"{slug}.ipynb",
            "chapter": get_relative_url(f"{prefix}{slug}/", page.url),
        }
    elif (_docs(config) / lang / FOLDER / f"{slug}.ipynb").exists():
        target = f"{prefix}{FOLDER}/{slug}/"
        page.notebook = {
            "kind": "chapter", "labels": labels,
            "page": get_relative_url(target, page.url),
            "download": get_relative_url(f"{target}{slug}.ipynb", page.url),
        }
    return context
