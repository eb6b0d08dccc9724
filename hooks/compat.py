"""The compatibility table on the verification pages (``docs/<lang>/verification.md``): ``<!-- compat-table -->``
on a line of its own is replaced by ``compat/table.<lang>.md``, which ``./run compat`` (tools/compat.py) writes from what it
measured. A marker without its table fails the build, naming the file it expected.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

MARKER = re.compile(r"^[ \t]*<!--[ \t]*compat-table[ \t]*-->[ \t]*$", re.M)


def table_path(config, lang: str) -> Path:
    return Path(config["config_file_path"]).resolve().parent / "compat" / f"table.{lang}.md"


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    lang = (config.theme.get("language") or "").split("-")[0]
    path = table_path(config, lang)
    if not path.exists():
        raise PluginError(f"hooks/compat.py: {page.file.src_path} shows the compatibility table, but {path} "
                          "does not exist: run `./run compat`")
    table = path.read_text(encoding="utf-8").strip()
    return MARKER.sub(lambda m: table, markdown)
