"""Compiled theme templates are kept between builds (Jinja's own bytecode cache).

MkDocs makes a fresh Jinja environment for every build, and i18n builds once per language, so
each build compiled Material's ~45 templates again, once per language (about a fifth of a warm
build). ``on_env`` (a public MkDocs event) gives the environment Jinja's public
``FileSystemBytecodeCache`` in ``.cache/jinja/``: Jinja keys each entry by template name and a
checksum of its source, so an edited override or a Material upgrade recompiles by itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jinja2 import FileSystemBytecodeCache

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)


def on_env(env, config, files):
    cache = Path(config.config_file_path).resolve().parent / ".cache" / "jinja"
    cache.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = FileSystemBytecodeCache(str(cache))
    return env
