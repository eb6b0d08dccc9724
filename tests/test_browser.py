"""What a reader's browser does with the built site: every page, both languages, notebooks included.

Chromium's headless shell (Debian's, at ``tools.site.browser.CHROMIUM``) opens every page of the strict
build, served on 127.0.0.1 under the path of ``site_url`` (as it is published), and checks:

* no console error, no uncaught page error, no HTTP error;
* no request to any host but 127.0.0.1 (each is recorded and aborted; axe-core is injected from
  axe-playwright-python's bundled copy, so running it must not fetch anything either);
* math: MathML where the source has TeX, laid out as math with the site's STIX Two Math font, and
  no raw TeX (``\\frac``, ``\\(``, ``$$`` …) left in the text outside code;
* the language switcher leads to the same page in the other language (link on every page, a real
  click on each chapter, the home page and a notebook);
* every Python block's copy button copies exactly the snippet's code (clipboard read back);
* no serious or critical accessibility violation (axe-core) in light mode, and no colour-contrast
  one in dark mode (see ``AXE_EXCLUDE`` for what is excluded, ``LOOKS_JS`` for how contrast and links in
  code are sampled);
* search loads its index and worker only when the reader starts to search (a click, a shortcut,
  a phone's search icon), once;
* search finds 残差 / 梯度 / 归一化 on Chinese pages and residual / gradient / normalization on
  English ones, with every result in the page's language;
* with ``--screenshots`` (``./run test --screenshots``), a full-page screenshot of each page in light and
  dark mode goes to ``screenshots/`` (not committed), for a person to look at: they check nothing, and
  cost about 6 CPU seconds each on a chapter (four CPU minutes a run), so a plain run takes none.

Everything is collected in one pass (one browser, two pages at a time); the tests below only read
the report, parametrized by page so a failure names it. Without the shell they skip, except
where ``CI`` is set: there they fail. At the end, tests of their own: switching language keeps the
section, the 404 pages, and search loading only once the reader searches.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from hooks import notebook_figures, site_facts
from tools import sources
from tools.runner import selection
from tools.generators import notebooks
from tools.site.browser import CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM, browser_decision, serve_published

SITE = site_facts.load()

pytestmark = pytest.mark.skipif(browser_decision() == "skip", reason=NO_CHROMIUM)




def _run_async(coro):
    """``asyncio.run`` in a thread of its own: a session fixture using Playwright's sync API keeps an
    event loop running in the main thread, where ``asyncio.run`` refuses to start another."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _served(visit):
    """An ``AFTER_BUILD`` job: the coroutine ``visit(base)`` on the built site served as published, in
    the job's own thread and event loop."""
    def job(site: Path, tmp: Path, config):
        with serve_published(site) as base:
            return asyncio.run(visit(base))
    return job

SCREENSHOTS = SITE.root / "screenshots"
WORKERS = 2
SEARCH_TERMS = {lang: SITE.text(lang, "search_terms") for lang in SITE.languages}  # mkdocs.yml

# axe-core rules and elements excluded from the accessibility check, and why. Only violations of
# impact "serious" or "critical" fail the test.
AXE_EXCLUDE = [
    # Material's code annotation markers: a link whose number is CSS generated content; the
    # annotation text itself is a normal list item in the page. Not fixable without patching
    # Material's JavaScript.
    ".md-annotation__index",
]
AXE_CONTEXT = {"exclude": [[selector] for selector in AXE_EXCLUDE]}
AXE_OPTIONS = {"resultTypes": ["violations"]}
DARK_OPTIONS = {"resultTypes": ["violations"], "runOnly": ["color-contrast"]}
# Colour contrast is checked on one element of each look. Checking every text element one by one took
# about a third of the browser's time; elements that look the same (colour, font size and weight, text
# shadow, and the backgrounds, opacity and filters of the element and of every ancestor) have the same
# contrast. LOOKS_JS marks the first visible element of each look (text of its own, not hidden, not in a
# closed <details> or tab) with data-axe-sample; the color-contrast rule (axe.configure, a public API)
# takes those and no others. The marks are taken again in dark mode.
# Links inside code blocks (the API links of hooks/torch_docs.py, a hundred on a long page) are sampled the same
# way for link-in-text-block, which was the most expensive rule (walking a whole block for each link): its verdict
# on a link depends on the link's colour and styles (the properties LINK_STYLES lists, read by axe's
# link-in-text-block checks), its ::before/::after content, what is behind it, and the same styles of each
# ancestor up to the block it sits in; LOOKS_JS marks one link of each such look with data-axe-link (the first
# one shown inside its block's box, or every one of that look if none is), and every link outside code blocks.
# Every other rule checks every element.
LOOKS_JS = r"""() => {
  for (const el of document.querySelectorAll("[data-axe-sample]")) el.removeAttribute("data-axe-sample");
  const ids = new Map(), behind = new Map();
  const id = (key) => { if (!ids.has(key)) ids.set(key, ids.size); return ids.get(key); };
  const backdrop = (el) => {  // what shows behind el's text: el and its ancestors
    if (!el) return -1;
    if (!behind.has(el)) {
      const s = getComputedStyle(el);
      behind.set(el, id([s.backgroundColor, s.backgroundImage, s.opacity, s.filter, s.mixBlendMode, s.position,
                         backdrop(el.parentElement)].join("|")));
    }
    return behind.get(el);
  };
  const looks = new Set();
  let texts = 0;
  for (const el of document.querySelectorAll("[data-axe-link]")) el.removeAttribute("data-axe-link");
  const LINK_STYLES = ["color", "background-image", "border-bottom-color", "border-bottom-style", "border-bottom-width",
                       "border-top-color", "border-top-style", "border-top-width", "outline-color", "outline-style",
                       "outline-width", "font-family", "font-weight", "font-style", "font-size", "text-decoration-line",
                       "text-decoration-style", "text-decoration"];
  const styles = (el, pseudo) => {
    const s = getComputedStyle(el, pseudo || null);
    return LINK_STYLES.map(p => s.getPropertyValue(p)).join("|");
  };
  const linkLooks = new Map();
  for (const a of document.body.querySelectorAll("a[href], [role=link]")) {
    const pre = a.closest("pre");
    if (!pre) { a.setAttribute("data-axe-link", ""); continue; }
    let chain = "";
    for (let el = a.parentElement; el; el = el.parentElement) {  // up to the block the link sits in
      chain += styles(el) + "/";
      if (!/^(inline|contents)/.test(getComputedStyle(el).display)) break;
    }
    const key = [styles(a), getComputedStyle(a, "::before").content, getComputedStyle(a, "::after").content,
                 backdrop(a), chain].join("#");
    const box = a.getBoundingClientRect(), block = pre.getBoundingClientRect();
    const shown = a.checkVisibility({opacityProperty: true, visibilityProperty: true}) && box.width > 0
                  && box.left >= block.left && box.right <= block.right;
    if (!linkLooks.has(key)) linkLooks.set(key, []);
    linkLooks.get(key).push([a, shown]);
  }
  for (const links of linkLooks.values()) {
    const sample = links.find(([a, shown]) => shown);
    for (const [a] of (sample ? [sample] : links)) a.setAttribute("data-axe-link", "");
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (![...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.trim())) continue;
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    texts++;
    const s = getComputedStyle(el);
    const look = [s.color, s.fontSize, s.fontWeight, s.textShadow, backdrop(el)].join("|");
    if (!looks.has(look)) { looks.add(look); el.setAttribute("data-axe-sample", ""); }
  }
  return {texts: texts, looks: looks.size, codeLinkLooks: linkLooks.size};
}"""
AXE_RUN_JS = r"""([context, options]) => {
  axe.configure({rules: [{id: "color-contrast", selector: "[data-axe-sample]"},
                         {id: "link-in-text-block", selector: "[data-axe-link]"}]});
  return axe.run(context, options).then(results => results.violations);
}"""

TEX_LEFT = re.compile(
    r"\\[()\[\]]|\$\$|\\(?:frac|sqrt|sum|prod|partial|math[a-z]+|operatorname|text|left|right|cdot|times"
    r"|alpha|beta|gamma|sigma|lambda|epsilon|odot|top|begin|end|hat|tilde|bar|vec|nabla|infty|approx)\b")


