"""Chapter notebooks as pages of every language, and the links between chapter and notebook.

``tools/generators/notebooks.py`` generates ``docs/<lang>/notebooks/<slug>.ipynb`` from each chapter page;
mkdocs-jupyter converts them to HTML (never executing them: they carry their verified outputs).
This hook does that one job: notebook pages that work with mkdocs-static-i18n and stay light.
(Search per language and shared assets are ``hooks/search_per_language.py`` and
``hooks/shared_assets.py``.)

* i18n rebuilds every file as a plain ``File`` (ultrabug/mkdocs-static-i18n#198), so a notebook
  would be copied raw instead of rendered. ``File.is_documentation_page`` is widened to accept
  ``.ipynb``, which also gives notebooks their language alternates and URLs (``notebooks/<slug>/``).
* mkdocs-jupyter evicts, after each build, the cached conversions the build did not use; i18n runs
  one build per language, so each language would evict the other's cache. Each language gets its
  own ``cache_dir`` (the plugin's public option, set per build), so eviction stays within it.
* A nav section (its title: the language's ``extra.strings.notebooks_nav``) lists the notebooks
  that exist, in chapter order, so nav never names a missing file.
* nbconvert's output carries ~600 KB of inlined JupyterLab CSS, scripts from a CDN (MathJax,
  mermaid) and its own copy buttons. The page keeps only the cells: code cells become the same
  ``highlight`` blocks as on chapter pages (Material's copy button, colours and dark mode), text
  outputs become ``text`` blocks, and headings get the chapter page's ids. Search skips notebook
  pages: the chapter shows the same code, with its explanation. Figure outputs become images of
  the site's figure files in ``hooks/notebook_figures.py``.
* ``page.notebook`` tells ``overrides/partials/content.html`` which links to show: on a chapter,
  its notebook, the .ipynb download and Open in Colab; on a notebook, the download, Open in Colab
  and the chapter. The Colab address is ``site_facts.Facts.colab_url`` (from ``repo_url`` and
  ``edit_uri``): a plain link, opened in the reader's browser, nothing loaded from Colab.

Private or undocumented upstream details this hook relies on, each checked on every build
(``PluginError`` naming what was expected) and by ``tests/test_site_hooks.py``:

* the class-wide patch of ``mkdocs.structure.files.File.is_documentation_page`` (no public way to
  make i18n's rebuilt files pages): every ``.ipynb`` file must be a page after i18n's ``on_files``;
* nbconvert's markup, rewritten by regexes: ``<div class="highlight-ipynb hl-<lang>">`` code
  blocks, ``jp-RenderedText jp-OutputArea-output`` text outputs, ``<h1>``–``<h6>`` headings with
  ``anchor-link`` permalinks: the counts must match the notebook's cells and outputs;
* ``mkdocs.structure.toc.get_toc`` fed hand-built tokens (Python-Markdown's ``toc_tokens`` shape).
* nbconvert's post-pass over the exported HTML, ``nbconvert.exporters.html.BeautifulSoup``: replaced by
  ``_Unparsed``, which makes its edits on the string (``skip_the_soup_pass``; a different name there, or a
  use of BeautifulSoup beyond ``select`` and ``str``, fails naming it).
"""

from __future__ import annotations

import hashlib
import html
import json
import pickle
import re
import sys
from pathlib import Path, PurePosixPath

from mkdocs import plugins
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

FOLDER = "notebooks"
JUPYTER = "mkdocs-jupyter"  # the plugin's name in mkdocs.yml

# --------------------------------------------------------------------------- notebooks are pages

_is_markdown_page = File.is_documentation_page


def _is_documentation_page(self: File) -> bool:
    return _is_markdown_page(self) or self.src_uri.endswith(".ipynb")


File.is_documentation_page = _is_documentation_page


def _parts(page, facts) -> tuple[str, str, bool]:
    """(language, slug, is_notebook) of a page whose source is docs/<lang>/[notebooks/]<slug>.*"""
    src = page.file.src_uri
    return facts.lang_of(src), PurePosixPath(src).stem, src.endswith(".ipynb")


def _existing_notebooks(facts) -> list[str]:
    return sorted(p.stem for p in (facts.docs / facts.default / FOLDER).glob("*.ipynb"))


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


_cache_root: dict[int, str] = {}  # mkdocs-jupyter's cache_dir as configured, per plugin instance
_nav_section: list[dict] = []  # the nav section this hook added (config.nav persists across builds)


