"""Every number in prose is bound to evidence the reader can see on the same page.

A number in the prose of a page the nav lists (``docs/<lang>/<page>.md``, in a subfolder too, every
language) must be one of

1. **printed**: a block included on the page (``--8<-- "…"``) prints it in its verified output, exactly
   or as a correct rounding (see *Rounding* below);
2. **cited**: its unit (sentence, table cell, or a quotation with the sentence around it) links to an
   entry of the references page (``references.md#key``), e.g. ``[He et al. 2016a](references.md#he2016a)``
   or ``[Article 2](references.md#article2)`` for the two source articles;
3. **derived**: it appears (exactly or as a rounding) in a formula on the page, inline ``\\( … \\)`` or
   display ``$$ … $$``.

The reader can tell which from the page itself: the output block, the link, or the formula.

Which numbers are checked
    - decimals (``0.81``), scientific notation (``1.4e-39``, ``1.72e+05``), percentages (``27.6%``),
      multipliers (``40×``, ``40x``, ``1.3 倍``, ``3 times``, ``10-fold``), fractions (``1/8``);
    - integers of 1000 or more, including grouped ones (``20 000``, ``20,000``) and ``2 万``;
    - any integer after an approximation word (``about 100``, ``roughly 25``, ``约 238``), and any
      integer from 10 up after a comparison (``more than 20``, ``超过 30``): an approximate number is a
      measurement; a comparison with a small integer is a threshold (``a gain below 1``, ``fewer than
      5 layers``, ``小于 1``) and is not checked;
    - multiplier words: ``N times`` before a comparative (``a hundred times larger``, ``three thousand
      times the``), ``twice as``/``twice the``, ``N orders of magnitude``, ``三倍``, ``一百倍``, ``三千多倍``,
      ``四个数量级``; the verbs ``doubles``/``triples``/``quadruples``/``halves``/``翻倍``/``减半`` only after an
      approximation or comparison word (``roughly triples``): alone they state an exact factor of an
      argument ("the ReLU halves the second moment"), and ``appears three times`` is a count;
    - numbers written in words: ``87 percent``/``per cent``, ``eighty-seven percent``, ``百分之八十七``, ``百分之 87``, ``三成`` (percentages);
      ``七点八`` (a decimal); ``tenfold``, ``a two-fold``, ``翻三倍``, ``翻两番`` (multiplier words); and shares after
      an approximation or comparison word (``about a third of``, ``nearly half of``, ``约有一半``, ``约三分之一``), which
      bind within a tenth of themselves to a printed or derived number or percentage (``about a quarter`` and a
      printed ``25.4%``) or to the ratio of two counts in their unit; alone, ``一半``/``half of`` is an exact factor
      or an idiom (``ReLU 丢掉一半的二阶矩``, ``只对了一半``) and is not checked;
    - a count stated as a measurement: ``N`` in ``N of M`` (``9 of 10 components``) and in
      ``M 个…中/里（有）N 个`` (``10 个分量里只有 1 个``).

    A bare integer below 1000 with none of these marks (``10 layers``, ``500 seeds``, ``width 4``) is a
    setting or a count of a setting and is not checked.

What is not prose (excluded by rule, each rule tested in ``tests/test_numbers.py``)
    R1 code: fenced blocks, inline code (`` `lr=0.05` ``), include lines, HTML tags and comments;
    R2 math: numbers inside ``\\( … \\)``, ``\\[ … \\]`` and ``$$ … $$`` (they are evidence, rule 3);
    R3 link targets, attribute lists (``{ #id }``, ``{ .figure }``), footnote markers, emoji shortcodes;
    R4 identifiers: digits joined to letters (``ResNet-110``, ``plain-10``, ``float32``, ``V2``, ``2016a``,
       ``3D``);
    R5 references to parts of a document: a number after ``§``, Section/Sec., Fig./Figure(s), Table(s),
       Eq./Equation(s), footnote, Lemma, Theorem, Appendix, Chapter, Algorithm, 第 … 节/章/步/行,
       图/表/式/公式/脚注/引理/定理/附录, and the numbers listed after it (``Fig. 1/4``, ``图 1、图 6``);
    R6 years: a plain integer 1900–2039 with no mark of rule "checked";
    R7 versions: ``x.y.z``, and a number right after a software name (Python, PyTorch, torch, NumPy,
       MkDocs, Material, CUDA, …) or ``version``/``版本``;
    R8 identifiers of papers: a number after ``arXiv:`` or ``doi:``;
    R9 list ordinals: the marker of an ordered list item (``1.``, ``2)``), and ``2、`` ordinals;
    R10 shapes: both numbers of ``64×64``, ``512 × 2048``.

    The references page (``references.md``) is bibliographic data (volumes, pages, arXiv ids) and is not
    checked; the glossary and the home page are.

Units
    A sentence ends at 。！？ (Chinese) or at . ! ? ; before a capital (English, not after e.g., et al.,
    Fig. …); a quotation (“…”, "…", （…）) never splits its sentence, and a parenthesis right after the full
    stop belongs to it. A table cell is its own unit; a citation in the header row covers the whole table,
    one in a row's first cell covers the row. An admonition's title and its first paragraph are one unit
    (a ``claim`` admonition names the claim in its title and quotes it below, ending with the citation).

Multipliers
    A multiplier (``40×``, ``1.3 倍``, ``triples``, ``four orders of magnitude``) also binds to the ratio of
    two other measurements stated in its own unit: ``roughly triples (0.0085 → 0.0248)``. A multiplier
    *word* binds only that way, or by a citation: it is too coarse to be matched against any printed
    number on the page. So does a small whole multiplier (``4×``, ``8 倍``, ``40 times``: an integer below
    100), unless an output prints it as a factor (``40.2x``, ``3 ×``) or the page's math has it: a
    printed ``40`` in a table header says nothing about a ratio.

Rounding
    A prose number ``p`` written with precision ``q`` (``0.81`` → 0.01; ``238`` → 1; ``20 000`` → 10 000,
    the place of its last non-zero digit; ``1.4e-39`` → 1e-40; ``28%`` → 1) is a rounding of a printed or
    formula number ``x`` when ``|x − p| ≤ q/2`` and ``x`` is written at least as precisely as ``p``
    (printed ``0.8`` does not bind prose ``0.80``). Units do not convert: ``27.6%`` binds printed
    ``27.6%`` or ``27.6``, never ``0.276``. Signs: a prose number written with ``−``/``-`` needs a negative
    printed number, one written with ``+`` a non-negative one; an unsigned prose number compares by
    magnitude (``falls by 0.3`` for a printed ``-0.3``). After ``more than``/``exceeds``/``超过``/``大于``
    ``x`` must be larger than ``p`` and truncate to it; after ``less than``/``fewer than``/``不到``/``小于``
    it must be smaller and round up to it ("over" and "below" are prepositions too often to count). ``N orders of magnitude`` binds ``x`` with ``|log10 x − N| ≤ 0.5``.

Run ``python -m tools.checks.numbers`` (all pages; exit 1 when a number is unbound), ``python -m tools.checks.numbers
docs/en/ffn-design.md``, ``--summary`` (counts per page and per kind of evidence) or ``--explain`` (how each
number is bound: printed, cited, math, ratio).

Known limits: evidence is page-wide, as promised, so a number can be bound by a printed number that
happens to be equal (``--explain`` shows which kind bound it); bare integers below 1000 are not checked
unless marked as above; spelled-out numerals other than those listed above (``十几万``, ``eighty-seven layers``) are not
read (except before ``percent``); ``翻三倍`` is read as a factor of 3 (usage differs: some read it as 4).
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from pathlib import Path

from hooks import site_facts
from tools import sources

_SITE = site_facts.load()

SNIPPETS = _SITE.root / "snippets"
MARKER = "<!--pytest-codeblocks:expected-output-->"
NOT_CHECKED = ("references.md",)


# --------------------------------------------------------------------------- numbers and rounding


@dataclass(frozen=True)
class Num:
    """A number as written: its value, the precision it is written with, and its sign mark."""

    value: Decimal
    precision: Decimal
    sign: str = ""          # "-", "+" or "" (unsigned)
    text: str = ""
    magnitude: bool = False  # "N orders of magnitude": compare log10

    @property
    def abs(self) -> Decimal:
        return abs(self.value)


_SUPERSCRIPT = str.maketrans("⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹", "-+0123456789")


def parse_number(text: str) -> Num:
    """``"0.81"``, ``"−1.4e-39"``, ``"20 000"``, ``"20,000"``, ``"+3.1"`` → value and precision."""
    t = text.strip().replace("−", "-").replace("\u2212", "-")
    sign = ""
    if t[:1] in "+-":
        sign, t = t[0], t[1:]
    t = re.sub(r"[ \u00a0\u202f\u2009,]", "", t)
    t = re.sub(r"×10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)$", lambda m: "e" + m.group(1).translate(_SUPERSCRIPT), t)  # 3.9×10⁻⁴
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?", t)
    if not m:
        raise ValueError(f"not a number: {text!r}")
    whole, frac, exp = m.group(1), m.group(2) or "", int(m.group(3) or 0)
    value = Decimal(whole + ("." + frac if frac else "")).scaleb(exp)
    if frac:
        precision = Decimal(1).scaleb(exp - len(frac))
    elif exp:
        precision = Decimal(1).scaleb(exp)
    else:
        zeros = len(whole) - len(whole.rstrip("0")) if whole.strip("0") else 0
        precision = Decimal(1).scaleb(zeros)
    if sign == "-":
        value = -value
    return Num(value, precision, sign, text)


def printed_precision(text: str) -> Decimal:
    """Precision of a printed or formula number: trailing zeros of an integer are exact digits."""
    t = re.sub(r"[ \u00a0\u202f\u2009,]", "", text.replace("−", "-").lstrip("+-"))
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?", t)
    frac, exp = (m.group(2) or ""), int(m.group(3) or 0)
    return Decimal(1).scaleb(exp - len(frac))


def binds(prose: Num, x: Decimal, x_precision: Decimal, cue: str = "") -> bool:
    """Is the evidence number ``x`` (written with ``x_precision``) what the prose number says?"""
    if prose.sign == "-" and x >= 0:
        return False
    if prose.sign == "+" and x < 0:
        return False
    p, ax = prose.abs, abs(x)
    if prose.magnitude:
        return ax > 0 and abs(Decimal(math.log10(ax)) - p) <= Decimal("0.5")
    if x_precision > prose.precision:
        return False
    q = prose.precision
    if cue == "more":
        return ax > p and (ax / q).to_integral_value(ROUND_FLOOR) * q == p
    if cue == "less":
        return ax < p and (ax / q).to_integral_value(ROUND_CEILING) * q == p
    return abs(ax - p) <= q / 2


# --------------------------------------------------------------------------- evidence on a page

_NUM_IN_OUTPUT = (re.compile(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"),
                  re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\d])"))


def _numbers_in(text: str) -> list[tuple[Decimal, Decimal]]:
    found = []
    for m in (m for rx in _NUM_IN_OUTPUT for m in rx.finditer(text)):
        s = m.group(0)
        try:
            n = parse_number(s)
        except ValueError:
            continue
        found.append((n.value, printed_precision(s)))
    return found


def snippet_output(path: Path) -> str:
    """The verified output of a snippet file: the fence after the expected-output marker."""
    text = path.read_text(encoding="utf-8")
    out = []
    for part in text.split(MARKER)[1:]:
        m = re.search(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", part, re.S | re.M)
        if m:
            out.append(m.group(2))
    return "".join(out)


_MATH = re.compile(r"\$\$(.+?)\$\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_HTML_POWER = re.compile(r"(\d+(?:\.\d+)?)<sup>([-−]?\d+)</sup>")
_TEN_POWER = re.compile(r"(?:(\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|×)\s*)?10\^\{?\s*([-−]?\d+)\s*\}?")


def math_numbers(text: str) -> list[tuple[Decimal, Decimal]]:
    found = []
    for m in _MATH.finditer(text):
        body = next(g for g in m.groups() if g is not None)
        found += _numbers_in(body)
        for t in _TEN_POWER.finditer(body):
            mant = Decimal(t.group(1) or 1)
            exp = int(t.group(2).replace("−", "-"))
            frac = len(t.group(1).split(".")[1]) if t.group(1) and "." in t.group(1) else 0
            found.append((mant.scaleb(exp), Decimal(1).scaleb(exp - frac)))
    for m in _HTML_POWER.finditer(text):
        base, exp = Decimal(m.group(1)), int(m.group(2).replace("−", "-"))
        if base == 10:
            found.append((Decimal(1).scaleb(exp), Decimal(1).scaleb(exp)))
    return found


# --------------------------------------------------------------------------- prose: masking and units


def _blank(chars: list[str], start: int, end: int, mark: str = "") -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "
    if mark and end > start:
        chars[start] = mark


_FENCED = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.S | re.M)
_MASKS = [
    (re.compile(r"<!--.*?-->", re.S), ""),                                       # R1 HTML comments
    (re.compile(r"^[ \t]*-{1,}8<-{1,}.*$", re.M), ""),                            # R1 include lines
    (re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S), "∎"),                             # R1 inline code
    (re.compile(r"</?[A-Za-z][^>\n]*>"), ""),                                     # R1 HTML tags
    (re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"), ""),                         # R3 link targets
    (re.compile(r"\{[ \t]*[#.:][^}\n]*\}"), ""),                                  # R3 attribute lists
    (re.compile(r"\[\^[^\]]+\]:?"), ""),                                          # R3 footnote markers
    (re.compile(r":(?:material|fontawesome|octicons|simple)-[a-z0-9-]+:"), ""),   # R3 emoji
    (re.compile(r"^[ \t]*(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*[ \t]*\"?", re.M), ""),  # admonition marker
    (re.compile(r"^[ \t]*(?:#{1,6}|=== \"?)", re.M), ""),                         # heading / tab markers
    (re.compile(r"^([ \t]*)\d+[.)][ \t]", re.M), ""),                             # R9 ordered list markers
]
_CITE = re.compile(r"\]\((?:\.\./)?references\.md#[\w-]+\)")


@dataclass
class Unit:
    start: int
    end: int
    text: str
    cited: bool


def mask(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The page with everything that is not prose blanked out (offsets and newlines kept)."""
    chars = list(text)
    for m in _FENCED.finditer(text):
        _blank(chars, m.start(), m.end())
    spans = []
    masked = "".join(chars)
    for rx in (_MATH, _HTML_POWER):                                               # R2 math
        for m in rx.finditer(masked):
            spans.append((m.start(), m.end()))
            _blank(chars, m.start(), m.end(), "∎")
    masked = "".join(chars)
    for rx, mark in _MASKS:
        for m in rx.finditer(masked):
            if rx.pattern.startswith("\\]\\("):
                _blank(chars, m.start(), m.end())
            else:
                _blank(chars, m.start(), m.end(), mark)
        masked = "".join(chars)
    return masked, spans