@dataclass(frozen=True)
class SitePage:
    lang: str
    src: str  # path under docs/<lang>/

    @property
    def path(self) -> str:
        """Path of the page under the site's root, e.g. ``en/notebooks/ffn-design/``."""
        stem = self.src.rsplit(".", 1)[0]
        rel = "" if stem == "index" else f"{stem.removesuffix('/index')}/"
        return ("" if self.lang == SITE.default else f"{self.lang}/") + rel

    @property
    def id(self) -> str:
        return f"{self.lang}:{self.src.rsplit('.', 1)[0]}"

    def counterpart(self, lang: str) -> SitePage:
        return SitePage(lang, self.src)

    def source(self) -> str:
        return (SITE.docs / self.lang / self.src).read_text(encoding="utf-8")

    def expected_code(self) -> list[str]:
        """The Python code each copy button must copy, in page order."""
        if self.src.endswith(".ipynb"):
            import nbformat
            nb = nbformat.read(SITE.docs / self.lang / self.src, as_version=4)
            return [c.source.rstrip() for c in nb.cells if c.cell_type == "code"]
        names = list(dict.fromkeys(sources.includes(self.source())))
        return [notebooks.strip_annotations(b.code).rstrip()
                for name in names for b in selection.extract(selection.SNIPPETS / name)]

    def expected_formulas(self) -> int:
        if not self.src.endswith(".md"):
            return 0
        text = re.sub(r"`[^`\n]*`", "", self.source())  # a `\(` in inline code is no formula
        return text.count("\\(") + sources.display_equations(text)


PAGES = sorted((SitePage(lang, src) for lang in SITE.languages for src in sources.pages(lang)),
               key=lambda p: (p.lang != SITE.default, p.src))
# what the sources say, read before the site is built (pages may be edited while the tests run)
EXPECTED_CODE = {sp: sp.expected_code() for sp in PAGES}
EXPECTED_FORMULAS = {sp: sp.expected_formulas() for sp in PAGES}


def _sampled(sp: SitePage) -> bool:
    """Pages where the switcher is really clicked: the home page, the first chapter and the first notebook of each
    language (the switcher's links are read on every page: a click runs the same script on every page, and each
    click loads a whole page more)."""
    first_notebook = min((q.src for q in PAGES if q.src.startswith(notebooks.FOLDER + "/")), default=None)
    first_chapter = next(iter(sources.chapters(sp.lang)), None)
    return sp.src in ("index.md", first_notebook, f"{first_chapter}.md")


@dataclass
class Report:
    url: str = ""
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    http_errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    switch_click: dict[str, str] = field(default_factory=dict)
    copied: list[str | None] = field(default_factory=list)
    copy_errors: list[str] = field(default_factory=list)
    axe: list[dict] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    reader: dict = field(default_factory=dict)  # READER_JS at the visit's width (the desktop reader's measures)
    failure: str | None = None  # the visit itself broke
    seconds: float = 0.0


@dataclass
class Visit:
    base: str
    pages: dict[SitePage, Report]
    search: dict[tuple[str, str], dict]
    external: list[str]  # requests to other hosts seen anywhere (workers included)
    seconds: float


FACTS_JS = r"""() => {
  const article = document.querySelector("article") || document.body;
  const maths = [...article.querySelectorAll("math")];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const skip = "pre, code, script, style, math, kbd, samp, textarea";
  let text = "";
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.parentElement.closest(skip)) text += node.data + " ";
  }
  const visible = maths.filter(m => m.getClientRects().length);
  const font = [...document.fonts].find(f => f.family.replace(/["']/g, "") === "STIX Two Math");
  return {
    title: document.title,
    lang: document.documentElement.lang,
    math: maths.length,
    mathLaidOut: visible.every(m => getComputedStyle(m).display.includes("math")
                                    && m.getBoundingClientRect().width > 0),
    mathFont: font ? font.status : "absent",
    text: text,
    switcher: Object.fromEntries([...document.querySelectorAll(".md-select__link[hreflang]")]
                                 .map(a => [a.hreflang, a.href])),
    pythonBlocks: article.querySelectorAll(".language-python.highlight").length,
  };
}"""

PALETTE_JS = r"""(scheme) => new Promise(done => {
  const input = [...document.querySelectorAll("input[name=__palette]")]
    .find(i => (i.getAttribute("data-md-color-media") || "").includes(scheme));
  if (input && !input.checked) input.click();
  setTimeout(done, 300);  // Material's colour transitions take 125 ms
})"""

REVEAL_JS = r"""(el) => {
  // open collapsed <details> and select the content tab holding el, so its copy button is clickable
  for (let node = el; node; node = node.parentElement) {
    if (node.tagName === "DETAILS") node.open = true;
    if (node.classList && node.classList.contains("tabbed-block")) {
      const set = node.closest(".tabbed-set");
      const index = [...node.parentElement.children].indexOf(node);
      const input = set.querySelectorAll(":scope > input")[index];
      if (input) input.checked = true;
    }
  }
}"""

PYTHON_BLOCKS = "article .language-python.highlight"
# Where to click block i's copy button: revealed, scrolled to the middle of the screen, and the element under its
# centre the button itself (nothing covers it). Playwright's own locator.click waits for each button to be stable
# over animation frames; on a long page that was twice the CPU of this, for the same clicks.
AIM_JS = "(i) => {\n  const reveal = " + REVEAL_JS + ";\n" + f"  const block = document.querySelectorAll({PYTHON_BLOCKS!r})[i];" + r"""
  reveal(block);
  const button = block.querySelector('button[data-md-type="copy"]');
  if (!button) return {problem: "the block has no copy button"};
  button.scrollIntoView({block: "center", inline: "nearest", behavior: "instant"});
  const r = button.getBoundingClientRect();
  if (!r.width || !r.height || !button.checkVisibility({visibilityProperty: true}))
    return {problem: "its copy button is not shown"};
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(hit === button || button.contains(hit)))
    return {problem: "its copy button is covered by " + (hit ? hit.outerHTML.slice(0, 120) : "nothing")};
  return {x: x, y: y};
}"""


async def _axe(page, options: dict, scheme: str) -> list[dict]:
    """axe-core's violations on the page as it is now, colour contrast on one element of each look
    (``LOOKS_JS``); axe is injected from axe-playwright-python's bundled copy, once per page."""
    from axe_playwright_python.async_playwright import Axe

    if not await page.evaluate("typeof axe !== 'undefined'"):
        await page.evaluate(Axe().axe_script)
    report_looks = await page.evaluate(LOOKS_JS)
    if not report_looks["looks"]:
        raise AssertionError(f"{page.url}: no visible text to check the colour contrast of ({report_looks})")
    return [{**v, "scheme": scheme} for v in await page.evaluate(AXE_RUN_JS, [AXE_CONTEXT, options])]


def _shot_name(sp: SitePage) -> str:
    return sp.id.replace(":", "-").replace("/", "-")


