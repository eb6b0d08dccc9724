"""What a reader sees of the code on a built chapter page: it is about the subject, short, and every output carries
its mark (issue 39, "Code that teaches" and "Verification as one quiet mark").

Read from the built HTML with collapsed content closed: a block inside a closed ``<details>`` (a ``??? example``
of the same code with one setting changed, a solution) is not seen; inside a block, a fold (``hooks/code_folds.py``)
is seen as its one summary line. On each chapter page of each language:

* ``PLUMBING_SHARE``: at most 2 % of the visible code lines are site plumbing (``PLUMBING``: figure files, label
  tables, SVG settings, the verdict helper, the explorable's data, rounding for the same digits on every CPU);
  a statement that opens a bracket counts with every line up to its close;
* ``LONGEST``: no visible block is longer than 60 lines;
* every output (the ``text`` block under a block's code) carries the "verified" mark (``hooks/verified.py``).

The height share of the code (at most ``HEIGHT_SHARE`` of the page's article at 1280 px) needs a browser:
``tests/test_browser.py`` measures it with ``HEIGHT_JS``.

``python -m tools.checks.code_share [SITE]`` prints the figures of every chapter page of a built site.
"""

from __future__ import annotations

import html
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hooks import site_facts
from tools import sources

PLUMBING_SHARE = 0.02
LONGEST = 60
HEIGHT_SHARE = 0.35
SCREENS = 30  # a chapter's height at most, in desktop screens (1280 x 800), collapsed content closed
SCREEN = (1280, 800)
PLUMBING = [(re.compile(p), what) for p, what in (
    (r"^\s*LABELS\s*=", "a label table"),
    (r"svg\.hashsalt|svg\.fonttype|plt\.rc_context\(", "SVG settings"),
    (r"\.savefig\(|\bplt\.close\(", "saving a figure"),
    (r"\.(zh|en)\.svg\b|\.\{lang\}\.svg|\bfor lang, text in LABELS", "a figure file per language"),
    (r"^\s*def verdict\(|'✔' if holds|\"✔\" if holds", "the verdict helper"),
    (r"\bjson\.dump\(|\.json\"?, \"w\"", "the explorable's data"),
    (r"\bGRID\b|\.round_\(\)\.div_\(", "rounding for the same digits on every CPU"),
    (r"warnings\.simplefilter\(\"ignore\", UserWarning\)", "SVG settings"),
)]
_ARTICLE = re.compile(r"<article\b.*?</article>", re.S)
_TOKENS = re.compile(r'<details\b(?P<attrs>[^>]*)>|</details>|<div class="language-(?P<lang>python|text) highlight'
                     r'(?P<cls>[^"]*)">(?P<body>.*?)</div>', re.S)
_FOLD = re.compile(r'<details class="rn-fold"[^>]*>.*?</details>', re.S)
_CODE = re.compile(r"<code>(.*?)</code>", re.S)
FOLD_LINE = "\x00fold"


@dataclass
class Block:
    n: int  # its number among the page's Python blocks
    lines: list[str]  # the lines a reader sees, a fold as FOLD_LINE
    first: str = ""  # its first line, to name it
    snippet: str = ""  # the snippet file whose code it is ("" if none the page includes)

    @property
    def name(self) -> str:
        return self.snippet or repr(self.first.strip()[:50])

    @property
    def plumbing(self) -> list[tuple[str, str]]:
        return plumbing_lines(self.lines)


@dataclass
class Page:
    name: str  # docs/<lang>/<slug>.md
    blocks: list[Block] = field(default_factory=list)
    outputs: int = 0
    unmarked: list[int] = field(default_factory=list)  # numbers of the outputs without the mark

    @property
    def lines(self) -> int:
        return sum(len(b.lines) for b in self.blocks)

    @property
    def plumbing(self) -> int:
        return sum(len(b.plumbing) for b in self.blocks)