_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+][ \t]|\d+[.)][ \t])")
_BREAK_ZH = "。！？"
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|et al|vs|cf|Fig|Figs|Eq|Eqs|Sec|No|approx|resp|etc)|\b[A-Z])\.$")
_OPEN = {"“": "”", "「": "」", "（": "）", "(": ")"}


def units(text: str, masked: str) -> list[Unit]:
    """Sentences, table cells and quotations (a quotation never splits its sentence).

    An admonition's title and its first paragraph are one unit: a ``claim`` admonition names the claim
    in its title and quotes it in the paragraph below, which ends with the citation.

    A table cell is its own unit; a citation in a table's header row covers the whole table, and a
    citation in a row's first cell covers that row (the row quotes the work it names).
    """
    cites = [m.start() for m in _CITE.finditer(text)]

    def cited(a: int, b: int) -> bool:
        return any(a <= c < b for c in cites)

    blocks: list[tuple[int, int]] = []
    covered: list[tuple[int, int]] = []   # spans whose cells count as cited (tables)
    table: list[tuple[int, int, list[tuple[int, int]]]] = []

    def end_table() -> None:
        if not table:
            return
        header = table[0]
        whole = cited(header[0], header[1])
        for r0, r1, cells in table:
            if whole or (cells and cited(*cells[0])):
                covered.append((r0, r1))
            blocks.extend(cells)
        table.clear()

    pos, start = 0, None
    for line in masked.splitlines(keepends=True):
        end = pos + len(line)
        stripped = line.strip()
        raw = text[pos:end].lstrip()
        is_table = raw.startswith("|")
        new_block = (not stripped or is_table or _LIST_ITEM.match(text[pos:end])
                     or raw.startswith(("#", "!!!", "???")))
        if new_block and start is not None:
            blocks.append((start, pos))
            start = None
        if is_table:
            cells, cell = [], None
            for i in range(pos, end):
                if masked[i] == "|":
                    if cell is not None and masked[cell:i].strip():
                        cells.append((cell, i))
                    cell = i + 1
            if cell is not None and masked[cell:end].strip():
                cells.append((cell, end))
            table.append((pos, end, cells))
        else:
            end_table()
            if stripped:
                if start is None:
                    start = pos
                if raw.startswith("#"):   # a heading is a unit; an admonition title joins its first paragraph
                    blocks.append((start, end))
                    start = None
        pos = end
    end_table()
    if start is not None:
        blocks.append((start, pos))

    found = []
    for b0, b1 in blocks:
        s0, stack, straight = b0, [], False
        i = b0
        while i < b1:
            c = masked[i]
            if c in _OPEN:
                stack.append(_OPEN[c])
            elif stack and c == stack[-1]:
                stack.pop()
            elif c == '"':
                straight = not straight
            elif not stack and not straight:
                cut = None
                if c in _BREAK_ZH:
                    cut = i + 1
                elif c in ".!?;" and i + 1 < b1 and masked[i + 1] in " \n" and not _ABBREV.search(masked[s0:i + 1]):
                    nxt = masked[i + 1:b1].lstrip()
                    if nxt and (nxt[0].isupper() or nxt[0] in "“\"∎*[`"):
                        cut = i + 1
                if cut is not None:
                    rest = masked[cut:b1].lstrip()
                    if not rest.startswith(("(", "（")):
                        found.append((s0, cut))
                        s0 = cut
            i += 1
        if masked[s0:b1].strip():
            found.append((s0, b1))
    return [Unit(a, b, masked[a:b], cited(a, b) or any(r0 <= a < r1 for r0, r1 in covered)) for a, b in found]