@plugins.event_priority(-150)  # after i18n's on_config (-100) has set up this language's build
def on_config(config):
    facts = site_facts.from_config(config)
    jupyter = config.plugins.get(JUPYTER)
    if jupyter is None:
        raise PluginError(f"hooks/notebooks.py: mkdocs.yml has no `{JUPYTER}` plugin to render docs/<lang>/{FOLDER}/*.ipynb")
    skip_the_soup_pass()
    lang = config.theme.get("language")
    if lang not in facts.languages:
        raise PluginError(f"hooks/notebooks.py: theme.language is {lang!r}; expected mkdocs-static-i18n "
                          f"(reconfigure_material: true) to set it to the language being built, one of {facts.languages}")
    # each language its own conversion cache, so mkdocs-jupyter's eviction keeps the other's
    if jupyter.config["cache"]:
        root = _cache_root.setdefault(id(jupyter), jupyter.config["cache_dir"])
        jupyter.config["cache_dir"] = str(facts.root / root / lang)  # relative to mkdocs.yml, not the cwd
    # the nav section, in the order the chapters appear in the nav, titled in this language
    if config.nav is not None:
        for section in _nav_section:
            if section in config.nav:
                config.nav.remove(section)
        _nav_section.clear()
        slugs = _existing_notebooks(facts)
        order = [PurePosixPath(p).stem for p in _flatten(config.nav) if isinstance(p, str)]
        slugs.sort(key=lambda s: (order.index(s) if s in order else len(order), s))
        if slugs:
            section = {facts.text(lang, "notebooks_nav"): [f"{FOLDER}/{s}.ipynb" for s in slugs]}
            _nav_section.append(section)
            config.nav.append(section)
    return config


@plugins.event_priority(-150)  # after i18n (-100) has rebuilt the file list for one language
def on_files(files, config):
    not_pages = [f.src_uri for f in files if f.src_uri.endswith(".ipynb") and not f.is_documentation_page()]
    if not_pages:
        raise PluginError("hooks/notebooks.py: notebooks are not documentation pages after i18n's on_files, so they "
                          "would be copied raw: the patch of mkdocs.structure.files.File.is_documentation_page no "
                          f"longer applies to the files mkdocs-static-i18n builds: {not_pages[:3]}")
    return files


# --------------------------------------------------------------------------- slimming the notebook HTML

_STYLE_OR_SCRIPT = re.compile(r"<(style|script)\b[^>]*>.*?</\1>\s*", re.S | re.I)
_COPY_BUTTON = re.compile(r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>\s*', re.S)
_COPY_TEXT = re.compile(r'<div (?:id="cell-\d+" )?class="clipboard-copy-txt"[^>]*>.*?</div>\s*', re.S)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_CODE = re.compile(r'<div class="highlight-ipynb hl-(?P<lang>[\w-]+)[^"]*"><pre>(?:<span></span>)?(?P<code>.*?)</pre></div>', re.S)
_TEXT_OUTPUT = re.compile(  # stdout and execute results: a <pre> in a jp-RenderedText div
    r'<div class="jp-RenderedText jp-OutputArea-output[^"]*"(?P<attrs>[^>]*)>\s*<pre>(?P<text>.*?)</pre>\s*</div>', re.S)
_HEADING = re.compile(r'<h(?P<level>[1-6])(?P<attrs>[^>]*)>(?P<inner>.*?)</h(?P=level)>', re.S)
_ANCHOR = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)


# a markdown cell as nbconvert renders it (its math left as $…$ / $$…$$ text for MathJax, which this site has not)
_MARKDOWN_OUTPUT = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^"]*"[^>]*>)(.*?)(</div>)', re.S)
_DOLLAR_MATH = re.compile(r"\$\$(?P<display>.+?)\$\$|\$(?P<inline>[^$]+?)\$", re.S)
_CODE_SPAN = re.compile(r"(<code\b.*?</code>)", re.S)


def _math(cell_html: str, where: str) -> str:
    """The formulas of a markdown cell (the chapter's prose, ``tools/generators/notebooks.py``) as the chapter pages show
    them: MathML from ``hooks/math.py``. A ``$`` left over is an unpaired delimiter: ``PluginError``."""
    from hooks import math as math_hook  # loaded by MkDocs before this hook (mkdocs.yml lists it first)

    def formula(m):
        tex = html.unescape(m["display"] if m["display"] is not None else m["inline"]).strip()
        return math_hook.render(tex, m["display"] is not None, where)

    parts = _CODE_SPAN.split(cell_html)
    for i in range(0, len(parts), 2):
        parts[i] = _DOLLAR_MATH.sub(formula, parts[i])
        if "$" in parts[i]:
            raise PluginError(f"{where}: a markdown cell has an unpaired $ (its math must be $…$ or $$…$$): "
                              f"{html.unescape(re.sub('<[^>]+>', '', parts[i]))[:120]!r}")
    return "".join(parts)