def _depth(line: str) -> int:
    """How many brackets a line opens minus those it closes, outside strings (roughly: enough for dicts and calls)."""
    line = re.sub(r"#.*$", "", re.sub(r"(\"[^\"]*\"|'[^']*')", "", line))
    return sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")


def plumbing_lines(lines: list[str]) -> list[tuple[str, str]]:
    """(line, what it is) for each visible plumbing line; a statement that opens brackets counts up to its close."""
    out, depth, what = [], 0, None
    for line in lines:
        if depth > 0 and what:
            out.append((line, what))
            depth += _depth(line)
            continue
        depth = 0
        found = next((w for p, w in PLUMBING if p.search(line)), None)
        if found and line != FOLD_LINE:
            out.append((line, found))
            what, depth = found, max(_depth(line), 0)
        else:
            what = None
    return out


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def visible_lines(code_html: str) -> list[str]:
    """The lines of a block's ``<code>`` a reader sees with its folds closed."""
    text = _text(_FOLD.sub(lambda m: FOLD_LINE + "\n", code_html)).rstrip("\n")
    return text.split("\n") if text else []


def snippet_codes(names: list[str], base: Path | None = None) -> dict[str, str]:
    """The code each of these snippet files shows on a page (as the copy button copies it) -> its file."""
    from tools.runner import selection
    from tools.generators import notebooks

    base = base or selection.SNIPPETS
    out = {}
    for name in dict.fromkeys(names):
        for block in selection.extract(base / name):
            out[notebooks.strip_annotations(block.code).strip("\n")] = f"snippets/{name}"
    return out


def read_page(article: str, name: str, codes: dict[str, str] | None = None) -> Page:
    page, closed, python = Page(name), [], 0
    for m in _TOKENS.finditer(article):
        if m.group(0).startswith("<details"):
            closed.append(not re.search(r"\bopen\b", m.group("attrs")))
        elif m.group(0) == "</details>":
            if closed:
                closed.pop()
        elif m.group("lang") == "python":
            python += 1
            if not any(closed):
                code = _CODE.search(m.group("body"))
                lines = visible_lines(code.group(1) if code else "")
                whole = re.sub(r"[ \t]*# \(\d+\)!$", "", _text(code.group(1) if code else ""), flags=re.M).strip("\n")
                page.blocks.append(Block(python, lines, next((x for x in lines if x.strip()), ""),
                                         (codes or {}).get(whole, "")))
        else:
            page.outputs += 1
            if 'class="rn-verified"' not in m.group("body"):
                page.unmarked.append(page.outputs)
    return page


def _chapters(site: Path, facts: site_facts.Facts):
    """(name ``docs/<lang>/<slug>.md``, its built HTML or None, the snippet codes it includes) of every chapter."""
    for lang in facts.languages:
        for slug in sources.chapters(lang, facts.docs):
            built = site / facts.url_of(lang, f"{slug}.md") / "index.html"
            codes = snippet_codes(sources.includes(sources.read(lang, f"{slug}.md", facts.docs)))
            yield f"docs/{lang}/{slug}.md", built.read_text(encoding="utf-8") if built.exists() else None, codes


def pages(site: Path, facts: site_facts.Facts | None = None) -> list[Page]:
    """Every chapter page of every language of a built site."""
    out = []
    for name, built, codes in _chapters(site, facts or site_facts.load()):
        if built is None:
            out.append(Page(name, unmarked=[-1]))
            continue
        m = _ARTICLE.search(built)
        out.append(read_page(m.group(0) if m else "", name, codes))
    return out


