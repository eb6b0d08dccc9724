"""What the reader sees, checked on the hooks' own output (the browser checks are in test_browser.py).

Promise 4 (Chinese reads as a Chinese engineer writes) and the math a reader can read and copy.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from hooks import math as math_hook
from hooks import site_facts, zh_typeset


def test_sized_delimiter_with_a_script_stretches_like_its_partner():
    """\\Bigr\\rVert_F: the closing bar is no longer an unstretched base of <msub>."""
    mathml = math_hook._to_mathml(r"\Bigl\lVert \frac{a}{b} \Bigr\rVert_F", True, "test.md")
    assert re.search(r"<msub><mrow><mo [^>]*minsize=\"1.623em\"[^>]*>‖</mo><mi></mi></mrow><mi>F</mi></msub>", mathml), mathml


def test_every_formula_carries_its_tex():
    mathml = math_hook._to_mathml("x_{l+1} = x_l  +\n F(x_l)", False, "test.md")
    assert mathml.startswith('<math data-tex="x_{l+1} = x_l + F(x_l)"><msub>'), mathml
    assert 'data-tex="a &lt; b"' in math_hook._to_mathml(r"a < b", False, "test.md")


def test_a_formula_math_core_cannot_render_fails_the_build():
    with pytest.raises(PluginError, match="test.md: cannot render formula"):
        math_hook._to_mathml(r"\mbox{x}", False, "test.md")


def test_math_font_is_preloaded_on_pages_with_math():
    class Page:
        url = "en/add-and-norm/"

        class file:
            src_uri = "en/add-and-norm.md"

    out = math_hook.on_post_page("<head><title>t</title></head><math></math>", page=Page, config={})
    assert '<link rel="preload" href="../../assets/fonts/STIXTwoMath.woff2" as="font"' in out
    assert math_hook.on_post_page("<title>t</title><p>x</p>", page=Page, config={}) == "<title>t</title><p>x</p>"


@pytest.mark.parametrize("source,built", [
    ("<p><strong>标量。</strong> 每层</p>", "<p><strong>标量。</strong>每层</p>"),
    ("<p>8/3 倍宽度， FFN</p>", "<p>8/3 倍宽度，FFN</p>"),
    ("<p>说清： 注意力</p>", "<p>说清：注意力</p>"),
    ("<p>残差\n连接</p>", "<p>残差连接</p>"),
    ('<p>见 <a href="x">残差</a> 一章</p>', '<p>见<a href="x">残差</a>一章</p>'),
    ("<p>调用 <code>f( x )</code> 时</p>", "<p>调用 <code>f( x )</code> 时</p>"),  # code and its spaces stay
    ("<p>第 10 步 F(x)</p>", "<p>第 10 步 F(x)</p>"),
    ("<pre>中 文 ， x</pre>", "<pre>中 文 ， x</pre>"),
])
def test_no_space_touches_full_width_punctuation_or_stands_between_chinese(source, built):
    assert zh_typeset.typeset(source) == built


def test_formula_and_its_punctuation_break_as_one():
    out = zh_typeset.typeset("<p>其中 <math><mi>x</mi></math>，而（<math><mi>y</mi></math>）。</p>")
    assert out == ('<p>其中 <span class="rn-nobr"><math><mi>x</mi></math>，</span>而'
                   '<span class="rn-nobr">（<math><mi>y</mi></math>）。</span></p>')


def test_check_reports_what_is_left():
    """The check the site test runs can fail: it names the defect and shows the text around it."""
    problems = zh_typeset.check("<article><p>宽度， FFN 残差 连接</p></article>")
    assert problems == ["space after full-width punctuation: …宽度， FFN 残差 连接…",
                        "space between Chinese characters: …宽度， FFN 残差 连接…"]


def test_grouped_digits_stay_on_one_line_but_code_and_attributes_keep_their_spaces():
    out = zh_typeset.typeset('<p>共 2 099 712 个参数，<code>x = 1 000</code>。</p><svg viewBox="0 0 100 100"></svg>')
    assert out == '<p>共 2\u202f099\u202f712 个参数，<code>x = 1 000</code>。</p><svg viewBox="0 0 100 100"></svg>', out


def test_built_chinese_pages_have_no_stray_spaces(built_site):
    facts = site_facts.load()
    han = {lang for lang in facts.languages if facts.text(lang, "script") == zh_typeset.SCRIPT}
    assert han, "no language with script han: the check below would check nothing"
    problems = []
    for page in sorted(built_site.glob("**/index.html")):
        rel = page.relative_to(built_site).as_posix()
        if facts.lang_of(rel) not in han:
            continue
        problems += [f"{rel}: {p}" for p in zh_typeset.check(page.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- search (hooks/search_index.py)

from hooks import search_index  # noqa: E402


def test_code_and_math_are_kept_out_of_the_search_index():
    html = ('<div class="language-python highlight"><pre><code>x = 1</code></pre></div>'
            '<p>prose <math><mi>x</mi></math></p><div class="math-display"><math display="block"></math></div>'
            '<p class="rn-source">source</p><p>prose</p><aside class="rn-provenance">page, date</aside>')
    out = search_index.exclude_from_search(html)
    # the code block, both formulas, the display box, the snippet's and the page's source lines
    assert out.count(search_index.EXCLUDE) == 6, out


def test_search_worker_patch_fails_loudly_when_material_changes():
    with pytest.raises(PluginError, match="does not contain .* exactly once"):
        search_index.patch_worker("function fe(t,e){}", "search.x.min.js")


def test_search_worker_patch_is_applied_once():
    shipped = "".join(s for s, _ in search_index.WORKER_PATCHES)
    fixed = "".join(f for _, f in search_index.WORKER_PATCHES)
    assert search_index.patch_worker(shipped, "w.js") == fixed
    assert search_index.patch_worker(fixed, "w.js") == fixed


# --------------------------------------------------------------------------- search loads late (hooks/search_lazy.py)

from hooks import search_lazy  # noqa: E402


def _installed_bundle() -> Path:
    import material

    (bundle,) = (Path(material.__file__).parent / "templates").glob(search_lazy.BUNDLE_GLOB)
    return bundle


def test_search_bundle_patch_fails_loudly_when_material_changes():
    for shipped, _ in search_lazy.BUNDLE_PATCHES:
        changed = _installed_bundle().read_text(encoding="utf-8").replace(shipped, shipped.replace("(", "( "))
        with pytest.raises(PluginError, match=re.escape(f"does not contain {shipped!r} exactly once")):
            search_lazy.patch_bundle(changed, "bundle.x.min.js")


def test_search_bundle_patch_applies_to_the_installed_material_once():
    shipped = _installed_bundle().read_text(encoding="utf-8")
    fixed = search_lazy.patch_bundle(shipped, "bundle.x.min.js")
    assert fixed != shipped and all(f in fixed and s not in fixed for s, f in search_lazy.BUNDLE_PATCHES)
    assert search_lazy.patch_bundle(fixed, "bundle.x.min.js") == fixed


def test_search_lazy_build_fails_without_its_script(tmp_path):
    from types import SimpleNamespace

    bundle = tmp_path / "assets" / "javascripts" / _installed_bundle().name
    bundle.parent.mkdir(parents=True)
    bundle.write_text(_installed_bundle().read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(PluginError, match=re.escape(search_lazy.SCRIPT)):
        search_lazy.on_post_build(SimpleNamespace(site_dir=str(tmp_path)))
    (tmp_path / search_lazy.SCRIPT).parent.mkdir(parents=True)
    (tmp_path / search_lazy.SCRIPT).write_text("", encoding="utf-8")
    search_lazy.on_post_build(SimpleNamespace(site_dir=str(tmp_path)))
    assert "residualNotesSearch" in bundle.read_text(encoding="utf-8")


def test_built_search_index_holds_no_code_or_math(built_site):
    import json

    for index in [built_site / SITE.prefix(lang) / "search" / "search_index.json" for lang in SITE.languages]:
        docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
        code = [d["location"] for d in docs if "<pre>" in d["text"]]
        tex = [d["location"] for d in docs if re.search(r"\\(?:frac|mathrm|operatorname|lVert)", d["text"])]
        assert not code and not tex, f"{index}: code in {code[:5]}, TeX in {tex[:5]}"


def test_built_search_index_holds_no_source_lines(built_site):
    """The provenance lines (a snippet's file, the page's file and date) are no search text."""
    import json

    for lang in SITE.languages:
        index = built_site / SITE.prefix(lang) / "search" / "search_index.json"
        labels = [SITE.text(lang, "provenance")[key].strip() for key in ("snippet", "page", "changed")]
        docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
        found = [(d["location"], label) for d in docs for label in labels if label in d["text"].replace("\u200b", "")]
        assert not found, f"{index}: source lines in {found[:5]}"


# --------------------------------------------------------------------------- notebook pages (tools/generators/notebooks.py)

from hooks import notebook_figures, site_facts  # noqa: E402
from tools import sources  # noqa: E402
from tools.generators import notebooks  # noqa: E402

SITE = site_facts.load()

_NOTEBOOKS = [(lang, slug) for lang in SITE.languages for slug in sources.chapters(lang)]


def _saved_by(snippet: str, name: str, lang: str) -> bool:
    """The snippet file (its code or its verified output) names the figure file: ``x.en.svg``, or
    ``x.{lang}.svg`` in an f-string. Read from snippets/, not from the notebook being checked."""
    text = (SITE.root / snippet).read_text(encoding="utf-8")
    return name in text or name.replace(f".{lang}.", ".{lang}.") in text


def figure_cell_problems(nb, lang: str, where: str) -> list[str]:
    """Every figure output sits on the one code cell that saves that figure's file."""
    code = [c for c in nb.cells if c.cell_type == "code" and not notebooks.is_setup(c)]
    found = []
    for cell in code:
        for output in (o for o in cell.outputs if o.output_type == "display_data"):
            name = notebook_figures.figure_name(output)
            savers = [c.metadata["snippet"] for c in code if _saved_by(c.metadata["snippet"], name, lang)]
            if savers != [cell.metadata.get("snippet")]:
                found.append(f"{where}: the figure {name} is shown under the cell of {cell.metadata.get('snippet')}, "
                             f"but the cell that saves it is {savers or 'none'}")
    return found


