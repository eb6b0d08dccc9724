"""Write a file so that no failure can leave it half written: the one way every command rewrites files.

The data goes to a temporary file in the same folder, is flushed and synced, then renamed over the
original (``os.replace`` is atomic on one file system). A full disk, a kill or a crash leaves either the
old file or the new one, never an empty or truncated one. An error removes the temporary file; a SIGKILL
cannot, so the temporary file's name says whose it is (``.<name>.<pid>-<random>.tmp``, ignored by git:
``.gitignore`` holds ``.*.tmp``) and the next write into that folder removes those of processes that no
longer run.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    remove_stale_temporaries(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=TEMPORARY, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


TEMPORARY = ".tmp"
_TEMPORARY = re.compile(r"^\..+\.(\d+)-[^.]+\.tmp$")


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's, running
    return True


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files ``write_atomic`` left in ``folder`` when its process was killed mid-write
    (``.<name>.<pid>-<random>.tmp`` of a process that no longer runs); return what was removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMPORARY.match(entry.name)
        if m and not _running(int(m.group(1))) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed


def _umask() -> int:
    """The process's umask, read without setting it where Linux shows it: ``os.umask`` can only set it,
    and for that moment a file another thread makes would get the wrong mode."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def remove_stale(folder: str | Path, prefix: str) -> list[Path]:
    """Remove ``<prefix><pid>-*`` folders in ``folder`` whose process no longer runs (left by a crashed or
    killed run; each run names its own folders with its pid); return what was removed."""
    import re
    import shutil

    removed = []
    pattern = re.compile(re.escape(prefix) + r"(\d+)-")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if not m or not entry.is_dir(follow_symlinks=False) or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue  # another user's, running
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed
