"""``./run serve``: ``mkdocs serve``, restarted when the hook code changes.

``mkdocs serve`` rebuilds when a file under ``hooks/`` changes, but with the modules it imported at start
(``from hooks import site_facts`` and the like stay in ``sys.modules``): an edit to a hook never showed,
and a syntax error in one went unnoticed. This runs the server as a child process in a session of its
own and starts a fresh one whenever a ``.py`` file under a watched folder changes; a server that cannot
start (a syntax error in a hook) shows its error, and the next edit starts it again.

    python -m tools.site.serve [mkdocs serve options]
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tools.site.builder import BUILDER

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("hooks",)


def fingerprint(folders: list[Path]) -> dict[str, str]:
    """Content hash of every .py file under the folders (mtimes miss an edit within their resolution)."""
    found = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.py")):
            try:
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                continue
    return found


def _changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except (ProcessLookupError, PermissionError):
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def supervise(cmd: list[str], folders: list[Path], poll: float = 0.5, cwd: Path = ROOT,
              stop: threading.Event | None = None, say=None) -> None:
    """Run ``cmd``; restart it whenever a .py file under ``folders`` changes; until ``stop`` is set."""
    say = say or (lambda text: print(f"[serve] {text}", file=sys.stderr, flush=True))
    stop = stop or threading.Event()
    seen = fingerprint(folders)
    proc = subprocess.Popen(cmd, cwd=cwd, start_new_session=True)
    reported = False
    try:
        while not stop.wait(poll):
            now = fingerprint(folders)
            changed = _changed(seen, now)
            if changed:
                seen = now
                names = ", ".join(os.path.relpath(p, cwd) for p in changed)
                say(f"{names} changed: restarting the server with the new hook code")
                _stop(proc)
                proc = subprocess.Popen(cmd, cwd=cwd, start_new_session=True)
                reported = False
            elif proc.poll() == 0:  # it ended by itself (--help): so do we
                return
            elif proc.poll() is not None and not reported:
                say(f"the server exited with code {proc.returncode} (its error is above); fix it and save: "
                    f"an edit under {', '.join(os.path.relpath(f, cwd) for f in folders)} starts it again")
                reported = True
    finally:
        _stop(proc)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for sig in (signal.SIGTERM, signal.SIGHUP):  # the server is in a session of its own: stop it with us
        signal.signal(sig, lambda *_: sys.exit(0))
    try:
        supervise([sys.executable, "-m", BUILDER, "serve", *args], [ROOT / f for f in WATCHED], cwd=ROOT)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
