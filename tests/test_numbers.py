"""Promise 3 — every number in prose is printed on that page, quoted from a cited source, or derived in the page's math.

The checker is ``tools/checks/numbers.py`` (its docstring lists the rules; ``python -m tools.checks.numbers`` runs it,
``--explain`` shows how each number is bound). The first test runs it over every chapter, the home page
and the glossary, in both languages; a failure names page, line and number and quotes the sentence.
The other tests prove each rule on small inputs, and that a real page fails when a snippet's output
changes under its prose.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from hooks import site_facts
from tools import sources
from tools.checks import numbers

SITE = site_facts.load()

PAGES = numbers.checked_pages()


def assert_every_number_bound(path: Path) -> None:
    problems = numbers.problems([path])
    assert not problems, (f"{len(problems)} numbers with no evidence on the page: print them from a snippet on it, "
                          "cite the source in the same sentence, derive them in the page's math, or reword\n"
                          + "\n".join(map(str, problems)))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(SITE.docs).as_posix())
def test_every_number_in_prose_is_bound(path):
    assert_every_number_bound(path)


def unread_pages(docs: Path = SITE.docs, facts: site_facts.Facts = SITE) -> list[str]:
    """Markdown pages of a language tree that the number check does not read (none but the references page)."""
    read = set(numbers.checked_pages(docs, facts))
    return [f"docs/{lang}/{page} is not number-checked: list it in mkdocs.yml's nav"
            for lang in facts.languages for page in sorted(sources.pages(lang, docs))
            if page.endswith(".md") and page not in numbers.NOT_CHECKED and docs / lang / page not in read]


def test_every_page_in_every_language_is_read():
    unread = unread_pages()
    assert not unread, "\n".join(unread)
    assert not [p for p in PAGES if p.name in numbers.NOT_CHECKED]  # bibliographic data: volumes, pages, arXiv ids


def test_a_nav_page_in_a_subfolder_is_read_and_its_unbound_numbers_fail(tmp_path):
    """Mutation: a new nav page docs/<lang>/appendix/extra.md with two unbound numbers."""
    facts = dataclasses.replace(SITE, docs=tmp_path, nav=[*SITE.nav, {"Appendix": ["appendix/extra.md"]}])
    for lang in SITE.languages:
        (tmp_path / lang / "appendix").mkdir(parents=True)
        (tmp_path / lang / "appendix" / "extra.md").write_text("# Extra\n\nThe loss is 0.4242, a share of 12.5%.\n",
                                                              encoding="utf-8")
    pages = [p for p in numbers.checked_pages(tmp_path, facts) if "appendix" in p.parts]
    assert pages == [tmp_path / lang / "appendix" / "extra.md" for lang in SITE.languages]
    for path in pages:
        with pytest.raises(AssertionError) as failed:
            assert_every_number_bound(path)
        assert f"{path.as_posix()}:3: '0.4242'" in str(failed.value) and "'12.5%'" in str(failed.value), failed.value
    # the same page left out of the nav is named by the guard
    unread = unread_pages(tmp_path, SITE)
    assert [u for u in unread if "appendix" in u] == [f"docs/{lang}/appendix/extra.md is not number-checked: list it "
                                                      "in mkdocs.yml's nav" for lang in SITE.languages], unread


# --------------------------------------------------------------------------- helpers


def _check(body: str, outputs: dict[str, str] | None = None, tmp_path: Path | None = None) -> list[numbers.Problem]:
    """Check one page ``body`` that includes snippets whose outputs are given."""
    snippets = (tmp_path or Path("/nonexistent")) / "snippets"
    includes = ""
    for name, out in (outputs or {}).items():
        (snippets / name).parent.mkdir(parents=True, exist_ok=True)
        (snippets / name).write_text(f"```python\nprint()\n```\n{numbers.MARKER}\n```text\n{out}\n```\n")
        includes += f'--8<-- "{name}"\n\n'
    return numbers.check_text(includes + body, "docs/en/t.md", snippets)


def _unbound(body: str, outputs: dict[str, str] | None = None, tmp_path: Path | None = None) -> list[str]:
    return [p.number for p in _check(body, outputs, tmp_path)]


# --------------------------------------------------------------------------- a real page goes stale


@pytest.mark.parametrize("lang", SITE.languages)
def test_a_number_left_stale_after_an_output_changed_fails(tmp_path, lang):
    """Copy a real chapter and its snippets, change one printed number, expect page:line:number."""
    page = SITE.docs / lang / "residual-connections.md"
    text = page.read_text(encoding="utf-8")
    printed, maths = numbers.page_evidence(text)
    rows = numbers.bindings(text, "p")
    # a decimal in prose bound by exactly one printed token and nothing else
    candidate = None
    for line, f, how, _ in rows:
        if how != "printed" or f.kind != "decimal":
            continue
        hits = [e for e in printed if numbers.binds(f.num, *e)]
        if len(hits) == 1 and not any(numbers.binds(f.num, *e) for e in maths):
            candidate = (line, f)
            break
    assert candidate, f"{page}: no decimal bound by a single printed number to test with"
    line, f = candidate
    snippets = tmp_path / "snippets"
    shutil.copytree(numbers.SNIPPETS, snippets)
    changed = False
    for inc in sources.includes(text):
        path = snippets / inc
        src = path.read_text(encoding="utf-8")
        head, sep, out = src.partition(numbers.MARKER)
        for m in re.finditer(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", out):
            value = numbers.parse_number(m.group(0)).value
            if numbers.binds(f.num, value, numbers.printed_precision(m.group(0))):
                stale = format(value * Decimal("1.37") + 1, "f")
                path.write_text(head + sep + out[:m.start()] + stale + out[m.end():], encoding="utf-8")
                changed = True
                break
        if changed:
            break
    assert changed
    problems = numbers.check_text(text, f"docs/{lang}/residual-connections.md", snippets)
    hits = [p for p in problems if p.line == line and p.number == f.num.text]
    assert hits, f"changing the output under {f.num.text!r} (line {line}) went unnoticed:\n" + "\n".join(map(str, problems))
    assert str(hits[0]).startswith(f"docs/{lang}/residual-connections.md:{line}: {f.num.text!r}")


# --------------------------------------------------------------------------- the three kinds of evidence


def test_a_printed_number_binds_and_an_unprinted_one_fails(tmp_path):
    assert _unbound("The median is 2.13.", {"a/b.md": "median 2.13"}, tmp_path) == []
    assert _unbound("The median is 2.14.", {"a/b.md": "median 2.13"}, tmp_path) == ["2.14"]
    assert _unbound("The median is 2.13.") == ["2.13"]


def test_an_uncited_quoted_number_fails_and_a_cited_one_passes():
    assert _unbound('The article says "the ratio is 1647.45".') == ["1647.45"]
    assert _unbound('The article says "the ratio is 1647.45" ([Article 2](references.md#article2)).') == []
    assert _unbound('It printed 1647.45. See [Article 2](references.md#article2).') == ["1647.45"]
    zh = "原文给出的“比值: 1647.45。结论如此。”（[原文二](references.md#article2)）"
    assert _unbound(zh) == []                      # a quotation never splits its sentence
    assert _unbound("原文给出 1647.45。（见[原文二](references.md#article2)）后来。") == []


def test_a_number_in_the_same_sentence_as_a_citation_passes():
    body = "Deeper plain nets reach 28.54% ([He et al. 2016a](references.md#he2016a), Table 2). Ours 0.93."
    assert _unbound(body) == ["0.93"]
    assert _unbound("更深的普通网络误差是 28.54%（[He et al. 2016a](references.md#he2016a)）。我们的是 0.93。") == ["0.93"]


def test_a_number_derived_in_the_pages_math_passes():
    assert _unbound(r"They differ by a factor \( (1.1/0.9)^{50} \approx 2.3 \times 10^{4} \), more than 20 000.") == []
    assert _unbound(r"Beat by \( 27.88 - 25.03 = 2.85 \) points; later 2.85 again.") == []
    assert _unbound("A factor of more than 20 000.") == ["20 000"]
    assert _unbound("$$\nP(|z|>1) \\approx 0.317\n$$\n\nSo 0.317 of the mass.") == []


def test_tables_cell_by_cell_with_header_and_row_citations():
    table = ("| | 18 | 34 |\n|---|---|---|\n| plain | 27.94 % | 28.54 % |\n"
             "| ResNet ([He et al. 2016b](references.md#he2016b)) | 27.88 % | 25.03 % |\n")
    assert _unbound(table) == ["27.94 %", "28.54 %"]
    cited_header = table.replace("| | 18 |", "| [He et al. 2016a](references.md#he2016a) | 18 |")
    assert _unbound(cited_header) == []


def test_a_claim_title_and_its_quotation_are_one_unit():
    body = ('!!! claim "What Article 2 says: the ratio is 1647.45"\n    > 比值: 1647.45\n'
            '    > ("Ratio: 1647.45") ([Article 2](references.md#article2))\n\n    Over seeds it is 238.5.\n')
    assert _unbound(body) == ["238.5"]


# --------------------------------------------------------------------------- rounding


@pytest.mark.parametrize("prose, printed, ok", [
    ("0.81", "0.8123", True), ("0.82", "0.8123", False), ("0.8", "0.8123", True),
    ("238", "238", True), ("238", "238.4", True), ("239", "238.4", False),
    ("28", "27.6", True), ("27.6", "27.6", True), ("27.7", "27.6", False),
    ("0.80", "0.8", False),                       # the prose claims a digit the output never printed
    ("172 000", "1.72e+05", True), ("170 000", "1.72e+05", True), ("1.7e5", "1.72e+05", True),
    ("20 000", "2.28e+04", True), ("20,000", "2.28e+04", True), ("30 000", "2.28e+04", False),
    ("−0.5774", "-0.5774", True), ("-0.5774", "0.5774", False), ("+3.1", "-3.1", False),
    ("0.5774", "-0.5774", True),                  # unsigned prose compares the magnitude
    ("1.4e-39", "1.41e-39", True), ("1.5e-39", "1.41e-39", False),
    ("0.005", "0.00515", True), ("0.0052", "0.00515", True),
])
def test_rounding(prose, printed, ok):
    assert numbers.binds(numbers.parse_number(prose), numbers.parse_number(printed).value,
                         numbers.printed_precision(printed)) is ok


def test_rounding_in_pages(tmp_path):
    out = {"a/b.md": "loss 0.8123\nshare 27.6%\nratio 40.2x\nmax 1.72e+05\nmin -0.5774"}
    assert _unbound("Loss 0.81, share 28%, 27.6% or 27.6, 40× smaller, max 172 000, min −0.5774.", out, tmp_path) == []
    assert _unbound("Loss 0.82, share 29%.", out, tmp_path) == ["0.82", "29%"]
    assert _unbound("Share 0.276.", out, tmp_path) == ["0.276"]          # units never convert


def test_more_than_and_less_than(tmp_path):
    out = {"a/b.md": "ratio 22845\nerr 3e-08\ncount 19800"}
    assert _unbound("more than 20 000 and less than 1e-7", out, tmp_path) == []
    assert _unbound("more than 30 000", out, tmp_path) == ["30 000"]
    assert _unbound("超过 2 万", {"a/b.md": "19800"}, tmp_path) == ["2 万"]   # 19800 rounds to 2 万 but is not more


def test_multipliers(tmp_path):
    out = {"a/b.md": "gain 3.02\nsteps 100"}
    assert _unbound("The loss roughly triples (0.0085 → 0.0248).", {"a/b.md": "0.0085 0.0248"}, tmp_path) == []
    assert _unbound("The loss roughly triples.", out, tmp_path) == ["triples"]            # a stray 3.02 does not bind
    assert _unbound("about a hundred times larger", out, tmp_path) == ["a hundred times"]  # nor a stray 100
    assert _unbound("from 0.00482 to 0.478, about 100 times larger", {"a/b.md": "0.00482 0.478"}, tmp_path) == []
    spread = {"a/b.md": "min 13.7"}
    assert _unbound(r"min 13.7 and max \( 1.72 \times 10^5 \): four orders of magnitude.", spread, tmp_path) == []
    assert _unbound(r"min 13.7 and max \( 1.72 \times 10^5 \): two orders of magnitude.", spread, tmp_path) == [
        "two orders of magnitude"]
    assert _unbound("残差大约是原来的 1.3 倍。") == ["1.3 倍"]
    assert _unbound("相差两万倍以上。") == ["两万倍"]
    assert _unbound("20 层就是三千多倍。") == ["三千多倍"]
    assert _unbound("a 40x smaller gradient", {"a/b.md": "ratio 40.2x"}, tmp_path) == []
    assert _unbound("a 40x smaller gradient", {"a/b.md": "l=40  l=50"}, tmp_path) == ["40x"]     # a header is no factor
    assert _unbound("each 8 times smaller", {"a/b.md": "L=8"}, tmp_path) == ["8 times"]
    assert _unbound(r"each \( 1/\sqrt{64} = 1/8 \) of it, 8 times smaller") == []             # derived in math
    assert _unbound("it moves to 1/77.") == ["1/77"]                              # a full stop ends the fraction
    assert _unbound("gradients 1.07 and 0.0252: a 40× gap") == ["1.07", "0.0252"]            # ratio binds the 40×


# --------------------------------------------------------------------------- what is not a measurement (each rule)


@pytest.mark.parametrize("rule, body", [
    ("R1 inline code", "Use `lr=0.05` and `torch.manual_seed(1234)`."),
    ("R1 fenced code", "```text\n0.8123\n```\n"),
    ("R1 HTML comment", "<!-- 0.8123 -->"),
    ("R2 inline math", r"where \( \sigma = 0.9 \) and \( 1.5^{20} \)"),
    ("R2 display math", "$$\n0.9^{50} \\approx 0.00515\n$$"),
    ("R3 link target", "see [the table](https://example.org/t/0.75/1234.5)"),
    ("R3 attribute list", "## Title { #sec-4.5 }"),
    ("R4 identifiers", "ResNet-110 and ResNet-1202, plain-10, float32, GPT-2, Swin V2, He et al. 2016a."),
    ("R5 sections and figures", "§4.1, Section 3.3, Fig. 1/4, Table 2, Eq. 4–5, 第 4.1 节, 图 1、图 6, 表 2, footnote 3."),
    ("R6 years", "Highway networks (2015) came before ResNet (2016); LSTM (1997)."),
    ("R7 versions", "torch 2.13.0, PyTorch 2.13, Python 3.11, mkdocs 1.6.1."),
    ("R8 paper ids", "arXiv:1512.03385"),
    ("R9 list ordinals", "1. First point\n2. Second point\n\n> 1、单层注意力；2、浅层网络"),
    ("R10 shapes", "a 64×64 matrix, 512 × 2048 weights"),
    ("settings", "5 layers of width 4 over 500 seeds; 18 layers fail."),
    ("thresholds", "a gain below 1, less than 1, fewer than 5 layers, 小于 1 时消失"),
    ("exact factors", "the ReLU halves it; X appears three times, twice inside the softmax."),
])
def test_what_is_not_a_measurement_is_excluded_by_rule(rule, body):
    assert _unbound(body) == [], rule


def test_counts_stated_as_measurements(tmp_path):
    assert _unbound("the article's code has 9 of 10 components zeroed") == ["9"]
    assert _unbound("10 个分量里只有 1 个满足条件。") == ["1"]
    assert _unbound("on 362 of 500 seeds", {"a/b.md": "over the other 362 seeds"}, tmp_path) == []


def test_the_rules_do_not_hide_measurements():
    assert _unbound("ResNet-110 reaches 6.43% error.") == ["6.43%"]
    assert _unbound("`x` is 0.27 away; see §4.1 for 0.31.") == ["0.27", "0.31"]
    assert _unbound("In 2016 the ratio was about 1647.") == ["1647"]
    assert _unbound("about 25 blocks") == ["25"]
    assert _unbound("over 1000 layers") == ["1000"]


def test_a_power_of_ten_written_for_readers_binds_like_e_notation(tmp_path):
    """A Chinese page writes 4.96×10⁻³ (zh-style: no programmer's 4.96e-03 in prose); the check reads it as
    0.00496, so a wrong digit or exponent still fails against the printed 4.96e-03."""
    out = {"a/b.md": "change 4.96e-03\nmin 2.0e-19"}
    assert _unbound("前者 4.96×10⁻³，最小 2.0×10⁻¹⁹。", out, tmp_path) == []
    assert _unbound("前者 4.97×10⁻³。", out, tmp_path) == ["4.97×10⁻³"]
    assert _unbound("前者 4.96×10⁻⁴。", out, tmp_path) == ["4.96×10⁻⁴"]
    assert numbers.parse_number("3.9×10⁻⁴").value == Decimal("0.00039")


@pytest.mark.parametrize("body, unbound", [
    ("Training succeeds in 87 percent of the runs.", ["87 percent"]),
    ("Training succeeds in 87 per cent of the runs.", ["87 per cent"]),
    ("Training succeeds in eighty-seven percent of the runs.", ["eighty-seven percent"]),
    ("The gradient is tenfold larger.", ["tenfold"]),
    ("The loss grows threefold.", ["threefold"]),
    ("a two-fold gap", ["a two-fold"]),
    ("a hundredfold gap", ["a hundredfold"]),
    ("训练在百分之八十七的运行中成功。", ["百分之八十七"]),
    ("训练在百分之 87 的运行中成功。", ["百分之 87"]),
    ("有三成的种子发散。", ["三成"]),
    ("约有一半的种子发散。", ["一半"]),
    ("约三分之一的分量超过 1。", ["三分之一"]),
    ("about a third of the components exceed 1", ["a third"]),
    ("nearly half of the seeds diverge", ["half"]),
    ("损失是七点八。", ["七点八"]),
    ("误差翻三倍。", ["翻三倍"]),
    ("误差翻了两番。", ["翻了两番"]),
])
def test_numbers_written_in_words_are_checked(body, unbound):
    """Number words passed the binder: "87 percent", "tenfold", 百分之八十七, 三成, 一半, 七点八, 翻三倍."""
    assert _unbound(body) == unbound


def test_numbers_written_in_words_bind_like_their_digits(tmp_path):
    assert _unbound("Training succeeds in 87 percent of the runs.", {"a/b.md": "success 87.2%"}, tmp_path) == []
    assert _unbound("训练在百分之八十七的运行中成功。", {"a/b.md": "success 87.2%"}, tmp_path) == []
    assert _unbound("It succeeds in eighty-seven percent of runs.", {"a/b.md": "success 87.2%"}, tmp_path) == []
    assert _unbound("损失是七点八。", {"a/b.md": "loss 7.81"}, tmp_path) == []
    assert _unbound("有三成的种子发散。", {"a/b.md": "diverged 31.5%"}, tmp_path) == []
    assert _unbound("约有一半的种子发散。", {"a/b.md": "diverged 0.49"}, tmp_path) == []
    assert _unbound("about a quarter of seeds get a zero gradient", {"a/b.md": "zero 25.4%"}, tmp_path) == []
    assert _unbound("误差从 0.1 升到 0.3，翻三倍。", {"a/b.md": "0.1 0.3"}, tmp_path) == []  # its unit's ratio
    assert _unbound("The loss grows threefold (0.0085 → 0.0248).", {"a/b.md": "0.0085 0.0248"}, tmp_path) == []


@pytest.mark.parametrize("body", ["ReLU 丢掉一半的二阶矩。", "只对了一半。", "half of the story", "一成不变",
                                  "一点一点地变大", "the positive half of it", "a manifold"])
def test_idioms_and_exact_factors_in_words_are_not_measurements(body):
    assert _unbound(body) == []