async def _visit_page(ctx, sp: SitePage, base: str, clipboard: asyncio.Lock, shots: bool = False) -> Report:
    report = Report(url=base + sp.path)
    start = time.perf_counter()
    page = await ctx.new_page()

    def on_console(msg):
        if msg.type == "error":
            where = (msg.location or {}).get("url", "")
            report.console_errors.append(f"{msg.text} ({where})" if where else msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda err: report.page_errors.append(str(err)))
    page.on("response", lambda r: r.status >= 400 and report.http_errors.append(f"{r.status} {r.url}"))

    async def route(r):
        if urlsplit(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith(("data:", "blob:")):
            await r.continue_()
        else:
            report.external.append(r.request.url)
            await r.abort()

    await page.route("**/*", route)
    name = _shot_name(sp)
    try:
        await page.goto(report.url, wait_until="load")
        await page.evaluate("document.fonts.ready.then(() => true)")
        await page.wait_for_timeout(50)
        try:  # what the desktop reader sees, on the page as loaded (before any check touches it)
            report.reader = await page.evaluate(READER_JS)
        except Exception as err:  # noqa: BLE001 - reported by the reader tests of this page
            report.reader = {"failure": f"{type(err).__name__}: {err}"}
        report.facts = await page.evaluate(FACTS_JS)

        # accessibility before any interaction (focus changes what Material's tooltips do)
        report.axe += await _axe(page, AXE_OPTIONS, "light")

        # screenshots first: copying shows a toast and leaves the mouse on a button
        if shots:
            report.screenshots.append(await _screenshot(page, f"{name}-light"))
        # dark mode through Material's own palette switch (it is remembered, so switch back after)
        await page.evaluate(PALETTE_JS, "dark")
        report.axe += await _axe(page, DARK_OPTIONS, "dark")
        if shots:
            report.screenshots.append(await _screenshot(page, f"{name}-dark"))
        await page.evaluate(PALETTE_JS, "light")

        # copy buttons of the Python blocks, in page order: each scrolled to, checked to be what the pointer
        # is over, and clicked with the mouse (a trusted click, as a reader's)
        for i in range(await page.evaluate(f"document.querySelectorAll({PYTHON_BLOCKS!r}).length")):
            async with clipboard:
                try:
                    await page.evaluate("navigator.clipboard.writeText('')")
                    aim = await page.evaluate(AIM_JS, i)
                    if "problem" in aim:
                        raise AssertionError(aim["problem"])
                    await page.mouse.click(aim["x"], aim["y"])
                    report.copied.append(await page.evaluate("navigator.clipboard.readText()"))
                except Exception as err:  # noqa: BLE001 - reported by the test
                    report.copied.append(None)
                    report.copy_errors.append(f"block {i + 1}: {type(err).__name__}: {str(err).splitlines()[0]}")

        if _sampled(sp):
            other = next(lang for lang in SITE.languages if lang != sp.lang)
            await page.evaluate(f"document.querySelector('.md-select__link[hreflang={other}]').click()")
            target = base + sp.counterpart(other).path  # with the #section the page had scrolled to, if any
            with contextlib.suppress(Exception):
                await page.wait_for_url(lambda url: url.split("#")[0] == target, timeout=30_000)
            report.switch_click[other] = page.url
    except Exception as err:  # noqa: BLE001 - reported by every test of this page
        report.failure = f"{type(err).__name__}: {err}"
    finally:
        await page.close()
    report.seconds = time.perf_counter() - start
    return report


SHOTS = {"taken": False}  # --screenshots (the visit fixture)


async def _screenshot(page, name: str) -> Path:
    path = SCREENSHOTS / f"{name}.jpg"  # JPEG: a 20 000 px page takes 4x longer as PNG
    await page.screenshot(path=str(path), full_page=True, type="jpeg", quality=85, timeout=120_000)
    return path


async def _search(ctx, base: str, lang: str) -> dict[tuple[str, str], dict]:
    page = await ctx.new_page()
    out = {}
    try:
        await page.goto(base + ("" if lang == SITE.default else f"{lang}/"), wait_until="networkidle")
        box = page.locator("input.md-search__input")
        await box.click()
        for term in SEARCH_TERMS[lang]:
            await box.fill(term)
            await box.dispatch_event("keyup")
            try:
                await page.wait_for_function(
                    "() => document.querySelectorAll('.md-search-result__item').length > 0"
                    " || /no matching|没有|0 /i.test(document.querySelector('.md-search-result__meta')?.innerText || '')",
                    timeout=10_000)
            except Exception:  # noqa: BLE001 - no results is reported by the test
                pass
            links = await page.evaluate(
                "[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)")
            meta = await page.evaluate("document.querySelector('.md-search-result__meta')?.innerText || ''")
            out[(lang, term)] = {"links": links, "meta": meta}
    finally:
        await page.close()
    return out


async def _visit_all(base: str, pages: list[SitePage], search_too: bool) -> Visit:
    from playwright.async_api import async_playwright

    start = time.perf_counter()
    external: list[str] = []
    reports: dict[SitePage, Report] = {}
    search: dict = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        clipboard = asyncio.Lock()
        queue: asyncio.Queue = asyncio.Queue()
        for sp in pages:
            queue.put_nowait(sp)

        async def new_context():
            ctx = await browser.new_context(viewport={"width": WIDTHS[VISIT_WIDTH], "height": 900}, color_scheme="light",
                                            locale="en-US", service_workers="block")
            await ctx.grant_permissions(["clipboard-read", "clipboard-write"])

            async def route(r):  # whatever the page-level route does not see (workers)
                if urlsplit(r.request.url).hostname == "127.0.0.1":
                    await r.continue_()
                else:
                    external.append(r.request.url)
                    await r.abort()

            await ctx.route("**/*", route)
            return ctx

        async def worker(ctx):
            while not queue.empty():
                sp = queue.get_nowait()
                reports[sp] = await _visit_page(ctx, sp, base, clipboard, SHOTS["taken"])

        contexts = [await new_context() for _ in range(WORKERS)]
        await asyncio.gather(*(worker(ctx) for ctx in contexts))
        for found in await asyncio.gather(*(_search(contexts[i % WORKERS], base, lang)
                                            for i, lang in enumerate(SITE.languages if search_too else []))):
            search.update(found)
        for ctx in contexts:
            await ctx.close()
        await browser.close()
    return Visit(base, reports, search, external, time.perf_counter() - start)


def _visit_job(half: int):
    """Half of the pages (every other one: both languages, chapters and notebooks alike), the search
    with the first half; two jobs, so that the longest browser pass is two lanes, not one."""
    def job(site: Path, tmp: Path, config) -> Visit:
        SHOTS["taken"] = config.getoption("screenshots")
        if SHOTS["taken"]:  # each half removes the old screenshots but those of the other half's pages
            SCREENSHOTS.mkdir(exist_ok=True)
            theirs = {f"{_shot_name(sp)}-{scheme}.jpg" for sp in PAGES[1 - half::2] for scheme in ("light", "dark")}
            for old in [*SCREENSHOTS.glob("*-light.jpg"), *SCREENSHOTS.glob("*-dark.jpg")]:
                if old.name not in theirs:
                    old.unlink(missing_ok=True)
        return _served(lambda base: _visit_all(base, PAGES[half::2], search_too=half == 0))(site, tmp, config)
    return job


@pytest.fixture(scope="session")
def visit_rest(built_site, chromium, after_build) -> Visit:
    """The second half of the pages visited (a fixture of its own, so its job starts with the first's)."""
    return after_build("visit_rest")


@pytest.fixture(scope="session")
def visit(built_site, chromium, after_build, visit_rest) -> Visit:
    """Every page visited (the two halves' visits put together)."""
    first, rest = after_build("visit"), visit_rest
    return Visit(first.base, {**first.pages, **rest.pages}, first.search, first.external + rest.external,
                 max(first.seconds, rest.seconds))


def _report(visit: Visit, sp: SitePage) -> Report:
    report = visit.pages[sp]
    if report.failure:
        pytest.fail(f"{report.url}: the visit failed: {report.failure}", pytrace=False)
    return report


_IDS = [p.id for p in PAGES]


# --------------------------------------------------------------------------- per page


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_page_loads_without_errors(visit, sp):
    r = _report(visit, sp)
    problems = ([f"console error: {e}" for e in r.console_errors] + [f"page error: {e}" for e in r.page_errors]
                + [f"HTTP {e}" for e in r.http_errors])
    assert not problems, f"{r.url}:\n" + "\n".join(problems)


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_page_loads_nothing_from_other_hosts(visit, sp):
    r = _report(visit, sp)
    assert not r.external, f"{r.url} requested other hosts:\n" + "\n".join(r.external)


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_math_is_rendered(visit, sp):
    r = _report(visit, sp)
    f = r.facts
    expected = EXPECTED_FORMULAS[sp]
    assert f["math"] >= expected, f"{r.url}: {f['math']} MathML formulas, the source has {expected}"
    assert f["mathLaidOut"], f"{r.url}: some <math> is not laid out as MathML"
    if f["math"]:
        assert f["mathFont"] == "loaded", f"{r.url}: STIX Two Math font is {f['mathFont']}"
    raw = sorted(set(m.group(0) for m in TEX_LEFT.finditer(f["text"])))
    assert not raw, f"{r.url}: raw TeX in the text: {raw}"


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_language_switcher_leads_to_the_same_page(visit, sp):
    r = _report(visit, sp)
    base = r.url.removesuffix(sp.path)  # each half of the visit is served on a port of its own
    want = {lang: base + sp.counterpart(lang).path for lang in SITE.languages}
    assert r.facts["switcher"] == want, f"{r.url}: switcher links {r.facts['switcher']}, expected {want}"
    assert r.facts["lang"].startswith(sp.lang), f"{r.url}: <html lang={r.facts['lang']!r}>"
    for lang, url in r.switch_click.items():
        # the #section the page had scrolled to is kept (test_switching_language_lands_on_the_same_section)
        assert url.split("#")[0] == want[lang], \
            f"{r.url}: clicking {lang} in the switcher led to {url}, not {want[lang]}"


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_copy_buttons_copy_the_snippets(visit, sp):
    r = _report(visit, sp)
    expected = EXPECTED_CODE[sp]
    assert r.facts["pythonBlocks"] == len(expected), \
        f"{r.url}: {r.facts['pythonBlocks']} Python blocks on the page, {len(expected)} in its snippets"
    assert not r.copy_errors, f"{r.url}: copy buttons failed:\n" + "\n".join(r.copy_errors)
    for n, (got, want) in enumerate(zip(r.copied, expected), 1):
        assert got == want, f"{r.url}: copy button of Python block {n} copied\n{got!r}\ninstead of\n{want!r}"


@pytest.mark.parametrize("sp", PAGES, ids=_IDS)
def test_no_serious_accessibility_violations(visit, sp):
    r = _report(visit, sp)
    serious = [v for v in r.axe if v.get("impact") in ("serious", "critical")]
    lines = [f"[{v['scheme']}] {v['id']} ({v['impact']}): {v['help']} — "
             + ", ".join(" ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
                         for n in v["nodes"][:5]) for v in serious]
    assert not lines, f"{r.url}:\n" + "\n".join(lines)


# --------------------------------------------------------------------------- site-wide


def test_no_request_left_127_0_0_1(visit):
    """Requests not tied to a page (web workers) are recorded at the browser context."""
    assert not visit.external, "requests to other hosts:\n" + "\n".join(sorted(set(visit.external)))


@pytest.mark.parametrize("lang,term", [(lang, t) for lang in SITE.languages for t in SEARCH_TERMS[lang]])
def test_search_finds_terms_in_the_page_language(visit, lang, term):
    found = visit.search.get((lang, term))
    assert found is not None, f"search for {term!r} did not run"
    links = found["links"]
    assert links, f"searching {term!r} on the {lang} site found nothing ({found['meta']!r})"
    inside = visit.base + ("" if lang == SITE.default else f"{lang}/")
    others = [visit.base + f"{o}/" for o in SITE.languages if o != SITE.default and o != lang]
    wrong = [u for u in links if not u.startswith(inside) or any(u.startswith(o) for o in others)]
    assert not wrong, f"searching {term!r} on the {lang} site leads to other languages: {wrong}"


def test_screenshots_in_light_and_dark_mode(visit):
    if not SHOTS["taken"]:
        pytest.skip("screenshots are taken with --screenshots (./run test --screenshots)")
    missing = [str(p) for r in visit.pages.values() for p in r.screenshots if not p.exists()]
    taken = sum(len(r.screenshots) for r in visit.pages.values())
    assert not missing and taken == 2 * len(PAGES), f"{taken} of {2 * len(PAGES)} screenshots; missing {missing}"


# --------------------------------------------------------------------------- own visits


def _open(own_browser, width: int = 1280):
    browser, base = own_browser
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US", service_workers="block")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("response", lambda r: r.status >= 400 and errors.append(f"HTTP {r.status} {r.url}"))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base[:base.index("/", 8)])
               else (errors.append(f"request to another host: {r.request.url}"), r.abort()))
    return ctx, page, errors, base


