"""One term each: the variants the glossary lists as "not used here" never appear in a page.

Chinese pages use the glossary's terms (``docs/zh/glossary.md``); the variants below are the ones a
native editor flagged (主干 reads as "backbone", 预归一化 is not what Pre-LN means, …). Both languages
name the two source articles 原文一 / 原文二 and Article 1 / Article 2, never "seed 000" (a reader of a
site about random seeds reads "seed" as a random seed), and neither do snippet files and their comments.

The glossary's alias column ("别名 / 其他译法", "Other Chinese names") is where the variants are listed,
so that column is not checked.

One style of number grouping per language (zh-style.md): in a page's prose (code, math and link targets
are not prose) a number from 10 000 up is grouped in threes with the language's ``extra.strings.digit_group``
from mkdocs.yml (``2,099,712``; ``2 099 712``), and a four-digit number is not grouped (``1347``). The
references page is bibliographic data and is not checked.

``python -m tools.checks.terms`` prints every problem.
"""

from __future__ import annotations

import ast
import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.checks import numbers

_SITE = site_facts.load()

SNIPPETS = _SITE.root / "snippets"

# variant: the term to use instead
# Each language's banned variants (variant: the term to use) are in mkdocs.yml: extra.strings.banned_terms
NAME_BANNED = {
    r"\bseed[ -_]?0{2,3}\d?\b": "Article 1 / Article 2 (原文一 / 原文二)",
    r"\bseed[ -_]?001\b": "Article 2 (原文二)",
    r"\bsource article (?:0+\d|\d)\b": "Article 1 / Article 2",
    r"\barticle 00\d\b": "Article 1 / Article 2",
    r"^\s*[!?]{3}\+? seed\b": "a `!!! claim` admonition",
    r"#seeds?-(?:claims|encoder|demo|ranges|0)[\w-]*": "an id that names the article (#article-claims, #article2-demo)",
}
_ALIAS_HEADERS = ("别名 / 其他译法", "Other Chinese names")


def _without_alias_column(text: str) -> str:
    """The glossary with its alias column blanked (same lines, so line numbers stay right)."""
    out, col = [], None
    for line in text.split("\n"):
        if line.startswith("|"):
            cells = line.split("|")
            if any(h in line for h in _ALIAS_HEADERS):
                col = next(i for i, c in enumerate(cells) if c.strip() in _ALIAS_HEADERS)
            elif col is not None and len(cells) > col:
                cells[col] = " "
            line = "|".join(cells)
        else:
            col = None if line.strip() == "" else col
        out.append(line)
    return "\n".join(out)


_QUOTED = re.compile(r"“[^”\n]*”")
_BLOCKQUOTE = re.compile(r"^[ \t]*>.*$", re.M)