@pytest.mark.parametrize("lang,slug", _NOTEBOOKS, ids=[f"{lang}:{slug}" for lang, slug in _NOTEBOOKS])
def test_notebook_reads_as_the_chapters_notebook_with_its_figures(lang, slug):
    """Notebook pages: titled as the chapter's notebook, no empty stacked sections, and each figure
    the page shows is the display output of the cell that saves it."""
    nb = notebooks.build(lang, slug)
    first = nb.cells[0].source.splitlines()[0]
    assert first == "# " + SITE.text(lang, "notebook_title").format(title=first[2:].rsplit(" · ", 1)[0]), first
    for a, b in zip(nb.cells, nb.cells[1:]):
        assert not (a.cell_type == b.cell_type == "markdown"), f"{slug} ({lang}): two markdown cells in a row"
    for cell in (c for c in nb.cells if c.cell_type == "markdown"):
        last = cell.source.strip().splitlines()[-1]
        assert not (last.startswith("#") and cell is nb.cells[-1]), f"{slug} ({lang}): ends with an empty heading"
    page = (SITE.docs / lang / f"{slug}.md").read_text(encoding="utf-8")
    shown = [m.group("name") for m in notebooks._FIGURE.finditer(page)]
    drawn = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "display_data"]
    names = [notebook_figures.figure_name(o) for o in drawn]
    # the notebook shows each figure under the cell that saves it (figure_cell_problems below), so its order
    # is the cells' order, which need not be the page's (a page may group one block's figures apart)
    assert sorted(names, key=str) == sorted(shown), f"{slug} ({lang}): the page shows {shown}, the notebook {names}"
    for output, name in zip(drawn, names):
        assert output.data["image/svg+xml"] == (SITE.docs / "assets" / "figures" / name).read_text(encoding="utf-8"), \
            f"{slug} ({lang}): the notebook's {name} is not the committed figure"
    problems = figure_cell_problems(nb, lang, f"docs/{lang}/{notebooks.FOLDER}/{slug}.ipynb")
    assert not problems, "\n".join(problems)


