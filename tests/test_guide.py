"""CONTRIBUTING.md's "Map of the tree" is the tree: every module and top-level entry is listed, and every
listed path exists. A newcomer reads the map; this keeps it true."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "CONTRIBUTING.md"
# the folders whose every file is a module the map must name
MODULE_GLOBS = ("hooks/*.py", "tools/**/*.py", "tools/**/*.txt", "tests/*.py", "snippets/*.py")


def listed(text: str) -> list[str]:
    """The paths the map lists: the first word of each line of the code blocks under "## Map of the tree"."""
    if "\n## Map of the tree" not in text:
        return []
    section = text.split("\n## Map of the tree", 1)[1].split("\n## ", 1)[0]
    paths = []
    for block in re.findall(r"^```\n(.*?)^```", section, re.S | re.M):
        paths += [line.split()[0] for line in block.splitlines() if line.strip()]
    return paths


def top_level(root: Path) -> set[str]:
    """What git tracks at the top of the tree (a folder as `name/`)."""
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return {p.split("/")[0] + ("/" if "/" in p else "") for p in out.splitlines()}


def map_problems(text: str, root: Path = ROOT, tracked_top: set[str] | None = None) -> list[str]:
    paths = listed(text)
    if not paths:
        return ["CONTRIBUTING.md: no \"## Map of the tree\" section with code blocks"]
    problems = []
    for path in paths:
        if "<" not in path and not (root / path).exists():
            problems.append(f"CONTRIBUTING.md: the map lists {path}, which does not exist")
    names = set(paths)
    for pattern in MODULE_GLOBS:
        for module in sorted(root.glob(pattern)):
            rel = module.relative_to(root).as_posix()
            if rel not in names:
                problems.append(f"CONTRIBUTING.md: the map does not list {rel}")
    prefixes = {p.split("/")[0] + ("/" if "/" in p else "") for p in paths}
    for entry in sorted((top_level(root) if tracked_top is None else tracked_top) - prefixes):
        problems.append(f"CONTRIBUTING.md: the map does not list the top-level {entry}")
    return problems


def test_the_map_of_the_tree_lists_every_module_and_nothing_else():
    problems = map_problems(GUIDE.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_a_module_missing_from_the_map_or_a_listed_path_that_is_gone_is_named():
    text = GUIDE.read_text(encoding="utf-8")
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("tools/checks/numbers.py "))
    assert "CONTRIBUTING.md: the map does not list tools/checks/numbers.py" in map_problems(dropped)
    added = text.replace("tools/checks/numbers.py ", "tools/gone.py  x\ntools/checks/numbers.py ", 1)
    assert "CONTRIBUTING.md: the map lists tools/gone.py, which does not exist" in map_problems(added)
    no_folder = "\n".join(line for line in text.splitlines() if not line.startswith("readme/ "))
    assert "CONTRIBUTING.md: the map does not list the top-level readme/" in map_problems(no_folder)


# --------------------------------------------------------------------------- no import cycle
PACKAGES = ("tools", "hooks")


def imports_of(path: Path, modules: set[str] | None = None) -> set[str]:
    """The modules of tools/ and hooks/ (their subpackages too) a file imports, anywhere in it (a function's
    import counts too): ``from tools.runner import selection`` and ``from tools.runner.selection import collect``
    both name ``tools.runner.selection``."""
    import ast

    modules = set(import_graph_modules()) if modules is None else modules
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            found |= {node.module} & modules
            found |= {f"{node.module}.{a.name}" for a in node.names} & modules
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names} & modules
    return found


def import_graph_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of tools/ and hooks/, subpackages included, by its dotted name (a package's ``__init__`` as
    the package)."""
    out = {}
    for pkg in PACKAGES:
        for p in (root / pkg).rglob("*.py"):
            parts = p.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = import_graph_modules(root)
    names = set(modules)
    return {name: imports_of(path, names) - {name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import cycle once, as the modules on it in import order, starting at the smallest name."""
    found, seen = [], set()

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                ring = path[path.index(nxt):]
                start = ring.index(min(ring))
                ring = ring[start:] + ring[:start]
                if tuple(ring) not in seen:
                    seen.add(tuple(ring))
                    found.append(ring)
            elif len(path) < 12:
                walk(nxt, path + [nxt])

    for node in sorted(graph):
        walk(node, [node])
    return found


def test_no_module_of_tools_or_hooks_imports_itself_through_others():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in found)


def test_an_import_cycle_is_named():
    graph = import_graph()
    graph["tools.sources"] = graph["tools.sources"] | {"tools.generators.notebooks"}  # notebooks imports sources
    assert ["tools.generators.notebooks", "tools.sources"] in cycles(graph)
