"""Promises 4 and 5 — the hooks that make one site of several languages, each effect checked offline.

* Search per language (``hooks/search_per_language.py``): each language's index holds only its
  own pages, and every page's Material ``base`` is its language's root (so it loads that index).
* Shared assets (``hooks/shared_assets.py``): every asset a page links to resolves to a built file.
* Notebook pages (``hooks/notebooks.py``): each notebook is a rendered page, not raw JSON.
* Notebook figures (``hooks/notebook_figures.py``): each figure output is an ``<img>`` of the built
  figure file it names; an output that matches no figure file fails the build, naming it.

Each check runs on the real build, and on a build with those hooks removed, where it must fail.
The hooks' upstream assumptions (private or undocumented details of Material, mkdocs-static-i18n,
mkdocs-jupyter, nbconvert, MkDocs) are fed broken input and must raise ``PluginError`` naming what
they expected. The template copies are compared with the installed Material's partials.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from hooks import site_facts

ROOT = Path(__file__).resolve().parent.parent
from tools.checks import built_site as checks
from tools.site.build import build

SITE = site_facts.load()
INDEX = "search/search_index.json"


CHECKS = {"search per language": checks.search_problems, "Material's base per language": checks.base_problems,
          "shared assets": checks.shared_asset_problems, "notebook pages": checks.notebook_page_problems,
          "notebook figures": checks.notebook_figure_problems}


@pytest.mark.parametrize("name", CHECKS)
def test_effect_holds_on_the_built_site(built_site, name):
    problems = CHECKS[name](built_site)
    assert not problems, f"{name}:\n" + "\n".join(problems[:20])


def test_the_default_index_holds_only_default_language_pages(built_site):
    docs = json.loads((built_site / INDEX).read_text(encoding="utf-8"))["docs"]
    foreign = [d["location"] for d in docs if d["location"].startswith(tuple(f"{o}/" for o in SITE.others))]
    assert docs and not foreign, f"{INDEX} holds pages of other languages: {foreign[:5]}"


@pytest.fixture(scope="module")
def site_without_hooks(tmp_path_factory, scratch_builds) -> Path:
    """The site built (not strict: the missing assets are warnings) without the hooks checked below,
    from the clean build's caches (tests/conftest.py: what it tests is the hooks, not a cold start)."""
    tmp = tmp_path_factory.mktemp("no-hooks")
    config = scratch_builds.warm_copy(tmp / "project")
    text = config.read_text(encoding="utf-8")
    for hook in ("hooks/search_per_language.py", "hooks/shared_assets.py", "hooks/notebook_figures.py"):
        assert f"  - {hook}" in text, f"mkdocs.yml no longer lists {hook}"
        text = re.sub(rf"^  - {re.escape(hook)}.*\n", "", text, flags=re.M)
    config.write_text(text, encoding="utf-8")
    proc = build(tmp / "site", config, strict=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "assets/figures/" in proc.stdout + proc.stderr, "without hooks/shared_assets.py the strict build must warn"
    return tmp / "site"


@pytest.mark.parametrize("name", ["search per language", "Material's base per language", "shared assets",
                                  "notebook figures"])
def test_disabling_the_hook_is_caught(site_without_hooks, name):
    assert CHECKS[name](site_without_hooks), f"the check of {name} passes on a site built without its hook"


# --------------------------------------------------------------------------- upstream assumptions fail loudly

def test_search_split_without_materials_index_fails(tmp_path):
    from hooks import search_per_language

    with pytest.raises(PluginError, match="search index at search/search_index.json"):
        search_per_language.split_search_index(tmp_path, SITE)


def test_search_split_before_i18n_built_the_other_languages_fails(tmp_path):
    from hooks import search_per_language

    (tmp_path / "search").mkdir()
    (tmp_path / INDEX).write_text('{"config": {}, "docs": [{"location": "", "title": "x", "text": ""}]}')
    with pytest.raises(PluginError, match="mkdocs-static-i18n must build them"):
        search_per_language.split_search_index(tmp_path, SITE)


def test_search_split_of_an_index_without_a_language_fails(tmp_path):
    from hooks import search_per_language

    for lang in SITE.others:
        (tmp_path / lang).mkdir()
    (tmp_path / "search").mkdir()
    (tmp_path / INDEX).write_text('{"config": {}, "docs": [{"location": "", "title": "x", "text": ""}]}')
    with pytest.raises(PluginError, match="holds no entry of"):
        search_per_language.split_search_index(tmp_path, SITE)


def test_base_without_mkdocs_base_url_fails():
    from hooks import search_per_language

    page = SimpleNamespace(file=SimpleNamespace(src_uri=f"{SITE.others[0]}/index.md"), url=f"{SITE.others[0]}/")
    config = _config()
    with pytest.raises(PluginError, match="no base_url"):
        search_per_language.on_page_context({}, page=page, config=config, nav=None)
    assert search_per_language.on_page_context({"base_url": ".."}, page=page, config=config, nav=None) == {"base_url": "./"}


def _config():
    from mkdocs.config import load_config

    return load_config(config_file=str(site_facts.CONFIG_FILE), hooks=[])  # the hooks are imported as hooks.x


def test_a_notebook_that_is_no_page_after_i18n_fails():
    """The class-wide patch of File.is_documentation_page must reach the files i18n builds."""
    from mkdocs.structure.files import File, Files

    from hooks import notebooks

    class Plain(File):  # what i18n would build if it stopped using mkdocs.structure.files.File
        def is_documentation_page(self):
            return False

    nb = Plain(f"{SITE.others[0]}/notebooks/x.ipynb", str(SITE.docs), "/tmp/site", True)
    assert File(f"{SITE.others[0]}/notebooks/x.ipynb", str(SITE.docs), "/tmp/site", True).is_documentation_page()
    with pytest.raises(PluginError, match="File.is_documentation_page"):
        notebooks.on_files(Files([nb]), config=None)


def _render(tmp_path: Path) -> tuple[str, dict, SimpleNamespace]:
    """A two-cell notebook through mkdocs-jupyter's own converter (the real nbconvert markup)."""
    import nbformat

    from hooks import notebooks

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\n## Part"),
                nbformat.v4.new_code_cell("print(1)", outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")])]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="notebooks/x.ipynb"), url="notebooks/x/", toc=None)
    return _convert(path), notebooks.cell_counts(json.loads(path.read_text())), page


def _convert(path: Path) -> str:
    """A notebook's HTML as mkdocs-jupyter's own converter makes it (the real nbconvert markup)."""
    from mkdocs_jupyter import convert

    return convert.nb2html(str(path), execute=False, allow_errors=True, show_input=True, no_input=False,
                           no_prompt=False, remove_tag_config={}, highlight_extra_classes="",
                           include_requirejs=False, custom_mathjax_url="", kernel_name="", theme="")


def test_nbconvert_markup_is_what_the_notebook_hook_rewrites(tmp_path):
    """Regexes over nbconvert's HTML and get_toc with hand-built tokens: an upgrade that changes
    either shows here, offline, before a build produces a half-rendered page."""
    from hooks import notebooks

    html, counts, page = _render(tmp_path)
    out = notebooks._slim(html, {"heading_ids": ["title", "part"]}, counts, page, _config())
    assert '<div class="language-python highlight"><pre><span></span><code>' in out
    assert '<div class="language-text highlight jp-OutputArea-output"' in out
    assert "<style" not in out and "<script" not in out
    assert [(i.title, i.url, [c.url for c in i.children]) for i in page.toc.items] == [("Title", "#title", ["#part"])]


def test_a_notebook_page_seen_again_in_the_process_is_slimmed_once(tmp_path, monkeypatch):
    """On a `mkdocs serve` reload the notebook hook reuses the HTML and table of contents it made for a
    page whose converted HTML and notebook did not change; a changed notebook is slimmed again."""
    from hooks import notebooks

    html, _, _ = _render(tmp_path)
    path = tmp_path / "x.ipynb"
    calls = []
    monkeypatch.setattr(notebooks, "_slim", functools.partial(lambda real, *a: calls.append(1) or real(*a), notebooks._slim))
    monkeypatch.setattr(notebooks, "_slimmed", {})

    def page():
        return SimpleNamespace(file=SimpleNamespace(src_uri=f"{SITE.default}/notebooks/x.ipynb", abs_src_path=str(path)),
                               url=f"{SITE.default}/notebooks/x/", toc=None, meta={})

    pages = [page(), page()]
    out = [notebooks.on_page_content(html, page=p, config=_config(), files=None) for p in pages]
    assert out[0] == out[1] and len(calls) == 1, "the same notebook page was slimmed twice"
    assert [i.url for i in pages[1].toc.items] == [i.url for i in pages[0].toc.items] == ["#title"]
    assert pages[1].toc is not pages[0].toc and pages[1].meta["search"] == {"exclude": True}
    path.write_text(path.read_text(encoding="utf-8").replace("## Part", "## Part two"), encoding="utf-8")
    notebooks.on_page_content(html, page=page(), config=_config(), files=None)
    assert len(calls) == 2, "a changed notebook was served from the memo"


def test_changed_nbconvert_markup_fails_naming_it(tmp_path):
    from hooks import notebooks

    html, counts, page = _render(tmp_path)
    with pytest.raises(PluginError, match="highlight-ipynb"):
        notebooks._slim(html.replace("highlight-ipynb", "highlight-nb"), {}, counts, page, _config())
    with pytest.raises(PluginError, match="jp-RenderedText"):
        notebooks._slim(html.replace("jp-RenderedText", "jp-Text"), {}, counts, page, _config())


_SOUP_PASS = r"""
import json, sys
import nbformat
from lxml import html
from hooks import notebooks
sys.path.insert(0, "tests")
from test_site_hooks import _convert

nb = nbformat.v4.new_notebook()
png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
nb.cells = [nbformat.v4.new_markdown_cell("# Title"),
            nbformat.v4.new_code_cell("print(1)", outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")]),
            nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output("display_data", data={"image/png": png})])]
nbformat.write(nb, sys.argv[1])

def tree(markup):
    out = []
    for e in html.fromstring(markup).iter():
        if isinstance(e.tag, str):
            attrs = {k: " ".join(v.split()) if k == "class" else v for k, v in e.attrib.items()}
            text, tail = ((t or "") if (t or "").strip() else "" for t in (e.text, e.tail))  # BeautifulSoup
            out.append((e.tag, sorted(attrs.items()), text, tail))  # drops blank lines after a <script>
    return out

soup = _convert(sys.argv[1])
notebooks.skip_the_soup_pass()
lean = _convert(sys.argv[1])
print(json.dumps({"same": tree(soup) == tree(lean), "tabindex": lean.count('tabindex="0"'),
                  "alt": lean.count(notebooks.NO_ALT), "soup_alt": soup.count(notebooks.NO_ALT)}))
"""


def _soup_pass(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter: the patch of nbconvert's module must not reach the suite's threads
    (tests/shared_process.py)."""
    return subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.ipynb")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_without_beautifulsoup_nbconvert_s_page_is_the_same(tmp_path):
    """hooks/notebooks.py skips nbconvert's BeautifulSoup pass (two thirds of a notebook's conversion) and makes
    its three edits itself: the page is the same element for element (tags, attributes, text but blank runs
    between tags), with the
    alt text on an image without one and tabindex on every input and output area."""
    proc = _soup_pass(tmp_path, _SOUP_PASS)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["same"], got
    assert got["alt"] == got["soup_alt"] == 1 and got["tabindex"] >= 5, got


def test_a_changed_beautifulsoup_pass_in_nbconvert_fails_naming_it(tmp_path):
    from hooks import notebooks

    proc = _soup_pass(tmp_path, "import nbconvert.exporters.html as h\nh.BeautifulSoup = dict\n"
                                "from hooks import notebooks\nnotebooks.skip_the_soup_pass()")
    assert proc.returncode != 0 and "nbconvert.exporters.html.BeautifulSoup is <class 'dict'>" in proc.stderr, proc.stderr
    proc = _soup_pass(tmp_path, "import nbconvert.exporters.html as h\ndel h.BeautifulSoup\n"
                                "from hooks import notebooks\nnotebooks.skip_the_soup_pass()")
    assert proc.returncode != 0 and "expected bs4.BeautifulSoup" in proc.stderr, proc.stderr
    with pytest.raises(PluginError, match="BeautifulSoup's `find_all`"):
        notebooks._Unparsed("<div></div>", features="html.parser").find_all("div")


def test_notebook_markdown_math_is_rendered_as_mathml_and_an_unpaired_dollar_fails(tmp_path):
    """The exercises' markdown cells hold $…$ math (tools/generators/notebooks.py); the notebook page shows it as
    the chapters do, through hooks/math.py, since the site loads no MathJax."""
    import nbformat

    from hooks import notebooks

    def slim(markdown: str) -> str:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell(markdown)]
        path = tmp_path / "m.ipynb"
        nbformat.write(nb, path)
        page = SimpleNamespace(file=SimpleNamespace(src_uri="notebooks/m.ipynb"), url="notebooks/m/", toc=None)
        return notebooks._slim(_convert(path), {"heading_ids": ["m"]}, notebooks.cell_counts(json.loads(path.read_text())),
                               page, _config())

    out = slim("# M\n\nA gain of $\\sqrt{50/512} \\approx 0.31$, and\n\n$$\n\\frac{n}{2}\n$$\n\nwith `$HOME` as code.")
    assert out.count("<math") == 2 and 'data-tex="\\sqrt{50/512} \\approx 0.31"' in out and 'display="block"' in out
    assert "$HOME" in out and "0.31$" not in out
    with pytest.raises(PluginError, match=r"notebooks/m.ipynb: a markdown cell has an unpaired \$"):
        slim("# M\n\nIt costs $5 to run.")


def test_published_links_and_images_of_a_notebook_stay_on_the_built_site(tmp_path):
    """A notebook links the published site (a downloaded one has no pages beside it: tools/generators/notebooks.py);
    on its page those links and a diagram's image are relative, anchors kept, so the page works offline
    and on a local build. A link elsewhere stays as it is."""
    import nbformat

    from hooks import notebooks

    site = _config().site_url
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"# M\n\nSee [the sum]({site}en/add-and-norm/#placements), [home]({site}),"
        f" [elsewhere](https://example.org/a/#b).\n\n![A diagram]({site}assets/diagrams/d.en.svg)")]
    path = tmp_path / "m.ipynb"
    nbformat.write(nb, path)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="en/notebooks/m.ipynb"), url="en/notebooks/m/", toc=None)
    out = notebooks._slim(_convert(path), {"heading_ids": ["m"]}, notebooks.cell_counts(json.loads(path.read_text())),
                          page, _config())
    assert 'href="../../add-and-norm/#placements"' in out and 'href="../../../"' in out, out
    assert 'src="../../../assets/diagrams/d.en.svg"' in out and 'href="https://example.org/a/#b"' in out, out
    assert site not in out


def test_a_page_mkdocs_jupyter_did_not_convert_fails():
    from hooks import notebooks

    page = SimpleNamespace(file=SimpleNamespace(src_uri=f"{SITE.default}/notebooks/x.ipynb"), meta={})
    with pytest.raises(PluginError, match="not converted by mkdocs-jupyter"):
        notebooks.on_page_content('{"cells": []}', page=page, config=_config(), files=None)


# --------------------------------------------------------------------------- notebook figures

FIGURES = SITE.docs / "assets" / "figures"
NOTEBOOK = f"docs/{SITE.default}/notebooks/x.ipynb"


def _figure(lang: str) -> Path:
    return next(p for p in sorted(FIGURES.glob(f"*.{lang}.svg")))


def _figure_page(tmp_path: Path, svg: str, name: str | None, alt: str = "the figure") -> tuple[str, dict]:
    """A notebook whose one code cell draws a figure, rendered by mkdocs-jupyter's converter."""
    import nbformat

    from hooks import notebook_figures

    output = nbformat.v4.new_output("display_data", data={"image/svg+xml": svg, "text/plain": alt},
                                    metadata=notebook_figures.output_metadata(name) if name else {})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"),
                nbformat.v4.new_code_cell("draw()", id="code-draw", outputs=[output])]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    return _convert(path), json.loads(path.read_text(encoding="utf-8"))


def _to_asset(name: str) -> str:
    return f"../../assets/figures/{name}"


def test_a_notebook_figure_becomes_an_img_of_its_file(tmp_path):
    from hooks import notebook_figures

    figure = _figure(SITE.default)
    html, nb = _figure_page(tmp_path, figure.read_text(encoding="utf-8"), figure.name, alt="a <b> & c")
    assert "data:image/svg+xml;base64," in html, "mkdocs-jupyter no longer embeds the SVG as base64"
    out = notebook_figures.show_figures(html, nb, NOTEBOOK, ("docs/x.md", {figure.name}), FIGURES, _to_asset)
    assert f'<img alt="a &lt;b&gt; &amp; c" class="figure" src="../../assets/figures/{figure.name}"></div>' in out
    embedded = "data:image/svg+xml;base64,"
    assert out.count(embedded) == html.count(embedded) - 1, "the figure is still embedded"  # nbconvert's CSS has icons


def _failure_cases():
    own, other = _figure(SITE.default), _figure(SITE.others[0])
    text = own.read_text(encoding="utf-8")
    expected = f"docs/assets/figures/{own.name}"
    return {  # case -> (svg, name, url, markup edit, alt, what the message must say)
        "content differs": (text.replace("</svg>", "<g/></svg>"), own.name, _to_asset, None, "alt",
                            f"cell 2 (code-draw): its figure output differs from {expected}"),
        "names no file": (text, None, _to_asset, None, "alt", "cell 2 (code-draw): a figure output that names no file"),
        "no such file": (text, f"missing.{SITE.default}.svg", _to_asset, None, "alt",
                         f"docs/assets/figures/missing.{SITE.default}.svg, which does not exist"),
        "not the chapter's": (other.read_text(encoding="utf-8"), other.name, _to_asset, None, "alt",
                              f"shows docs/assets/figures/{other.name}, which its chapter docs/x.md does not show"),
        "not in the build": (text, own.name, lambda name: None, None, "alt", f"{expected} is not part of the build"),
        "no alt text": (text, own.name, _to_asset, None, " ", f"for {expected} has no text/plain"),
        "markup changed": (text, own.name, _to_asset, ("jp-RenderedSVG", "jp-SVG"), "alt", "jp-RenderedSVG"),
    }


@pytest.mark.parametrize("case", list(_failure_cases()))
def test_a_notebook_figure_that_matches_no_figure_file_fails_the_build(tmp_path, case):
    """Never silently kept or dropped: PluginError naming the notebook, the cell and the file."""
    from hooks import notebook_figures

    svg, name, url, edit, alt, message = _failure_cases()[case]
    html, nb = _figure_page(tmp_path, svg, name, alt=alt)
    if edit:
        html = html.replace(*edit)
    with pytest.raises(PluginError, match=re.escape(message)) as failure:
        shown = {_figure(SITE.default).name, f"missing.{SITE.default}.svg"}  # what docs/x.md shows
        notebook_figures.show_figures(html, nb, NOTEBOOK, ("docs/x.md", shown), FIGURES, url)
    assert NOTEBOOK in str(failure.value)


# --------------------------------------------------------------------------- template copies

_REGION = re.compile(r"\{#- residual-notes: begin, replaces (?P<orig>.*?) -#\}\n.*?\{#- residual-notes: end -#\}\n", re.S)
_HEADER = re.compile(r"\A\{#-.*?-#\}\n", re.S)
OVERRIDES = Path(__file__).resolve().parent.parent / "overrides"


def _material(name: str) -> Path:
    import material

    return Path(material.__file__).parent / "templates" / name


def _overrides() -> list[str]:
    return sorted(p.relative_to(OVERRIDES).as_posix() for p in OVERRIDES.rglob("*.html"))


@pytest.mark.parametrize("name", _overrides())
def test_template_copy_matches_the_installed_material(name):
    """An override that copies a Material partial must equal it outside its marked regions, so a
    Material upgrade cannot leave stale markup unnoticed. An override that only extends blocks, or
    a template Material does not have, is no copy and is left alone."""
    ours = (OVERRIDES / name).read_text(encoding="utf-8")
    theirs = _material(name)
    if not theirs.exists():
        assert not _REGION.search(ours), f"overrides/{name} marks changes to a Material template that does not exist"
        return
    original = _HEADER.sub("", theirs.read_text(encoding="utf-8"))
    body = _HEADER.sub("", ours)
    if not _REGION.search(ours):
        similarity = difflib.SequenceMatcher(None, body, original).ratio()
        assert similarity < 0.8, (f"overrides/{name} looks like a copy of Material's {name} ({similarity:.0%} alike) but "
                                  "marks no change: wrap each change in `{#- residual-notes: begin, replaces … -#}` … "
                                  "`{#- residual-notes: end -#}`, or extend Material's blocks instead")
        assert body != original, f"overrides/{name} is identical to Material's: delete it"
        return
    restored = _REGION.sub(lambda m: m["orig"] + "\n", body)
    assert restored == original, (f"overrides/{name} differs from Material's {name} outside its marked regions: "
                                  "update the copy from the installed Material")


# --------------------------------------------------------------------------- search parses a lighter copy

_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)