def test_a_figure_under_the_wrong_cell_is_found(tmp_path):
    """Mutation: tools/generators/notebooks.py attaches each figure to the chapter's first code cell, not to the
    cell that saves it (as with ``code[0]`` for ``code[-1]``, or ``code[-1]`` where several snippets
    come before the figures, as on add-and-norm)."""
    from mutation import mutated

    wrong = mutated(notebooks, "owner.outputs.append(", "code[0].outputs.append(", tmp_path)
    lang, slug = next((lang, slug) for lang, slug in _NOTEBOOKS if slug == "residual-connections")
    where = f"docs/{lang}/{notebooks.FOLDER}/{slug}.ipynb"
    assert figure_cell_problems(notebooks.build(lang, slug), lang, where) == []
    problems = figure_cell_problems(wrong.build(lang, slug), lang, where)
    assert problems and all(p.startswith(f"{where}: the figure {slug}-") for p in problems), problems


# --------------------------------------------------------------------------- wording the check names (zh-style.md)

@pytest.mark.parametrize("html,what", [
    ("<p>Zhang et al. 2019—把残差分支初始化为零。</p>", "a single “—”"),
    ("<p>第 4.1–4.3 节。</p>", "a range written with “–”"),
    ("<p>梯度从 3.9e-04 降到很小。</p>", "e-notation"),
    ("<p>梯度在 1.6 × 10^1 左右。</p>", "printf's 10^n"),
    ("<p>中位数更高（0.010 对 0.006）。</p>", "“A 对 B”"),
    ('<h2 id="x">超连接为什么不稳定<a class="headerlink" href="#x" title="永久链接">¶</a></h2>', "a question heading without ？"),
    ("<p><math><mn>43</mn><mo>·</mo><mn>256</mn><mo>=</mo><mn>11008</mn></math></p>", "five digits or more"),
])
def test_each_wording_rule_fails_on_its_defect(html, what):
    """Mutation per rule: the check names the defect on a page that has it."""
    problems = zh_typeset.check(f"<article>{html}</article>")
    assert any(what in p for p in problems), problems