# --------------------------------------------------------------------------- numbers in prose

_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_EN_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
             "thirteen": 13, "fourteen": 14, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
             "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
             "thousand": 1000, "million": 1000000}


def zh_numeral(s: str) -> int:
    total, cur = 0, 0
    for ch in s:
        if ch in _ZH_DIGITS:
            cur = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            total += (cur or 1) * _ZH_UNITS[ch]
            cur = 0
    return total + cur


def en_numeral(words: str) -> int:
    total, cur = 0, 0
    for w in words.lower().split():
        v = _EN_WORDS[w]
        if v >= 100:
            cur = (cur or 1) * v
            if v == 1000:
                total, cur = total + cur, 0
        else:
            cur += v
    return total + cur


_NUMBER = (r"(?P<num>(?:(?<![\w.])[-−+])?(?:\d+(?:\.\d+)?×10[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
           r"|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?!\d|\.\d)"
           r"|\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:\.\d+)?(?:[eE][-−+]?\d+)?))")
_TOKEN = re.compile(_NUMBER + r"(?P<frac>/\d+(?!\d|\.\d))?"
                    r"(?P<unit>\s?%|\s+per\s?cent\b|\s+pct\b|\s?×|x(?![A-Za-z0-9])|\s?倍|\s?万|\s+times\b|-?fold\b"
                    r"|\s+orders?\s+of\s+magnitude)?")
