"""Code that teaches, verification as one quiet mark (issue 39): what a reader sees of the code on every chapter page
of every language, measured on the built site (tools/checks/code_share.py) and in Chromium for the height; the folds
(hooks/code_folds.py) keep the whole block for the copy button; every output carries the mark (hooks/verified.py).
Each check has a mutation test that breaks its promise and sees it fail naming the file."""

from __future__ import annotations

import html
import re

import pytest

from hooks import code_folds, site_facts, snippet_files, verified
from tools import sources
from tools.checks import code_share

SITE = site_facts.load()
CHAPTERS = [f"docs/{lang}/{slug}.md" for lang in SITE.languages for slug in sources.chapters(lang)]
STRINGS = SITE.text("en", "fold")


@pytest.fixture(scope="module")
def measured(built_site):
    return {p.name: p for p in code_share.pages(built_site)}


def _failures(measured, what: str) -> list[str]:
    return [p for page in measured.values() for p in code_share.problems(page) if what in p]


def test_every_chapter_is_measured(measured):
    assert sorted(measured) == sorted(CHAPTERS)
    assert all(page.blocks for page in measured.values()), [n for n, p in measured.items() if not p.blocks]


def test_visible_code_is_at_most_two_percent_plumbing(measured):
    bad = _failures(measured, "site plumbing")
    assert not bad, "\n".join(bad)


def test_no_visible_block_is_longer_than_60_lines(measured):
    bad = _failures(measured, "more than")
    assert not bad, "\n".join(bad)


def test_every_output_carries_the_verified_mark(measured):
    bad = _failures(measured, "verified mark") + _failures(measured, "not built")
    assert not bad, "\n".join(bad)
    assert all(page.outputs for page in measured.values())


def test_every_folded_block_copies_its_whole_snippet(built_site):
    bad = code_share.all_copy_problems(built_site)
    assert not bad, "\n".join(bad)
    assert sum(page.count('<pre data-copy="') for page in
               (p.read_text(encoding="utf-8") for p in built_site.rglob("index.html"))) > 0


def test_a_folded_block_that_copies_less_fails_naming_the_page():
    raw = SUBJECT + "# --8<-- [start:figure]\n" + FIGURE + "# --8<-- [end:figure]\n"
    whole = snippet_files.reader_code(raw).strip("\n")
    html_ = '<pre data-copy="' + html.escape(whole) + '"><code></code></pre>'
    name = "docs/zh/residual-scaling.md"
    assert code_share.copy_problems(html_, name, {whole: "snippets/x.md"}) == []
    cut = html_.replace(html.escape(FIGURE.splitlines()[0]), "")
    assert code_share.copy_problems(cut, name, {whole: "snippets/x.md"}) == [
        f"{name}: folded Python block 1 copies 47 lines that are no snippet's whole code (hooks/code_folds.py, data-copy)"]


