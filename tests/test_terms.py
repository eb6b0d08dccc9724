"""Promise 4 — Chinese that reads as written, one term each; the two source articles named one way.

``tools/terms.py`` holds the variants a native editor flagged (主干, 预归一化, 后归一化, 非正规数, 倒置瓶颈,
编码层, plain 网络, 预激活值) and the names a reader misreads ("seed 000", "source article 001",
``!!! seed``, ``#seed-claims``, ``seed000-layer.md``). The glossary lists the variants in its alias column,
which is the one place they may appear. Failures name file, line, the variant and the term to use.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hooks import site_facts
from tools import terms

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
