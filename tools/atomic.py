"""Write a file so that it is either the old one or the new one, never half of either: a temporary file
in the same folder, flushed and synced, then ``os.replace`` (atomic on POSIX within one file system)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