def without_quotations(text: str) -> str:
    """Text with quotations blanked (“…” and ``>`` lines; same lines): a quotation keeps its author's words."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    return _QUOTED.sub(blank, _BLOCKQUOTE.sub(blank, text))


def _scan(text: str, name: str, patterns: dict[str, str], regex: bool) -> list[str]:
    found = []
    for n, line in enumerate(text.split("\n"), 1):
        for pat, use in patterns.items():
            hits = re.findall(pat, line, re.I) if regex else ([pat] if pat in line else [])
            for hit in dict.fromkeys(hits):
                found.append(f"{name}:{n}: {hit!r} — use {use}")
    return found


_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:(?P<sep>[, \u00a0\u202f\u2009])\d{3})(?:(?P=sep)\d{3})*(?![\d]|[.,]\d)")
_LONG = re.compile(r"(?<![\w.,\u00a0\u202f\u2009])\d{5,}(?![\w]|[.,]\d)")
_SEPARATOR_NAMES = {",": "a comma", " ": "a space", "\u00a0": "a no-break space", "\u202f": "a narrow no-break space",
                    "\u2009": "a thin space"}
NOT_GROUPING_CHECKED = ("references.md",)


def grouping(text: str, name: str, separator: str) -> list[str]:
    """Numbers in prose not grouped the language's way: groups of three with its separator from
    10 000 up, none below (``2048``, ``1347``: four digits stay whole, as in GB/T 15835 and Chicago)."""
    masked, _ = numbers.mask(text)
    sep_name = _SEPARATOR_NAMES.get(separator, repr(separator))
    found = []

    def report(m: re.Match, why: str) -> None:
        found.append(f"{name}:{masked.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r} {why}")

    for m in _GROUPED.finditer(masked):
        digits = re.sub(r"\D", "", m.group(0))
        if len(digits) <= 4:
            report(m, f"is grouped; four digits stay whole ({digits})")
        elif m.group("sep") != separator:
            report(m, f"groups its digits with {_SEPARATOR_NAMES[m.group('sep')]}; this language groups with"
                      f" {sep_name} ({separator.join(['10', '000'])})")
    for m in _LONG.finditer(masked):
        report(m, f"is not grouped; from 10 000 up this language groups with {sep_name}")
    return found


def problems(docs: Path = _SITE.docs, snippets: Path = SNIPPETS) -> list[str]:
    found = []
    for lang in _SITE.languages:
        for page in sorted(sources.pages(lang, docs)):
            if not page.endswith(".md"):
                continue
            path = docs / lang / page
            text = path.read_text(encoding="utf-8")
            if page == "glossary.md":
                text = _without_alias_column(text)
            name = f"docs/{lang}/{page}"
            found += _scan(without_quotations(text), name, _SITE.strings.get(lang, {}).get("banned_terms") or {},
                           regex=False)
            found += _scan(text, name, NAME_BANNED, regex=True)
            if page not in NOT_GROUPING_CHECKED:
                found += grouping(text, name, _SITE.text(lang, "digit_group"))
    for path in sorted(snippets.rglob("*.md")):
        rel = f"snippets/{path.relative_to(snippets).as_posix()}"
        for pat, use in NAME_BANNED.items():
            if re.search(pat, path.stem.replace("-", " "), re.I) or re.search(r"seed0\d\d", path.stem, re.I):
                found.append(f"{rel}: the file name says {path.stem!r} — name it for Article 1 / Article 2")
        found += _scan(path.read_text(encoding="utf-8"), rel, NAME_BANNED, regex=True)
    return found


# --------------------------------------------------------------------------- text as readers see it
# The source scan above reads Markdown. Markup can split a variant (``**plain** 网络``, ``**倒置**瓶颈``) and
# math hides numbers (``2{,}097{,}152``), so the same terms are checked on what readers see: the built pages'
# text, the text of figures and diagrams, nav titles, the labels snippets draw, and the notebooks' prose.

_SKIPPED_TAGS = {"code", "pre", "script", "style", "svg", "kbd"}
_COMMA_GROUPED = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d])")


class _PageText(HTMLParser):
    """The prose of a built page's article (no code, scripts or the glossary's alias column) and its math text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.prose, self.math = [], []
        self._article = self._skip = self._math = 0
        self._alias_col, self._col, self._in_cell_skip = None, -1, False
        self._tight = False

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self._article += 1
        elif tag in _SKIPPED_TAGS:
            self._skip += 1
        elif tag == "math":
            self._math += 1
            self.math.append("")
        elif tag == "mo" and self._math:
            # `2{,}097` renders as <mo rspace="0">,</mo>; a list separator (`[-100, 100]`) keeps its space
            self._tight = dict(attrs).get("rspace") == "0"
        elif tag == "tr":
            self._col = -1
        elif tag in ("td", "th"):
            self._col += 1
            self._in_cell_skip = tag == "td" and self._col == self._alias_col
        if tag in ("p", "li", "td", "th", "h1", "h2", "h3", "h4", "figcaption", "br", "div", "blockquote"):
            self.prose.append("\n")

    def handle_endtag(self, tag):
        if tag == "article":
            self._article -= 1
        elif tag in _SKIPPED_TAGS:
            self._skip -= 1
        elif tag == "math":
            self._math -= 1
        elif tag in ("td", "th"):
            self._in_cell_skip = False
        elif tag == "table":
            self._alias_col = None

    def handle_data(self, data):
        if not self._article or self._skip:
            return
        if self._math:
            self.math[-1] += data if data != "," or self._tight else ", "
            self._tight = False
        elif self._col >= 0 and data.strip() in _ALIAS_HEADERS:
            self._alias_col = self._col
        elif not self._in_cell_skip:
            self.prose.append(data)


def _hits(text: str, patterns: dict[str, str]) -> list[tuple[str, str, str]]:
    """(variant, term to use, context) for each banned variant in text; whitespace runs count as one space."""
    flat = re.sub(r"\s+", " ", without_quotations(text))
    found = []
    for pat, use in patterns.items():
        for m in re.finditer(re.escape(pat), flat):
            found.append((pat, use, flat[max(0, m.start() - 20): m.end() + 20].strip()))
    return found


def page_text(html_text: str) -> tuple[str, list[str]]:
    """A built page's article prose (markup removed, inline elements joined) and the text of each formula."""
    parser = _PageText()
    parser.feed(html_text)
    return "".join(parser.prose), parser.math


def rendered_problems(site: Path) -> list[str]:
    """Banned variants in the built pages' text, and numbers in math grouped the other language's way."""
    found = []
    for lang in _SITE.languages:
        banned = _SITE.strings.get(lang, {}).get("banned_terms") or {}
        separator = _SITE.text(lang, "digit_group")
        for page in sorted(sources.pages(lang)):
            if not page.endswith(".md"):
                continue
            built = site / _SITE.url_of(lang, page) / "index.html"
            if not built.exists():
                found.append(f"docs/{lang}/{page}: no built page at {built}")
                continue
            prose, math = page_text(built.read_text(encoding="utf-8"))
            for variant, use, where in _hits(prose, banned):
                found.append(f"docs/{lang}/{page} (built page): {variant!r} in «{where}» — use {use}")
            if page in NOT_GROUPING_CHECKED or separator == ",":
                continue
            for formula in math:
                for m in _COMMA_GROUPED.finditer(formula):
                    found.append(f"docs/{lang}/{page} (math): {m.group(0)!r} groups its digits with a comma; this "
                                 f"language groups with {_SEPARATOR_NAMES.get(separator, repr(separator))}")
    return found


_SVG_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.S)


def _labels(code: str) -> dict[str, list[str]]:
    """String constants of a snippet's code under a dict key that is a language (``LABELS = {"zh": {...}}``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    out: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value in _SITE.languages:
                    out.setdefault(key.value, []).extend(
                        n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return out


def outside_prose_problems(docs: Path = _SITE.docs, snippets: Path = SNIPPETS,
                           figures: tuple[Path, ...] | None = None,
                           nav_titles: dict[str, list[str]] | None = None) -> list[str]:
    """Banned variants where prose checks do not look: figure and diagram text, nav titles, snippets' label
    dictionaries and notebooks' markdown cells (each in its own language)."""
    figures = figures or (docs / "assets" / "figures", docs / "assets" / "diagrams")
    banned = {lang: _SITE.strings.get(lang, {}).get("banned_terms") or {} for lang in _SITE.languages}
    found = []
    for folder in figures:
        for svg in sorted(folder.glob("*.svg")) if folder.is_dir() else []:
            lang = svg.suffixes[-2].lstrip(".") if len(svg.suffixes) >= 2 else None
            if lang not in banned:
                continue
            text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", t)) for t in _SVG_TEXT.findall(svg.read_text("utf-8")))
            for variant, use, where in _hits(text, banned[lang]):
                found.append(f"{svg.relative_to(folder.parent.parent.parent).as_posix()}: {variant!r} in «{where}» — use {use}")
    for lang, titles in (_SITE.nav_titles if nav_titles is None else nav_titles).items():
        for title in titles:  # each title alone: two titles side by side are no phrase
            for variant, use, where in _hits(title, banned[lang]):
                found.append(f"mkdocs.yml: nav title {where!r} ({lang}) holds {variant!r} — use {use}")
    for path in sorted(snippets.rglob("*.md")):
        rel = f"snippets/{path.relative_to(snippets).as_posix()}"
        code = "\n".join(re.findall(r"^```python\n(.*?)^```$", path.read_text(encoding="utf-8"), re.S | re.M))
        for lang, strings in _labels(code).items():
            for variant, use, where in _hits("\n".join(strings), banned[lang]):
                found.append(f"{rel}: label {where!r} ({lang}) holds {variant!r} — use {use}")
    for lang in _SITE.languages:
        for nb in sorted((docs / lang / "notebooks").glob("*.ipynb")):
            cells = json.loads(nb.read_text(encoding="utf-8")).get("cells", [])
            text = "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown")
            for variant, use, where in _hits(text, banned[lang]):
                found.append(f"docs/{lang}/notebooks/{nb.name}: {variant!r} in «{where}» — use {use}")
    return found


def main() -> int:
    found = problems() + outside_prose_problems()
    site = _SITE.root / "site"
    if "--built" in sys.argv[1:]:
        found += rendered_problems(site)
    print("\n".join(found) or "no banned variants")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