_ENW = "|".join(sorted(_EN_WORDS, key=len, reverse=True))
_COMPARATIVE = (r"(?:larger|smaller|bigger|higher|lower|greater|more|less|fewer|faster|slower|longer|shorter|"
                r"wider|narrower|as\b|the\b)")
_WORD_MULT = re.compile(
    r"\b(?P<twice>twice)(?=\s+(?:as|the)\b)|\b(?P<double>doubles|doubled|doubling)\b"
    r"|\b(?P<triple>triples|tripled|tripling)\b|\b(?P<quad>quadruples|quadrupled)\b"
    r"|\b(?P<half>halves|halved|halving)\b"
    rf"|\b(?P<entimes>(?:(?:{_ENW})\s+)+)times(?=\s+{_COMPARATIVE})"
    rf"|\b(?P<enorders>(?:{_ENW}))\s+orders?\s+of\s+magnitude\b"
    r"|(?<!翻)(?P<zhtimes>[一二两三四五六七八九十百千万]+)(?P<zhmore>多|余)?\s?倍|(?P<fanbei>翻一?倍|翻了一倍|翻一番|减半)"
    r"|(?P<zhorders>[一二两三四五六七八九十]+)个数量级")
# Numbers written in words that are measurements as surely as digits (each bound like its digit form):
# percentages (百分之八十七, 百分之 87, 三成), Chinese decimals (七点八), multiplier words (tenfold, threefold,
# 翻三倍, 翻两番), and shares (一半, a third, two thirds, three quarters, half of).
_ZHN = "零一二两三四五六七八九十百千万"
_ENW_NUMBER = "|".join(sorted(set(_EN_WORDS) - {"a", "an"}, key=len, reverse=True))
_WORD_NUMBER = re.compile(
    rf"百分之\s*(?P<zhpct>[{_ZHN}]+(?:点[{_ZHN}]+)?|\d+(?:\.\d+)?)"
    rf"|(?<![{_ZHN}])(?P<zhdec>[{_ZHN}]+点[零一二三四五六七八九]+)(?!点)"
    r"|(?<![零一二两三四五六七八九十百千万])(?P<zhcheng>[一二两三四五六七八九])成(?!不变|员|功|为|立|长|本|绩|果|分|熟|型|形|就|像|组|年|人|都)"
    rf"|翻了?(?P<zhfanbei>[二两三四五六七八九十百千]+)倍|翻了?(?P<zhfanfan>[一二两三四五六七八九十])番"
    rf"|\b(?:an?\s+)?(?P<enfold>(?:(?:{_ENW_NUMBER})[\s-]?)+)fold\b"
    rf"|\b(?P<enpct>(?:{_ENW_NUMBER})(?:[\s-](?:and\s)?(?:{_ENW_NUMBER}))*)\s+per\s?cent\b"
    r"|(?P<zhhalf>一半)|(?<![百千万])(?P<zhden>[二三四五六七八九十])分之(?P<zhnum>[一二两三四五六七八九])"
    r"|\b(?P<enshare>(?:a|one|two|three)\s+(?:thirds?|quarters?|fifths?|tenths?)|(?<!first )(?<!second )(?<!other )half)"
    r"(?=\s+of\b)", re.I)