def test_visible_code_is_at_most_35_percent_of_each_chapter_height_and_30_screens(own_browser):
    browser, base = own_browser
    width, height = code_share.SCREEN
    ctx = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
    bad = []
    try:
        page = ctx.new_page()
        for name in CHAPTERS:
            lang, slug = name.split("/")[1], name.split("/")[2][:-3]
            page.goto(base + SITE.url_of(lang, f"{slug}.md"), wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            bad += code_share.height_problems(name, page.evaluate(code_share.HEIGHT_JS))
    finally:
        ctx.close()
    assert not bad, "\n".join(bad)


def test_a_page_too_long_or_too_much_code_fails_naming_it():
    name, screen = "docs/en/residual-frontier.md", code_share.SCREEN[1]
    assert code_share.height_problems(name, {"code": 0.3 * 29 * screen, "article": 29 * screen}) == []
    long_ = code_share.height_problems(name, {"code": 0.3 * 31 * screen, "article": 31 * screen})
    assert len(long_) == 1 and long_[0].startswith(f"{name}: the page is 31.0 desktop screens long")
    code = code_share.height_problems(name, {"code": 0.36 * 20 * screen, "article": 20 * screen})
    assert len(code) == 1 and code[0].startswith(f"{name}: visible code is 36% of the page's height")


def test_a_folded_block_copies_whole(own_browser):
    """The copy button of a block with folds copies the whole code (Material's clipboard reads data-copy), and a
    click on a fold's summary shows its lines in place."""
    browser, base = own_browser
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    text = sources.read(SITE.languages[0], "add-and-norm.md")
    codes = code_share.snippet_codes(sources.includes(text))
    try:
        for lang in SITE.languages:
            page = ctx.new_page()
            page.goto(base + SITE.url_of(lang, "add-and-norm.md"), wait_until="load")
            block = page.locator("article .language-python.highlight", has=page.locator("details.rn-fold")).first
            block.scroll_into_view_if_needed()
            block.hover()
            page.evaluate("navigator.clipboard.writeText('')")
            block.locator('button[data-md-type="copy"]').first.click()
            copied = page.evaluate("navigator.clipboard.readText()")
            shown = block.evaluate("b => b.querySelector('code').innerText")
            assert copied.strip("\n") in codes, f"{lang}: the copy button of a folded block copied what no snippet " \
                f"of add-and-norm.md holds:\n{copied[:300]}"
            assert len(copied.splitlines()) > len(shown.splitlines()), f"{lang}: the copy button copied the visible lines only"
            # mutation: without data-copy the button copies the visible lines only, and the check above fails
            block.evaluate("b => b.querySelector('pre').removeAttribute('data-copy')")
            page.evaluate("navigator.clipboard.writeText('')")
            block.locator('button[data-md-type="copy"]').first.click()
            assert page.evaluate("navigator.clipboard.readText()").strip("\n") not in codes
            fold = block.locator("details.rn-fold").first
            assert fold.evaluate("d => d.querySelector('summary').getBoundingClientRect().height") > 0
            assert not fold.evaluate("d => d.open")
            fold.locator("summary").click()
            assert fold.evaluate("d => d.open")
            page.close()
    finally:
        ctx.close()


# --------------------------------------------------------------------------- mutation tests (no build)

def _block(code: str) -> str:
    """A Python block as pymdownx.highlight writes it (the page's Markdown extensions)."""
    from mutation import render_markdown

    return render_markdown(f"```python\n{code}```\n")


def _page(*parts: str) -> str:
    return "<article>" + "".join(parts) + "</article>"


FIGURE = ('LABELS = {\n    "en": {"x": "depth"},\n    "zh": {"x": "深度"},\n}\n'
          'style = {"svg.hashsalt": "residual-notes", "svg.fonttype": "none"}\n'
          'for lang, text in LABELS.items():\n    fig.savefig(f"x.{lang}.svg", metadata={"Date": None})\n')
SUBJECT = "".join(f"y{i} = x + f(x)  # step {i}\n" for i in range(40))


def _folded_html(raw: str) -> str:
    shown = snippet_files.reader_code(raw)
    m = code_folds.BLOCK.search(_block(shown))
    body = code_folds.folded(m.group(4), shown.rstrip("\n"), snippet_files.folds(raw), STRINGS, "test")
    return m.group(1) + m.group(2) + m.group(3) + body + m.group(5)


def test_plumbing_in_sight_fails_naming_the_page():
    name = "docs/en/residual-connections.md"
    page = code_share.read_page(_page(_block(SUBJECT + FIGURE)), name)
    bad = code_share.problems(page)
    assert len(bad) == 1 and bad[0].startswith(f"{name}: 7 of 47 visible code lines are site plumbing"), bad
    assert "a label table" in bad[0] and "SVG settings" in bad[0]
    folded = SUBJECT + "# --8<-- [start:figure]\n" + FIGURE + "# --8<-- [end:figure]\n"
    page = code_share.read_page(_page(_folded_html(folded)), name)
    assert code_share.problems(page) == [] and page.lines == 41, (page.lines, code_share.problems(page))


def test_a_long_visible_block_fails_naming_the_page():
    name = "docs/zh/add-and-norm.md"
    long = SUBJECT + "".join(f"z{i} = y{i} * 2\n" for i in range(21))
    bad = code_share.problems(code_share.read_page(_page(_block(long)), name))
    assert bad == [f"{name}: Python block 1 ('y0 = x + f(x)  # step 0') shows 61 lines, more than 60: fold its "
                   "plumbing and its long steps, or split it"], bad
    folded = SUBJECT + "# --8<-- [start:training]\n" + long[len(SUBJECT):] + "# --8<-- [end:training]\n"
    assert code_share.problems(code_share.read_page(_page(_folded_html(folded)), name)) == []
    # a block inside a closed <details> (a collapsed variant) is not seen
    hidden = '<details class="example"><summary>x</summary>' + _block(long) + "</details>"
    assert code_share.problems(code_share.read_page(_page(_block("x = 1\n"), hidden), name)) == []
    opened = hidden.replace('<details class="example">', '<details class="example" open>')
    assert len(code_share.problems(code_share.read_page(_page(opened), name))) == 1


def test_an_output_without_the_mark_fails_naming_the_page():
    from mutation import render_markdown

    name = "docs/en/why-depth-is-hard.md"
    out = render_markdown(f"```python\nverdict()\n```\n{verified.MARKER}\n```text\n✔ depth hurts: 0.5 (criterion < 1)\n"
                          "plain line\n```\n")
    bad = code_share.problems(code_share.read_page(_page(out), name))
    assert bad == [f"{name}: output 1 of 1 without the verified mark (hooks/verified.py)"], bad
    marked = verified.mark(out, "../verification/#checks", "verified", "how")
    assert code_share.problems(code_share.read_page(_page(marked), name)) == []
    assert '<a class="rn-verified" href="../verification/#checks" title="how">' in marked
    assert ('<span class="rn-verdict rn-verdict--holds"><span class="rn-verdict__mark">✔</span> '
            '<span class="rn-verdict__claim">depth hurts</span>: ') in marked
    # the output's text, what its copy button copies, is unchanged
    text = lambda h: html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<code>(.*?)</code>", h.split(verified.MARKER)[1], re.S).group(1)))
    assert text(marked) == text(out)


def test_folds_keep_the_code_and_copy_it_whole():
    raw = "".join(SUBJECT.splitlines(keepends=True)[:2]) + "# --8<-- [start:figure]\n" + FIGURE + "# --8<-- [end:figure]\n" + "print(y0)\n"
    shown = snippet_files.reader_code(raw)
    assert "8<" not in shown and shown.count("\n") == raw.count("\n") - 2
    out = _folded_html(raw)
    assert code_folds.text_of(re.sub(r"<summary[^>]*></summary>", "", out)).rstrip("\n") == shown.rstrip("\n")
    assert 'data-label="drawing and saving the figures (7 lines)"' in out and "<details class=\"rn-fold\"" in out
    split = code_folds.split_lines(_block(shown))
    assert len(split) == shown.count("\n")


@pytest.mark.parametrize("raw, says", [
    ("x = 1\n# --8<-- [start:figure]\ny = 2\n", "snippets/t.md: the 'figure' fold is never closed"),
    ("# --8<-- [start:figure]\n# --8<-- [start:data]\ny = 2\n", "snippets/t.md: code line 2: a fold starts inside"),
    ("# --8<-- [start:figure]\n# --8<-- [end:figure]\n", "snippets/t.md: code line 2: the 'figure' fold holds no line"),
    ("# --8<-- [start:plots]\ny = 2\n# --8<-- [end:plots]\n", "snippets/t.md: code line 1: fold kind 'plots'"),
    ("y = 2  # --8<-- [start:figure]\n", "snippets/t.md: code line 1: 'y = 2  # --8<-- [start:figure]' holds a section"),
    ("# --8<-- [end:figure]\n", "snippets/t.md: code line 1: [end:figure] closes no open"),
])
def test_a_broken_fold_fails_naming_the_file_and_line(raw, says, tmp_path):
    with pytest.raises(snippet_files.SnippetError) as err:
        snippet_files.folds(raw, "snippets/t.md")
    assert str(err.value).startswith(says), str(err.value)
    # and the runners refuse the file's shape, naming it
    path = tmp_path / "t.md"
    path.write_text(f"```python\n{raw}```\n", encoding="utf-8")
    assert snippet_files.fence_problems(path), "a broken fold passes the shape check"


def test_fold_markers_change_no_fingerprint():
    from hooks import compat

    plain = "```python\nx = 1\nprint(x)\n```\n"
    marked = "```python\n# --8<-- [start:setup]\nx = 1\n# --8<-- [end:setup]\nprint(x)\n```\n"
    assert compat.fingerprint(marked) == compat.fingerprint(plain) == compat.fingerprint(plain.encode())
    assert compat.fingerprint(marked.replace("x = 1", "x = 2")) != compat.fingerprint(plain)
