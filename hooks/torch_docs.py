"""Code linked to PyTorch's documentation: in every Python code block, each name the block reaches
through ``torch`` (``torch.randn``, ``nn.Linear`` after ``import torch.nn as nn``, ``F.relu`` after
``import torch.nn.functional as F``, ``jacobian`` after ``from torch.autograd.functional import
jacobian``) becomes a link to its page in the documentation of the installed (pinned) torch:
``https://docs.pytorch.org/docs/<major.minor>/generated/<public name>.html``.

Names are found from the installed torch itself, never from a list: the block's own imports (read
with ``ast`` from the block's text) give the aliases, each dotted name in the highlighted code is
resolved by importing its module and walking its attributes, and only classes and functions are
linked (modules, dtypes and other values have no page of their own). A name that does not resolve
is left as it is. The public name is the one the reader wrote, with the alias expanded
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
import importlib
import inspect
import re

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

ROOT_MODULE = "torch"
DOCS = "https://docs.pytorch.org/docs/{version}/generated/{name}.html"
# Where PyTorch's docs put a name elsewhere than generated/<public name>.html (read in its docs sources):
# torch.nn.init is one page of `autofunction`s (docs/source/nn.init.rst); nn.rst lists Parameter as
# nn.parameter.Parameter; torch.finfo is described on type_info.html. Each key must resolve in the
# installed torch (tests/test_course.py).
ONE_PAGE = {"torch.nn.init": "https://docs.pytorch.org/docs/{version}/nn.init.html#{name}"}
ELSEWHERE = {"torch.nn.Parameter": "https://docs.pytorch.org/docs/{version}/generated/torch.nn.parameter.Parameter.html",
             "torch.finfo": "https://docs.pytorch.org/docs/{version}/type_info.html#torch.finfo"}

_BLOCK = re.compile(r'(<div class="language-python highlight"><pre>(?:<span></span>)?<code\b[^>]*>)(.*?)(</code></pre>)', re.S)
_NAME = r'<span class="n">([A-Za-z_]\w*)</span>'
_DOT = r'<span class="o">\.</span>'
_CHAIN = re.compile(rf"(?<!{_DOT}){_NAME}(?:{_DOT}{_NAME})*")
_TOKEN = re.compile(_NAME)


@functools.lru_cache(maxsize=1)
def version() -> str:
    """``major.minor`` of the installed torch: the docs of the version the pages were made with."""
    torch = importlib.import_module(ROOT_MODULE)
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    if not m:
        raise PluginError(f"hooks/torch_docs.py: torch.__version__ {torch.__version__!r} is no <major>.<minor>...")
    return f"{m.group(1)}.{m.group(2)}"


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


@functools.lru_cache(maxsize=None)
def resolve(dotted: str):
    """The object ``dotted`` names in the installed torch (longest importable module, then attributes),
    or None."""
    parts = dotted.split(".")
    if parts[0] != ROOT_MODULE:
        return None
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def linkable(obj) -> bool:
    """Classes and functions have a page of their own; modules, dtypes and other values do not."""
    return obj is not None and not inspect.ismodule(obj) and (inspect.isclass(obj) or inspect.isroutine(obj))


def link_block(code_html: str) -> tuple[str, list[str]]:
    """One block's highlighted HTML with its torch names linked, and the names linked."""
    out, linked = _link_block(code_html)
    return out, list(linked)


@functools.lru_cache(maxsize=None)
def _link_block(code_html: str) -> tuple[str, tuple[str, ...]]:
    """``link_block``, once per distinct block in a process: the other language's copy of a block, and
    every block but the edited one on a ``mkdocs serve`` reload, reuse it (the result depends only on
    the HTML and the installed torch; it was 1.0 s of a 4.9 s reload, parsing each block's imports)."""
    names = aliases(html.unescape(re.sub(r"<[^>]+>", "", code_html)))
    if not names:
        return code_html, ()
    linked = []

    def chain(m):
        tokens = list(_TOKEN.finditer(m.group(0)))
        head = tokens[0].group(1)
        if head not in names:
            return m.group(0)
        # the longest prefix of the chain that names a class or function
        for n in range(len(tokens), 0, -1):
            dotted = ".".join([names[head], *(t.group(1) for t in tokens[1:n])])
            if linkable(resolve(dotted)):
                end = tokens[n - 1].end()
                linked.append(dotted)
                return (f'<a class="rn-api" href="{doc_url(dotted)}" title="{dotted}">{m.group(0)[:end]}</a>'
                        + m.group(0)[end:])
        return m.group(0)

    return _CHAIN.sub(chain, code_html), tuple(linked)


def link_page(content: str) -> str:
    """A page's HTML with the torch names of its code blocks linked."""
    return _BLOCK.sub(lambda m: m.group(1) + link_block(m.group(2))[0] + m.group(3), content)


# A page whose HTML did not change since the last build in this process (every page but the edited ones
# on a `mkdocs serve` reload) is linked once; 128 pages at most are kept.
_link_page = functools.lru_cache(maxsize=128)(link_page)


def on_page_content(content, page, config, files):
    return _link_page(content)