_SHARES = {"third": 3, "quarter": 4, "fifth": 5, "tenth": 10}
# The cues that make a share a measurement ("only half", "只有一半" state an exact factor as often as not).
_SHARE_CUE = re.compile(r"(?:about|around|roughly|nearly|almost|approximately|more than|less than|fewer than|"
                        r"at least|at most|约有|约|大约|大概|将近|近|接近|至少|最多|超过|不到)\s*$", re.I)


def _zh_value(s: str) -> tuple[Decimal, Decimal]:
    """A Chinese numeral with an optional 点 decimal part, and the precision it is written with."""
    whole, _, frac = s.partition("点")
    digits = "".join(str(_ZH_DIGITS[c]) for c in frac if c in _ZH_DIGITS)
    value = Decimal(zh_numeral(whole) if whole else 0) + (Decimal(f"0.{digits}") if digits else 0)
    return value, Decimal(1).scaleb(-len(digits)) if digits else Decimal(1)


def _word_numbers(masked: str) -> list[Found]:
    found = []
    for m in _WORD_NUMBER.finditer(masked):
        g = next(k for k, v in m.groupdict().items() if v is not None)
        word, before = m.group(0), masked[max(0, m.start() - 40):m.start()]
        cue = _cue(before)
        if g == "zhpct":
            t = m.group("zhpct")
            v, q = (Decimal(t), printed_precision(t)) if t[0].isdigit() else _zh_value(t)
            found.append(Found(Num(v, q, "", word), m.start(), "percent", cue))
        elif g == "enpct":
            found.append(Found(Num(Decimal(en_numeral(re.sub(r"[-\s]+(?:and\s+)?", " ", m.group(g)))), Decimal(1), "",
                                   word), m.start(), "percent", cue))
        elif g == "zhdec":
            v, q = _zh_value(m.group("zhdec"))
            found.append(Found(Num(v, q, "", word), m.start(), "decimal", cue))
        elif g == "zhcheng":
            found.append(Found(Num(Decimal(_ZH_DIGITS[m.group("zhcheng")] * 10), Decimal(10), "", word), m.start(),
                               "percent", cue))
        elif g in ("zhfanbei", "enfold"):
            v = zh_numeral(m.group(g)) if g == "zhfanbei" else en_numeral(m.group(g).replace("-", " "))
            q = Decimal(1).scaleb(len(str(v)) - len(str(v).rstrip("0")))
            found.append(Found(Num(Decimal(v), q, "", word), m.start(), "multiplier word", cue))
        elif g == "zhfanfan":
            found.append(Found(Num(Decimal(2 ** zh_numeral(m.group(g))), Decimal(1), "", word), m.start(),
                               "multiplier word", cue))
        else:  # a share: 一半, 三分之一, half of, a third of, three quarters of; like "halves", only after a cue
            cue = _cue(before) if _SHARE_CUE.search(before) else ""
            if not cue:  # "ReLU 丢掉一半的二阶矩", "只对了一半", "half of the story": an exact factor or an idiom
                continue
            text = word.lower().split()
            if g == "zhden":
                v = Decimal(zh_numeral(m.group("zhnum"))) / zh_numeral(m.group("zhden"))
            elif len(text) == 1:
                v = Decimal("0.5")
            else:
                v = Decimal(en_numeral(text[0])) / _SHARES[text[1].rstrip("s")]
            # a share in words is coarse: "about a third" reads as 30-37 %, so it binds within a tenth of itself
            found.append(Found(Num(v, v / 5, "", word), m.start(), "share", cue))
    return found
