"""The inventory of the pinned torch's public names (``hooks/data/torch-names.json``), which
``hooks/torch_docs.py`` links code to, so that building the site needs no torch.

    python -m tools.generators.torch_names write   # rewrite the inventory from the installed torch
    python -m tools.generators.torch_names check   # exit 1, naming the file and the first differing names, if it is stale

A *public name* is a dotted path a reader can write to reach a class or function of torch:

* ``<module>.<name>`` for every public module of torch (the modules reached from ``import torch`` by
  attributes whose names start with no ``_``, each under its own ``__name__``) and every attribute of it
  whose name starts with no ``_`` and which is a class or a routine defined by torch (its ``__module__``
  is ``torch`` or ``torch.*``; ``typing.Any`` imported into a torch module is not torch's);
* ``<class path>.<member>`` for every public member of such a class that is a class or a routine and
  is defined (first in the class's MRO) by a class of torch (``torch.Tensor.add``,
  ``torch.nn.Linear.parameters``; not ``torch.Size.count``, which is ``tuple``'s).

Only classes and routines are linked (modules, dtypes and other values have no page of their own). The
file keeps each class's members once: ``members[key]["names"]`` are the ones its listed ``bases`` do not
already give (a base is a torch class in its MRO, or a class with exactly its members). :func:`expand` gives the flat set back, and the check compares flat sets, so the compact
form can never hide a difference. The inventory depends on the torch version only: what the standard
library adds in one Python and not another is left out by the rule above. It is made from the build of
torch the project pins (the CPU wheel, as CI installs it) and names that build; compared with another
build (PyPI's CUDA one, whose device modules may hold other names), the check says so and compares nothing.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = ROOT / "hooks" / "data" / "torch-names.json"
ROOT_MODULE = "torch"
FORMAT = 1
SHOWN = 5  # differing names a failure lists


def _public(name: str) -> bool:
    return not name.startswith("_")


def linkable(obj) -> bool:
    """Classes and functions have a page of their own; modules, dtypes and other values do not."""
    return obj is not None and not inspect.ismodule(obj) and (inspect.isclass(obj) or inspect.isroutine(obj))


def _torchs(module: str | None) -> bool:
    return isinstance(module, str) and (module == ROOT_MODULE or module.startswith(ROOT_MODULE + "."))


def _defined_by_torch(obj) -> bool:
    owner = getattr(obj, "__objclass__", None)  # a method descriptor of a C class: its class says
    return _torchs(getattr(owner if owner is not None else obj, "__module__", None))


def _attr(obj, name: str):
    try:
        return getattr(obj, name)
    except Exception:  # noqa: BLE001 - a lazy attribute that cannot load here is no public name here
        return None


def _modules(torch) -> dict[str, object]:
    """Every public module of torch reached by attributes from ``torch``, under its own name."""
    found, stack = {}, [(ROOT_MODULE, torch)]
    while stack:
        name, module = stack.pop()
        if name in found:
            continue
        found[name] = module
        for attr in sorted(dir(module)):
            child = _attr(module, attr) if _public(attr) else None
            if inspect.ismodule(child) and child.__name__ == f"{name}.{attr}":
                stack.append((child.__name__, child))
    return found


def _members(cls) -> set[str]:
    """The public members of a class that are classes or routines defined by a class of torch."""
    found = set()
    for name in dir(cls):
        if not _public(name):
            continue
        owner = next((k for k in inspect.getmro(cls) if name in vars(k)), None)
        if owner is not None and _torchs(getattr(owner, "__module__", None)) and linkable(_attr(cls, name)):
            found.add(name)
    return found


def collect() -> dict:
    """The inventory of the torch installed in this process's environment (imports it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

        functions, paths = set(), {}  # paths: class -> its public paths
        for name, module in _modules(torch).items():
            for attr in dir(module):
                obj = _attr(module, attr) if _public(attr) else None
                if not linkable(obj) or not _defined_by_torch(obj):
                    continue
                if inspect.isclass(obj):
                    paths.setdefault(obj, set()).add(f"{name}.{attr}")
                else:
                    functions.add(f"{name}.{attr}")
        key = {cls: min(p, key=lambda s: (s.count("."), len(s), s)) for cls, p in paths.items()}  # its shortest path
        full = {cls: _members(cls) for cls in paths}
    members = {}
    for cls, k in key.items():
        bases = [b for b in inspect.getmro(cls)[1:] if b in key]
        inherited = set().union(*(full[b] for b in bases)) if bases else set()
        if not inherited <= full[cls]:  # a base's member that is no class or function here: list all
            bases, inherited = [], set()
        members[k] = {"bases": sorted(key[b] for b in bases), "names": sorted(full[cls] - inherited)}
    # a class with no torch base listed whose members are another such class's, all of them (the legacy
    # torch.FloatTensor and its 30 siblings have torch.Tensor's 566): that class stands for its members
    alone = {}
    for cls, k in sorted(key.items(), key=lambda item: (item[1].count("."), len(item[1]), item[1])):
        if not members[k]["bases"] and members[k]["names"]:
            same = alone.setdefault(frozenset(full[cls]), k)
            if same != k:
                members[k] = {"bases": [same], "names": []}
    m = re.match(r"\d+\.\d+\.\d+", torch.__version__)
    return {"format": FORMAT, "torch": m.group(0) if m else torch.__version__, "build": build(torch),
            "functions": sorted(functions),
            "classes": {p: key[cls] for cls, ps in paths.items() for p in sorted(ps)},
            "members": members}