def problems(page: Page, includes: dict[int, str] | None = None) -> list[str]:
    """What a chapter page shows against the rules, each naming the page (and the block: its first line)."""
    found = []
    if page.unmarked == [-1]:
        return [f"{page.name}: not built"]
    if page.lines and page.plumbing > PLUMBING_SHARE * page.lines:
        worst = [f"block {b.n} ({b.name}): " + "; ".join(
                 f"{w}: {line.strip()[:60]!r}" for w, line in {w: line for line, w in reversed(b.plumbing)}.items())
                 for b in page.blocks if b.plumbing]
        found.append(f"{page.name}: {page.plumbing} of {page.lines} visible code lines are site plumbing "
                     f"({page.plumbing / page.lines:.1%}, at most {PLUMBING_SHARE:.0%}): fold them "
                     "(`# --8<-- [start:figure]` … `[end:figure]`, CONTRIBUTING.md):\n    " + "\n    ".join(worst))
    for b in page.blocks:
        if len(b.lines) > LONGEST:
            found.append(f"{page.name}: Python block {b.n} ({b.name}) shows {len(b.lines)} lines, "
                         f"more than {LONGEST}: fold its plumbing and its long steps, or split it")
    if page.unmarked:
        found.append(f"{page.name}: output{'s' if len(page.unmarked) > 1 else ''} "
                     f"{', '.join(map(str, page.unmarked))} of {page.outputs} without the verified mark "
                     "(hooks/verified.py)")
    return found


_DATA_COPY = re.compile(r'<pre data-copy="([^"]*)"')


def copy_problems(article: str, name: str, codes: dict[str, str]) -> list[str]:
    """Each folded block's ``data-copy`` (what its copy button copies) is the whole code of a snippet the page
    includes."""
    return [f"{name}: folded Python block {n} copies {len(html.unescape(m.group(1)).splitlines())} lines that are "
            "no snippet's whole code (hooks/code_folds.py, data-copy)"
            for n, m in enumerate(_DATA_COPY.finditer(article), 1) if html.unescape(m.group(1)).strip("\n") not in codes]


def all_copy_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    return [p for name, built, codes in _chapters(site, facts or site_facts.load()) if built is not None
            for p in copy_problems(built, name, codes)]


# Measured in the browser on the page as loaded (collapsed content closed): the share of the article's height
# taken by the code a reader sees (the Python blocks; a block inside a closed <details> is not seen and has no
# height; the outputs under them are results, and are not counted).
HEIGHT_JS = """() => {
  const article = document.querySelector("article.md-content__inner") || document.querySelector("article");
  if (!article) return null;
  let code = 0;
  for (const el of article.querySelectorAll(".language-python.highlight")) {
    code += el.getBoundingClientRect().height;
  }
  return {code: code, article: article.getBoundingClientRect().height};
}"""


def height_problems(name: str, measured: dict) -> list[str]:
    """What :data:`HEIGHT_JS` measured on a chapter at :data:`SCREEN`'s width, against the two limits: visible code
    at most :data:`HEIGHT_SHARE` of the page's height, the page at most :data:`SCREENS` screens long."""
    out = []
    share, screens = measured["code"] / measured["article"], measured["article"] / SCREEN[1]
    if share > HEIGHT_SHARE:
        out.append(f"{name}: visible code is {share:.0%} of the page's height at {SCREEN[0]} px (at most "
                   f"{HEIGHT_SHARE:.0%}): fold long steps, split blocks, or move the variants into collapsed blocks")
    if screens > SCREENS:
        out.append(f"{name}: the page is {screens:.1f} desktop screens long ({SCREEN[0]} x {SCREEN[1]}, collapsed "
                   f"content closed; at most {SCREENS}): split the chapter, or collapse a digression into a note")
    return out


def main(argv: list[str] | None = None) -> int:
    site = Path((argv or sys.argv[1:] or ["site"])[0])
    bad = 0
    print(f"{'page':42} {'lines':>6} {'plumb':>6} {'share':>6} {'longest':>7} {'outputs':>7} {'unmarked':>8}")
    for page in pages(site):
        longest = max((len(b.lines) for b in page.blocks), default=0)
        share = page.plumbing / page.lines if page.lines else 0
        print(f"{page.name:42} {page.lines:6} {page.plumbing:6} {share:6.1%} {longest:7} {page.outputs:7} "
              f"{len(page.unmarked):8}")
        for p in problems(page):
            bad += 1
            print("  " + p.replace("\n", "\n  "))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