_VERB_GROUPS = ("double", "triple", "quad", "half", "fanbei")
_MORE = re.compile(r"(?:more than|greater than|larger than|exceeds?|exceeding|超过|大于|高于|多于)\s*$", re.I)
_LESS = re.compile(r"(?:less than|fewer than|smaller than|不到|小于|低于|少于|不足)\s*$", re.I)
_APPROX = re.compile(r"(?:about|around|roughly|nearly|almost|approximately|some|at least|at most|up to|only|just|约有|约|大约|大概|将近|近|接近|至少|最多|高达|仅|只有|约为|≈|~)\s*$", re.I)
_REF_WORD = re.compile(
    r"(?:§|\bSections?|\bSec\.|\bFigs?\.|\bFigures?|\bTables?|\bEqs?\.|\bEquations?|\bfootnotes?|\bLemmas?|"
    r"\bTheorems?|\bAppendix|\bChapters?|\bAlgorithms?|\bsteps?\b|第|图|表|式|公式|脚注|引理|定理|附录|算法)\s*$", re.I)
_REF_LIST = re.compile(r"(?:\d+(?:\.\d+)*[a-z]?\s*(?:,|/|、|and|和|与|or|–|-|\s)\s*(?:Figs?\.|Fig\.|Tables?|图|表)?\s*)+$")
_SOFTWARE = re.compile(
    r"(?:\b(?:Python|PyTorch|torch|NumPy|numpy|MkDocs|mkdocs|Material|CUDA|matplotlib|scikit-learn|sklearn|"
    r"Chromium|pytest|version|versions|v)|版本)\s*$")
_PAPER_ID = re.compile(r"(?:arXiv|doi)\s*:?\s*$", re.I)


@dataclass(frozen=True)
class Found:
    num: Num
    start: int
    kind: str
    cue: str = ""


def _cue(before: str) -> str:
    if _MORE.search(before):
        return "more"
    if _LESS.search(before):
        return "less"
    if _APPROX.search(before):
        return "approx"
    return ""


def prose_numbers(masked: str) -> list[Found]:
    """The numbers a reader reads as measurements, with the rules above applied."""
    found = []
    for m in _TOKEN.finditer(masked):
        s, e = m.start(), m.end()
        num_text = m.group("num")
        before = masked[max(0, s - 40):s]
        after = masked[e:e + 1]
        prev = masked[s - 1:s]
        unit = (m.group("unit") or "").strip()
        if prev.isalpha() or re.search(r"[A-Za-z][-_]$", before) or prev in "_" or \
                (after.isalpha() and after.isascii() and not unit):                # R4 identifiers
            continue
        if re.fullmatch(r"\d+\.\d+\.\d+", masked[s:e + 8].split()[0].rstrip(".,;:)）") if masked[s:e + 8].split() else "") \
                or re.match(r"\.\d", masked[e:e + 2]):                           # R7 x.y.z versions
            continue
        if _SOFTWARE.search(before) or _PAPER_ID.search(before):                  # R7, R8
            continue
        if _REF_WORD.search(before) or (_REF_LIST.search(before) and _REF_WORD.search(_REF_LIST.sub("", before))):
            continue                                                              # R5
        if re.match(r"、", masked[e:e + 1]) and not unit:                          # R9 "2、" ordinals
            continue
        try:
            num = parse_number(num_text)
        except ValueError:
            continue
        if m.group("frac"):
            den = Decimal(m.group("frac")[1:])
            if den == 0:
                continue
            found.append(Found(Num(num.value / den, Decimal(0), num.sign, m.group(0).strip()), s, "fraction"))
            continue
        cue = _cue(before)
        if (unit == "×" and re.match(r"\s?\d", masked[e:e + 2])) or re.search(r"\d\s?×\s?$", before):
            continue                                                              # R10 shapes: 64×64
        decimal_or_sci = "." in num_text or "e" in num_text.lower()
        if unit in ("万",):
            num = Num(num.value * 10000, num.precision * 10000, num.sign, m.group(0).strip())
        if "orders" in unit or "order" in unit:
            found.append(Found(Num(num.value, Decimal(0), "", m.group(0).strip(), magnitude=True), s, "magnitude"))
            continue
        kind = ("percent" if unit in ("%", "percent", "per cent", "pct") else "multiplier" if unit
                else "decimal" if decimal_or_sci else "integer")
        counted = bool(re.match(r"\s+(?:out\s+)?of\s+(?:the\s+|its\s+|their\s+)?\d", masked[e:e + 20])) or \
            bool(re.search(r"\d\s?个[^，。；\d]{0,10}(?:中|里)(?:有|只有)?\s?$", before) and re.match(r"\s?个", masked[e:e + 2]))
        if kind == "integer" and counted:
            kind = "count"                                    # "9 of 10 components", "10 个分量里只有 1 个"
        if kind == "integer":
            big = num.abs >= 1000
            if big and not cue and re.fullmatch(r"19\d\d|20[0-3]\d", num_text) and not num.sign:
                continue                                                          # R6 years
            if not big and (not cue or (cue in ("more", "less") and num.abs < 10)):
                continue  # a setting, or a threshold ("less than 1", "fewer than 5 layers"), not checked
        found.append(Found(Num(num.value, num.precision, num.sign, m.group(0).strip()), s, kind, cue))
    for m in _WORD_MULT.finditer(masked):
        g = next(k for k, v in m.groupdict().items() if v is not None and k != "zhmore")
        word = m.group(0)
        before = masked[max(0, m.start() - 40):m.start()]
        if g in _VERB_GROUPS and not _cue(before):
            continue  # "the ReLU halves it": an exact factor of an argument, not a measurement
        if g in ("twice", "double"):
            v, q = 2, 1
        elif g == "triple":
            v, q = 3, 1
        elif g == "quad":
            v, q = 4, 1
        elif g == "half" or (g == "fanbei" and word == "减半"):
            v, q = Decimal("0.5"), Decimal("0.1")
        elif g == "entimes":
            v = en_numeral(m.group("entimes"))
            q = Decimal(1).scaleb(len(str(v)) - len(str(v).rstrip("0")))
        elif g == "zhtimes":
            v = zh_numeral(m.group("zhtimes"))
            q = Decimal(1).scaleb(len(str(v)) - len(str(v).rstrip("0")))
        elif g == "fanbei":
            v, q = 2, 1
        else:
            n = en_numeral(m.group("enorders")) if g == "enorders" else zh_numeral(m.group("zhorders"))
            found.append(Found(Num(Decimal(n), Decimal(0), "", word, magnitude=True), m.start(), "magnitude"))
            continue
        cue = "more" if m.group("zhmore") else _cue(before)
        found.append(Found(Num(Decimal(v), Decimal(q), "", word), m.start(), "multiplier word", cue))
    found += _word_numbers(masked)
    return sorted(found, key=lambda f: f.start)


# --------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class Problem:
    page: str
    line: int
    number: str
    kind: str
    sentence: str
    hint: str = ""

    def __str__(self) -> str:
        s = re.sub(r"\s+", " ", self.sentence.replace("∎", "…")).strip()
        if len(s) > 160:
            s = s[:157] + "…"
        if self.kind in ("multiplier word", "magnitude", "share"):
            return (f"{self.page}:{self.line}: {self.number!r} ({self.kind}) is neither the ratio of two measurements "
                    f"in its sentence nor cited there: «{s}»")
        hint = f" (nearest printed: {self.hint})" if self.hint else ""
        return (f"{self.page}:{self.line}: {self.number!r} ({self.kind}) is not printed by a block on this page"
                f"{hint}, not in the page's math, and its sentence cites no source: «{s}»")


def _bound_by(f: Found, evidence: list[tuple[Decimal, Decimal]]) -> bool:
    if f.kind == "fraction":
        v = f.num.value
        return any(abs(abs(x) - abs(v)) <= q / 2 for x, q in evidence)
    return any(binds(f.num, x, q, f.cue if f.cue in ("more", "less") else "") for x, q in evidence)


def _nearest(f: Found, evidence: list[tuple[Decimal, Decimal]]) -> str:
    if not evidence or f.num.magnitude:
        return ""
    x, q = min(evidence, key=lambda e: abs(abs(e[0]) - f.num.abs))
    if f.num.abs and abs(abs(x) - f.num.abs) / f.num.abs < Decimal("0.2"):
        return format(x.normalize() if x == x.to_integral() else x, "f")
    return ""


RATIO_KINDS = ("multiplier", "multiplier word", "magnitude", "share")


def _ratios(f: Found, found: list[Found], raw: str) -> list[tuple[Decimal, Decimal]]:
    """A multiplier may be the ratio of two measurements stated in its own unit ("triples (0.0085 → 0.0248)").

    Only measurements count: the other checked numbers of the unit, and the non-integers of its inline
    math (settings such as "4 and 6 layers" would make any small multiplier a ratio).
    """
    values = [g.num.abs for g in found if g is not f and g.kind in ("decimal", "percent", "integer") and g.num.abs]
    values += [abs(v) for v, q in math_numbers(raw) if v and (q < 1 or abs(v) >= 1000)]
    if f.kind == "share":  # "a third of the runs (10 of 30)", "约有一半（这里是 50.1%）"
        values += [g.num.abs for g in found if g is not f and g.kind == "count"]
        shares = [g.num.abs / 100 for g in found if g is not f and g.kind == "percent"]
        return [(a / b, Decimal(0)) for a in values for b in values if b > a] + [(x, Decimal(0)) for x in shares]
    return [(b / a, Decimal(0)) for a in values for b in values if b > a]


