"""Chinese typesetting at build time, on the Chinese pages (zh-style.md, "Typesetting").

The Markdown source wraps lines and puts spaces where an English writer would; a browser renders
every source line break and space, so Chinese text showed "宽度， FFN" and "**标量。** 每层".
On the HTML of each Chinese page, outside ``<pre>``, ``<code>``, ``<script>`` and ``<math>``:

* no white space touches full-width punctuation (，。；：、（）“”‘’！？《》——…), even with tags
  between them (``<strong>标量。</strong> 每层``);
* no white space stands between two Chinese characters (a wrapped source line, or a space around
  a tag: ``见 <a>残差</a> 一章`` → ``见<a>残差</a>一章``);
* a number grouped with spaces (``2 099 712``, zh-style.md) keeps its groups on one line: the spaces
  become narrow no-break spaces (U+202F);
* an inline formula (or inline code without spaces) and the full-width punctuation that touches it are wrapped in
  ``<span class="rn-nobr">`` (``white-space: nowrap`` in site.css), so no line starts with "，"
  or "。" after a formula.

``check(html)`` lists what is left, and what no hook can fix because it is a matter of wording
(zh-style.md): a single "—" used as a separator (the dash is ——), a range written with "–" (～ or 至),
a number in programmer's e-notation (3.9e-04: write 3.9×10⁻⁴) or printf's ``10^1`` in prose, "0.010 对
0.006" for "against", a question heading without ？, and a number of five digits or more in a formula
not grouped (``66048``: write it with a thin space, ``66\\,048`` in TeX). tests/test_reader_hooks.py runs it on every built Chinese page.
"""

from __future__ import annotations

import functools
import html as html_lib
import re
import sys
from pathlib import Path

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

CJK = "\u2e80-\u2fff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
PUNCT = "，。；：、（）“”‘’！？《》〈〉【】「」『』—…～\u3000"
_TAGS = r"(?:<(?!rn-keep )[^<>]+>)*"  # tags, but not a kept element (code keeps its spaces)
_KEEP = re.compile(r"(<(pre|code|script|textarea|math|style)\b.*?</\2>)", re.S)
_SPACE = r"[ \t\n]+"
_AFTER_PUNCT = re.compile(f"([{PUNCT}])({_TAGS}){_SPACE}")
_BEFORE_PUNCT = re.compile(f"{_SPACE}({_TAGS})(?=[{PUNCT}])")
_BETWEEN_CJK = re.compile(f"(?<=[{CJK}])({_TAGS}){_SPACE}({_TAGS})(?=[{CJK}])")
# a formula with the punctuation on either side of it
LONG_CODE = 24  # characters: longer inline code may break inside itself on a 390 px phone
_OPEN = "（“‘《"
_CLOSE = "，。；：、）”’！？》"
_MATH_PUNCT = re.compile(f"([{_OPEN}]*)(<math\\b(?:(?!</math>).)*</math>|<code\\b(?:(?!</code>).)*</code>)([{_CLOSE}]*)",
                         re.S)
# a long formula that gets its own line on phones (hooks/math.py) takes its punctuation along
_WIDE_PUNCT = re.compile(f'(<span class="rn-math-wide">(?:(?!</math>).)*</math>)</span>([{_CLOSE}]+)', re.S)


_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d]|[.,]\d)")
_TEXT_NODE = re.compile(r"(?:^|(?<=>))[^<>]+")


def _text(part: str) -> str:
    part = _AFTER_PUNCT.sub(r"\1\2", part)
    part = _BEFORE_PUNCT.sub(r"\1", part)
    part = _BETWEEN_CJK.sub(r"\1\2", part)
    return _TEXT_NODE.sub(lambda t: _GROUPED.sub(lambda m: m.group(0).replace(" ", "\u202f"), t.group(0)), part)


def typeset(html: str) -> str:
    # 1. spaces, outside kept elements (a kept element counts as a tag for the patterns)
    parts = _KEEP.split(html)
    out, kept = [], []
    for i in range(0, len(parts), 3):
        out.append(parts[i])
        if i + 1 < len(parts):
            kept.append(parts[i + 1])
            out.append(f"<rn-keep {len(kept) - 1}>")
    text = _text("".join(out))
    text = re.sub(r"<rn-keep (\d+)>", lambda m: kept[int(m.group(1))], text)

    # 2. a formula and its punctuation break as one
    def nobr(m: re.Match) -> str:
        if not (m.group(1) or m.group(3)):
            return m.group(0)
        if m.group(2).startswith("<code") and re.search(r"\s", re.sub(r"<[^>]+>", "", m.group(2))):
            return m.group(0)  # code with spaces must keep wrapping (a phone line is short)
        if m.group(2).startswith("<code") and len(re.sub(r"<[^>]+>", "", m.group(2))) > LONG_CODE:
            return m.group(0)  # long code breaks inside itself (Material's word-break), or it would overflow a phone
        return f'<span class="rn-nobr">{m.group(0)}</span>'

    pieces = re.split(r"(<pre\b.*?</pre>)", text, flags=re.S)
    for i in range(0, len(pieces), 2):
        pieces[i] = _MATH_PUNCT.sub(nobr, _WIDE_PUNCT.sub(r"\1\2</span>", pieces[i]))
    return "".join(pieces)


