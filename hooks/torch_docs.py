"""Code linked to PyTorch's documentation: in every Python code block, each name the block reaches
through ``torch`` (``torch.randn``, ``nn.Linear`` after ``import torch.nn as nn``, ``F.relu`` after
``import torch.nn.functional as F``, ``jacobian`` after ``from torch.autograd.functional import
jacobian``) becomes a link to its page in the documentation of the pinned torch (the inventory's version):
``https://docs.pytorch.org/docs/<major.minor>/generated/<public name>.html``.

Names are found in ``hooks/data/torch-names.json``, the inventory of the pinned torch's public names
(written from the installed torch by ``python -m tools.generators.torch_names write``, checked against it by
tests/test_docs_env.py), so that building the site needs no torch. The block's own imports (read with
``ast`` from the block's text) give the aliases; each dotted name in the highlighted code is linked at
its longest prefix that the inventory holds: a class or function of a public module, or a public member
of such a class (modules, dtypes and other values have no page of their own, and are not in it). A name
that is not there is left as it is. The public name is the one the reader wrote, with the alias expanded
(``nn.Linear`` -> ``torch.nn.Linear``), which is how PyTorch's docs name their pages (``torch.nn.init``
is documented on one page, :data:`ONE_PAGE`; two names live elsewhere, :data:`ELSEWHERE`).

Works on the page's final HTML (``on_page_content``, after ``hooks/notebooks.py`` has made notebook
cells the same blocks), on Pygments' tokens: a name is ``<span class="n">``, a dot ``<span
class="o">.</span>``. The ``<a>`` wraps tokens and adds no text, so the copy button (Material copies
the ``<code>`` element's ``innerText``) still copies the plain code.
"""

from __future__ import annotations

import sys
from pathlib import Path
import ast
import functools
import html
import json
import re

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

ROOT_MODULE = "torch"
INVENTORY = Path(__file__).resolve().parent / "data" / "torch-names.json"
FORMAT = 1  # what tools/generators/torch_names.py writes
DOCS = "https://docs.pytorch.org/docs/{version}/generated/{name}.html"
# Where PyTorch's docs put a name elsewhere than generated/<public name>.html (read in its docs sources):
# torch.nn.init is one page of `autofunction`s (docs/source/nn.init.rst); nn.rst lists Parameter as
# nn.parameter.Parameter; torch.finfo is described on type_info.html. Each key must resolve in the
# inventory and in the installed torch (tests/test_course.py).
ONE_PAGE = {"torch.nn.init": "https://docs.pytorch.org/docs/{version}/nn.init.html#{name}"}
ELSEWHERE = {"torch.nn.Parameter": "https://docs.pytorch.org/docs/{version}/generated/torch.nn.parameter.Parameter.html",
             "torch.finfo": "https://docs.pytorch.org/docs/{version}/type_info.html#torch.finfo"}

_BLOCK = re.compile(r'(<div class="language-python highlight"><pre>(?:<span></span>)?<code\b[^>]*>)(.*?)(</code></pre>)', re.S)
_NAME = r'<span class="n">([A-Za-z_]\w*)</span>'
_DOT = r'<span class="o">\.</span>'
_CHAIN = re.compile(rf"(?<!{_DOT}){_NAME}(?:{_DOT}{_NAME})*")
_TOKEN = re.compile(_NAME)


def expand(inventory: dict) -> frozenset[str]:
    """Every public name an inventory holds, flat: its functions, its class paths and each class path's
    members (``members[key]``: its own ``names`` and, recursively, those of its ``bases``)."""
    memo: dict[str, frozenset[str]] = {}

    def members(key: str) -> frozenset[str]:
        if key not in memo:
            entry = inventory["members"][key]
            memo[key] = frozenset(entry["names"]).union(*(members(b) for b in entry["bases"]))
        return memo[key]

    found = set(inventory["functions"]) | set(inventory["classes"])
    for path, key in inventory["classes"].items():
        found.update(f"{path}.{m}" for m in members(key))
    return frozenset(found)


_loaded: dict = {}  # the inventory read, with the (mtime, size) of the file it was read from


