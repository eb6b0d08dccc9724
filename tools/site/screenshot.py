"""Screenshots of built pages, for a person to look at (not a test).

    python -m tools.site.screenshot [--site DIR] [--out DIR] [--dark] PAGE ...

PAGE is a path of the built site such as ``residual-connections/`` or ``en/ffn-design/``.
Without --site it builds the site first (strict) into a temporary folder. Full-page PNGs go to
``screenshots/`` (ignored by git). Needs Debian's Chromium headless shell (``tools.site.browser.CHROMIUM``).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from hooks import site_facts
from tools.site.browser import CHROMIUM, CHROMIUM_ARGS, serve
from tools.site.build import build


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--site", type=Path)
    parser.add_argument("--out", type=Path, default=site_facts.ROOT / "screenshots")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site
        if site_dir is None:
            site_dir = Path(tmp) / "site"
            proc = build(site_dir)
            if proc.returncode:
                raise SystemExit(proc.stdout + proc.stderr)
        args.out.mkdir(parents=True, exist_ok=True)
        with serve(site_dir) as base, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": args.width, "height": 900},
                                    color_scheme="dark" if args.dark else "light")
            for rel in args.pages:
                page.goto(base + rel.lstrip("/"))
                page.wait_for_load_state("networkidle")
                name = (rel.strip("/").replace("/", "_") or "home") + ("-dark" if args.dark else "") + ".png"
                page.screenshot(path=str(args.out / name), full_page=True)
                print(args.out / name)
            browser.close()


if __name__ == "__main__":
    main()