def _wait_for_url(page, url: str, what: str) -> None:
    try:
        page.wait_for_url(url, timeout=10_000)
    except Exception:  # noqa: BLE001 - the assertion says where the reader landed instead
        pytest.fail(f"{what}: expected to land on {url}, landed on {page.url}", pytrace=False)


def _heading_ids(sp: SitePage) -> list[str]:
    return re.findall(r"^#{2,3} .*\{ *#([\w-]+) *\}\s*$", sp.source(), re.M)


SWITCH_PAGE = "residual-connections.md"


@pytest.mark.parametrize("lang", SITE.languages)
def test_switching_language_lands_on_the_same_section(own_browser, lang):
    """A reader on a section who picks the other language lands on that section there, whether the
    address got its #anchor from a link or from scrolling (Material's navigation.tracking)."""
    other = next(x for x in SITE.languages if x != lang)
    sp = SitePage(lang, SWITCH_PAGE)
    ids = [i for i in _heading_ids(sp) if i in _heading_ids(sp.counterpart(other))]
    assert len(ids) >= 2, f"docs/{lang}/{SWITCH_PAGE}: expected two explicit heading ids shared with {other}"
    ctx, page, errors, base = _open(own_browser)
    try:
        target = base + sp.counterpart(other).path
        # 1. arrived by a link to the section, then a real pointer: hover the language button, click
        page.goto(f"{base}{sp.path}#{ids[0]}", wait_until="load")
        page.hover(".md-header__option .md-select")
        page.click(f".md-select__link[hreflang={other}]")
        _wait_for_url(page, f"{target}#{ids[0]}", f"{base}{sp.path}#{ids[0]}, language switcher clicked")
        assert page.evaluate(f"document.getElementById({ids[0]!r}) !== null"), f"{target}: no #{ids[0]}"
        top = page.evaluate(f"document.getElementById({ids[0]!r}).getBoundingClientRect().top")
        assert 0 <= top < 300, f"{target}#{ids[0]}: the section is not at the top of the window (top={top})"
        # 2. the address changed while scrolling (replaceState fires no event)
        page.goto(base + sp.path, wait_until="load")
        page.evaluate(f"history.replaceState(null, '', '#{ids[1]}')")
        page.evaluate(f"document.querySelector('.md-select__link[hreflang={other}]').click()")
        _wait_for_url(page, f"{target}#{ids[1]}", f"{base}{sp.path}, scrolled to #{ids[1]}, switcher clicked")
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("lang", SITE.languages)
def test_404_page_leads_home_and_to_search(own_browser, lang):
    ctx, page, errors, base = _open(own_browser)
    home = base + SITE.prefix(lang)
    try:
        page.goto(home + "404.html", wait_until="load")
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        switcher = page.evaluate("Object.fromEntries([...document.querySelectorAll('.md-select__link[hreflang]')]"
                                 ".map(a => [a.hreflang, a.href]))")
        assert switcher == {x: base + SITE.prefix(x) for x in SITE.languages}, switcher
        page.click("article .rn-not-found__actions a[href$='?q=']")
        _wait_for_url(page, home + "?q=", f"{home}404.html, search link clicked")
        page.wait_for_function("document.getElementById('__search').checked", timeout=10_000)
        page.fill("input.md-search__input", SITE.text(lang, "search_terms")[0])
        page.wait_for_selector(".md-search-result__item", timeout=10_000)
        page.goto(home + "404.html", wait_until="load")
        page.click("article .rn-not-found__actions a.md-button--primary")
        _wait_for_url(page, home, f"{home}404.html, home link clicked")
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)


# --------------------------------------------------------------------------- search loads when the reader searches (issue 9)
#
# hooks/search_lazy.py: a page load fetches no search index and starts no search worker; the first
# sign that the reader searches does, once. Each way in is a fresh page: a click in the search
# field, Material's keyboard shortcuts, the search icon of a phone's header.

SEARCH_FILES = re.compile(r"/search/search_index\.js(on)?$|/workers/search\.[^/]*\.js$|/lunr/")
SEARCH_WAYS_IN = {
    "click": (1280, lambda page: page.click("input.md-search__input")),
    "key /": (1280, lambda page: page.keyboard.press("/")),
    "key s": (1280, lambda page: page.keyboard.press("s")),
    "key f": (1280, lambda page: page.keyboard.press("f")),
    "phone icon": (390, lambda page: page.click("header label.md-header__button[for=__search]")),
}


class NetworkQuiet:
    """Every request of a browser context (pages and their workers): :meth:`wait` returns once the
    page's main thread has been idle and no request has been in flight or started for
    ``quiet_ms`` (network idle, measured, not assumed after a fixed delay)."""

    def __init__(self, ctx, quiet_ms: int = 500):
        self.quiet, self.in_flight, self.last = quiet_ms / 1000, set(), time.monotonic()
        ctx.on("request", self._start)
        ctx.on("requestfinished", self._end)
        ctx.on("requestfailed", self._end)

    def _start(self, request):
        self.in_flight.add(request)
        self.last = time.monotonic()

    def _end(self, request):
        self.in_flight.discard(request)
        self.last = time.monotonic()

    def wait(self, page, timeout_s: float = 30) -> None:
        end = time.monotonic() + timeout_s
        page.evaluate("() => new Promise(r => requestIdleCallback(() => r(), {timeout: 5000}))")
        while self.in_flight or time.monotonic() - self.last < self.quiet:
            if time.monotonic() > end:
                raise AssertionError(f"{page.url}: the network never went quiet for {self.quiet:.1f} s "
                                     f"(in flight: {[r.url for r in self.in_flight]})")
            page.wait_for_timeout(50)  # lets Playwright deliver the events