def printed_multipliers(text: str, snippets: Path = SNIPPETS) -> list[tuple[Decimal, Decimal]]:
    """Printed numbers the output itself marks as a factor: ``40.2x``, ``3 ×``, ``12 倍``, ``3 times``."""
    found = []
    for inc in sources.includes(text):
        path = snippets / inc
        if path.exists():
            for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)(?=\s?(?:x(?![A-Za-z0-9])|×|倍|times\b))", snippet_output(path)):
                found.append((Decimal(m.group(1)), printed_precision(m.group(1))))
    return found


def page_evidence(text: str, snippets: Path = SNIPPETS) -> tuple[list[tuple[Decimal, Decimal]], list[tuple[Decimal, Decimal]]]:
    printed = []
    for inc in sources.includes(text):
        path = snippets / inc
        if path.exists():
            printed += _numbers_in(snippet_output(path))
    return printed, math_numbers(text)


def bindings(text: str, page: str, snippets: Path = SNIPPETS) -> list[tuple[int, Found, str, str]]:
    """Every checked number of a page: (line, number, how it is bound or "", its unit's text).

    ``how`` is "cited", "printed", "math" or "ratio" (a multiplier that is the ratio of two numbers in
    its unit); "" means unbound.
    """
    printed, maths = page_evidence(text, snippets)
    marked = printed_multipliers(text, snippets)
    masked, _ = mask(text)
    line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    out = []
    for u in units(text, masked):
        found = prose_numbers(masked[u.start:u.end])
        for f in found:
            word = f.kind in ("multiplier word", "magnitude", "share")
            small = f.kind == "multiplier" and f.num.precision >= 1 and f.num.abs < 100
            if u.cited:
                how = "cited"
            elif not word and not small and _bound_by(f, printed):
                how = "printed"
            elif small and _bound_by(f, marked):
                how = "printed"
            elif not word and _bound_by(f, maths):
                how = "math"
            elif f.kind == "share" and any(abs(abs(x) * k - f.num.value) <= f.num.precision / 2
                                           for x, _ in printed + maths for k in (1, Decimal("0.01"))):
                how = "printed"  # "about a quarter of seeds" and a printed 25.4%
            elif f.kind in RATIO_KINDS and _bound_by(f, _ratios(f, found, text[u.start:u.end])):
                how = "ratio"
            else:
                how = ""
            pos = u.start + f.start
            line = next(i for i in range(len(line_starts) - 1, -1, -1) if line_starts[i] <= pos) + 1
            out.append((line, f, how, text[u.start:u.end]))
    return out


def check_text(text: str, page: str, snippets: Path = SNIPPETS) -> list[Problem]:
    printed, _ = page_evidence(text, snippets)
    return [Problem(page, line, f.num.text, f.kind, sentence, _nearest(f, printed))
            for line, f, how, sentence in bindings(text, page, snippets) if not how]


def checked_pages(docs: Path = _SITE.docs, facts: site_facts.Facts = _SITE) -> list[Path]:
    """Every Markdown page the nav lists (at any depth: a page in a subfolder too), in every
    language, but the references page."""
    return [docs / lang / p for lang in facts.languages for p in facts.nav_pages
            if p.endswith(".md") and p not in NOT_CHECKED]


def problems(paths: list[Path] | None = None, docs: Path = _SITE.docs, snippets: Path = SNIPPETS) -> list[Problem]:
    found = []
    for path in paths or checked_pages(docs):
        try:
            name = path.resolve().relative_to(_SITE.root).as_posix()
        except ValueError:
            name = path.as_posix()
        found += check_text(path.read_text(encoding="utf-8"), name, snippets)
    return found


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    summary, explain = "--summary" in args, "--explain" in args
    docs = _SITE.docs
    if "--docs" in args:
        docs = Path(args[args.index("--docs") + 1])
    snippets = Path(args[args.index("--snippets") + 1]) if "--snippets" in args else SNIPPETS
    skip = {args.index(o) + 1 for o in ("--docs", "--snippets") if o in args}
    paths = [Path(a) for i, a in enumerate(args) if not a.startswith("--") and i not in skip] or checked_pages(docs)
    total = 0
    for path in paths:
        try:
            name = path.resolve().relative_to(_SITE.root).as_posix()
        except ValueError:
            name = path.as_posix()
        rows = bindings(path.read_text(encoding="utf-8"), name, snippets)
        bad = [r for r in rows if not r[2]]
        total += len(bad)
        if summary:
            hows = {h: sum(1 for r in rows if r[2] == h) for h in ("printed", "cited", "math", "ratio")}
            print(f"{name:40} checked {len(rows):3d}  unbound {len(bad):3d}  "
                  + "  ".join(f"{h} {n}" for h, n in hows.items()))
        elif explain:
            for line, f, how, _ in rows:
                print(f"{name}:{line}: {f.num.text!r:28} {how or 'UNBOUND'}")
        else:
            printed, _ = page_evidence(path.read_text(encoding="utf-8"), snippets)
            for line, f, how, sentence in bad:
                print(Problem(name, line, f.num.text, f.kind, sentence, _nearest(f, printed)))
    print(f"{total} unbound numbers", file=sys.stderr)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
