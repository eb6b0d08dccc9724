"""Benchmarks: build and snippet times, page weights, time to rendered math, first-visit bytes.

    python -m tools.bench            # or ./run bench
    python -m tools.bench --skip-build --skip-snippets   # only the browser figures

* Builds run in a copy of the project (mkdocs.yml, docs, snippets, hooks, overrides) so that
  "cold" really starts empty: no ``.cache`` (math font subset, notebook conversions) and a fresh
  temp dir (jieba's dictionary cache), in a fresh process. "Warm" is the next build of that copy.
  Each time is wall clock; CPU seconds (user + sys of the build process) are shown beside it,
  since wall time on a busy machine says little.
* Snippets: every block through ``tools.snippets.run`` (its default variant), wall clock.
* Page weight: the HTML file, and in headless Chromium with an empty cache the bytes of every
  response the page loads (web workers included); the site is served uncompressed, so this is an
  upper bound, and the gzip size of the same responses is shown as what a CDN would transfer.
* Math: for the page with the most formulas, the time from navigation start until every
  formula is laid out as MathML with the math font loaded ("ready"), and how long laid-out formulas
  stay blank ("readable": with ``font-display: swap`` they are drawn at once in a fallback font; with
  ``block`` their glyphs stay invisible until the font has loaded). Median of 3 cold loads.
* First visit: the home page with an empty cache, everything it loads (gzip is the target).
* Phones: every page at 390 px wide; the widest page's width.
* Console errors on every page load (Material's per-language sitemap.xml 404s excepted, see
  tests/test_browser.py ``_alternate_sitemap``).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import notebooks, site, snippets
from tools.screenshot import CHROMIUM, CHROMIUM_ARGS, serve_published

ROOT = site.ROOT
COPY = ("mkdocs.yml", "docs", "snippets", "hooks", "overrides")
KB = 1024

TARGETS = {
    "warm": 8.0, "warm_notebooks": 12.0, "snippets": 60.0, "html": 150 * KB, "html_notebook": 400 * KB,
    "math": 1.0, "math_readable": 0.05, "first_visit_gzip": 250 * KB, "phone_width": 390,
}

MATH_READY_JS = r"""() => {
  const maths = [...document.querySelectorAll("article math")];
  if (!maths.length || document.readyState === "loading") return false;
  const font = [...document.fonts].find(f => f.family.replace(/["']/g, "") === "STIX Two Math");
  if (!font || font.status !== "loaded") return false;
  return maths.filter(m => m.getClientRects().length)
              .every(m => getComputedStyle(m).display.includes("math") && m.getBoundingClientRect().width > 0);
}"""


# readable: laid out and drawn. With `font-display: block` the glyphs stay invisible until the font
# has loaded (they still take their width), with `swap` they are drawn in a fallback font at once.
MATH_LAID_OUT_JS = r"""() => {
  const maths = [...document.querySelectorAll("article math")].filter(m => m.getClientRects().length);
  if (!maths.length || !maths.slice(0, 5).every(m => m.getBoundingClientRect().width > 0)) return false;
  const face = [...document.fonts].find(f => f.family.replace(/["']/g, "") === "STIX Two Math");
  return {t: performance.now() / 1000, drawn: !face || face.display !== "block" || face.status === "loaded"};
}"""
MATH_READABLE_JS = r"""() => {
  const face = [...document.fonts].find(f => f.family.replace(/["']/g, "") === "STIX Two Math");
  return !face || face.display !== "block" || face.status === "loaded";
}"""


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def bench_builds(out: Path) -> dict[str, tuple[float, float]]:
    """Cold and warm strict builds of a copy of the project; the site stays in ``out``."""
    times = {}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        work = Path(tmp) / "project"
        work.mkdir()
        for name in COPY:
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, work / name)
        fresh_tmp = Path(tmp) / "tmp"
        fresh_tmp.mkdir()
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(fresh_tmp)}
        cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)]
        for label in ("cold", "warm"):
            wall, cpu, proc = _timed(cmd, work, env)
            if proc.returncode:
                raise SystemExit(f"strict build failed:\n{proc.stdout}\n{proc.stderr}")
            times[label] = (wall, cpu)
    return times


def bench_snippets() -> tuple[float, int]:
    blocks = snippets.collect()
    start = time.perf_counter()
    snippets.run(blocks)
    return time.perf_counter() - start, len(blocks)


def page_paths() -> list[tuple[str, str]]:
    """(site path, source) of every page in both languages."""
    out = []
    for lang in site.LANGS:
        for src in sorted(site.pages(lang)):
            stem = src.rsplit(".", 1)[0]
            rel = "" if stem == "index" else f"{stem}/"
            out.append((("" if lang == site.DEFAULT_LANG else f"{lang}/") + rel, f"docs/{lang}/{src}"))
    return out


async def _load(browser, url: str, wait_math: bool = False, width: int = 1280) -> dict:
    """Load ``url`` in a fresh context (empty cache); bytes of every response, time to math."""
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, service_workers="block")
    responses = []
    errors = []
    ctx.on("response", lambda r: responses.append(r))
    page = await ctx.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(f"{m.text} ({(m.location or {}).get('url', '')})"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    ready = readable = None
    await page.goto(url, wait_until="commit")
    if wait_math:
        laid_out = await (await page.wait_for_function(MATH_LAID_OUT_JS, polling="raf", timeout=30_000)).json_value()
        readable = 0.0  # seconds laid-out formulas stay blank
        if not laid_out["drawn"]:
            await page.wait_for_function(MATH_READABLE_JS, polling="raf", timeout=30_000)
            readable = await page.evaluate("performance.now()") / 1000 - laid_out["t"]
        await page.wait_for_function(MATH_READY_JS, polling="raf", timeout=30_000)
        ready = await page.evaluate("performance.now()") / 1000  # since navigation start
    await page.wait_for_load_state("networkidle")
    await page.wait_for_timeout(500)  # the search worker's own requests come late
    raw = packed = 0
    seen = set()
    for r in responses:
        if r.url in seen or r.status >= 300:
            continue
        seen.add(r.url)
        with_body = await r.body()
        raw += len(with_body)
        packed += len(gzip.compress(with_body, 6))
    page_width = await page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    await ctx.close()
    errors = [e for e in errors if "sitemap.xml" not in e]
    return {"raw": raw, "gzip": packed, "requests": len(seen), "math": ready, "readable": readable,
            "width": page_width, "errors": errors}


async def bench_browser(site_dir: Path) -> dict:
    from playwright.async_api import async_playwright

    paths = page_paths()
    html = {}
    math_counts = {}
    for rel, _ in paths:
        text = (site_dir / rel / "index.html").read_text(encoding="utf-8")
        html[rel] = len(text.encode())
        math_counts[rel] = text.count("<math")
    heaviest_math = max(math_counts, key=math_counts.get)
    out: dict = {"html": html, "math_counts": math_counts, "heaviest_math": heaviest_math}
    with serve_published(site_dir) as base:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            sem = asyncio.Semaphore(2)

            async def one(rel):
                async with sem:
                    return rel, await _load(browser, base + rel)

            out["loads"] = dict(await asyncio.gather(*(one(rel) for rel, _ in paths)))

            async def phone(rel):
                async with sem:
                    return rel, await _load(browser, base + rel, width=390)

            out["phones"] = dict(await asyncio.gather(*(phone(rel) for rel, _ in paths)))
            times, readable = [], []
            for _ in range(3):
                load = await _load(browser, base + heaviest_math, wait_math=True)
                times.append(load["math"])
                readable.append(load["readable"])
            out["math_times"] = times
            out["math_readable"] = readable
            out["first_visit"] = await _load(browser, base)
            await browser.close()
    return out


def _kb(n: float) -> str:
    return f"{n / KB:,.0f} KB"


def _mark(ok: bool) -> str:
    return "ok" if ok else "OVER"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-build", action="store_true", help="reuse a plain strict build; no build timings")
    parser.add_argument("--skip-snippets", action="store_true")
    args = parser.parse_args(argv)
    has_notebooks = bool(notebooks.committed())
    rows = []  # (measure, value, target, ok)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        site_dir = Path(tmp) / "site"
        if args.skip_build:
            proc = site.build(site_dir)
            if proc.returncode:
                raise SystemExit(proc.stdout + proc.stderr)
        else:
            print("building (cold, then warm) ...", file=sys.stderr)
            builds = bench_builds(site_dir)
            warm_target = TARGETS["warm_notebooks" if has_notebooks else "warm"]
            cold, warm = builds["cold"], builds["warm"]
            rows.append(("strict build, cold (no .cache, fresh process)", f"{cold[0]:.1f} s wall, {cold[1]:.1f} s CPU",
                         "", None))
            rows.append(("strict build, warm" + (" (with notebooks)" if has_notebooks else ""),
                         f"{warm[0]:.1f} s wall, {warm[1]:.1f} s CPU", f"≤ {warm_target:.0f} s", warm[0] <= warm_target))
        if not args.skip_snippets:
            print("running every snippet ...", file=sys.stderr)
            seconds, count = bench_snippets()
            rows.append((f"all snippets ({count} blocks, {snippets.DEFAULT.workers} workers)", f"{seconds:.1f} s", f"≤ {TARGETS['snippets']:.0f} s",
                         seconds <= TARGETS["snippets"]))
        if not Path(CHROMIUM).exists():
            print(f"no {CHROMIUM}: browser figures skipped (apt-get install chromium)")
            browser = None
        else:
            print("loading every page in Chromium ...", file=sys.stderr)
            browser = asyncio.run(bench_browser(site_dir))

    if browser:
        print("\nPage weights (HTML alone; everything the page loads with an empty cache, raw / gzip)")
        print(f"  {'page':44} {'HTML':>9} {'loaded':>10} {'gzip':>9} {'requests':>8} {'math':>5}")
        worst = {"page": 0, "notebook": 0}
        for rel, src in page_paths():
            load = browser["loads"][rel]
            is_nb = src.endswith(".ipynb")
            limit = TARGETS["html_notebook" if is_nb else "html"]
            size = browser["html"][rel]
            worst["notebook" if is_nb else "page"] = max(worst["notebook" if is_nb else "page"], size)
            flag = "" if size <= limit else "  OVER"
            print(f"  /{rel:43} {_kb(size):>9} {_kb(load['raw']):>10} {_kb(load['gzip']):>9} {load['requests']:>8}"
                  f" {browser['math_counts'][rel]:>5}{flag}")
        rows.append(("largest page HTML", _kb(worst["page"]), f"≤ {_kb(TARGETS['html'])}", worst["page"] <= TARGETS["html"]))
        if has_notebooks:
            rows.append(("largest notebook page HTML", _kb(worst["notebook"]), f"≤ {_kb(TARGETS['html_notebook'])}",
                         worst["notebook"] <= TARGETS["html_notebook"]))
        widest = max(browser["phones"], key=lambda rel: browser["phones"][rel]["width"])
        phone_width = browser["phones"][widest]["width"]
        rows.append((f"widest page on a 390 px phone (/{widest})", f"{phone_width} px",
                     f"≤ {TARGETS['phone_width']} px", phone_width <= TARGETS["phone_width"]))
        errors = [f"/{rel}: {e}" for loads in (browser["loads"], browser["phones"]) for rel, load in loads.items()
                  for e in load["errors"]]
        rows.append(("console errors, every page at 1280 and 390 px", str(len(errors)), "0", not errors))
        for e in errors[:10]:
            print("  console error:", e)
        readable = statistics.median(browser["math_readable"])
        rows.append((f"math blank after layout (font-display), /{browser['heaviest_math']}",
                     f"{readable:.2f} s  ({', '.join(f'{t:.2f}' for t in browser['math_readable'])})",
                     f"≤ {TARGETS['math_readable']} s", readable <= TARGETS["math_readable"]))
        median = statistics.median(browser["math_times"])
        rows.append((f"math ready, /{browser['heaviest_math']} ({browser['math_counts'][browser['heaviest_math']]} formulas,"
                     " median of 3)", f"{median:.2f} s  ({', '.join(f'{t:.2f}' for t in browser['math_times'])})",
                     f"≤ {TARGETS['math']} s", median <= TARGETS["math"]))
        fv = browser["first_visit"]
        rows.append((f"first visit, home page, empty cache ({fv['requests']} requests)",
                     f"{_kb(fv['raw'])} raw, {_kb(fv['gzip'])} gzip", f"≤ {_kb(TARGETS['first_visit_gzip'])} gzip",
                     fv["gzip"] <= TARGETS["first_visit_gzip"]))

    print(f"\nLoad average now: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores\n")
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'measure':{width}}  {'value':32} {'target':>10}  ")
    print("-" * (width + 50))
    for name, value, target, ok in rows:
        print(f"{name:{width}}  {value:32} {target:>10}  {'' if ok is None else _mark(ok)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