_BLOCK_TAG = re.compile(r"</?(?:p|li|ul|ol|div|h[1-6]|t[dhr]|table|thead|tbody|figure|figcaption|details|summary|aside|footer"
                        r"|d[ldt]|br|hr|blockquote|section|nav|article|img|svg|label|input|button)\b")
_CHECKS = (
    (re.compile(f"[{PUNCT}]({_TAGS}){_SPACE}({_TAGS})"), "space after full-width punctuation"),
    (re.compile(f"({_TAGS}){_SPACE}({_TAGS})[{PUNCT}]"), "space before full-width punctuation"),
    (re.compile(f"[{CJK}]({_TAGS}){_SPACE}({_TAGS})[{CJK}]"), "space between Chinese characters"),
)


# wording, on the text a reader sees (tags removed; code, formulas and quotations of the source articles kept out)
_WORDING = (
    (re.compile(r"(?<!—)—(?!—)"), "a single “—” as a separator (write ——, or ：)"),
    (re.compile(r"[\d)）]\s*–\s*[\d(（]"), "a range written with “–” (write ～ or 至)"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-+]\d+\b"), "a number in e-notation in prose (write 3.9×10⁻⁴)"),
    (re.compile(r"\b10\^[-−]?\d"), "printf's 10^n in prose (write the number, or ×10ⁿ)"),
    (re.compile(r"\d[\d.%]*\s*对\s*[-−]?\d"), "“A 对 B” for “A against B” (write “A，而 B 是 …” or “A 与 B”)"),
)
_QUESTION = re.compile(r"为什么|怎么|怎样|如何|哪|吗|多少|什么")
_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.S)
_PERMALINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
_QUOTED_SOURCE = re.compile(r"<blockquote\b.*?</blockquote>", re.S)  # a source article's words keep its punctuation
_MATH_NUMBER = re.compile(r"<mn>(\d{5,})</mn>")


def _plain(html: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", html))


def check(html: str) -> list[str]:
    """What is left in a built page: each a short excerpt of the text around the defect.

    White space next to a block-level tag is not drawn, so it is no defect."""
    body = html.split("<article", 1)[-1].split("</article>", 1)[0]
    parts = _KEEP.split(body)
    problems = []
    for i in range(0, len(parts), 3):
        text = parts[i]
        for pattern, what in _CHECKS:
            for m in pattern.finditer(text):
                if _BLOCK_TAG.search(m.group(1) + m.group(2)):
                    continue
                excerpt = re.sub(r"<[^>]*>?|^[^<>]*>", "", text[max(0, m.start() - 12):m.end() + 12])
                problems.append(f"{what}: …{excerpt.strip()}…")
    prose = _plain(_QUOTED_SOURCE.sub(" ", "".join(parts[i] if i % 3 == 0 else " " for i in range(len(parts)))))
    for pattern, what in _WORDING:
        for m in pattern.finditer(prose):
            problems.append(f"{what}: …{prose[max(0, m.start() - 12):m.end() + 12].strip()}…")
    for m in _HEADING.finditer(body):  # a chapter's title (h1) names a topic: "为什么深层网络难训练"
        title = _plain(_PERMALINK.sub("", m.group(2))).strip()
        if m.group(1) != "1" and _QUESTION.search(title) and "？" not in title:
            problems.append(f"a question heading without ？: …{title}…")
    for m in _MATH_NUMBER.finditer(body):
        problems.append(f"a number of five digits or more not grouped in a formula (\\, between groups): …{m.group(1)}…")
    return problems


SCRIPT = "han"  # the languages whose extra.strings.script is this are typeset here


# A page whose HTML did not change since the last build in this process (every page but the edited ones
# on a `mkdocs serve` reload) is typeset once; 128 pages at most are kept.
_typeset_once = functools.lru_cache(maxsize=128)(typeset)


def on_page_content(html: str, page, config, **kwargs) -> str:
    facts = site_facts.from_config(config)
    return _typeset_once(html) if facts.text(facts.lang_of(page.file.src_uri), "script") == SCRIPT else html
