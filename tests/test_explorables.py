"""Explorable figures: the curves a reader moves are the data files the snippets wrote and the tests compared.

Without a browser: every ``<figure data-explore>`` names committed data files, each language has the
same explorables (at least ``MIN_PER_LANGUAGE``), the build puts the committed files in the page
unchanged, and only pages with an explorable load the chart library (the home pages' first visit
is unchanged); the hook fails naming page and file when a file is missing.

In Chromium's headless shell (skipped without it, failed without it where ``CI`` is set): for every
explorable of every language, each position of its controls (reached with the keyboard) draws the
frame of the data file: the canvas paths uPlot strokes since the last position are recorded
(``Path2D.lineTo``; a chart that does not redraw is caught) and must be one affine image of the
frame's values (log10 of them on a log axis) within ``PIXEL_TOLERANCE``, with one vertex per value,
and the rendered table shows each value with the digits the block prints (Python's own ``format``); a keyboard step changes what is drawn; no console error and no request
to another host; with the library blocked the static SVG shows; from ``file://`` the chart draws.
A page whose embedded data was edited is caught by the same comparison.

A live explorable (its file names a model of ``assets/js/explore.js`` under ``live``) computes its curves in
the browser over continuous sliders: driven to each position the block sampled (its frames), the computed
values, rounded to the 6 significant digits the block saves, equal the block's, and the chart draws them; a
wrong formula in explore.js fails naming the file. For every explorable, in both languages, on a 390 px
phone: each slider is a touch target of at least ``TOUCH`` px, with tick labels that do not overlap; the axes
are labelled as the static figures are (10ⁿ, never 1e+01); a
caption's ``data-explore-value`` shows the slider's value; and one readout, under the chart, follows both
the pointer and the keyboard (the legend shows no values of its own).
"""

from __future__ import annotations

import itertools
import json
import math
import re

import pytest
from mkdocs.exceptions import PluginError

from hooks import explorables, site_facts
from tools.site.browser import NO_CHROMIUM, browser_decision

SITE = site_facts.load()
DATA = SITE.docs / explorables.DATA
MIN_PER_LANGUAGE = 4
PIXEL_TOLERANCE = 1.5  # px: uPlot rounds each vertex to the device pixel
TOUCH = 44  # px: the smallest touch target (WCAG 2.5.5; Apple's and Material's guidelines say 44 and 48)
LIVE_KEYS = {"live", "inputs", "controls", "fixed"}  # a live file's keys besides x, y, labels, frames
_FIGURE = re.compile(r'<figure\b[^>]*\bdata-explore="([^"]*)"')


def _explorables(lang: str) -> dict[str, list[str]]:
    """page (file under docs/<lang>/) -> the data-explore value of each explorable figure, in page order."""
    out = {}
    for md in sorted((SITE.docs / lang).glob("*.md")):
        found = _FIGURE.findall(md.read_text(encoding="utf-8"))
        if found:
            out[md.name] = found
    return out


def _page_path(lang: str, src: str) -> str:
    stem = src.removesuffix(".md")
    return ("" if lang == SITE.default else f"{lang}/") + ("" if stem == "index" else f"{stem}/")


CASES = [(lang, src, i, names) for lang in SITE.languages for src, figs in _explorables(lang).items()
         for i, names in enumerate(figs)]


