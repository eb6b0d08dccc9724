"""Benchmarks: build and snippet times, page weights, time to rendered math, first-visit bytes.

    python -m tools.site.bench            # or ./run bench
    python -m tools.site.bench --skip-build --skip-snippets   # only the browser figures
    python -m tools.site.bench --builds-only                  # only build and `mkdocs serve` timings

* Builds run in a copy of the project (``tools.site.build.PROJECT``) so that
  "cold" really starts empty: no ``.cache`` (math font subset, notebook conversions, highlighted
  code) and a fresh temp dir (jieba's dictionary cache), in a fresh process. "Warm" is the next
  build of that copy (median of 3). Each time is wall clock; CPU seconds (user + sys of the build
  process) are shown beside it, since wall time on a busy machine says little.
* Floor: in the same copy and the same run, alternating with the warm builds, a bare Material
  build of the same pages (``floor_config``: the same theme, Markdown extensions, nav and
  Material's search, with mkdocs-static-i18n building both languages; no hooks, no custom_dir,
  no other plugin). The target is on the ratio of CPU seconds, warm / floor, which the load of
  a shared machine moves far less than either time.
* Serve: in the same copy, ``mkdocs serve --strict``; the time from saving an edit of one snippet
  to the served page showing it (median of 3 edits), and the server's CPU seconds meanwhile;
  then the same edit in the floor's ``mkdocs serve``, so that a reload, too, has a floor from the
  same run to be read against.
* Snippets: every block through ``tools.runner.execution.run`` (its default variant), wall clock.
* Page weight: the HTML file, raw and gzip (the target is on gzip, what a reader downloads from a
  host that compresses, as GitHub Pages does; the raw size counts highlighted code many times over:
  Pygments wraps every token in a span), and in headless Chromium with an empty cache the bytes of every
  response the page loads (web workers included); the site is served uncompressed, so this is an
  upper bound, and the gzip size of the same responses is shown as what a CDN would transfer.
* Math: for the page with the most formulas, the time from navigation start until every
  formula is laid out as MathML with the math font loaded ("ready"), and how long laid-out formulas
  stay blank ("readable": with ``font-display: swap`` they are drawn at once in a fallback font; with
  ``block`` their glyphs stay invisible until the font has loaded). Median of 3 cold loads.
* First visit: the home page with an empty cache, everything it loads (gzip is the target).
* Phones: every page at 390 px wide; the widest page's width.
* Console errors on every page load (none excepted).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.runner import execution, reader_machines, selection
from tools.generators import notebooks
from tools.site.browser import CHROMIUM, CHROMIUM_ARGS, serve_published
from tools.site.build import build, copy_project

KB = 1024

TARGETS = {
    "floor_ratio": 1.75, "serve": 3.0, "snippets": 120.0, "html_gzip": 64 * KB,
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


# plugins the floor keeps: Material's search and the languages (each language's pages, as ours)
FLOOR_PLUGINS = ("search", "i18n")


def floor_config(text: str) -> str:
    """mkdocs.yml as a bare Material site of the same pages: without ``hooks:``, ``custom_dir`` and
    every plugin but ``FLOOR_PLUGINS`` (each with its options)."""
    out: list[str] = []
    block = None  # the top-level key whose lines are being read
    keep_item = True
    pending: list[str] = []  # comment lines before a plugin entry go with it
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        top = re.match(r"([A-Za-z_]+):", line)
        if top:
            out += pending
            pending, block, keep_item = [], top.group(1), True
        if block == "hooks":
            continue
        if block == "theme" and re.match(r"\s+custom_dir:", line):
            continue
        if block == "plugins" and not top:
            item = re.match(r"  - ([\w/-]+)", line)
            if re.match(r"  #", line):
                pending.append(line)
                continue
            if item:
                keep_item = item.group(1) in FLOOR_PLUGINS
                if keep_item:
                    out += pending
                    kept.append(item.group(1))
                pending = []
            if keep_item:
                out.append(line)
            continue
        out.append(line)
    floor = "".join(out + pending)
    if sorted(kept) != sorted(FLOOR_PLUGINS) or re.search(r"^hooks:|^\s+custom_dir:", floor, re.M):
        raise SystemExit(f"tools/site/bench.py: the floor config is not bare Material with {FLOOR_PLUGINS}; plugins: {kept}")
    return floor


def bench_builds(out: Path, serve: bool = True, rounds: int = 3) -> dict[str, tuple[float, float]]:
    """Cold and warm strict builds of a copy of the project (the site stays in ``out``), bare
    Material builds of the same pages (the floor) alternating with the warm ones, then, in the same
    copy, the time ``mkdocs serve`` takes to show an edit of one snippet."""
    times = {}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        work = copy_project(Path(tmp) / "project").parent
        floor = work / "mkdocs.floor.yml"
        floor.write_text(floor_config((work / "mkdocs.yml").read_text(encoding="utf-8")), encoding="utf-8")
        fresh_tmp = Path(tmp) / "tmp"
        fresh_tmp.mkdir()
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(fresh_tmp)}
        cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)]
        # not strict: without the hooks some links and assets the pages use are missing
        bare = [sys.executable, "-m", "mkdocs", "build", "-f", str(floor), "-d", str(Path(tmp) / "floor-site")]

        def run(label: str, command: list[str]) -> tuple[float, float]:
            wall, cpu, proc = _timed(command, work, env)
            if proc.returncode:
                raise SystemExit(f"{label} build failed:\n{proc.stdout}\n{proc.stderr}")
            return wall, cpu

        times["cold"] = run("strict", cmd)
        times["floor_cold"] = run("floor", bare)
        warm, bare_times = [], []
        for _ in range(rounds):
            warm.append(run("strict", cmd))
            bare_times.append(run("floor", bare))
        times["warm"] = tuple(statistics.median(t[i] for t in warm) for i in (0, 1))
        times["floor"] = tuple(statistics.median(t[i] for t in bare_times) for i in (0, 1))
        # ratio per round (a warm build and the floor build right after it), then the median
        times["floor_ratio"] = tuple(statistics.median(w[i] / f[i] for w, f in zip(warm, bare_times)) for i in (0, 1))
        if serve:
            times["serve"] = bench_serve(work, env)
            times["serve_floor"] = bench_serve(work, env, floor)
    return times


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.read().decode("utf-8", "replace")
    except OSError:
        return ""


def bench_serve(work: Path, env: dict[str, str], config: Path | None = None,
                rounds: int = 3) -> tuple[float, float]:
    """``mkdocs serve --strict`` in ``work``: seconds from saving an edit of one snippet to the
    served page showing it (median of ``rounds`` edits), and the server's CPU seconds per rebuild.
    With ``config`` (the floor's), that config is served, not strict: without the hooks some
    links and assets the pages use are missing."""
    facts = site_facts.load()
    snippet = sorted((work / "snippets").rglob("*.md"))[0]
    slug = snippet.parent.name
    port = _free_port()
    url = f"http://127.0.0.1:{port}{facts.base_path}{facts.url_of(facts.default, slug + '.md')}"
    options = ["--strict"] if config is None else ["-f", str(config)]
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", *options, "--dev-addr", f"127.0.0.1:{port}"],
                            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while "</html>" not in _get(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("mkdocs serve did not come up")
            time.sleep(0.2)
        time.sleep(2)  # let the watcher settle after the first build
        original = snippet.read_text(encoding="utf-8")
        walls, cpus = [], []
        for n in range(rounds):
            marker = f"bench_edit_{n}_{os.getpid()}"
            cpu0 = _proc_cpu(proc.pid)
            start = time.monotonic()
            snippet.write_text(original.replace("```python\n", f"```python\n# {marker}\n", 1), encoding="utf-8")
            while marker not in _get(url):
                if time.monotonic() - start > 120:
                    raise SystemExit(f"mkdocs serve did not show the edit of {snippet.name} within 120 s")
                time.sleep(0.05)
            walls.append(time.monotonic() - start)
            cpus.append(_proc_cpu(proc.pid) - cpu0)
            time.sleep(1.5)
        snippet.write_text(original, encoding="utf-8")
        return statistics.median(walls), statistics.median(cpus)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_snippets() -> tuple[float, int]:
    blocks = selection.collect()
    start = time.perf_counter()
    execution.run(blocks)
    return time.perf_counter() - start, len(blocks)


def page_paths() -> list[tuple[str, str]]:
    """(site path, source) of every page in both languages."""
    facts = site_facts.load()
    return [(facts.url_of(lang, src), f"docs/{lang}/{src}")
            for lang in facts.languages for src in sorted(sources.pages(lang))]


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
    return {"raw": raw, "gzip": packed, "requests": len(seen), "math": ready, "readable": readable,
            "width": page_width, "errors": errors}


async def bench_browser(site_dir: Path) -> dict:
    from playwright.async_api import async_playwright

    paths = page_paths()
    html = {}
    math_counts = {}
    for rel, _ in paths:
        text = (site_dir / rel / "index.html").read_text(encoding="utf-8")
        html[rel] = (len(text.encode()), len(gzip.compress(text.encode(), 6)))
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
    parser = argparse.ArgumentParser(prog="python -m tools.site.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-build", action="store_true", help="reuse a plain strict build; no build timings")
    parser.add_argument("--skip-snippets", action="store_true")
    parser.add_argument("--builds-only", action="store_true", help="only the build and serve timings")
    args = parser.parse_args(argv)
    has_notebooks = bool(notebooks.committed())
    rows = []  # (measure, value, target, ok)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        site_dir = Path(tmp) / "site"
        if args.skip_build:
            proc = build(site_dir)
            if proc.returncode:
                raise SystemExit(proc.stdout + proc.stderr)
        else:
            print("building (cold, then warm) ...", file=sys.stderr)
            builds = bench_builds(site_dir)
            cold, warm, floor, ratio = builds["cold"], builds["warm"], builds["floor"], builds["floor_ratio"]
            rows.append(("strict build, cold (no .cache, fresh process)", f"{cold[0]:.1f} s wall, {cold[1]:.1f} s CPU",
                         "", None))
            # no target of its own: on a shared machine the ratio below is the one that means something
            rows.append(("strict build, warm (median of 3)", f"{warm[0]:.1f} s wall, {warm[1]:.1f} s CPU", "", None))
            rows.append(("floor: bare Material + i18n, same pages (median of 3)",
                         f"{floor[0]:.1f} s wall, {floor[1]:.1f} s CPU", "", None))
            rows.append(("warm build / floor, same run (median of 3 pairs)",
                         f"{ratio[1]:.2f}× CPU, {ratio[0]:.2f}× wall", f"≤ {TARGETS['floor_ratio']:.2f}× CPU",
                         ratio[1] <= TARGETS["floor_ratio"]))
            serve = builds["serve"]
            rows.append(("mkdocs serve: snippet edit shown (median of 3)", f"{serve[0]:.1f} s wall, {serve[1]:.1f} s CPU",
                         f"≤ {TARGETS['serve']:.0f} s", serve[0] <= TARGETS["serve"]))
            serve_floor = builds["serve_floor"]
            rows.append(("floor: the same edit in bare Material's serve (median of 3)",
                         f"{serve_floor[0]:.1f} s wall, {serve_floor[1]:.1f} s CPU", "", None))
            rows.append(("serve reload / floor's reload, same run",
                         f"{serve[1] / serve_floor[1]:.2f}× CPU, {serve[0] / serve_floor[0]:.2f}× wall", "", None))
        if not (args.skip_snippets or args.builds_only):
            print("running every snippet ...", file=sys.stderr)
            seconds, count = bench_snippets()
            rows.append((f"all snippets ({count} blocks, {reader_machines.DEFAULT.workers} workers)", f"{seconds:.1f} s", f"≤ {TARGETS['snippets']:.0f} s",
                         seconds <= TARGETS["snippets"]))
        if args.builds_only:
            browser = None
        elif not Path(CHROMIUM).exists():
            print(f"no {CHROMIUM}: browser figures skipped (apt-get install chromium-headless-shell)")
            browser = None
        else:
            print("loading every page in Chromium ...", file=sys.stderr)
            browser = asyncio.run(bench_browser(site_dir))

    if browser:
        print("\nPage weights (HTML alone; everything the page loads with an empty cache, raw / gzip)")
        print(f"  {'page':44} {'HTML':>9} {'HTML gz':>9} {'loaded':>10} {'gzip':>9} {'requests':>8} {'math':>5}")
        worst = {"page": 0, "notebook": 0}
        for rel, src in page_paths():
            load = browser["loads"][rel]
            is_nb = src.endswith(".ipynb")
            limit = TARGETS["html_gzip"]
            size, packed = browser["html"][rel]
            worst["notebook" if is_nb else "page"] = max(worst["notebook" if is_nb else "page"], packed)
            flag = "" if packed <= limit else "  OVER"
            print(f"  /{rel:43} {_kb(size):>9} {_kb(packed):>9} {_kb(load['raw']):>10} {_kb(load['gzip']):>9} {load['requests']:>8}"
                  f" {browser['math_counts'][rel]:>5}{flag}")
        rows.append(("largest page HTML, gzip", _kb(worst["page"]), f"≤ {_kb(TARGETS['html_gzip'])}",
                     worst["page"] <= TARGETS["html_gzip"]))
        if has_notebooks:
            rows.append(("largest notebook page HTML, gzip", _kb(worst["notebook"]),
                         f"≤ {_kb(TARGETS['html_gzip'])}", worst["notebook"] <= TARGETS["html_gzip"]))
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