def _slim(content: str, meta: dict, counts: dict, page, config) -> str:
    content = _STYLE_OR_SCRIPT.sub("", content)
    content = _COPY_BUTTON.sub("", content)
    content = _COPY_TEXT.sub("", content)
    content = _COMMENT.sub("", content)
    content = re.sub(r'id="cell-id=([\w-]*)"', r'id="cell-\1"', content)  # "=" breaks Material's selectors
    content = content.replace('<div class="jp-Cell-inputWrapper" tabindex="0">', '<div class="jp-Cell-inputWrapper">')
    content, n_code = _CODE.subn(lambda m: f'<div class="language-{m["lang"]} highlight"><pre><span></span>'
                                           f'<code>{m["code"]}</code></pre></div>', content)
    content, n_text = _TEXT_OUTPUT.subn(lambda m: f'<div class="language-text highlight jp-OutputArea-output"{m["attrs"]}>'
                                                  f'<pre><span></span><code>{m["text"]}</code></pre></div>', content)
    where = f"hooks/notebooks.py: {page.file.src_uri}"
    if n_code != counts["code"]:
        raise PluginError(f"{where}: {counts['code']} code cells but {n_code} nbconvert code blocks "
                          '<div class="highlight-ipynb hl-<lang>"><pre>: nbconvert\'s markup changed')
    if n_text != counts["text"]:
        raise PluginError(f"{where}: {counts['text']} text outputs but {n_text} nbconvert outputs "
                          '<div class="jp-RenderedText jp-OutputArea-output"><pre>: nbconvert\'s markup changed')

    content = _MARKDOWN_OUTPUT.sub(lambda m: m[1] + _math(m[2], where) + m[3], content)

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

    content, n_headings = _HEADING.subn(heading, content)
    if n_headings != counts["headings"]:
        raise PluginError(f"{where}: {counts['headings']} headings in the notebook but {n_headings} <h1>-<h6> "
                          "in nbconvert's output")
    page.toc = get_toc(toc_tokens)

    # links and images on the public site (written into the notebook for readers who download it) stay on
    # this site: a page (directory URL, with its anchor) or a file under assets/ (a diagram), relative here
    site_url = (config.site_url or "").rstrip("/") + "/"
    if site_url != "/":
        def local(m):
            path, anchor = m["path"] or "", m["anchor"] or ""
            if not path or path.endswith("/"):
                rel = get_relative_url(path or ".", page.url).rstrip("/") + "/"
            else:
                rel = get_relative_url(path, page.url)
            return f'{m["attr"]}="{rel}{anchor}"'
        content = re.sub(r'(?P<attr>href|src)="' + re.escape(site_url) + r'(?P<path>[^"#?]*)(?P<anchor>#[^"]*)?"',
                         local, content)
    return content


def cell_counts(nb: dict) -> dict:
    """What nbconvert must render of a notebook: code cells, text outputs, markdown headings."""
    cells = nb.get("cells", [])
    # nbconvert shows an output's richest type: a figure (image/svg+xml beside its text/plain alt) is no text
    text = sum(1 for c in cells if c.get("cell_type") == "code" for o in c.get("outputs", [])
               if o.get("output_type") == "stream" or set(o.get("data", {})) == {"text/plain"})
    headings = sum(len(re.findall(r"^#{1,6} ", "".join(c.get("source", "")), re.M))
                   for c in cells if c.get("cell_type") == "markdown")
    return {"code": sum(1 for c in cells if c.get("cell_type") == "code"), "text": text, "headings": headings}


def on_page_content(content, page, config, files):
    facts = site_facts.from_config(config)
    lang, slug, is_notebook = _parts(page, facts)
    if not is_notebook:
        return content
    if "jp-Cell" not in content:
        raise PluginError(f"hooks/notebooks.py: {page.file.src_uri} was not converted by mkdocs-jupyter "
                          "(no nbconvert `jp-Cell` markup in the page)")
    text = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    # the chapter page holds the same code with its explanation: search shows that one only
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    key = hashlib.sha256("\0".join([content, text, page.url, config.site_url or ""]).encode("utf-8")).hexdigest()
    kept = _slimmed.get(page.file.src_uri)
    if kept is not None and kept[0] == key:
        page.toc = pickle.loads(kept[2])
        return kept[1]
    nb = json.loads(text)
    content = _slim(content, nb.get("metadata", {}).get("residual_notes", {}), cell_counts(nb), page, config)
    _slimmed[page.file.src_uri] = (key, content, pickle.dumps(page.toc, protocol=pickle.HIGHEST_PROTOCOL))
    return content


