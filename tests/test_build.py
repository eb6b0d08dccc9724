"""Promises 4 and 6 — the strict build passes, and the built site loads nothing from another host.

Also what a published site needs: a sitemap with both languages, language alternates in each
page's head, math already rendered to MathML, and the math font served by the site itself.
"""

from __future__ import annotations

import json
import re

from tools import site


def test_strict_build_passes(built_site):
    assert (built_site / "index.html").exists()
    assert (built_site / "en" / "index.html").exists()


def test_no_asset_from_another_host(built_site):
    found = site.external_assets(built_site)
    assert not found, "the built site would load from other hosts:\n" + "\n".join(found)


def test_every_page_built_in_both_languages(built_site):
    for page in site.pages("zh"):
        stem = page.rsplit(".", 1)[0]
        rel = "index.html" if stem == "index" else f"{stem}/index.html"
        assert (built_site / rel).exists(), f"docs/zh/{page} was not built"
        assert (built_site / "en" / rel).exists(), f"docs/en/{page} was not built"


def test_pages_declare_their_language_alternates(built_site):
    for html in built_site.rglob("*.html"):
        if html.name == "404.html":
            continue
        text = html.read_text(encoding="utf-8")
        langs = set(re.findall(r'<link rel="alternate" href="[^"]+" hreflang="([\w-]+)"', text))
        assert langs == {"zh", "en"}, f"{html.relative_to(built_site)}: alternates {langs}"


def test_sitemap_lists_both_languages(built_site):
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<url>") >= 2 * len(site.pages("zh")) - 1
    assert 'hreflang="en"' in sitemap and 'hreflang="zh"' in sitemap


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
    assert {"zh", "en"} <= set(index["config"]["lang"])


def test_every_image_resolves_to_a_built_file(built_site):
    """A figure path that works in one language can break in the other (/en/ is one folder deeper)."""
    missing = []
    for html in built_site.rglob("*.html"):
        for src in re.findall(r'<img[^>]*\ssrc="([^"]+)"', html.read_text(encoding="utf-8")):
            if src.startswith("data:") or site.is_external(src):
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
