"""Promise 4 — Chinese that reads as written, one term each; the two source articles named one way.

``tools/checks/terms.py`` holds the variants a native editor flagged (主干, 预归一化, 后归一化, 非正规数, 倒置瓶颈,
编码层, plain 网络, 预激活值) and the names a reader misreads ("seed 000", "source article 001",
``!!! seed``, ``#seed-claims``, ``seed000-layer.md``). The glossary lists the variants in its alias column,
which is the one place they may appear. Failures name file, line, the variant and the term to use.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.checks import terms

SITE = site_facts.load()


def test_no_banned_variant_or_article_name_anywhere():
    found = terms.problems()
    assert not found, "terms the glossary marks as not used here, or source articles named as seeds:\n" + "\n".join(found)


def _tree(tmp_path: Path, zh: str, en: str = "# P { #top }\n", snippet: str = "```python\nprint(1)\n```\n",
          snippet_name: str = "p/ok.md") -> tuple[Path, Path]:
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    for lang, text in (("zh", zh), ("en", en)):
        (docs / lang).mkdir(parents=True)
        (docs / lang / "p.md").write_text(text, encoding="utf-8")
    (snippets / snippet_name).parent.mkdir(parents=True)
    (snippets / snippet_name).write_text(snippet, encoding="utf-8")
    return docs, snippets


def test_a_clean_tree_passes(tmp_path):
    docs, snippets = _tree(tmp_path, "# 页 { #top }\n\n主路径上只有加法；Pre-LN（前置归一化）。原文一说……\n")
    assert terms.problems(docs, snippets) == []


def test_a_banned_chinese_variant_is_caught_with_line_and_replacement(tmp_path):
    docs, snippets = _tree(tmp_path, "# 页 { #top }\n\n归一化放在主干上。\n\n这是预归一化。\n")
    found = terms.problems(docs, snippets)
    assert any(f.startswith("docs/zh/p.md:3: '主干' — use 主路径") for f in found), found
    assert any(f.startswith("docs/zh/p.md:5: '预归一化'") for f in found), found


def test_seed_names_for_the_articles_are_caught_in_pages_snippets_and_file_names(tmp_path):
    en = '# P { #top }\n\n!!! seed "What the source article says (seed 000)"\n\nSee [it](#seed-claims).\n'
    docs, snippets = _tree(tmp_path, "# 页 { #top }\n", en, "```python\nclass B:  # seed 001's block\n    pass\n```\n",
                           "p/seed001-ranges.md")
    found = "\n".join(terms.problems(docs, snippets))
    assert "docs/en/p.md:3: 'seed 000'" in found
    assert "docs/en/p.md:3: '!!! seed'" in found
    assert "docs/en/p.md:5: '#seed-claims'" in found
    assert "snippets/p/seed001-ranges.md:2: 'seed 001'" in found
    assert "snippets/p/seed001-ranges.md: the file name" in found


def test_the_glossary_alias_column_may_list_variants_but_its_definitions_may_not(tmp_path):
    glossary = ("# 术语表 { #top }\n\n| 术语 | English | 别名 / 其他译法 | 简释 |\n|---|---|---|---|\n"
                "| 残差流 | residual stream | 主干（本站不用） | 各分支加到它上面。 |\n"
                "| 倒瓶颈 | inverted bottleneck | 倒置瓶颈 | 像主干一样。 |\n")
    docs, snippets = _tree(tmp_path, "# 页 { #top }\n")
    (docs / "zh" / "glossary.md").write_text(glossary, encoding="utf-8")
    found = terms.problems(docs, snippets)
    assert found == ["docs/zh/glossary.md:6: '主干' — use 主路径"], found


def test_the_real_glossary_has_the_alias_column_with_the_d2l_terms():
    text = (SITE.docs / "zh" / "glossary.md").read_text(encoding="utf-8")
    for alias in ("层规范化", "批量规范化", "暂退法", "词元", "基于位置的前馈网络", "加法和归一化", "梯度弥散",
                  "Pre-Norm", "Post-Norm"):
        assert alias in text, f"docs/zh/glossary.md: the alias column lacks {alias}"
    en = (SITE.docs / "en" / "glossary.md").read_text(encoding="utf-8")
    assert en.count("| Other Chinese names |") == text.count("| 别名 / 其他译法 |") > 0


def test_numbers_are_grouped_the_languages_way_and_only_in_prose(tmp_path):
    """zh groups with a space, en with a comma (mkdocs.yml: digit_group); four digits stay whole."""
    zh = ("# 页 { #top }\n\n共 2,099,712 个参数，1 347 张图片。\n\n32768 个分量；2 099 712 与 2048 都对。\n\n"
          "代码 `x = 1,000,000` 和公式 \\( 10,000 \\) 不是正文。\n")
    en = "# P { #top }\n\n2 099 712 parameters, 1,347 images, 2,099,712 and 2048 are right.\n"
    docs, snippets = _tree(tmp_path, zh, en)
    found = [f for f in terms.problems(docs, snippets) if "group" in f]
    assert found == [
        "docs/zh/p.md:3: '2,099,712' groups its digits with a comma; this language groups with a space (10 000)",
        "docs/zh/p.md:3: '1 347' is grouped; four digits stay whole (1347)",
        "docs/zh/p.md:5: '32768' is not grouped; from 10 000 up this language groups with a space",
        "docs/en/p.md:3: '2 099 712' groups its digits with a space; this language groups with a comma (10,000)",
        "docs/en/p.md:3: '1,347' is grouped; four digits stay whole (1347)",
    ], found


# --------------------------------------------------------------------------- what readers see
def test_the_built_pages_text_has_no_banned_variant_and_math_is_grouped_the_languages_way(built_site):
    found = terms.rendered_problems(built_site)
    assert not found, "banned variants or foreign digit grouping in the built pages:\n" + "\n".join(found)


def test_banned_terms_are_checked_in_figures_nav_labels_and_notebooks():
    found = terms.outside_prose_problems()
    assert not found, "banned variants outside the pages' prose:\n" + "\n".join(found)


def test_a_variant_split_by_markup_is_caught_in_the_built_text():
    """`**倒置**瓶颈` in the source is <strong>倒置</strong>瓶颈 in the page: the reader sees the variant."""
    html = ('<html><body><article><h1>页</h1><p>这是<strong>倒置</strong>瓶颈，<a href="#x">plain</a> 网络。</p>'
            '<pre><code>倒置瓶颈 in code is not prose</code></pre>'
            '<p><math><mn>2</mn><mo rspace="0">,</mo><mn>097</mn><mo rspace="0">,</mo><mn>152</mn></math>'
            '<math><mo>[</mo><mn>-100</mn><mo>,</mo><mn>100</mn><mo>]</mo></math></p></article></body></html>')
    prose, math = terms.page_text(html)
    banned = SITE.strings[SITE.default]["banned_terms"]
    hits = [v for v, _, _ in terms._hits(prose, banned)]
    assert "倒置瓶颈" in hits and "plain 网络" in hits, (prose, hits)
    assert hits.count("倒置瓶颈") == 1, "text inside <pre>/<code> is not prose"
    assert math == ["2,097,152", "[-100, 100]"], "`{,}` groups digits; a list's comma keeps its space"


def test_a_rendered_page_with_a_split_variant_fails_naming_the_page(tmp_path):
    lang = SITE.default
    page = sorted(p for p in sources.pages(lang) if p.endswith(".md"))[0]
    site = tmp_path / "site"
    for other in SITE.languages:
        for p in sources.pages(other):
            if p.endswith(".md"):
                out = site / SITE.url_of(other, p) / "index.html"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text("<article><p>ok</p></article>", encoding="utf-8")
    bad = site / SITE.url_of(lang, page) / "index.html"
    bad.write_text('<article><p>对 <strong>plain</strong> 网络，共 <math><mn>2</mn><mo rspace="0">,</mo><mn>097</mn>'
                   '<mo rspace="0">,</mo><mn>152</mn></math> 个。</p></article>', encoding="utf-8")
    found = terms.rendered_problems(site)
    assert any(f.startswith(f"docs/{lang}/{page} (built page): 'plain 网络'") for f in found), found
    if SITE.text(lang, "digit_group") != ",":
        assert any(f.startswith(f"docs/{lang}/{page} (math): '2,097,152'") for f in found), found


def test_a_quotation_may_keep_its_authors_word():
    text = "面经说“表征坍塌”。\n> 表征坍塌风险\n这里写表征坍塌。\n"
    masked = terms.without_quotations(text)
    assert masked.count("坍塌") == 1 and masked.split("\n")[2] == "这里写表征坍塌。"


def test_a_banned_label_in_a_figure_a_snippet_a_nav_title_and_a_notebook_fails(tmp_path):
    """Mutation (issue 23.4): a zh figure label "主干 RMS" in the snippet's LABELS and in the .zh.svg."""
    lang = SITE.default
    banned = SITE.strings[lang]["banned_terms"]
    variant = "主干" if "主干" in banned else next(iter(banned))
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    figures = docs / "assets" / "figures"
    figures.mkdir(parents=True)
    (figures / f"p-fig.{lang}.svg").write_text(f'<svg><text x="1">{variant} RMS</text></svg>', encoding="utf-8")
    (figures / "p-fig.en.svg").write_text(f'<svg><text x="1">{variant} RMS</text></svg>', encoding="utf-8")
    (snippets / "p").mkdir(parents=True)
    (snippets / "p" / "fig.md").write_text(
        f'```python\nLABELS = {{"{lang}": {{"y": "{variant} RMS"}}, "en": {{"y": "{variant} RMS"}}}}\n```\n',
        encoding="utf-8")
    (docs / lang / "notebooks").mkdir(parents=True)
    (docs / lang / "notebooks" / "p.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "markdown", "source": [f"## {variant}的增长"]}]}), encoding="utf-8")
    nav = {**SITE.nav_titles, lang: [f"{variant}与分支"]}
    found = terms.outside_prose_problems(docs, snippets, (figures,), nav)
    assert any(f.startswith(f"docs/assets/figures/p-fig.{lang}.svg: '{variant}'") for f in found), found
    assert not any("p-fig.en.svg" in f for f in found), "English figures are checked with English rules"
    assert any(f.startswith(f"snippets/p/fig.md: label") and f"({lang})" in f for f in found), found
    assert any(f.startswith(f"docs/{lang}/notebooks/p.ipynb: '{variant}'") for f in found), found
    assert any(f.startswith("mkdocs.yml: nav title") and f"({lang})" in f for f in found), found
    assert sum(f"({lang})" in f or f".{lang}." in f or f"/{lang}/" in f for f in found) == len(found) == 4, found


def test_nav_titles_are_checked_one_by_one(tmp_path):
    """Two titles side by side ("基础", "Transformer 中的残差") are no phrase; one title holding a variant fails."""
    lang = SITE.default
    banned = SITE.strings[lang]["banned_terms"]
    if "基础 Transformer" not in banned:
        return
    ok = terms.outside_prose_problems(tmp_path / "docs", tmp_path / "snippets", figures=(tmp_path,),
                                      nav_titles={lang: ["基础", "Transformer 中的残差"]})
    assert not [f for f in ok if "nav title" in f], ok
    bad = terms.outside_prose_problems(tmp_path / "docs", tmp_path / "snippets", figures=(tmp_path,),
                                       nav_titles={lang: ["基础 Transformer 入门"]})
    assert any("nav title" in f and "基础 Transformer" in f for f in bad), bad


def test_the_terms_the_editor_asked_for_are_banned_in_chinese():
    """One term each (issue 40): each variant the review found is a banned variant, so the checks above catch it."""
    banned = SITE.strings["zh"]["banned_terms"]
    for variant in ("跳跃路径", "坍塌", "隐藏状态", "推理模式", "基础 Transformer", "PyTorch docs", "§", "GeLU",
                    "前置 RMSNorm", "Peri-LN 与三明治归一化"):
        assert variant in banned, f"mkdocs.yml: zh banned_terms lacks {variant!r}"
