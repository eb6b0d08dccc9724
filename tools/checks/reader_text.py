"""What a reader reads on the built pages, checked for two faults a learner sees (issue 39):

1. **The authoring process in the text.** A page speaks of its subject, never of how it was written:
   no "what was read … gave this site", no "an earlier version of this page said", no search tools or
   queries that found (or did not find) a source, no time budget of the test harness, and, outside the
   verification page, no CPU kernel or instruction-set talk (that machinery is explained once, on the
   page ``VERIFICATION``). :data:`PROCESS` is the curated list, each pattern with the reason it is one.
2. **A list that fell apart.** A Markdown list broken by something at a line start (a hidden comment, a
   lazy continuation line) renders as paragraphs that begin with "- " or ". -", or as one paragraph with
   several " - " bullets run together, or as a definition list made of sentence fragments.

3. **A chapter that is not a lesson.** Every chapter opens with what the reader will learn (an ``abstract``
   admonition before its first section), ends with a summary (the section ``#summary``) right before the
   exercises (``#exercises``), and shows the source articles' claims as collapsed callouts (``??? claim``:
   the claim and the verdict in the title, the evidence one click away), never as open boxes that fill the
   chapter.

The first two read the built HTML's ``<article>``: prose only (code blocks, math and the generated citation are
left out), so a phrase in a snippet's code or output is the snippet's business, not the prose's.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from hooks import site_facts
from tools import sources

VERIFICATION = "verification.md"  # the page that holds the machinery: kernels and CPUs may be named there

_ARTICLE = re.compile(r"<article\b.*?</article>", re.S)
_DROP = re.compile(r"<(pre|script|style|math|svg|code)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Phrase:
    pattern: re.Pattern
    why: str
    everywhere: bool = True  # False: allowed on the verification page (kernel talk)


def _p(regex: str, why: str, everywhere: bool = True) -> Phrase:
    return Phrase(re.compile(regex, re.I), why, everywhere)


PROCESS: tuple[Phrase, ...] = (
    # how a source was found or read: the reader needs the source and the section, not the search
    _p(r"\bwhat was read\b", "how the sources were obtained"),
    _p(r"\bgave this (site|page)\b", "how the sources were obtained"),
    _p(r"\bsearch (tool|engine)\b", "the tool used to find sources"),
    _p(r"\bsearch(es)? of public sources\b", "how the sources were searched"),
    _p(r"\b(file index|pages corpus|web corpus)\b", "the search tool's indexes"),
    _p(r"\b(could|can)(not| not)? be found (with|by|through|using|in) (a|the) (search|query|web|index)",
       "a search that did or did not find something"),
    _p(r"\bquer(y|ies) (in \w+ )?for\b[^.]{0,80}\breturned\b", "the queries that were run"),
    _p(r"\b(a|one) copy of (the|its|that) (paper|text|PDF)", "where a copy of a paper was found"),
    _p(r"\bkept in (a )?public GitHub repositor", "where a copy of a paper was found"),
    _p(r"\b(read|consulted) for this (page|site|chapter)\b|\bwas(n't| not)? read (far enough|for th)|\bthe copy read\b",
       "what was read while writing"),
    _p(r"检索(工具|到|结果)|搜索工具|文件索引|网页语料", "找资料用的工具"),
    _p(r"为本页读过|读到的副本|没有读到", "写作时读了什么"),
    _p(r"(用|以)中文搜", "找资料时用的查询"),
    _p(r"(搜|检索|查)[^。；]{0,30}没有(找|搜)到", "一次没有结果的检索"),
    _p(r"读到了哪些原文|拿到了?[^。；]{0,12}正文", "原文是怎样拿到的"),
    _p(r"保存的[^。；]{0,20}副本", "论文副本是在哪里找到的"),
    # experiments the page does not show, and the site's rules given as the subject's reasons
    _p(r"\bwe tried (it|this|that)\b|\bwhich this site requires\b", "an experiment or rule of the site, not of the subject"),
    _p(r"我们试过|本站要求", "没有给出的实验，或本站自己的规定"),
    # the page's own history: a reader reads this page, not its changelog
    _p(r"\b(an?|the) (earlier|previous|older|old|first|original) (version|draft|edition|revision) of this "
       r"(page|site|chapter)", "the page's own history"),
    _p(r"\bthis page (used to|once|previously|formerly|originally) (say|said|state|stated|claim|claimed|cite|cited)",
       "the page's own history"),
    _p(r"\b(earlier|previous) versions? (of this page|said|stated)", "the page's own history"),
    _p(r"本页(的)?(旧版|早先|早期|之前|以前|原先|最初|第一)(的)?(版本)?", "本页自己的修订史"),
    _p(r"(旧版|上一版|早先版本|最初版本)(的)?本页", "本页自己的修订史"),
    # the harness's limits dressed as the subject's: the reader's question is the network's budget
    _p(r"\b(the )?site'?s?(\s+\w+)? budget\b", "the test harness's time budget"),
    _p(r"\btime budget for a (code )?block\b", "the test harness's time budget"),
    _p(r"\bbudget of \d+ seconds\b", "the test harness's time budget"),
    _p(r"\bbudget of the first version\b", "the page's own history"),
    _p(r"(本站|测试)的?(时间)?预算|时间预算", "测试的时间预算"),
    # the verification machinery, said once on its page rather than at the top of every lesson
    _p(r"\bevery number (below|on this page|in this chapter) is printed\b", "verification talk in teaching text",
       everywhere=False),
    _p(r"(下面|下文|页面上)的?每一?个数字[^。]{0,4}(都|要么)?由", "教学正文里的验证说明", everywhere=False),
    # CPU kernels and instruction sets: the verification page's subject, not a lesson's
    _p(r"\bAVX(-?512|2)?\b|\bSSE4(\.\d)?\b|\boneDNN\b|\bMKL\b|\bATen\b", "CPU kernels in teaching text",
       everywhere=False),
    _p(r"\bevery CPU prints\b|\bsame digits on every CPU\b|\bon every CPU path\b", "the digit rounding for CPUs",
       everywhere=False),
    _p(r"\bCPU'?s?'? (matrix )?kernels?\b|\bkernels? (of|on) (an? |the )?(AVX|SSE|CPU)", "CPU kernels in teaching text",
       everywhere=False),
    _p(r"(每[种台] ?CPU|不同 ?CPU)[^。；]{0,10}(打印|相同的位数|内核)|CPU ?内核|内核之间有分歧", "为不同 CPU 做的舍入",
       everywhere=False),
)


def prose(page_html: str) -> str:
    """The prose of a built page's article: no code, math, scripts or figures' SVG; tags removed."""
    article = _ARTICLE.search(page_html)
    text = _DROP.sub(" ", article.group(0) if article else "")
    return re.sub(r"\s+", " ", html.unescape(_TAG.sub(" ", text)))


def _built_pages(site: Path, facts: site_facts.Facts):
    """(page source like ``docs/en/index.md``, its source name, its built HTML) of every Markdown page."""
    for lang in facts.languages:
        for page in sorted(sources.pages(lang, facts.docs)):
            built = site / facts.url_of(lang, page) / "index.html"
            if page.endswith(".md") and built.exists():
                yield f"docs/{lang}/{page}", page, built.read_text(encoding="utf-8")


def process_phrases(text: str, page: str, phrases: tuple[Phrase, ...] = PROCESS) -> list[str]:
    """The authoring-process phrases in one page's prose, each named with its page and why it is one."""
    found = []
    for phrase in phrases:
        if not phrase.everywhere and page.endswith(VERIFICATION):
            continue
        for m in phrase.pattern.finditer(text):
            a, b = max(0, m.start() - 50), m.end() + 50
            found.append(f"{page}: {m.group(0)!r} ({phrase.why}): …{text[a:b].strip()}…")
    return found


def process_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    facts = facts or site_facts.load()
    found = []
    for name, _, page_html in _built_pages(site, facts):
        found += process_phrases(prose(page_html), name)
    return found


_PARA = re.compile(r"<(p|dt)\b[^>]*>(.*?)</\1>", re.S)
_BULLET_START = re.compile(r"^\s*(?:[.,;:。，；：]\s*)?[-*+]\s+\S")
_FRAGMENT_START = re.compile(r"^\s*[.,;:)。，；：）]")
_INLINE_BULLET = re.compile(r"\n[ \t]*[-*+][ \t]+\S|\s[-*+]\s+(?:<strong>|\*\*)")


def broken_lists(page_html: str, page: str) -> list[str]:
    """Paragraphs (or definition-list terms) of a page's article that are a list fallen apart: one that
    starts with a bullet ("- x", ". - x"); one that starts with the punctuation that ended the sentence
    before it (". Their orders", ", and no run"), the rest of a paragraph a line break cut off; one that
    holds two or more bullets run together ("… - **x** …", or a bullet at the start of a source line); a
    definition-list term that is a fragment of a sentence (lower-case start: a wrapped line that Markdown's
    ``def_list`` read as a term)."""
    article = _ARTICLE.search(page_html)
    body = _DROP.sub(" ⟨⟩ ", article.group(0) if article else "")  # code or math is text, not punctuation
    found = []
    for m in _PARA.finditer(body):
        tag, inner = m.group(1), m.group(2)
        text = html.unescape(_TAG.sub("", inner))
        inline = len(_INLINE_BULLET.findall(inner))
        if _BULLET_START.match(text):
            why = "starts with a bullet"
        elif _FRAGMENT_START.match(text):
            why = "starts with punctuation (the rest of a cut paragraph)"
        elif inline >= 2:
            why = f"holds {inline} bullets run together"
        elif tag == "dt" and re.match(r"\s*[a-z]", text):
            why = "is a sentence fragment read as a definition term"
        else:
            continue
        snippet = re.sub(r"\s+", " ", text).strip()[:100]
        found.append(f"{page}: a <{tag}> {why}, a list that fell apart: {snippet!r}")
    return found