def _search_from_a_fresh_page(own_browser, lang: str, way: str) -> dict:
    """Load ``lang``'s home page; what it requested for search by then, and after the reader takes
    ``way`` into search and types the language's first search term."""
    width, act = SEARCH_WAYS_IN[way]
    ctx, page, errors, base = _open(own_browser, width)
    requests: list[str] = []
    ctx.on("request", lambda r: SEARCH_FILES.search(urlsplit(r.url).path) and requests.append(r.url))  # workers too
    quiet = NetworkQuiet(ctx)
    home = base + SITE.prefix(lang)
    try:
        page.goto(home, wait_until="networkidle")
        quiet.wait(page)  # a worker's own requests, or a late eager fetch on a slow host, come in by then
        at_load = list(requests)
        act(page)
        page.keyboard.type(SITE.text(lang, "search_terms")[0], delay=30)
        with contextlib.suppress(Exception):
            page.wait_for_selector(".md-search-result__item", timeout=10_000)
        results = page.locator(".md-search-result__item").count()
    finally:
        ctx.close()
    return {"home": home, "at_load": at_load, "after": requests, "results": results, "errors": errors}


@pytest.mark.parametrize("lang", SITE.languages)
def test_a_page_load_fetches_no_search_index(own_browser, lang):
    found = _search_from_a_fresh_page(own_browser, lang, "click")
    assert not found["at_load"], f"{found['home']}, loaded and idle, requested for search: {found['at_load']}"


@pytest.mark.parametrize("lang,way", [(lang, way) for lang in SITE.languages for way in SEARCH_WAYS_IN])
def test_search_loads_once_when_the_reader_starts_to_search(own_browser, lang, way):
    found = _search_from_a_fresh_page(own_browser, lang, way)
    assert not found["at_load"], f"{found['home']} requested {found['at_load']} before the reader searched"
    index = found["home"] + "search/search_index.json"
    fetched = [u for u in found["after"] if u.split("?")[0] == index]
    assert len(fetched) == 1, f"{found['home']}, {way}: {index} fetched {len(fetched)} times ({found['after']})"
    assert any("/workers/search." in u for u in found["after"]), f"{found['home']}, {way}: no search worker started"
    assert found["results"], f"{found['home']}, {way}: searching {SITE.text(lang, 'search_terms')[0]!r} found nothing"
    assert not found["errors"], "\n".join(found["errors"])


@pytest.mark.parametrize("lang", SITE.languages)
def test_a_page_opened_from_a_search_result_highlights_the_term(own_browser, lang):
    """Material's ?h= (search.highlight) needs the index: such a page loads it at once."""
    term = SITE.text(lang, "search_terms")[0]
    ctx, page, errors, base = _open(own_browser)
    url = f"{base}{SitePage(lang, SWITCH_PAGE).path}?h={term}"
    try:
        page.goto(url, wait_until="networkidle")
        with contextlib.suppress(Exception):
            page.wait_for_selector("article mark", timeout=10_000)
        # textContent: a mark inside a collapsed solution (<details>) is not rendered, so its innerText is ""
        marks = page.evaluate("[...document.querySelectorAll('article mark')].map(m => m.textContent.trim().toLowerCase())")
    finally:
        ctx.close()
    assert marks and set(marks) == {term}, f"{url}: highlighted {sorted(set(marks))[:5]}, not only {term!r}"
    assert not errors, "\n".join(errors)


# --------------------------------------------------------------------------- what a reader sees (issue 9)
#
# Every page at a desktop (1400 px) and a phone (390 px) width, measured in the browser: at the desktop
# width by the visit above, as soon as each page has loaded (its viewport is that width: the page is not
# loaded twice), at the phone width by a pass of its own. Each test below reads one measure, parametrized
# by page and width.

WIDTHS = {"desktop": 1400, "phone": 390}
VISIT_WIDTH = "desktop"  # measured in the visit itself (its viewport), on the page it loads anyway
READER_JS = r"""async () => {
  const article = document.querySelector("article") || document.body;
  const out = {};
  out.pageWidth = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
  out.viewport = window.innerWidth;
  // the widest elements, to name the culprit when the page is too wide
  out.wide = [...article.querySelectorAll("*")]
    .filter(el => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5
                  && !el.closest(".math-display, .rn-math-wide, pre, .md-typeset__scrollwrap, .tabbed-labels, table"))
    .slice(0, 3).map(el => el.tagName.toLowerCase() + "." + [...el.classList].join(".") + ": "
                           + (el.textContent || "").trim().slice(0, 40));
  // lines that start with full-width "，" or "。"
  out.punctStarts = [];
  const blocks = article.querySelectorAll("p, li, dd, td, figcaption, blockquote");
  for (const block of blocks) {
    const left = block.getBoundingClientRect().left + parseFloat(getComputedStyle(block).paddingLeft);
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    let first = true;
    while (walker.nextNode()) {
      const node = walker.currentNode;
      if (node.parentElement.closest("math, code, pre, ul, ol") !== node.parentElement.closest("math, code, pre, ul, ol")
          || node.parentElement.closest("math, pre")) continue;
      for (let i = 0; i < node.data.length; i++) {
        const ch = node.data[i];
        if (!/\S/.test(ch)) continue;
        if (!first && (ch === "，" || ch === "。")) {
          const range = document.createRange();
          range.setStart(node, i); range.setEnd(node, i + 1);
          const rects = range.getClientRects();
          if (rects.length && Math.abs(rects[0].left - left) < 2)
            out.punctStarts.push(block.textContent.trim().slice(0, 30) + " … " + node.data.slice(Math.max(0, i - 8), i + 2));
        }
        first = false;
      }
    }
  }
  // Chinese drawn in (synthetic) italics
  out.italic = [...article.querySelectorAll("em, i, figcaption, cite")]
    .filter(el => /[\u4e00-\u9fff]/.test(el.textContent) && getComputedStyle(el).fontStyle !== "normal")
    .map(el => el.tagName.toLowerCase() + ": " + el.textContent.trim().slice(0, 30));
  // math: display boxes that clip their formula, sized delimiters drawn smaller than their size,
  // radicals with a gap after them
  out.clipped = [...article.querySelectorAll(".math-display")]
    .filter(d => d.getClientRects().length && d.scrollHeight > d.clientHeight + 1)
    .map(d => (d.querySelector("math") || d).getAttribute("data-tex").slice(0, 50) + ` (${d.scrollHeight} > ${d.clientHeight} px)`);
  out.smallFences = [];
  for (const mo of article.querySelectorAll("mo[minsize]")) {
    if (!mo.getClientRects().length) continue;
    const want = parseFloat(mo.getAttribute("minsize")) * parseFloat(getComputedStyle(mo).fontSize);
    const got = mo.getBoundingClientRect().height;
    if (got < 0.9 * want) out.smallFences.push(
      `${mo.textContent} ${got.toFixed(0)} px < ${want.toFixed(0)} px in ` +
      (mo.closest("math").getAttribute("data-tex") || "?").slice(0, 50));
  }
  out.radicalGaps = [];
  for (const root of article.querySelectorAll("msqrt")) {
    if (!root.getClientRects().length) continue;
    let right = -Infinity;
    for (const c of root.children) right = Math.max(right, c.getBoundingClientRect().right);
    const em = parseFloat(getComputedStyle(root).fontSize);
    const gap = root.getBoundingClientRect().right + parseFloat(getComputedStyle(root).marginRight) - right;
    if (gap > 0.12 * em) out.radicalGaps.push(`${(gap / em).toFixed(2)} em after √ in ` +
      (root.closest("math").getAttribute("data-tex") || "?").slice(0, 50));
  }
  // output blocks: the label sits above the first output line, not over the text
  out.labelOverlaps = [...article.querySelectorAll(".language-text.highlight")]
    .filter(h => h.getClientRects().length)
    .filter(h => {
      const label = getComputedStyle(h, "::before");
      const pre = h.querySelector("pre");
      return label.content === "none" || label.display !== "block"
             || pre.getBoundingClientRect().top - h.getBoundingClientRect().top < 8;
    }).map(h => h.textContent.trim().slice(0, 40));
  // figures: the smallest text as drawn, from each SVG's own font sizes and its rendered width; a static SVG
  // an explorable chart hides (assets/js/explore.js) measured as a reader without JavaScript sees it
  const live = [...article.querySelectorAll("figure.explore-live")];
  live.forEach(f => f.classList.remove("explore-live"));
  out.figures = [];
  for (const img of article.querySelectorAll('img[src*="/figures/"]')) {
    const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(), "image/svg+xml").documentElement;
    const viewWidth = svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll("text")].map(t => {
      const m = /font-size:\s*([\d.]+)px/.exec(t.getAttribute("style") || "") || /([\d.]+)px/.exec(t.getAttribute("font") || "");
      return m ? parseFloat(m[1]) : parseFloat(getComputedStyle(t).fontSize || "0");
    }).filter(x => x > 0);
    out.figures.push({src: img.src.split("/").pop(), texts: sizes.length, width: img.getBoundingClientRect().width,
                      minPx: sizes.length ? Math.min(...sizes) * img.getBoundingClientRect().width / viewWidth : null,
                      background: getComputedStyle(img).backgroundColor, filter: getComputedStyle(img).filter,
                      loaded: img.complete && img.naturalWidth > 0, alt: img.alt,
                      lang: [...svg.querySelectorAll("text")].map(t => t.textContent).join(" ")});
  }
  live.forEach(f => f.classList.add("explore-live"));
  return out;
}"""


