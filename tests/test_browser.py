"""What a reader's browser does with the built site: every page, both languages, notebooks included.

Headless Chromium (Debian's, at /usr/bin/chromium) opens every page of the strict build, served on
127.0.0.1 under the path of ``site_url`` (as it is published), and checks:

* no console error, no uncaught page error, no HTTP error;
* no request to any host but 127.0.0.1 (each is recorded and aborted; axe-core is injected from
  axe-playwright-python's bundled copy, so running it must not fetch anything either);
* math: MathML where the source has TeX, laid out as math with the site's STIX Two Math font, and
  no raw TeX (``\\frac``, ``\\(``, ``$$`` …) left in the text outside code;
* the language switcher leads to the same page in the other language (link on every page, a real
  click on each chapter, the home page and a notebook);
* every Python block's copy button copies exactly the snippet's code (clipboard read back);
* no serious or critical accessibility violation (axe-core) in light mode, and no colour-contrast
  one in dark mode (see ``AXE_EXCLUDE`` and ``CONTRAST_CONTEXT`` for what is excluded or sampled);
* search finds 残差 / 梯度 / 归一化 on Chinese pages and residual / gradient / normalization on
  English ones, with every result in the page's language;
* a full-page screenshot of each page in light and dark mode goes to ``screenshots/`` (not committed).

Everything is collected in one pass (one browser, two pages at a time); the tests below only read
the report, parametrized by page so a failure names it. Without /usr/bin/chromium they skip, except
where ``CI`` is set: there they fail. At the end, tests of their own: switching language keeps the
section, and the 404 pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from hooks import site_facts
from tools import notebooks, snippets, sources
from tools.browser import CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM, browser_decision, serve_published

SITE = site_facts.load()

pytestmark = pytest.mark.skipif(browser_decision() == "skip", reason=NO_CHROMIUM)


@pytest.fixture(scope="session")
def chromium() -> str:
    if browser_decision() == "fail":
        pytest.fail(f"CI is set and Chromium is missing: {NO_CHROMIUM}", pytrace=False)
    return CHROMIUM


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
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"color-contrast": {"enabled": False}}}
# Colour contrast of code and formulas: every token span and MathML element was checked one by
# one, which took most of the run. They share their CSS, so each page checks one element of each
# kind (each token class in code, each in outputs, one formula) and the rest of the page in full.
CONTRAST_CONTEXT = {"include": [["body"], ["[data-axe-sample]"]],
                    "exclude": [[selector] for selector in AXE_EXCLUDE] + [[".highlight code"], ["article math"]]}
CONTRAST_OPTIONS = {"resultTypes": ["violations"], "runOnly": ["color-contrast"]}
MARK_SAMPLES_JS = r"""() => {
  const seen = new Set();
  for (const el of document.querySelectorAll(".highlight code, .highlight code span[class]")) {
    const key = el.closest(".highlight").className + " " + el.className;
    if (!seen.has(key)) { seen.add(key); el.setAttribute("data-axe-sample", ""); }
  }
  const formula = document.querySelector("article math");
  if (formula) formula.setAttribute("data-axe-sample", "");
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
                for name in names for b in snippets.extract(snippets.SNIPPETS / name)]

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
    """Pages where the switcher is really clicked: the home page, the chapters and one notebook
    (the switcher's links are checked on every page)."""
    first_notebook = min((q.src for q in PAGES if q.src.startswith(notebooks.FOLDER + "/")), default=None)
    return sp.src in ("index.md", first_notebook) or sp.src in {f"{s}.md" for s in notebooks.chapters(sp.lang)}


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