def _live(names: str) -> bool:
    return any("live" in json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")) for n in names.split())


FRAME_CASES = [c for c in CASES if not _live(c[3])]  # a slider position per frame of the data
LIVE_CASES = [c for c in CASES if _live(c[3])]  # computed in the browser over continuous sliders
MIN_LIVE = 2


def test_at_least_two_explorables_compute_live():
    for lang in SITE.languages:
        live = [c for c in LIVE_CASES if c[0] == lang]
        assert len(live) >= MIN_LIVE, f"docs/{lang}/: {len(live)} live explorables, expected at least {MIN_LIVE}"


def test_each_language_has_the_same_explorables_and_enough_of_them():
    per = {lang: _explorables(lang) for lang in SITE.languages}
    for lang, pages in per.items():
        assert sum(map(len, pages.values())) >= MIN_PER_LANGUAGE, f"docs/{lang}/: {pages}"
        assert pages == per[SITE.default], f"docs/{lang}/ has other explorables than docs/{SITE.default}/"


_KEEP = re.compile(r'<figure\b[^>]*\bdata-explore="(?P<names>[^"]*)"[^>]*\bdata-explore-keep\b[^>]*>(?P<body>.*?)</figure>', re.S)
_STATIC = re.compile(r"!\[[^\]]*\]\((?P<src>[^)\s]+)\)\{[^}]*\.explore-static\b[^}]*\}")


def keep_problems(text: str, lang: str) -> list[str]:
    """A figure that keeps its static figures (data-explore-keep) must also hold, for each data file it
    names, the static drawing of that file's curves (``<name>-curves.<lang>.svg``, class explore-static):
    what prints, what a reader without JavaScript sees, what the notebook shows."""
    problems = []
    for m in _KEEP.finditer(text):
        srcs = [s.rsplit("/", 1)[-1] for s in _STATIC.findall(m["body"])]
        for name in m["names"].split():
            want = f"{name}-curves.{lang}.svg"
            if want not in srcs:
                problems.append(f"figure {m['names']!r} keeps its static figures but holds no {want} of class explore-static")
            elif not (SITE.docs / "assets" / "figures" / want).is_file():
                problems.append(f"{want} is not committed")
    return problems


def _keeps(lang: str, src: str, names: str) -> bool:
    return any(m["names"] == names for m in _KEEP.finditer((SITE.docs / lang / src).read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang,src,i,names", CASES)
def test_a_kept_figure_holds_the_static_drawing_of_its_curves(lang, src, i, names):
    problems = keep_problems((SITE.docs / lang / src).read_text(encoding="utf-8"), lang)
    assert not problems, f"docs/{lang}/{src}:\n" + "\n".join(problems)


def test_a_kept_figure_without_its_static_curves_is_caught():
    lang, src = next((c[0], c[1]) for c in CASES if _keeps(c[0], c[1], c[3]))
    text = (SITE.docs / lang / src).read_text(encoding="utf-8")
    assert not keep_problems(text, lang)
    dropped = re.sub(r"^.*\.explore-static.*\n", "", text, count=1, flags=re.M)
    assert dropped != text and any("holds no" in p for p in keep_problems(dropped, lang))


@pytest.mark.parametrize("lang,src,i,names", CASES)
def test_an_explorable_names_committed_data_files(lang, src, i, names):
    for name in names.split():
        path = DATA / f"{name}.json"
        assert path.is_file(), f"docs/{lang}/{src}: figure {i + 1} names {name}, but {path} is not committed"
        data = json.loads(path.read_text(encoding="utf-8"))
        assert {"x", "y", "labels", "frames"} <= set(data) <= {"x", "y", "labels", "frames"} | LIVE_KEYS, \
            f"{path}: keys {sorted(data)}"
        if "live" in data:
            assert data.get("controls") and "inputs" in data and data["frames"], \
                f"{path}: a live file needs controls, inputs and the frames the block sampled"
            for k, c in data["controls"].items():
                assert c["min"] <= min(f["params"][k] for f in data["frames"]) and \
                    max(f["params"][k] for f in data["frames"]) <= c["max"], f"{path}: {k}'s frames outside its slider"
        assert set(data["labels"]) >= set(SITE.languages), f"{path}: labels for {sorted(data['labels'])}"


def test_the_hook_fails_naming_the_page_and_a_missing_data_file(tmp_path):
    page = '<html><body><figure data-explore="no-such-file"><img></figure></body></html>'
    with pytest.raises(PluginError, match=r"x\.md: .*no-such-file.*does not exist"):
        explorables.explorable(page, tmp_path, SITE.default, SITE.strings[SITE.default], "x/", "x.md")
    (tmp_path / explorables.DATA).mkdir(parents=True)
    (tmp_path / explorables.DATA / "one.json").write_text(json.dumps({"labels": {"xx": {}}, "frames": []}))
    page = page.replace("no-such-file", "one")
    with pytest.raises(PluginError, match=rf"x\.md: .*one\.json has no labels for '{SITE.default}'"):
        explorables.explorable(page, tmp_path, SITE.default, SITE.strings[SITE.default], "x/", "x.md")
    plain = "<html><body><figure><img></figure></body></html>"
    assert explorables.explorable(plain, tmp_path, SITE.default, {}, "x/", "x.md") == plain


def _embedded(html: str) -> list[list]:
    return [json.loads(m.replace("<\\/", "</")) for m in
            re.findall(r'<script type="application/json" class="explore-data">(.*?)</script>', html, re.S)]


def test_the_build_embeds_the_committed_data_and_loads_the_library_only_where_used(built_site):
    folder = explorables.library_folder(SITE.docs)
    with_library = set()
    for html_file in built_site.rglob("*.html"):
        html = html_file.read_text(encoding="utf-8")
        if folder in html or "explore.js" in html:
            with_library.add(html_file.relative_to(built_site).as_posix())
    expected = {f"{_page_path(lang, src)}index.html" for lang, src, _, _ in CASES}
    assert with_library == expected, f"pages loading {folder}: {sorted(with_library)}, expected {sorted(expected)}"
    for lang in SITE.languages:
        home = (built_site / _page_path(lang, "index.md") / "index.html").read_text(encoding="utf-8")
        assert folder not in home and explorables.SCRIPT not in home and "explore-data" not in home, \
            f"{lang} home page loads the explorables' files"
    for lang, src, i, names in CASES:
        html = (built_site / _page_path(lang, src) / "index.html").read_text(encoding="utf-8")
        want = [json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")) for n in names.split()]
        assert _embedded(html)[i] == want, f"{_page_path(lang, src)}: figure {i + 1} embeds other data than {names}"


# --------------------------------------------------------------------------- in Chromium

RECORD = """
(() => {
  const lineTo = Path2D.prototype.lineTo;
  Path2D.prototype.lineTo = function (x, y) { (this.__pts = this.__pts || []).push([x, y]); return lineTo.call(this, x, y); };
  const stroke = CanvasRenderingContext2D.prototype.stroke;
  window.__strokes = [];
  CanvasRenderingContext2D.prototype.stroke = function (p) {
    if (p && p.__pts) window.__strokes.push({canvas: this.canvas.closest("figure").dataset.explore,
                                             color: String(this.strokeStyle), pts: p.__pts.slice()});
    return stroke.apply(this, arguments);
  };
  const fillText = CanvasRenderingContext2D.prototype.fillText;  // the axes' labels, as drawn
  window.__texts = [];
  CanvasRenderingContext2D.prototype.fillText = function (text) {
    const fig = this.canvas.closest("figure");
    if (fig) window.__texts.push({canvas: fig.dataset.explore, text: String(text)});
    return fillText.apply(this, arguments);
  };
})();
"""


def drawn_mismatch(strokes: list[dict], frame: dict, x: list, log: bool) -> str | None:
    """None if the last stroke of each series is an affine image of ``frame``'s values; else what differs."""
    series = list(frame["series"])
    if len(strokes) < len(series):
        return f"{len(strokes)} curves drawn, the frame has {len(series)}"
    drawn = strokes[-len(series):]
    xs, ys, px, py = [], [], [], []
    for key, s in zip(series, drawn):
        values = frame["series"][key]
        if len(s["pts"]) != len(values):
            return f"{key}: {len(s['pts'])} vertices drawn, {len(values)} values in the frame"
        for xv, v, (a, b) in zip(x, values, s["pts"]):
            xs.append(float(xv))
            ys.append(math.log10(v) if log else v)
            px.append(a)
            py.append(b)

    def worst(t, p):
        n = len(t)
        mt, mp = sum(t) / n, sum(p) / n
        var = sum((u - mt) ** 2 for u in t)
        slope = sum((u - mt) * (w - mp) for u, w in zip(t, p)) / var if var else 0.0
        return max(abs(mp + slope * (u - mt) - w) for u, w in zip(t, p)), slope

    (ex, sx), (ey, sy) = worst(xs, px), worst(ys, py)
    if sx <= 0 or ex > PIXEL_TOLERANCE:
        return f"x positions are no affine image of the frame's x (largest residual {ex:.2f} px)"
    if (sy >= 0 and max(ys) > min(ys)) or ey > PIXEL_TOLERANCE:
        return f"y positions are no affine image of the frame's values (largest residual {ey:.2f} px)"
    return None


def table_mismatch(rows: list[list[str]], frame: dict, x: list, spec: str) -> str | None:
    want = [[str(xv)] + [format(frame["series"][k][i], spec) for k in frame["series"]] for i, xv in enumerate(x)]
    if rows != want:
        bad = next(i for i, (a, b) in enumerate(zip(rows + [[]] * len(want), want)) if a != b)
        return f"table row {bad + 1}: {rows[bad] if bad < len(rows) else None}, expected {want[bad]}"
    return None


@pytest.fixture(scope="module")
def explore_browser(request, chromium):
    """The session's one sync-API browser (tests/conftest.py: a second one in the same thread fails),
    asked for only once it is known that there is one (``chromium`` fails where CI runs without it)."""
    if browser_decision() == "skip":
        pytest.skip(NO_CHROMIUM)
    return request.getfixturevalue("own_browser")


def _open(explore_browser, path: str, block: str | None = None, edit=None, width: int = 1280, js: bool = True,
          init: str = "", script=None):
    """``edit`` rewrites the page's HTML, ``script`` the text of assets/js/explore.js as served."""
    browser, base = explore_browser
    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block",
                              java_script_enabled=js, is_mobile=phone, has_touch=phone)
    ctx.add_init_script(RECORD + init)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    host = base[:base.index("/", 8)]

    def route(r):
        url = r.request.url
        if not url.startswith(host):
            errors.append(f"request to another host: {url}")
            return r.abort()
        if block and block in url:
            return r.abort()
        if edit and url == base + path:
            resp = r.fetch()
            return r.fulfill(response=resp, body=edit(resp.text()))
        if script and url.endswith("/" + explorables.SCRIPT):
            resp = r.fetch()
            return r.fulfill(response=resp, body=script(resp.text()))
        return r.continue_()

    page.route("**/*", route)
    page.goto(base + path)
    page.wait_for_load_state("load")
    return ctx, page, errors


def _frames(names: str) -> tuple[list[dict], list, dict]:
    files = [json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")) for n in names.split()]
    return [f for d in files for f in d["frames"]], files[0]["x"], files[0]["y"]


READ = """async n => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const fig = document.querySelector(`figure[data-explore="${n}"]`);
  const strokes = window.__strokes.filter(s => s.canvas === n);
  window.__strokes = window.__strokes.filter(s => s.canvas !== n);
  const text = (sel) => { const e = fig.querySelector(sel); return e ? e.innerText : null; };
  return {
    strokes,
    rows: [...fig.querySelectorAll(".explore-table tr")].slice(1).map(tr => [...tr.children].map(c => c.textContent)),
    params: JSON.parse(fig.dataset.frame),
    controls: Object.fromEntries([...fig.querySelectorAll("input[data-param]")].map(i => [i.dataset.param, {
      label: text(`label[for="${i.id}"]`), output: text(`output[for="${i.id}"]`),
      valuetext: i.getAttribute("aria-valuetext")}])),
  };
}"""


def _read(page, figure: str) -> dict:
    """After two animation frames (what the last input changed is drawn), in one round trip: the curves
    the figure stroked since the last read (taken out of the record, so each read sees only new drawing),
    its table's rows, the parameters of the frame it shows and, per control, its label, shown value and
    ``aria-valuetext``."""
    return page.evaluate(READ, figure)


def _steps(combos: list[tuple]) -> list[list[tuple[int, str]]]:
    """The keys that take the controls through ``combos`` (``itertools.product`` order, from all zeros): Home on
    every control, then one ArrowRight on each control that moves (Home where it wraps)."""
    steps = [[(k, "Home") for k in range(len(combos[0]))]]
    for last, combo in zip(combos, combos[1:]):
        steps.append([(k, "ArrowRight" if i == j + 1 else "Home") for k, (i, j) in enumerate(zip(combo, last)) if i != j])
    return steps


def _positions(frames: list[dict]) -> list[dict]:
    keys = list(dict.fromkeys(k for f in frames for k in f["params"]))
    values = {k: list(dict.fromkeys(f["params"][k] for f in frames)) for k in keys}
    return keys, values


@pytest.mark.parametrize("lang,src,i,names", FRAME_CASES)
def test_every_position_of_an_explorable_draws_its_data(explore_browser, lang, src, i, names):
    path = _page_path(lang, src)
    ctx, page, errors = _open(explore_browser, path)
    try:
        frames, x, y = _frames(names)
        fig = f'figure[data-explore="{names}"]'
        page.wait_for_selector(f"{fig} .explore-chart canvas")
        keys, values = _positions(frames)
        moving = [k for k in keys if len(values[k]) > 1]
        assert moving, f"{path}: figure {i + 1} has no parameter that moves"
        sliders = [page.locator(f'{fig} input[data-param="{k}"]') for k in moving]
        combos = list(itertools.product(*(range(len(values[k])) for k in moving)))  # every position, by keyboard
        focused = None
        for combo, step in zip(combos, _steps(combos)):
            for k, key in step:
                if k != focused:
                    sliders[k].focus()
                    focused = k
                page.keyboard.press(key)
            seen = _read(page, names)
            params = seen["params"]
            want = {k: values[k][idx] for k, idx in zip(moving, combo)}
            assert {k: params[k] for k in moving} == want, f"{path}: the controls at {want} show {params}"
            [frame] = [f for f in frames if f["params"] == params]
            assert not (msg := drawn_mismatch(seen["strokes"], frame, x, y["log"])), f"{path} {params}: {msg}"
            assert not (msg := table_mismatch(seen["rows"], frame, x, y["format"])), f"{path} {params}: {msg}"
            for k in moving:
                c = seen["controls"][k]
                assert c["label"] and c["label"].strip(), f"{path}: the control of {k} has no label"
                assert c["output"] and c["valuetext"] == c["output"], f"{path}: {k} shows {c['output']!r}"
        sliders[0].focus()  # one keyboard step changes the figure: another frame, drawn anew
        page.keyboard.press("Home")
        before = _read(page, names)["params"]
        page.keyboard.press("ArrowRight")
        after = _read(page, names)
        assert after["params"] != before, f"{path}: ArrowRight on {moving[0]} changed nothing"
        assert after["strokes"], f"{path}: ArrowRight on {moving[0]} drew nothing"
        chart = page.locator(f"{fig} .explore-chart")
        chart.focus()
        page.keyboard.press("ArrowRight")
        point = page.locator(f"{fig} .explore-point").inner_text()
        [frame] = [f for f in frames if f["params"] == after["params"]]
        first = next(iter(frame["series"]))
        assert format(frame["series"][first][0], y["format"]) in point, f"{path}: focused point says {point!r}"
        assert not errors, f"{path}: {errors}"
    finally:
        ctx.close()


def test_an_edited_value_in_the_page_is_caught_by_the_drawing_check(explore_browser):
    lang, src, i, names = FRAME_CASES[0]
    frames, x, y = _frames(names)
    key = next(iter(frames[0]["series"]))
    value = frames[0]["series"][key][len(x) // 2]

    def edit(text: str) -> str:
        old = json.dumps(value)
        assert old in text
        return text.replace(old, json.dumps(value * 7 + 1), 1)

    ctx, page, errors = _open(explore_browser, _page_path(lang, src), edit=edit)
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        seen = _read(page, names)
        [frame] = [f for f in frames if f["params"] == seen["params"]]
        assert drawn_mismatch(seen["strokes"], frame, x, y["log"]) is not None
        assert table_mismatch(seen["rows"], frame, x, y["format"]) is not None
    finally:
        ctx.close()


# uPlot as loaded, but its setData does nothing: the chart keeps the first frame it drew.
NO_REDRAW = """
Object.defineProperty(window, "uPlot", {configurable: true,
  get() { return this.__uPlot; },
  set(u) {
    const keep = function (...args) { const plot = new u(...args); plot.setData = function () {}; return plot; };
    this.__uPlot = Object.assign(keep, u);
  }});
"""


def test_a_chart_that_does_not_redraw_is_caught(explore_browser):
    """Each read takes only what was drawn since the last: a chart still showing the curves of the page
    load after a keyboard step fails, though those strokes are still on record."""
    lang, src, i, names = FRAME_CASES[0]
    frames, x, y = _frames(names)
    ctx, page, errors = _open(explore_browser, _page_path(lang, src), init=NO_REDRAW)
    try:
        fig = f'figure[data-explore="{names}"]'
        page.wait_for_selector(f"{fig} .explore-chart canvas")
        first = _read(page, names)
        [frame] = [f for f in frames if f["params"] == first["params"]]
        assert drawn_mismatch(first["strokes"], frame, x, y["log"]) is None  # the first frame was drawn
        page.locator(f"{fig} input[data-param]").first.focus()
        page.keyboard.press("End")
        seen = _read(page, names)
        assert seen["params"] != first["params"]
        [frame] = [f for f in frames if f["params"] == seen["params"]]
        assert "0 curves drawn" in (drawn_mismatch(seen["strokes"], frame, x, y["log"]) or "")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", SITE.languages)
def test_without_the_chart_library_the_static_figure_shows(explore_browser, lang):
    src, figs = next(iter(_explorables(lang).items()))
    ctx, page, errors = _open(explore_browser, _page_path(lang, src), block="uPlot.iife.min.js")
    try:
        fig = page.locator(f'figure[data-explore="{figs[0]}"]')
        assert fig.locator("img").first.is_visible()
        assert fig.locator(".explore").count() == 0
        assert not [e for e in errors if "Failed to load resource" not in e and "uPlot" not in e], errors
    finally:
        ctx.close()


KEEP_CASES = [c for c in CASES if _keeps(c[0], c[1], c[3])]


def static_curves_mismatch(page, names: str, live: bool) -> str | None:
    """What is wrong with the static curves (images of class explore-static) of a figure that keeps
    its static figures: without the chart they show, with it live they are hidden (the chart draws
    them) while the kept figures stay."""
    fig = page.locator(f'figure[data-explore="{names}"]')
    curves, kept = fig.locator("img.explore-static"), fig.locator("img:not(.explore-static)")
    if curves.count() == 0:
        return "no image of class explore-static"
    shown = [curves.nth(k).is_visible() for k in range(curves.count())]
    if live and any(shown):
        return f"the chart is live and {sum(shown)} static curves image(s) still show: the curves are shown twice"
    if not live and not all(shown):
        return f"no chart, and {shown.count(False)} static curves image(s) are hidden"
    if not all(kept.nth(k).is_visible() for k in range(kept.count())):
        return "a kept static figure is hidden"
    return None


@pytest.mark.parametrize("lang,src,i,names", KEEP_CASES)
def test_a_kept_figure_shows_its_static_curves_only_without_the_chart(explore_browser, lang, src, i, names):
    path = _page_path(lang, src)
    for how, opts in (("without JavaScript", {"js": False}), ("without the chart library", {"block": "uPlot.iife.min.js"})):
        ctx, page, _ = _open(explore_browser, path, **opts)
        try:
            assert page.locator(f'figure[data-explore="{names}"] .explore').count() == 0
            assert not (msg := static_curves_mismatch(page, names, live=False)), f"{path} {how}: {msg}"
        finally:
            ctx.close()
    ctx, page, errors = _open(explore_browser, path)
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        assert not (msg := static_curves_mismatch(page, names, live=True)), f"{path}: {msg}"
        assert not errors, f"{path}: {errors}"
    finally:
        ctx.close()


def test_static_curves_shown_twice_or_hidden_without_the_chart_are_caught(explore_browser):
    lang, src, i, names = KEEP_CASES[0]
    shown = lambda text: text.replace("</head>", "<style>figure a.glightbox, figure img.explore-static"  # noqa: E731
                                      "{display:inline !important}</style></head>")  # the hiding rule broken
    ctx, page, _ = _open(explore_browser, _page_path(lang, src), edit=shown)
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        assert "shown twice" in (static_curves_mismatch(page, names, live=True) or "")
    finally:
        ctx.close()
    hide = lambda text: text.replace("</head>", "<style>img.explore-static{display:none !important}</style></head>")  # noqa: E731
    ctx, page, _ = _open(explore_browser, _page_path(lang, src), block="uPlot.iife.min.js", edit=hide)
    try:
        assert "hidden" in (static_curves_mismatch(page, names, live=False) or "")
    finally:
        ctx.close()


def test_an_explorable_draws_from_file_urls(built_site, explore_browser):
    browser, _ = explore_browser
    lang, src, i, names = CASES[0]
    ctx = browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((built_site / _page_path(lang, src) / "index.html").as_uri())
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas', timeout=10_000)
        assert not errors, errors
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", SITE.languages)
def test_the_readout_uses_the_languages_punctuation(explore_browser, lang):
    """The point readout's "label：value" uses the language's colon (extra.strings.explore.colon).
    Mutation (run once): explore.js joining
    with ": " instead of the string gives "训练步数 1: 不预热 2.863 …" on the zh page, and this test fails."""
    src, figs = next(iter(_explorables(lang).items()))
    ctx, page, errors = _open(explore_browser, _page_path(lang, src))
    try:
        fig = f'figure[data-explore="{figs[0]}"]'
        page.wait_for_selector(f"{fig} .explore-chart canvas")
        page.focus(f"{fig} .explore-chart")
        page.keyboard.press("ArrowRight")
        point = page.inner_text(f"{fig} .explore-point")
        colon = SITE.text(lang, "explore")["colon"]
        assert colon in point and (colon.strip() == ":" or ": " not in point), point
    finally:
        ctx.close()


# --------------------------------------------------------------------------- live explorables

READ_LIVE = """async n => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const fig = document.querySelector(`figure[data-explore="${n}"]`);
  const strokes = window.__strokes.filter(s => s.canvas === n);
  window.__strokes = window.__strokes.filter(s => s.canvas !== n);
  return {strokes, series: fig.exploreSeries, params: JSON.parse(fig.dataset.frame),
          rows: [...fig.querySelectorAll(".explore-table tr")].slice(1).map(tr => [...tr.children].map(c => c.textContent))};
}"""


def live_mismatch(series: dict, frame: dict, name: str) -> str | None:
    """None if every series the browser computed at the frame's position, rounded to the 6 significant digits
    the block saves, equals the block's value; else the first that differs, naming the script and the file."""
    for key, want in frame["series"].items():
        got = series.get(key) or []
        if len(got) != len(want):
            return f"docs/{explorables.SCRIPT} gives {len(got)} values of {key} at {frame['params']}, docs/{explorables.DATA}/{name}.json {len(want)}"
        for j, (a, b) in enumerate(zip(got, want)):
            if a is None or float(f"{a:.6g}") != b:
                return (f"docs/{explorables.SCRIPT} computes {key}[{j}] = {a!r} at {frame['params']}, "
                        f"but the block wrote {b} (docs/{explorables.DATA}/{name}.json)")
    return None


def _drive(page, fig: str, params: dict):
    """The sliders moved to ``params`` as a reader's drag leaves them: the value set, an input event sent."""
    for k, v in params.items():
        page.locator(f'{fig} input[data-param="{k}"]').fill(json.dumps(v))


def _live_check(page, names: str, lang: str) -> list[str]:
    """For each frame of the (one) live file: drive the sliders there; what the browser computes equals the
    block's values, the chart draws it and the table shows it with the printed digits."""
    [data] = [json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")) for n in names.split()]
    fig = f'figure[data-explore="{names}"]'
    order = list(data["labels"][lang]["series"])
    problems = []
    for frame in data["frames"]:
        _drive(page, fig, frame["params"])
        seen = page.evaluate(READ_LIVE, names)
        if seen["params"] != frame["params"]:
            problems.append(f"the sliders at {frame['params']} show {seen['params']}")
            continue
        if msg := live_mismatch(seen["series"], frame, names):
            problems.append(msg)
            continue
        drawn = {"series": {k: seen["series"][k] for k in order}}
        if msg := drawn_mismatch(seen["strokes"], drawn, data["x"], data["y"]["log"]):
            problems.append(f"{frame['params']}: {msg}")
        if msg := table_mismatch(seen["rows"], drawn, data["x"], data["y"]["format"]):
            problems.append(f"{frame['params']}: {msg}")
    return problems


@pytest.mark.parametrize("lang,src,i,names", LIVE_CASES)
def test_a_live_explorable_computes_the_blocks_values_where_the_block_ran(explore_browser, lang, src, i, names):
    path = _page_path(lang, src)
    ctx, page, errors = _open(explore_browser, path)
    try:
        fig = f'figure[data-explore="{names}"]'
        page.wait_for_selector(f"{fig} .explore-chart canvas")
        assert not (problems := _live_check(page, names, lang)), f"{path}:\n" + "\n".join(problems)
        # between the sampled positions it computes too: one keyboard step off the last frame, new curves
        [data] = [json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")) for n in names.split()]
        last = data["frames"][-1]
        page.locator(f"{fig} input[data-param]").first.focus()
        page.keyboard.press("ArrowLeft")
        seen = page.evaluate(READ_LIVE, names)
        assert seen["params"] != last["params"] and seen["strokes"], f"{path}: ArrowLeft drew nothing new"
        assert live_mismatch(seen["series"], last, names), f"{path}: off the sampled position, the curves did not change"
        assert all(v is None or math.isfinite(v) for s in seen["series"].values() for v in s), f"{path}: {seen['series']}"
        assert not errors, f"{path}: {errors}"
    finally:
        ctx.close()


# a wrong formula in explore.js: the branch scale not squared; one Sinkhorn iteration too many; the backward
# pass that ignores the weights over depth (right only at gamma = 1)
WRONG_FORMULAS = {
    "residual-gain-theory": ("1 + inp.c * p.alpha * p.alpha", "1 + inp.c * p.alpha"),
    "mixing-composite-gain": ("for (var t = 0; t < p.iters; t++) {", "for (var t = 0; t < p.iters + 1; t++) {"),
    "depth-weights": ("var wi = Math.pow(gamma, l - i), gi = grad[i];", "var wi = 1, gi = grad[i];"),
}


@pytest.mark.parametrize("model", sorted(WRONG_FORMULAS))
def test_a_wrong_formula_in_the_script_fails_naming_it(explore_browser, model):
    old, new = WRONG_FORMULAS[model]
    [(lang, src, i, names)] = [c for c in LIVE_CASES if c[0] == SITE.default and any(
        json.loads((DATA / f"{n}.json").read_text(encoding="utf-8")).get("live") == model for n in c[3].split())]

    def wrong(text: str) -> str:
        assert text.count(old) == 1, f"{explorables.SCRIPT}: {old!r} not found once"
        return text.replace(old, new)

    ctx, page, errors = _open(explore_browser, _page_path(lang, src), script=wrong)
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        problems = _live_check(page, names, lang)
        assert problems and all(explorables.SCRIPT in p for p in problems), problems
    finally:
        ctx.close()


# --------------------------------------------------------------------------- phones, ticks, captions, one readout

LAYOUT = """n => {
  const fig = document.querySelector(`figure[data-explore="${n}"]`);
  const box = fig.getBoundingClientRect();
  return [...fig.querySelectorAll("input[data-param]")].map(i => {
    const r = i.getBoundingClientRect();
    const ticks = [...i.parentElement.querySelectorAll(".explore-ticks > span")].map(t => {
      const b = t.getBoundingClientRect(); return {text: t.textContent, left: b.left, right: b.right}; });
    return {param: i.dataset.param, width: r.width, height: r.height, ticks, figure: [box.left, box.right],
            output: fig.querySelector(`output[for="${i.id}"]`).textContent,
            captions: [...fig.querySelectorAll(`figcaption [data-explore-value="${i.dataset.param}"]`)].map(e => e.textContent)};
  });
}"""


def layout_problems(controls: list[dict]) -> list[str]:
    """What is wrong with a figure's sliders as a phone shows them: a touch target smaller than TOUCH px, fewer than
    two tick labels, tick labels that overlap or leave the figure, a caption value other than the slider's."""
    problems = []
    for c in controls:
        k = c["param"]
        if c["height"] < TOUCH or c["width"] < TOUCH:
            problems.append(f"the slider of {k} is {c['width']:.0f}×{c['height']:.0f} px, less than {TOUCH} px")
        ticks = sorted(c["ticks"], key=lambda t: t["left"])
        if len(ticks) < 2 or not all(t["text"].strip() for t in ticks):
            problems.append(f"the slider of {k} has tick labels {[t['text'] for t in ticks]}")
        for a, b in zip(ticks, ticks[1:]):
            if a["right"] > b["left"] + 0.5:
                problems.append(f"the tick labels {a['text']!r} and {b['text']!r} of {k} overlap")
        if ticks and (ticks[0]["left"] < c["figure"][0] - 0.5 or ticks[-1]["right"] > c["figure"][1] + 0.5):
            problems.append(f"the tick labels of {k} leave the figure")
        if any(text != c["output"] for text in c["captions"]):
            problems.append(f"the caption says {k} = {c['captions']}, the slider {c['output']!r}")
    return problems


_DECADE = re.compile(r"^(\d+×)?10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+$")


def axis_problems(texts: list[str]) -> list[str]:
    """The axes' labels as the static figures write them: no Python exponent (1e+01), and a log axis either all
    whole decades as 10ⁿ or all plain numbers, never both."""
    problems = [f"an axis label {t!r} in e-notation" for t in texts if re.search(r"\de[+-]\d", t)]
    if any(_DECADE.match(t) for t in texts) and (plain := [t for t in texts if re.fullmatch(r"0\.\d+", t)]):
        problems.append(f"a log axis mixes 10ⁿ with {plain}")
    return problems


def _axis_texts(page, names: str) -> list[str]:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return page.evaluate("n => { const t = window.__texts.filter(x => x.canvas === n).map(x => x.text);"
                         " window.__texts = []; return t; }", names)


def _caption_params(lang: str, src: str, names: str) -> set[str]:
    text = (SITE.docs / lang / src).read_text(encoding="utf-8")
    body = text[text.index(f'data-explore="{names}"'):]
    body = body[:body.index("</figure>")]
    return set(re.findall(r'data-explore-value="(\w+)"', body))


@pytest.mark.parametrize("lang,src,i,names", CASES)
def test_on_a_phone_sliders_are_touch_targets_with_tick_labels_and_the_caption_follows(explore_browser, lang, src, i,
                                                                                       names):
    path = _page_path(lang, src)
    ctx, page, errors = _open(explore_browser, path, width=390)
    try:
        fig = f'figure[data-explore="{names}"]'
        page.wait_for_selector(f"{fig} .explore-chart canvas")
        first = page.evaluate(LAYOUT, names)
        assert not (problems := layout_problems(first)), f"{path} at 390 px:\n" + "\n".join(problems)
        assert not (problems := axis_problems(_axis_texts(page, names))), f"{path} at 390 px: {problems}"
        for k in _caption_params(lang, src, names):  # a caption that names a slider's value follows it
            page.locator(f'{fig} input[data-param="{k}"]').focus()
            page.keyboard.press("Home")
            moved = page.evaluate(LAYOUT, names)
            assert not (problems := layout_problems(moved)), f"{path} after Home on {k}:\n" + "\n".join(problems)
            assert [c["output"] for c in moved if c["param"] == k] != [c["output"] for c in first if c["param"] == k]
        assert not errors, f"{path}: {errors}"
    finally:
        ctx.close()


def test_axis_labels_in_e_notation_or_mixed_are_caught(explore_browser):
    assert axis_problems(["10⁻²", "10⁷", "10¹⁶", "20", "40"]) == []
    assert axis_problems(["1", "2", "5", "10", "0.5"]) == []
    assert axis_problems(["1e+01", "1e-02"]) and axis_problems(["10⁻²", "0.1", "1", "10"])
    [(lang, src, i, names)] = [c for c in LIVE_CASES if c[0] == SITE.default and "scaling" in c[3]]
    ctx, page, _ = _open(explore_browser, _page_path(lang, src), width=390,  # labels from Python-style formats
                         script=lambda js: js.replace("if (!few) return decade(v);", "if (!few) return pyFormat(v, '.0e');"))
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        assert any("e-notation" in p for p in axis_problems(_axis_texts(page, names)))
    finally:
        ctx.close()


def test_small_sliders_overlapping_ticks_and_a_stale_caption_are_caught(explore_browser):
    [(lang, src, i, names)] = [c for c in LIVE_CASES if c[0] == SITE.default][:1]
    [k] = list(_caption_params(lang, src, names))[:1]
    style = lambda css: lambda text: text.replace("</head>", f"<style>{css}</style></head>")  # noqa: E731
    cases = {"less than": (style(".md-typeset .explore-control input[type=range]{height:16px !important}"), None),
             "overlap": (style(".md-typeset .explore-ticks > span{left:0 !important}"), None),
             "the caption says": (None, lambda js: js.replace("span.textContent = out.textContent;", ""))}
    for want, (edit, script) in cases.items():
        ctx, page, _ = _open(explore_browser, _page_path(lang, src), width=390, edit=edit, script=script)
        try:
            fig = f'figure[data-explore="{names}"]'
            page.wait_for_selector(f"{fig} .explore-chart canvas")
            page.locator(f'{fig} input[data-param="{k}"]').focus()
            page.keyboard.press("Home")
            problems = layout_problems(page.evaluate(LAYOUT, names))
            assert any(want in p for p in problems), (want, problems)
        finally:
            ctx.close()


READOUT = """n => {
  const fig = document.querySelector(`figure[data-explore="${n}"]`);
  return {point: fig.querySelector(".explore-point").innerText,
          values: [...fig.querySelectorAll(".u-legend .u-value")].map(v => v.textContent).filter(t => t.trim()).length,
          readouts: fig.querySelectorAll(".explore-point").length};
}"""


def readout_problems(page, names: str, lang: str) -> list[str]:
    """One readout: the legend shows no values; the line under the chart follows the pointer and the keyboard."""
    data = json.loads((DATA / f"{names.split()[0]}.json").read_text(encoding="utf-8"))
    x, at = data["x"], lambda v: f"{data['labels'][lang]['x']} {v}{SITE.text(lang, 'explore')['colon']}"  # noqa: E731
    fig = f'figure[data-explore="{names}"]'
    problems = []
    before = page.evaluate(READOUT, names)
    if before["readouts"] != 1 or before["values"]:
        problems.append(f"{before['readouts']} readout line(s) and {before['values']} legend value(s): two readouts")
    over = page.locator(f"{fig} .explore-chart .u-over")
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    page.mouse.move(box["x"] + 1, box["y"] + box["height"] / 2)  # the pointer on the first point
    hovered = page.evaluate(READOUT, names)
    if not hovered["point"].startswith(at(x[0])):
        problems.append(f"the pointer on x = {x[0]}: the readout says {hovered['point']!r}")
    if hovered["values"]:
        problems.append(f"the legend shows {hovered['values']} value(s) beside the readout")
    page.locator(f"{fig} .explore-chart").focus()
    page.keyboard.press("End")
    keyed = page.evaluate(READOUT, names)
    if not keyed["point"].startswith(at(x[-1])):
        problems.append(f"End on the chart: the readout says {keyed['point']!r}")
    return problems


@pytest.mark.parametrize("lang,src,i,names", CASES)
def test_one_readout_follows_the_pointer_and_the_keyboard(explore_browser, lang, src, i, names):
    path = _page_path(lang, src)
    ctx, page, errors = _open(explore_browser, path)
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        assert not (problems := readout_problems(page, names, lang)), f"{path}: {problems}"
    finally:
        ctx.close()


def test_a_legend_with_values_is_caught_as_a_second_readout(explore_browser):
    lang, src, i, names = CASES[0]
    ctx, page, _ = _open(explore_browser, _page_path(lang, src),
                         script=lambda js: js.replace("legend: {live: false}", "legend: {live: true}"))
    try:
        page.wait_for_selector(f'figure[data-explore="{names}"] .explore-chart canvas')
        assert any("two readouts" in p or "legend shows" in p for p in readout_problems(page, names, lang))
    finally:
        ctx.close()