@pytest.mark.parametrize("html", [
    "<p>Zhang et al. 2019——把残差分支初始化为零；Sinkhorn–Knopp 迭代，Cauchy–Schwarz 不等式。</p>",
    "<p>第 4.1 至 4.3 节，0.16～0.29，梯度从 3.9×10⁻⁴ 降下来。<code>x = 1e-4</code></p>",
    "<p>中位数更高（Pre-LN 0.010，不预热为 0.006），对 10 个种子取中位数。</p>",
    '<h2 id="x">为什么是两层？原文的说法与订正</h2><h1 id="t">为什么深层网络难训练</h1><h3>三种位置</h3>',
    "<p><math><mn>43</mn><mo>·</mo><mn>256</mn><mo>=</mo><mn>11</mn><mspace></mspace><mn>008</mn></math></p>",
    "<blockquote><p>随着层数加深,信号强度可能会被无脑放大3000倍</p><p>——原文</p></blockquote>",
])
def test_what_the_wording_rules_allow(html):
    """——, en dashes inside names, ～/至 ranges, ×10⁻ⁿ, code, a chapter title (h1) and a quoted source pass."""
    assert zh_typeset.check(f"<article>{html}</article>") == []


# --------------------------------------------------------------------------- heading anchors (hooks/permalink_title.py)

from hooks import permalink_title  # noqa: E402


def test_heading_anchors_take_the_languages_tooltip_and_other_markup_fails_loudly():
    page = '<h2 id="a">标题<a class="headerlink" href="#a" title="Permanent link">&para;</a></h2>'
    assert 'title="永久链接"' in permalink_title.retitle(page, "永久链接")
    with pytest.raises(Exception, match="expected 'Permanent link'"):
        permalink_title.retitle(page.replace("Permanent link", "Lien permanent"), "永久链接", "zh/p.md")


def test_built_pages_heading_anchors_speak_the_pages_language(built_site):
    """Mutation: the hook removed from mkdocs.yml leaves "Permanent link" on every Chinese heading."""
    facts = site_facts.load()
    problems = []
    for page in sorted(built_site.glob("**/index.html")):
        rel = page.relative_to(built_site).as_posix()
        want = facts.text(facts.lang_of(rel), "permalink_title")
        titles = set(re.findall(r'class="headerlink" href="[^"]*" title="([^"]*)"', page.read_text(encoding="utf-8")))
        if titles - {want}:
            problems.append(f"{rel}: heading anchors titled {sorted(titles - {want})}, not {want!r}")
    assert not problems, "\n".join(problems[:20])


def test_footer_links_label_with_the_languages_colon(built_site):
    """overrides/partials/footer.html: "上一页：…" on a Chinese page (Material writes "上一页: …").
    Mutation: the override removed, or label_colon not used, leaves ": " in the Chinese labels."""
    facts = site_facts.load()
    problems, seen = [], 0
    for page in sorted(built_site.glob("**/index.html")):
        rel = page.relative_to(built_site).as_posix()
        colon = facts.text(facts.lang_of(rel), "label_colon")
        for label in re.findall(r'class="md-footer__link[^"]*" aria-label="([^"]*)"', page.read_text(encoding="utf-8")):
            seen += 1
            if colon not in label:
                problems.append(f"{rel}: footer link labelled {label!r}, not with {colon!r}")
    assert seen and not problems, "\n".join(problems[:20])