def inventory(path: Path = INVENTORY) -> dict:
    """The inventory file's contents, with ``"names"`` (:func:`expand`) and ``"version"`` (``major.minor``
    of the torch it was made from, whose docs the links go to); read again when the file changes."""
    rel = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
    fix = "run `python -m tools.generators.torch_names write` with the pinned torch installed (./run setup)"
    try:
        stat = path.stat()
        stamp = (str(path), stat.st_mtime_ns, stat.st_size)
        if _loaded.get("stamp") == stamp:
            return _loaded["inventory"]
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise PluginError(f"hooks/torch_docs.py: cannot read the torch inventory {rel} ({e}): {fix}") from None
    m = re.fullmatch(r"(\d+)\.(\d+)\.\d+", str(data.get("torch"))) if isinstance(data, dict) else None
    if not m or data.get("format") != FORMAT or not all(k in data for k in ("functions", "classes", "members")):
        raise PluginError(f"hooks/torch_docs.py: {rel} is no torch inventory of format {FORMAT} with the torch "
                          f"version it was made from (expected keys format, torch, functions, classes, members): {fix}")
    try:
        data["names"] = expand(data)
    except (KeyError, TypeError) as e:
        raise PluginError(f"hooks/torch_docs.py: {rel}: a class's members name a base it does not hold ({e}): {fix}") from None
    data["version"] = f"{m.group(1)}.{m.group(2)}"
    if _loaded:  # another inventory than the one the memos below were made with
        _link_block.cache_clear()
        _link_page.cache_clear()
    _loaded.update(stamp=stamp, inventory=data)
    return data


def version() -> str:
    """``major.minor`` of the pinned torch the inventory was made from: the docs of the version the pages
    were made with."""
    return inventory()["version"]


def public(dotted: str) -> bool:
    """Whether ``dotted`` is a class or function of the pinned torch (a public name of the inventory)."""
    return dotted in inventory()["names"]


def doc_url(name: str) -> str:
    """The page of a public name in the docs of the installed torch."""
    template = ELSEWHERE.get(name) or ONE_PAGE.get(name.rpartition(".")[0], DOCS)
    return template.format(version=version(), name=name)


def aliases(code: str) -> dict[str, str]:
    """Local name -> dotted name under torch, from the block's imports (``import torch.nn as nn``,
    ``from torch import nn``, ``from torch.nn import functional as F``, ``import torch``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == ROOT_MODULE:
                    if a.asname:
                        found[a.asname] = a.name
                    else:  # `import torch.nn` binds `torch`
                        found[a.name.split(".")[0]] = ROOT_MODULE
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == ROOT_MODULE:
            for a in node.names:
                if a.name != "*":
                    found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def link_block(code_html: str, known=None) -> tuple[str, list[str]]:
    """One block's highlighted HTML with its torch names linked, and the names linked. ``known`` (a
    dotted name -> bool) decides what has a page instead of the inventory (:func:`public`)."""
    if known is None:
        out, linked = _link_block(code_html)
        return out, list(linked)
    return _link(code_html, known)


@functools.lru_cache(maxsize=None)
def _link_block(code_html: str) -> tuple[str, tuple[str, ...]]:
    """``link_block``, once per distinct block in a process: the other language's copy of a block, and
    every block but the edited one on a ``mkdocs serve`` reload, reuse it (the result depends only on
    the HTML and the inventory, whose change clears it; it was 1.0 s of a 4.9 s reload, parsing each
    block's imports)."""
    out, linked = _link(code_html, public)
    return out, tuple(linked)


def _link(code_html: str, known) -> tuple[str, list[str]]:
    names = aliases(html.unescape(re.sub(r"<[^>]+>", "", code_html)))
    if not names:
        return code_html, []
    linked = []

    def chain(m):
        tokens = list(_TOKEN.finditer(m.group(0)))
        head = tokens[0].group(1)
        if head not in names:
            return m.group(0)
        # the longest prefix of the chain that names a class or function
        for n in range(len(tokens), 0, -1):
            dotted = ".".join([names[head], *(t.group(1) for t in tokens[1:n])])
            if known(dotted):
                end = tokens[n - 1].end()
                linked.append(dotted)
                return (f'<a class="rn-api" href="{doc_url(dotted)}" title="{dotted}">{m.group(0)[:end]}</a>'
                        + m.group(0)[end:])
        return m.group(0)

    return _CHAIN.sub(chain, code_html), linked


def link_page(content: str) -> str:
    """A page's HTML with the torch names of its code blocks linked."""
    return _BLOCK.sub(lambda m: m.group(1) + link_block(m.group(2))[0] + m.group(3), content)


# A page whose HTML did not change since the last build in this process (every page but the edited ones
# on a `mkdocs serve` reload) is linked once; 128 pages at most are kept.
_link_page = functools.lru_cache(maxsize=128)(link_page)


def on_config(config):
    inventory()  # a missing or malformed inventory fails the build at its start; a changed one is read again


def on_page_content(content, page, config, files):
    inventory()
    return _link_page(content)