def broken_list_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    facts = facts or site_facts.load()
    found = []
    for name, _, page_html in _built_pages(site, facts):
        found += broken_lists(page_html, name)
    return found


_H2 = re.compile(r"<h2\b[^>]*\bid=\"([\w-]+)\"")
_ABSTRACT = re.compile(r"<div class=\"admonition abstract\"")
_OPEN_CLAIM = re.compile(r"<div class=\"admonition claim\"")
_CLAIM = re.compile(r"<details class=\"claim\"")


def lesson_shape(page_html: str, page: str) -> list[str]:
    """What keeps a built chapter from reading as a lesson: no "what you will learn" before its first
    section, no summary right before its exercises, or a source article's claim shown as an open box."""
    article = _ARTICLE.search(page_html)
    body = article.group(0) if article else ""
    found = []
    first_h2 = _H2.search(body)
    abstract = _ABSTRACT.search(body)
    if not abstract or (first_h2 and abstract.start() > first_h2.start()):
        found.append(f"{page}: no 'what you will learn' (an `!!! abstract` admonition) before the first section")
    ids = _H2.findall(body)
    if "exercises" in ids and (ids.index("exercises") == 0 or ids[ids.index("exercises") - 1] != "summary"):
        found.append(f"{page}: the section before the exercises is not the summary (`## … {{ #summary }}`)")
    elif "exercises" not in ids and "summary" not in ids:
        found.append(f"{page}: no summary section (`## … {{ #summary }}`)")
    for _ in _OPEN_CLAIM.finditer(body):
        found.append(f"{page}: a claim shown as an open box: write `??? claim \"…\"` (collapsed, the verdict in its title)")
    return found


def lesson_problems(site: Path, facts: site_facts.Facts | None = None) -> list[str]:
    """:func:`lesson_shape` over every chapter (``sources.chapters()``) in every language."""
    facts = facts or site_facts.load()
    chapters = {f"{slug}.md" for slug in sources.chapters()}
    found = []
    for name, page, page_html in _built_pages(site, facts):
        if page in chapters:
            found += lesson_shape(page_html, name)
    return found
