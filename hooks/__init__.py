"""The site's MkDocs hooks and the modules they share: one package, one name per file.

Every module here is ``hooks.<file stem>`` under every entry point: the ``mkdocs`` and
``properdocs`` console scripts, ``python -m mkdocs``, the tests and tools (``from hooks import x``).
MkDocs loads each file listed under ``hooks:`` in ``mkdocs.yml`` by its path, as a module named
after that path (``"hooks/math.py"``), with only ``hooks/`` on ``sys.path`` while it runs. So
every module of this package opens with the same lines::

    if __package__ != "hooks":  # run by MkDocs from its path: the package is found beside it
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from hooks import one_module  # noqa: E402

    one_module(__name__, __file__)

and imports what it shares as ``from hooks import site_facts``. :func:`one_module` makes the
module MkDocs loaded *be* ``hooks.<stem>`` (the same object under both names, so one state), and
fails loudly, naming the file, where a second copy would be made: the file imported under another
name (``import site_facts`` with ``hooks/`` on ``sys.path``), MkDocs running a hook that is already
imported as ``hooks.<stem>``, or another project's ``hooks`` package already imported.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one_module(name: str, file: str) -> None:
    """Called first by every module of this package with its ``__name__`` and ``__file__``."""
    path = Path(file).resolve()
    canonical = f"{__name__}.{path.stem}"
    shown = f"{HERE.name}/{path.name}"
    if path.parent != HERE:
        raise ImportError(f"{path}: the package `{__name__}` already imported in this process is {HERE}, not the "
                          "folder of this file: two projects' hooks in one process would mix their modules")
    if name == canonical:
        return
    if not name.endswith(".py"):
        raise ImportError(f"{shown} imported as {name!r}: its one name is {canonical!r} (`from {__name__} import "
                          f"{path.stem}`); a second name would be a second copy with its own state")
    # MkDocs (and ProperDocs) load a hook by its path: config_options.Hooks._load_hook registers the new
    # module in sys.modules under the name written in mkdocs.yml, then runs the file.
    module = sys.modules.get(name)
    if getattr(module, "__file__", None) is None or Path(module.__file__).resolve() != path:
        raise ImportError(f"{shown} loaded as {name!r}, but sys.modules[{name!r}] is not this file: expected MkDocs' "
                          "hook loader (config_options.Hooks._load_hook) to register the module before running it")
    earlier = sys.modules.get(canonical)
    if earlier is not None and earlier is not module:
        raise ImportError(f"{shown}: MkDocs runs it as the hook {name!r}, but it is already imported as {canonical!r} "
                          "in this process; a second copy would have its own state. Load the MkDocs config before "
                          f"importing {canonical}, or load it with hooks=[] (as site_facts.load does)")
    sys.modules[canonical] = module
    setattr(sys.modules[__name__], path.stem, module)
