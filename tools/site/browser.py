"""A real browser for the tests and tools: Debian's Chromium, and the built site served on
127.0.0.1 under the path of its ``site_url``, as it is published."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

from hooks import site_facts

# Debian's build of Chromium's headless shell (package chromium-headless-shell, from the same source
# and version as its chromium): the same Blink, without the desktop browser around it. It is what
# Playwright itself runs for headless Chromium, and it costs a fifth less CPU than `chromium --headless`
# (CONTRIBUTING.md, "Test suite time").
CHROMIUM = "/usr/bin/chromium-headless-shell"
# no smooth scrolling: a click scrolls its button into view at once, not over several animation frames
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-smooth-scrolling"]

NO_CHROMIUM = (f"browser tests need Debian's Chromium headless shell at {CHROMIUM}: "
               "`apt-get install chromium-headless-shell` (and `fonts-noto-cjk` for Chinese pages); "
               "`playwright install` cannot download here")


def browser_decision(executable: str = CHROMIUM, env=None) -> str:
    """What the browser tests do: ``run``, or without Chromium ``skip`` on a maintainer's machine and
    ``fail`` where CI runs (``CI`` set, as by GitHub Actions and the project's CI): CI never passes by skipping."""
    env = os.environ if env is None else env
    if Path(executable).exists():
        return "run"
    return "fail" if env.get("CI", "").strip().lower() not in ("", "0", "false", "no") else "skip"


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
def serve_published(site_dir: Path, beside: Path | None = None):
    """Serve a built site under the path of its ``site_url`` (``/residual-notes/``), as it is
    published; Material resolves some URLs from that path. Yields the site's base URL.

    ``beside``: a folder whose files are served at the site's root as if they were in it (a print page
    and its fonts), without writing into the built site, which other jobs may be reading."""
    prefix = site_facts.load().base_path.strip("/")
    with tempfile.TemporaryDirectory(prefix="served-") as root:
        target = Path(root) / prefix if prefix else Path(root) / "site"
        target.parent.mkdir(parents=True, exist_ok=True)
        site = Path(site_dir).resolve()
        if beside is None:
            target.symlink_to(site, target_is_directory=True)
        else:
            target.mkdir()
            for child in site.iterdir():
                (target / child.name).symlink_to(child, target_is_directory=child.is_dir())
            for extra in Path(beside).iterdir():
                if (target / extra.name).exists():
                    raise FileExistsError(f"tools/site/browser.py: {extra.name} is already in the site {site}")
                (target / extra.name).symlink_to(extra.resolve())
        with serve(target if not prefix else Path(root)) as base:
            yield f"{base}{prefix}/" if prefix else base