async def _reader_visit(base: str) -> dict:
    """READER_JS at every width but the visit's, on every page."""
    from playwright.async_api import async_playwright

    out = {}
    widths = {w: px for w, px in WIDTHS.items() if w != VISIT_WIDTH}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        queue: asyncio.Queue = asyncio.Queue()
        for sp in PAGES:
            for width in widths:
                queue.put_nowait((sp, width))
        contexts = {w: await browser.new_context(viewport={"width": px, "height": 900}, service_workers="block",
                                                 is_mobile=(w == "phone"), has_touch=(w == "phone"))
                    for w, px in widths.items()}

        async def worker():
            while not queue.empty():
                sp, width = queue.get_nowait()
                page = await contexts[width].new_page()
                try:
                    await page.goto(base + sp.path, wait_until="load")
                    await page.evaluate("document.fonts.ready.then(() => true)")
                    await page.wait_for_timeout(50)
                    out[(sp, width)] = await page.evaluate(READER_JS)
                except Exception as err:  # noqa: BLE001 - reported by the test
                    out[(sp, width)] = {"failure": f"{type(err).__name__}: {err}"}
                finally:
                    await page.close()

        await asyncio.gather(*(worker() for _ in range(WORKERS)))
        await browser.close()
    return out


@pytest.fixture(scope="session")
def reader(built_site, chromium, after_build, visit) -> dict:
    """(page, width) -> what READER_JS measured: at the visit's width in the visit, at the others in
    a pass of their own."""
    seen = {(sp, VISIT_WIDTH): ({"failure": r.failure} if r.failure else r.reader) for sp, r in visit.pages.items()}
    return {**seen, **after_build("reader")}


def _seen(reader: dict, sp: SitePage, width: str) -> dict:
    facts = reader[(sp, width)]
    if "failure" in facts:
        pytest.fail(f"{sp.path} at {WIDTHS[width]} px: the visit failed: {facts['failure']}", pytrace=False)
    return facts


_BY_WIDTH = [pytest.param(sp, w, id=f"{sp.id}@{w}") for sp in PAGES for w in WIDTHS]
_MD_BY_WIDTH = [pytest.param(sp, w, id=f"{sp.id}@{w}") for sp in PAGES if sp.src.endswith(".md") for w in WIDTHS]


@pytest.mark.parametrize("sp,width", _BY_WIDTH)
def test_reader_page_is_no_wider_than_the_screen(reader, sp, width):
    """Phones: a page that scrolls sideways hides the end of every line."""
    f = _seen(reader, sp, width)
    # against the screen's width: a mobile browser widens its layout viewport to fit a wide page
    assert f["pageWidth"] <= WIDTHS[width], \
        f"/{sp.path} at {WIDTHS[width]} px is {f['pageWidth']} px wide; too wide: {f['wide']}"


@pytest.mark.parametrize("sp,width", [p for p in _BY_WIDTH if SITE.text(p.values[0].lang, "script") == "han"])
def test_reader_no_line_starts_with_a_comma_or_full_stop(reader, sp, width):
    """Chinese typesetting: "，" and "。" never start a line (e.g. after an inline formula)."""
    f = _seen(reader, sp, width)
    assert not f["punctStarts"], f"/{sp.path} at {WIDTHS[width]} px, lines starting with ，/。:\n" + "\n".join(f["punctStarts"])


@pytest.mark.parametrize("sp,width", [p for p in _BY_WIDTH if SITE.text(p.values[0].lang, "script") == "han" and p.values[1] == "desktop"])
def test_reader_no_chinese_in_italics(reader, sp, width):
    """Chinese typesetting: CJK fonts have no italic; a browser slants them synthetically."""
    f = _seen(reader, sp, width)
    assert not f["italic"], f"/{sp.path}: Chinese drawn in italics:\n" + "\n".join(f["italic"])


@pytest.mark.parametrize("sp,width", _MD_BY_WIDTH)
def test_reader_math_is_whole(reader, sp, width):
    """Math: display boxes show the whole formula; sized delimiters have their size; no gap after √."""
    f = _seen(reader, sp, width)
    problems = ([f"clipped display formula: {c}" for c in f["clipped"]]
                + [f"delimiter drawn small: {c}" for c in f["smallFences"]]
                + [f"gap: {c}" for c in f["radicalGaps"]])
    assert not problems, f"/{sp.path} at {WIDTHS[width]} px:\n" + "\n".join(problems)


@pytest.mark.parametrize("sp,width", _BY_WIDTH)
def test_reader_output_label_does_not_cover_the_output(reader, sp, width):
    """Code and output: every stdout block carries its label above its first line."""
    f = _seen(reader, sp, width)
    assert not f["labelOverlaps"], f"/{sp.path} at {WIDTHS[width]} px, label missing or over the text:\n" \
        + "\n".join(f["labelOverlaps"])


@pytest.mark.parametrize("sp,width", _BY_WIDTH)
def test_reader_figure_text_is_readable_and_in_the_page_language(reader, sp, width):
    """Figures (chapters and notebooks): text as drawn is at least 11 px, and a Chinese page's
    figures are labelled in Chinese."""
    f = _seen(reader, sp, width)
    problems = []
    for fig in f["figures"]:
        if fig["minPx"] is None:
            problems.append(f"{fig['src']}: no <text> in the SVG (svg.fonttype must be 'none')")
        elif fig["minPx"] < 11 - 0.05:
            problems.append(f"{fig['src']}: smallest text {fig['minPx']:.1f} px at {fig['width']:.0f} px wide")
        chinese = bool(re.search(r"[\u4e00-\u9fff]", fig["lang"]))
        if chinese != (SITE.text(sp.lang, "script") == "han"):
            problems.append(f"{fig['src']}: labels {'in Chinese' if chinese else 'not in Chinese'} on a {sp.lang} page")
    assert not problems, f"/{sp.path} at {WIDTHS[width]} px:\n" + "\n".join(problems)


def _drawn(sp: SitePage) -> list[str]:
    """The figure files a notebook's code cells draw (their SVG outputs name them), in order."""
    import json

    nb = json.loads((SITE.docs / sp.lang / sp.src).read_text(encoding="utf-8"))
    return [str(notebook_figures.figure_name(o)) for _, _, o in notebook_figures.svg_outputs(nb)]


_NOTEBOOKS_BY_WIDTH = [p for p in _BY_WIDTH if p.values[0].src.endswith(".ipynb")]


@pytest.mark.parametrize("sp,width", _NOTEBOOKS_BY_WIDTH)
def test_reader_notebook_page_shows_the_figures_its_code_draws(reader, sp, width):
    """Notebook pages: each figure a code cell draws is shown, loaded from the site's figure file
    (the chapter's), with an alt text."""
    f = _seen(reader, sp, width)
    shown = [fig["src"] for fig in f["figures"]]
    assert shown == _drawn(sp), f"/{sp.path} at {WIDTHS[width]} px shows {shown}, its code draws {_drawn(sp)}"
    problems = [f"{fig['src']}: " + ("not loaded" if not fig["loaded"] else "no alt text" if not fig["alt"].strip()
                                     else f"{fig['width']:.0f} px wide")
                for fig in f["figures"] if not fig["loaded"] or not fig["alt"].strip() or fig["width"] < 100]
    assert not problems, f"/{sp.path} at {WIDTHS[width]} px:\n" + "\n".join(problems)


