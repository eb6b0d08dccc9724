"""Promises 4 and 6 — the strict build passes, and the built site loads nothing from another host.

Also what a published site needs: a sitemap with both languages (each page's language alternates are
declared there: tests/test_publishing.py), math already rendered to MathML, and the math font served by
the site itself.
"""

from __future__ import annotations

import json
import re

from hooks import site_facts
from tools.checks import built_site as checks
from tools import sources
from tools.checks import html_scan

SITE = site_facts.load()


def test_strict_build_passes(built_site):
    for lang in SITE.languages:
        assert (built_site / SITE.url_of(lang, "index.md") / "index.html").exists(), f"no home page for {lang}"


def test_no_asset_from_another_host(built_site):
    found = html_scan.external_assets(built_site)
    assert not found, "the built site would load from other hosts:\n" + "\n".join(found)


def test_every_page_built_in_every_language(built_site):
    problems = checks.missing_page_problems(built_site)
    assert not problems, "\n".join(problems)


def test_pages_declare_their_language_alternates(built_site):
    problems = checks.alternate_problems(built_site)
    assert not problems, "\n".join(problems)


def test_sitemap_lists_every_language(built_site):
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<url>") >= len(sources.pages(SITE.default)) - 1
    for lang in SITE.languages:
        for page in sources.pages(lang):
            assert SITE.public_url(lang, page) in sitemap, f"sitemap.xml lacks {SITE.public_url(lang, page)}"
        assert f'hreflang="{lang}"' in sitemap, f"sitemap.xml has no alternates in {lang}"


def test_math_is_mathml_and_no_tex_is_left(built_site):
    for html in built_site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert 'class="arithmatex"' not in text, f"{html.relative_to(built_site)}: unrendered math"
        body = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
        body = re.sub(r' data-tex="[^"]*"', "", body)  # each formula's TeX, for copying (hooks/math.py)
        assert not re.search(r"\\\(|\\\[|\\frac|\$\$", body), f"{html.relative_to(built_site)}: raw TeX"
    assert (built_site / "assets" / "fonts" / "STIXTwoMath.woff2").stat().st_size > 1000


def test_search_index_splits_chinese_words(built_site):
    """Material joins jieba's words with U+200B; the separator must split on it."""
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert "\\u200b" in index["config"]["separator"]
    assert set(SITE.languages) <= set(index["config"]["lang"])


def test_every_image_resolves_to_a_built_file(built_site):
    """A figure path that works in one language can break in the other (/en/ is one folder deeper)."""
    missing = []
    for html in built_site.rglob("*.html"):
        for src in re.findall(r'<img[^>]*\ssrc="([^"]+)"', html.read_text(encoding="utf-8")):
            if src.startswith("data:") or html_scan.is_external(src):
                continue
            target = (html.parent / src.split("#")[0]).resolve()
            if not target.is_file():
                missing.append(f"{html.relative_to(built_site)}: {src}")
    assert not missing, "images that do not resolve:\n" + "\n".join(missing)


def test_compacting_html_changes_nothing_a_reader_sees():
    """hooks/compact_html.py: fold indentation, join Chinese lines, unwrap unstyled code spans only."""
    from hooks.compact_html import compact

    html = ('<div>\n    <p>残差连接\n把输入加到输出上。\nIt is\n    free.</p>\n'
            '<pre><code><span class="n">x</span><span class="w">  </span><span class="o">+</span>\n'
            '    <span class="mi">1</span></code></pre>\n  <script>\n  var a = 1;\n</script></div>')
    assert compact(html) == ('<div>\n<p>残差连接把输入加到输出上。\nIt is\nfree.</p>\n'
                             '<pre><code>x  <span class="o">+</span>\n    <span class="mi">1</span></code></pre>\n'
                             '<script>\n  var a = 1;\n</script></div>')


def test_copied_code_has_no_blanks_before_an_annotation():
    from hooks.compact_html import compact

    html = '<pre><code>y = f(x)<span class="w">  </span><span class="c1"># (1)!</span>\n</code></pre>'
    assert compact(html) == '<pre><code>y = f(x)<span class="c1"># (1)!</span>\n</code></pre>'


def _glossary_terms(text: str | None = None) -> list[str]:
    """The Chinese terms of the zh glossary's first column: every run of two or more Chinese characters, so
    each part of "A（B）" and "A / B" on its own, and the Chinese words of a mixed term ("PyTorch 默认初始化",
    "He 初始化（Kaiming 初始化）"), which a reader types as they are."""
    if text is None:
        text = (SITE.docs / "zh" / "glossary.md").read_text(encoding="utf-8")
    cells = [re.sub(r"<[^>]+>", "", line.split("|")[1]).strip() for line in text.split("\n") if line.startswith("| <span id=")]
    return [run for cell in cells for run in re.findall(r"[\u4e00-\u9fff]{2,}", cell)]


def _not_whole(terms: list[str], index: dict, page: str = "glossary") -> list[str]:
    """Terms the search index holds only in pieces on ``page`` (a query for one would match its parts)."""
    sep = re.compile(index["config"]["separator"])
    tokens = {t for d in index["docs"] if d["location"].startswith(page) for t in sep.split(d["title"] + " " + d["text"])}
    return [t for t in terms if t not in tokens]


def test_every_glossary_term_is_one_word_of_the_chinese_search(built_site):
    """search-terms.zh.txt keeps each glossary term whole (残差流, 超连接, 秩坍缩 …): a search for it finds
    and ranks the term, not each of its characters."""
    terms = _glossary_terms()
    assert {"残差流", "超连接", "秩坍缩", "双随机矩阵"} <= set(terms) and len(terms) > 50, terms
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    missing = _not_whole(terms, index)
    assert not missing, "glossary terms the Chinese search splits (add them to search-terms.zh.txt): " + "、".join(missing)


def test_a_glossary_term_split_by_the_segmenter_is_named():
    """Mutation: an index in which jieba cut 残差流 into 残差 + 流."""
    index = {"config": {"separator": "[\\s\\u200b]+"},
             "docs": [{"location": "glossary/#x", "title": "术语表", "text": "残差\u200b流 是 超连接"}]}
    assert _not_whole(["残差流", "超连接"], index) == ["残差流"]


def test_the_chinese_words_of_a_mixed_glossary_term_are_checked_too():
    """Mutation: a glossary whose mixed term "PyTorch 默认初始化" the segmenter cut into 默认 + 初始化."""
    glossary = ("| <span id=\"a\"></span>PyTorch 默认初始化 | PyTorch default initialization | | x |\n"
                "| <span id=\"b\"></span>超连接（HC） | hyper-connections | | y |\n"
                "| <span id=\"c\"></span>He 初始化（Kaiming 初始化） | He initialization | | z |\n")
    terms = _glossary_terms(glossary)
    assert terms == ["默认初始化", "超连接", "初始化", "初始化"], terms
    index = {"config": {"separator": "[\\s\\u200b]+"},
             "docs": [{"location": "glossary/#a", "title": "术语表", "text": "PyTorch 默认\u200b初始化 超连接"}]}
    assert _not_whole(terms, index) == ["默认初始化"]