def _index(content: str) -> list[dict]:
    from material.plugins.search.plugin import SearchIndex

    index = SearchIndex(lang=list(SITE.languages), separator=r"[\s\-]+", pipeline=[], fields={})
    page = SimpleNamespace(content=content, meta={}, toc=[], url="p/", title="T")
    index.add_entry_from_context(page)
    return index.entries


def test_search_indexes_the_lighter_copy_exactly_as_the_page(built_site):
    """hooks/search_text.py hands Material's search parser code and formulas as plain text: the
    entries must be the ones the full page gives, on every built page with code or math."""
    from hooks.search_text import lean

    compared = 0
    for lang, rel, text in checks.pages(built_site, SITE):
        m = _ARTICLE.search(text)
        if not m or not re.search(r"<pre|<math", m.group(1)):
            continue
        compared += 1
        assert _index(lean(m.group(1))) == _index(m.group(1)), f"{rel or '/'}: the search index of the lighter copy differs"
    assert compared >= len(SITE.languages), "no built page with code or math to compare"


def test_search_text_puts_back_the_page_as_material_leaves_it_and_fails_if_material_stops_stripping():
    """Material's search strips data-search-* attributes from page.content after indexing it; the
    hook puts the real content back stripped the same way, and fails if Material stopped doing it."""
    from hooks import search_text

    html = '<p data-search-exclude="code-or-math">x</p><pre><span class="n">y</span></pre>'
    material_strip = re.compile(r'\s?data-search-\w+="[^"]+"')  # material/plugins/search/plugin.py 9.8.2
    page = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"), meta={}, content=None)
    page.content = search_text.on_page_content(html, page=page, config=None, files=None)
    assert "<span" not in page.content  # search parses the lean copy
    page.content = material_strip.sub("", page.content)  # what Material's search does
    search_text.on_page_context({}, page=page, config=None, nav=None)
    assert page.content == '<p>x</p><pre><span class="n">y</span></pre>'

    stale = SimpleNamespace(file=SimpleNamespace(src_uri="y.md"), meta={}, content=None)
    stale.content = search_text.on_page_content(html, page=stale, config=None, files=None)
    with pytest.raises(PluginError, match="left data-search"):
        search_text.on_page_context({}, page=stale, config=None, nav=None)


def test_a_small_inline_matrix_stays_in_its_line_and_a_long_formula_gets_its_own_on_a_phone():
    """Reader promise (the page fits a phone): hooks/math.py marks an inline formula wider than a phone's
    line (site.css gives it a scrolling line of its own there). A matrix is drawn as wide as its widest row,
    so a 2 x 2 one stays in the sentence (else its closing comma starts the next line)."""
    from hooks import math as page_math

    matrix = page_math.render(r"\begin{pmatrix} 1/3 & 2/3 \\ 3/7 & 4/7 \end{pmatrix}", False, "t.md")
    long_sum = page_math.render(r"1/3 + 3/7 = 16/21 \quad 2/3 + 4/7 = 26/21", False, "t.md")
    assert "rn-math-wide" not in matrix, matrix[:200]
    assert long_sum.startswith('<span class="rn-math-wide">'), long_sum[:200]
