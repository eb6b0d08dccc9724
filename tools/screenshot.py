"""Screenshots of built pages, for a person to look at (not a test).

    python -m tools.screenshot [--site DIR] [--out DIR] [--dark] PAGE ...

PAGE is a path of the built site such as ``residual-connections/`` or ``en/ffn-design/``.
Without --site it builds the site first (strict) into a temporary folder. Full-page PNGs go to
``screenshots/`` (ignored by git). Needs Debian's chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

from tools import site

CHROMIUM = "/usr/bin/chromium"
NO_CHROMIUM = (f"browser tests need Debian's Chromium at {CHROMIUM}: `apt-get install chromium` "
               "(and `fonts-wqy-zenhei` for Chinese screenshots); `playwright install` cannot download here")


def browser_decision(executable: str = CHROMIUM, env=None) -> str:
    """What the browser tests do: ``run``, or without Chromium ``skip`` on a maintainer's machine and
    ``fail`` where CI runs (``CI`` set, as by GitHub Actions and the project's CI): CI never passes by skipping."""
    env = os.environ if env is None else env
    if Path(executable).exists():
        return "run"
    return "fail" if env.get("CI", "").strip().lower() not in ("", "0", "false", "no") else "skip"


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 at a free port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


@contextlib.contextmanager
def serve_published(site_dir: Path):
    """Serve a built site under the path of its ``site_url`` (``/residual-notes/``), as it is
    published; Material resolves some URLs from that path. Yields the site's base URL."""
    from tools.notebooks import site_url
    from urllib.parse import urlsplit

    prefix = urlsplit(site_url()).path.strip("/")
    if not prefix:
        with serve(site_dir) as base:
            yield base
        return
    with tempfile.TemporaryDirectory(prefix="served-") as root:
        target = Path(root) / prefix
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(Path(site_dir).resolve(), target_is_directory=True)
        with serve(Path(root)) as base:
            yield f"{base}{prefix}/"


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--site", type=Path)
    parser.add_argument("--out", type=Path, default=site.ROOT / "screenshots")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site
        if site_dir is None:
            site_dir = Path(tmp) / "site"
            proc = site.build(site_dir)
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
