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

``python -m tools.terms`` prints every problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hooks import site_facts
from tools import numbers, sources

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
            found += _scan(text, name, _SITE.strings.get(lang, {}).get("banned_terms") or {}, regex=False)
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


def main() -> int:
    found = problems()
    print("\n".join(found) or "no banned variants")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