async def _visit_page(ctx, sp: SitePage, base: str, clipboard: asyncio.Lock) -> Report:
    from axe_playwright_python.async_playwright import Axe

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
    name = sp.id.replace(":", "-").replace("/", "-")
    try:
        await page.goto(report.url, wait_until="load")
        await page.evaluate("document.fonts.ready.then(() => true)")
        report.facts = await page.evaluate(FACTS_JS)

        # accessibility before any interaction (focus changes what Material's tooltips do)
        result = await Axe().run(page, context=AXE_CONTEXT, options=AXE_OPTIONS)
        report.axe += [{**v, "scheme": "light"} for v in result.response["violations"]]
        await page.evaluate(MARK_SAMPLES_JS)
        result = await Axe().run(page, context=CONTRAST_CONTEXT, options=CONTRAST_OPTIONS)
        report.axe += [{**v, "scheme": "light"} for v in result.response["violations"]]

        # screenshots first: copying shows a toast and leaves the mouse on a button
        report.screenshots.append(await _screenshot(page, f"{name}-light"))
        # dark mode through Material's own palette switch (it is remembered, so switch back after)
        await page.evaluate(PALETTE_JS, "dark")
        result = await Axe().run(page, context=CONTRAST_CONTEXT, options=CONTRAST_OPTIONS)
        report.axe += [{**v, "scheme": "dark"} for v in result.response["violations"]]
        report.screenshots.append(await _screenshot(page, f"{name}-dark"))
        await page.evaluate(PALETTE_JS, "light")

        # copy buttons of the Python blocks, in page order
        blocks = page.locator("article .language-python.highlight")
        for i in range(await blocks.count()):
            block = blocks.nth(i)
            await block.evaluate(REVEAL_JS)
            button = block.locator('button[data-md-type="copy"]').first
            async with clipboard:
                try:
                    await page.evaluate("navigator.clipboard.writeText('')")
                    await button.click(timeout=20_000)
                    report.copied.append(await page.evaluate("navigator.clipboard.readText()"))
                except Exception as err:  # noqa: BLE001 - reported by the test
                    report.copied.append(None)
                    report.copy_errors.append(f"block {i + 1}: {type(err).__name__}: {str(err).splitlines()[0]}")

        if _sampled(sp):
            other = next(lang for lang in SITE.languages if lang != sp.lang)
            await page.evaluate(f"document.querySelector('.md-select__link[hreflang={other}]').click()")
            with contextlib.suppress(Exception):
                await page.wait_for_url(base + sp.counterpart(other).path, timeout=5000)
            report.switch_click[other] = page.url
    except Exception as err:  # noqa: BLE001 - reported by every test of this page
        report.failure = f"{type(err).__name__}: {err}"
    finally:
        await page.close()
    report.seconds = time.perf_counter() - start
    return report


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


async def _visit_all(base: str) -> Visit:
    from playwright.async_api import async_playwright

    start = time.perf_counter()
    SCREENSHOTS.mkdir(exist_ok=True)
    for old in [*SCREENSHOTS.glob("*-light.jpg"), *SCREENSHOTS.glob("*-dark.jpg")]:
        old.unlink()
    external: list[str] = []
    reports: dict[SitePage, Report] = {}
    search: dict = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        clipboard = asyncio.Lock()
        queue: asyncio.Queue = asyncio.Queue()
        for sp in PAGES:
            queue.put_nowait(sp)

        async def new_context():
            ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light",
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
                reports[sp] = await _visit_page(ctx, sp, base, clipboard)

        contexts = [await new_context() for _ in range(WORKERS)]
        await asyncio.gather(*(worker(ctx) for ctx in contexts))
        for found in await asyncio.gather(*(_search(contexts[i % WORKERS], base, lang)
                                            for i, lang in enumerate(SITE.languages))):
            search.update(found)
        for ctx in contexts:
            await ctx.close()
        await browser.close()
    return Visit(base, reports, search, external, time.perf_counter() - start)


@pytest.fixture(scope="session")
def visit(built_site, chromium) -> Visit:
    with serve_published(built_site) as base:
        return asyncio.run(_visit_all(base))


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
    want = {lang: visit.base + sp.counterpart(lang).path for lang in SITE.languages}
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
    missing = [str(p) for r in visit.pages.values() for p in r.screenshots if not p.exists()]
    taken = sum(len(r.screenshots) for r in visit.pages.values())
    assert not missing and taken == 2 * len(PAGES), f"{taken} of {2 * len(PAGES)} screenshots; missing {missing}"


# --------------------------------------------------------------------------- own visits


@pytest.fixture(scope="session")
def own_browser(built_site, chromium):
    """A browser of these tests' own, on the site served as published."""
    from playwright.sync_api import sync_playwright

    with serve_published(built_site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser, base
        browser.close()


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
        page.fill("input.md-search__input", "residual" if lang == "en" else "残差")
        page.wait_for_selector(".md-search-result__item", timeout=10_000)
        page.goto(home + "404.html", wait_until="load")
        page.click("article .rn-not-found__actions a.md-button--primary")
        _wait_for_url(page, home, f"{home}404.html, home link clicked")
    finally:
        ctx.close()
    assert not errors, "\n".join(errors)