# the reader's searches: (language, query) -> the words that must be highlighted whole, and the
# page that must come first
SEARCH_CASES = {
    ("zh", "残差连接"): {"whole": ["残差连接", "残差", "连接"], "top": "residual-connections/"},
    ("zh", "梯度消失"): {"whole": ["梯度消失", "梯度", "消失"], "top_among": ["glossary/", "why-depth-is-hard/", "residual-connections/"]},
    ("en", "normalization"): {"whole": ["normalization"], "not_top": "references/"},
}
SEARCH_RESULTS_JS = r"""() => [...document.querySelectorAll('.md-search-result__item')].map(li => ({
  href: (li.querySelector('a') || {}).href || "",
  marks: [...li.querySelectorAll('mark')].map(m => m.innerText.trim()).filter(Boolean),
  missing: [...li.querySelectorAll('.md-search-result__terms s, .md-search-result__terms del')]
           .map(s => s.innerText.trim()).filter(Boolean),
  teaser: (li.querySelector('.md-search-result__teaser') || {innerText: ""}).innerText,
}))"""


async def _search_visit(base: str) -> dict:
    from playwright.async_api import async_playwright

    out = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page()
        for (lang, query) in SEARCH_CASES:
            home = base + SITE.prefix(lang)
            await page.goto(home, wait_until="networkidle")
            box = page.locator("input.md-search__input")
            await box.click()
            await box.fill(query)
            await box.dispatch_event("keyup")
            with contextlib.suppress(Exception):
                await page.wait_for_function(
                    "() => document.querySelectorAll('.md-search-result__item').length > 0", timeout=10_000)
            out[(lang, query)] = {"home": home, "results": await page.evaluate(SEARCH_RESULTS_JS)}
        await browser.close()
    return out


@pytest.fixture(scope="session")
def reader_search(built_site, chromium, after_build) -> dict:
    return after_build("reader_search")


@pytest.mark.parametrize("lang,query", list(SEARCH_CASES), ids=[f"{lang}:{q}" for lang, q in SEARCH_CASES])
def test_reader_search_matches_and_highlights_whole_terms(reader_search, lang, query):
    """Search: a Chinese query is matched as its words (not single characters), no word is
    reported missing on a page that has it, and the best page comes first."""
    case, found = SEARCH_CASES[(lang, query)], reader_search[(lang, query)]
    results = found["results"]
    assert results, f"searching {query!r} on {found['home']} found nothing"
    marks = {m.lower().rstrip(":.,") for r in results for m in r["marks"]}
    stray = sorted(m for m in marks if m not in case["whole"])
    assert not stray, f"searching {query!r} highlighted {stray}, not only the whole words {case['whole']}"
    first = results[0]
    assert not first["missing"], f"searching {query!r}: the top hit {first['href']} is marked missing {first['missing']}"
    page = first["href"].split("?")[0].removeprefix(found["home"]).split("#")[0]
    if "top" in case:
        assert page == case["top"], f"searching {query!r}: the top hit is {page!r}, not {case['top']!r}"
    if "top_among" in case:
        assert page in case["top_among"], f"searching {query!r}: the top hit is {page!r}, not one of {case['top_among']}"
    if "not_top" in case:
        assert page != case["not_top"], f"searching {query!r}: {case['not_top']} ranks first"
    code = [r["href"] for r in results if re.search(r"^\s*(import |def |torch\.)", r["teaser"], re.M)]
    assert not code, f"searching {query!r}: previews show code: {code}"


# --------------------------------------------------------------------------- a reader's hands: copy, enlarge, dark mode

INTERACT_PAGES = [SitePage("zh", "add-and-norm.md"), SitePage("en", "residual-scaling.md")]
INTERACT_JS = r"""async () => {
  const out = {};
  const maths = [...document.querySelectorAll("article math")];
  out.mathCount = maths.length;
  const face = [...document.fonts].find(f => f.family.replace(/["']/g, "") === "STIX Two Math");
  out.fontDisplay = face ? face.display : null;
  out.preloads = [...document.querySelectorAll('link[rel=preload][as=font]')].map(l => l.href);
  out.fontFetches = performance.getEntriesByType("resource").map(e => e.name).filter(n => n.endsWith(".woff2"));
  return out;
}"""
COPY_JS = r"""async (selector) => {
  const el = document.querySelector(selector);
  const range = document.createRange();
  range.selectNode(el);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  await navigator.clipboard.writeText("");
  document.execCommand("copy");
  selection.removeAllRanges();
  return {copied: await navigator.clipboard.readText(),
          tex: [...(el.matches("math") ? [el] : el.querySelectorAll("math"))].map(m => m.getAttribute("data-tex"))};
}"""


async def _hands_visit(base: str) -> dict:
    from playwright.async_api import async_playwright

    out = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = await browser.new_context(viewport={"width": 1400, "height": 900}, service_workers="block")
        await ctx.grant_permissions(["clipboard-read", "clipboard-write"])
        for sp in INTERACT_PAGES:
            page = await ctx.new_page()
            errors = []
            page.on("console", lambda m: m.type == "error" and errors.append(
                f"{m.text} ({(m.location or {}).get('url', '')})"))
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(base + sp.path, wait_until="load")
            await page.evaluate("document.fonts.ready.then(() => true)")
            facts = await page.evaluate(INTERACT_JS)
            facts["copyDisplay"] = await page.evaluate(COPY_JS, "article .math-display")
            facts["copyProse"] = await page.evaluate(COPY_JS, "article p:has(> math), article p:has(.rn-nobr math)")
            block = page.locator("article .language-text.highlight").first
            await block.hover()
            await block.locator('button[data-md-type="copy"]').click()
            facts["stdoutCopied"] = await page.evaluate("navigator.clipboard.readText()")
            facts["stdoutText"] = await block.locator("code").inner_text()
            facts.update(await _figure_facts(page))
            facts["errors"] = errors
            out[sp] = facts
            await page.close()
        await browser.close()
    return out


@pytest.fixture(scope="session")
def reader_hands(built_site, chromium, after_build) -> dict:
    return after_build("reader_hands")


async def _figure_facts(page) -> dict:
    """The page's first figure clicked open (lightbox sources), then every figure's filter in dark mode."""
    figure = page.locator('article img[src*="/figures/"]').first
    facts = {"figureSrc": await figure.get_attribute("src")}
    await figure.click()
    with contextlib.suppress(Exception):
        await page.wait_for_selector(".glightbox-container .gslide-image img", timeout=5000)
    facts["lightbox"] = await page.evaluate(
        "[...document.querySelectorAll('.glightbox-container .gslide-image img')].map(i => i.src)")
    await page.keyboard.press("Escape")
    await page.wait_for_timeout(400)
    await page.evaluate(PALETTE_JS, "dark")
    facts["darkFilters"] = await page.evaluate(
        "[...document.querySelectorAll('article img[src*=\"/figures/\"]')].map(i => getComputedStyle(i).filter)")
    await page.evaluate(PALETTE_JS, "light")
    return facts


# one notebook page with figures per language: a figure opens full size and is inverted in dark mode
NOTEBOOK_FIGURE_PAGES = [next(sp for sp in PAGES if sp.lang == lang and sp.src.endswith(".ipynb") and _drawn(sp))
                         for lang in SITE.languages]


async def _notebook_figures_visit(base: str) -> dict:
    from playwright.async_api import async_playwright

    out = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 900}, service_workers="block")
        for sp in NOTEBOOK_FIGURE_PAGES:
            await page.goto(base + sp.path, wait_until="load")
            out[sp] = await _figure_facts(page)
        await browser.close()
    return out


@pytest.fixture(scope="session")
def notebook_figures_seen(built_site, chromium, after_build) -> dict:
    return after_build("notebook_figures_seen")


@pytest.mark.parametrize("sp", NOTEBOOK_FIGURE_PAGES, ids=[p.id for p in NOTEBOOK_FIGURE_PAGES])
def test_reader_notebook_figure_opens_full_size_and_is_no_white_card_in_dark_mode(notebook_figures_seen, sp):
    f = notebook_figures_seen[sp]
    name = f["figureSrc"].rsplit("/", 1)[-1]
    assert any(src.endswith(name) for src in f["lightbox"]), f"/{sp.path}: clicking {name} opened {f['lightbox']}"
    assert len(f["darkFilters"]) == len(_drawn(sp)) and all("invert" in x for x in f["darkFilters"]), \
        f"/{sp.path}: figures in dark mode have filters {f['darkFilters']}"