def build(torch) -> str:
    """``CPU`` or ``CUDA <version>``, as tools/generators/compat.py names a torch build."""
    return f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU"


def expand(inventory: dict) -> frozenset[str]:
    """Every public name of an inventory, flat (the hook's own reading of the file)."""
    from hooks import torch_docs

    return torch_docs.expand(inventory)


def resolve(dotted: str):
    """The object ``dotted`` names in the installed torch (longest importable module, then attributes),
    or None: the hook's rule before the inventory, kept to check the links against torch itself."""
    import importlib

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


def render(inventory: dict) -> str:
    """The file's text: sorted, one name a line where it is a list, so a torch upgrade reads as a diff."""
    return json.dumps(dict(sorted(inventory.items())), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def load(path: Path = INVENTORY) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def installed() -> dict:
    """The installed torch's inventory, made in a fresh interpreter: what this process has imported
    (another test's ``import torch.utils.tensorboard``) must not add modules."""
    code = "import sys, json; from tools.generators import torch_names; json.dump(torch_names.collect(), sys.stdout)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode:
        raise RuntimeError(f"python -m tools.generators.torch_names: reading the installed torch failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def problems(committed: dict, live: dict, path: Path = INVENTORY) -> list[str]:
    """What makes ``path`` (holding ``committed``) differ from the installed torch's ``live``
    inventory, each naming the file; empty when it is current."""
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    fix = "run `python -m tools.generators.torch_names write` with the pinned torch installed"
    found = []
    if committed.get("format") != FORMAT:
        return [f"{rel}: format {committed.get('format')!r}, expected {FORMAT}: {fix}"]
    if committed.get("torch") != live["torch"]:
        found.append(f"{rel}: made from torch {committed.get('torch')}, the installed torch is {live['torch']}: {fix}")
    if committed.get("build") != live["build"]:  # a CUDA build may hold other device names: not comparable
        return found + [f"{rel}: made from torch's {committed.get('build')} build, the installed one is the "
                        f"{live['build']} build: check it where the pinned build is installed (CI's CPU wheel)"]
    have, want = expand(committed), expand(live)
    for what, names in (("lacks", sorted(want - have)), ("has names the installed torch lacks", sorted(have - want))):
        if names:
            more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
            found.append(f"{rel} {what}: {', '.join(names[:SHOWN])}{more}: {fix}")
    if not found and render(committed) != render(live):
        found.append(f"{rel}: the same names, not as `write` stores them: {fix}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.generators.torch_names", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["write", "check"])
    args = parser.parse_args(argv)
    live = installed()
    if args.command == "write":
        from tools.files import write_atomic

        INVENTORY.parent.mkdir(exist_ok=True)
        old = INVENTORY.read_text(encoding="utf-8") if INVENTORY.exists() else None
        text = render(live)
        if text == old:
            print(f"{INVENTORY.relative_to(ROOT)}: current (torch {live['torch']})")
            return 0
        write_atomic(INVENTORY, text)
        print(f"rewrote {INVENTORY.relative_to(ROOT)}: {len(expand(live))} public names of torch {live['torch']}")
        return 0
    found = problems(load(), live) if INVENTORY.exists() else [f"{INVENTORY.relative_to(ROOT)} does not exist"]
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