# A notebook page whose converted HTML, notebook, URL and site URL did not change since the last build in
# this process (a `mkdocs serve` reload) is slimmed once: its HTML and table of contents are reused.
_slimmed: dict[str, tuple[str, str, bytes]] = {}  # src_uri: (key, HTML, pickled table of contents)


# --------------------------------------------------------------------------- nbconvert's BeautifulSoup pass

# nbconvert's HTMLExporter.from_notebook_node ends by parsing its whole output with BeautifulSoup's pure-Python
# html.parser (the inlined JupyterLab CSS and every highlighted token) and writing it out again, for three edits:
# alt text on an <img> without one, tabindex="0" on each input and output area. That pass took two thirds of a
# notebook's conversion (measured: 6 notebooks, 2.9 CPU s with it, 1.1 without). _Unparsed stands in for
# BeautifulSoup there and makes the same three edits on the markup itself; the page differs only in what
# BeautifulSoup normalises (attribute order, spaces inside class values), which _slim's regexes allow.
_AREA = re.compile(r'<div\b(?=[^>]*\bclass="[^"]*\b(?:jp-Cell-inputWrapper|jp-OutputArea-output)\b)(?P<attrs>[^>]*)>')
_IMG_WITHOUT_ALT = re.compile(r'<img\b(?![^>]*\salt=)(?P<attrs>[^>]*?)(?P<end>/?>)')
NO_ALT = "No description has been provided for this image"  # nbconvert's own words (nbconvert/exporters/html.py)


class _Unparsed:
    """What nbconvert.exporters.html uses of BeautifulSoup (``BeautifulSoup(html, features=...)``, ``select``,
    ``str``), with nbconvert's three edits made on the string: nothing is selected, ``str`` returns the markup."""

    def __init__(self, markup: str, features: str | None = None):
        def area(m):
            attrs = re.sub(r'\stabindex="[^"]*"', "", m["attrs"])
            return f'<div{attrs} tabindex="0">'

        markup = _AREA.sub(area, markup)
        self._markup = _IMG_WITHOUT_ALT.sub(lambda m: f'<img{m["attrs"]} alt="{NO_ALT}"{m["end"]}', markup)

    def select(self, selector: str) -> list:
        return []

    def __str__(self) -> str:
        return self._markup

    def __getattr__(self, name):
        raise PluginError(f"hooks/notebooks.py: nbconvert's HTMLExporter used BeautifulSoup's `{name}`; _Unparsed "
                          "stands in for its constructor, select() and str() only: nbconvert changed, update _Unparsed")


def skip_the_soup_pass() -> None:
    """Put _Unparsed in place of BeautifulSoup in nbconvert.exporters.html (fails naming what it expected)."""
    try:
        import bs4
        from nbconvert.exporters import html as nbconvert_html
    except ImportError as err:
        raise PluginError(f"hooks/notebooks.py: nbconvert or bs4 is not installed ({err})") from err
    current = getattr(nbconvert_html, "BeautifulSoup", None)
    if current is not _Unparsed and current is not bs4.BeautifulSoup:
        raise PluginError("hooks/notebooks.py: nbconvert.exporters.html.BeautifulSoup is "
                          f"{current!r}, expected bs4.BeautifulSoup (its post-pass over the exported HTML): "
                          "nbconvert changed, update skip_the_soup_pass")
    nbconvert_html.BeautifulSoup = _Unparsed


# --------------------------------------------------------------------------- links for the templates

def on_page_context(context, page, config, nav):
    facts = site_facts.from_config(config)
    lang, slug, is_notebook = _parts(page, facts)
    labels = {key: facts.text(lang, f"notebook_{key}") for key in ("open", "download", "chapter", "bar", "colab")}
    colab = facts.colab_url(f"{lang}/{FOLDER}/{slug}.ipynb")
    prefix = facts.prefix(lang)
    if is_notebook:
        page.notebook = {
            "kind": "notebook", "labels": labels,
            "download": f"{slug}.ipynb", "colab": colab,
            "chapter": get_relative_url(f"{prefix}{slug}/", page.url),
        }
    elif (facts.docs / lang / FOLDER / f"{slug}.ipynb").exists():
        target = f"{prefix}{FOLDER}/{slug}/"
        page.notebook = {
            "kind": "chapter", "labels": labels,
            "page": get_relative_url(target, page.url),
            "download": get_relative_url(f"{target}{slug}.ipynb", page.url), "colab": colab,
        }
    return context