@pytest.mark.parametrize("sp", INTERACT_PAGES, ids=[p.id for p in INTERACT_PAGES])
def test_reader_math_is_readable_at_first_paint(reader_hands, sp):
    """Math: the font is preloaded and swapped in, never a blank formula while it loads."""
    f = reader_hands[sp]
    assert f["mathCount"], f"/{sp.path}: no formulas to check"
    assert f["fontDisplay"] == "swap", f"/{sp.path}: STIX Two Math has font-display {f['fontDisplay']!r}"
    assert f["preloads"] and set(f["preloads"]) == set(f["fontFetches"]), \
        f"/{sp.path}: preloaded {f['preloads']}, fetched {f['fontFetches']}"


@pytest.mark.parametrize("sp", INTERACT_PAGES, ids=[p.id for p in INTERACT_PAGES])
def test_reader_copying_a_formula_gives_its_tex(reader_hands, sp):
    f = reader_hands[sp]
    display = f["copyDisplay"]
    assert display["copied"] == f"$${display['tex'][0]}$$", f"/{sp.path}: copying a display formula gave {display['copied']!r}"
    prose = f["copyProse"]
    missing = [t for t in prose["tex"] if f"\\({t}\\)" not in prose["copied"]]
    assert prose["tex"] and not missing, f"/{sp.path}: copying a paragraph lost the TeX of {missing}: {prose['copied']!r}"


@pytest.mark.parametrize("sp", INTERACT_PAGES, ids=[p.id for p in INTERACT_PAGES])
def test_reader_stdout_copy_button_copies_the_output_alone(reader_hands, sp):
    f = reader_hands[sp]
    assert f["stdoutCopied"].rstrip("\n") == f["stdoutText"].rstrip("\n"), \
        f"/{sp.path}: the stdout copy button copied {f['stdoutCopied'][:80]!r}"
    assert not re.match(r"\s*(stdout|输出)", f["stdoutCopied"])


@pytest.mark.parametrize("sp", INTERACT_PAGES, ids=[p.id for p in INTERACT_PAGES])
def test_reader_figure_opens_full_size_and_is_no_white_card_in_dark_mode(reader_hands, sp):
    f = reader_hands[sp]
    name = f["figureSrc"].rsplit("/", 1)[-1]
    assert any(src.endswith(name) for src in f["lightbox"]), f"/{sp.path}: clicking {name} opened {f['lightbox']}"
    assert f["darkFilters"] and all("invert" in x for x in f["darkFilters"]), \
        f"/{sp.path}: figures in dark mode have filters {f['darkFilters']}"
    assert not f["errors"], f"/{sp.path}: console errors: {f['errors']}"


# --------------------------------------------------------------------------- the checks can fail


def test_a_page_with_a_console_error_a_foreign_script_raw_tex_or_pale_text_fails_the_page_tests(built_site, chromium, tmp_path):
    """Mutation: one page of a scratch copy of the built site logs an error, loads a script from another
    host, shows a formula as raw TeX (as without hooks/math.py) and has pale text: in light mode, in dark mode
    only, and of a look whose first element is hidden (so the contrast sample must be a visible one); and a
    link in a code block told from the code by colour alone, the first of its look hidden; on another page,
    the copy button of its Python block under a layer that takes the click. The pages are visited as every
    page is, and the per-page tests fail naming their URL."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site, copy_function=os.symlink)  # links: only the mutated page is written
    sp = SitePage(SITE.languages[-1], "index.md")
    page = site / sp.path / "index.html"
    text = page.read_text(encoding="utf-8")
    page.unlink()
    mutation = ('<script src="https://cdn.example.org/tracker.js"></script><script>console.error("mutation")</script>'
                r"<p>\(x_{l+1} = x_l + \frac{1}{2} F(x_l)\)</p>"
                # contrast: pale in light mode; pale in dark mode only; pale where the first of its look is hidden
                '<style>[data-md-color-scheme=slate] .mutant-dark { color: #3a3a3a }'
                ' .mutant-hidden { color: #d0d0d8 }</style>'
                '<p style="color: #c8c8c8" id="mutant-light">pale text</p><p class="mutant-dark">dark text</p>'
                '<div style="display: none"><p class="mutant-hidden">hidden</p></div>'
                '<div><p class="mutant-hidden" id="mutant-shown">shown</p></div>'
                # a link in a code block told from the code by a colour of contrast 1.3 only; the first link of
                # its look is hidden, so the link sample must be a shown one
                '<style>.mutant-link { color: #202020 !important; text-decoration: none !important }</style>'
                '<div style="display: none"><pre><code style="color: #000">z = <a href="#a" class="mutant-link">hidden</a>(1)</code></pre></div>'
                '<div><pre><code style="color: #000">y = <a href="#b" class="mutant-link" id="mutant-link">ones</a>(2)</code></pre></div>')
    page.write_text(text.replace("</article>", mutation + "</article>", 1), encoding="utf-8")
    covered = SitePage(SITE.languages[-1], "verification.md")  # one Python block
    assert len(EXPECTED_CODE[covered]) == 1, EXPECTED_CODE[covered]
    page = site / covered.path / "index.html"
    text = page.read_text(encoding="utf-8")
    page.unlink()
    layer = '<div style="position: fixed; inset: 0; z-index: 10" id="mutant-layer"></div>'
    page.write_text(text.replace("</article>", layer + "</article>", 1), encoding="utf-8")

    async def visit_one(base):
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                                            service_workers="block")
            await ctx.grant_permissions(["clipboard-read", "clipboard-write"])
            reports = {p: await _visit_page(ctx, p, base, asyncio.Lock(), shots=False) for p in (sp, covered)}
            await browser.close()
            return reports

    with serve_published(site) as base:
        reports = _run_async(visit_one(base))
    report = reports[sp]
    assert report.failure is None and reports[covered].failure is None, (report.failure, reports[covered].failure)
    mutated = Visit(base, reports, {}, [], 0.0)
    with pytest.raises(AssertionError) as failed:
        test_copy_buttons_copy_the_snippets(mutated, covered)
    assert str(failed.value).startswith(f"{base}{covered.path}: copy buttons failed"), failed.value
    assert "block 1: AssertionError: its copy button is covered by <div" in str(failed.value), failed.value
    assert "mutant-layer" in str(failed.value), failed.value
    for test, says in ((test_page_loads_without_errors, "mutation"),
                       (test_page_loads_nothing_from_other_hosts, "https://cdn.example.org/tracker.js"),
                       (test_math_is_rendered, "raw TeX in the text"),
                       (test_no_serious_accessibility_violations, "[light] color-contrast"),
                       (test_no_serious_accessibility_violations, "[dark] color-contrast"),
                       (test_no_serious_accessibility_violations, "[light] link-in-text-block")):
        with pytest.raises(AssertionError) as failed:
            test(mutated, sp)
        assert str(failed.value).startswith(f"{base}{sp.path}:") or f"{base}{sp.path} " in str(failed.value), failed.value
        assert says in str(failed.value), failed.value
    contrast = {v["scheme"]: {" ".join(map(str, n["target"])) for n in v["nodes"]} for v in report.axe
                if v["id"] == "color-contrast"}
    assert {"#mutant-light", "#mutant-shown"} <= contrast.get("light", set()), contrast
    assert any("mutant-dark" in t for t in contrast.get("dark", set())), contrast
    links = {" ".join(map(str, n["target"])) for v in report.axe if v["id"] == "link-in-text-block" for n in v["nodes"]}
    assert links == {"#mutant-link"}, links


# The session fixtures' work, started by tests/conftest.py as soon as the strict build is done (each in a
# thread, event loop and Chromium of its own; name -> (work, the job it follows)), in three lanes: the
# visit of every page in two halves, and the reader's passes one after the other. Most of their time is spent waiting
# on the browser, so they overlap the reader machines instead of running after them.
AFTER_BUILD = {
    "visit": (_visit_job(0), None),
    "visit_rest": (_visit_job(1), None),
    "reader": (_served(_reader_visit), None),
    "reader_search": (_served(_search_visit), "reader"),
    "reader_hands": (_served(_hands_visit), "reader_search"),
    "notebook_figures_seen": (_served(_notebook_figures_visit), "reader_hands"),
} if browser_decision() == "run" else {}
