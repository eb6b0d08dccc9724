"""What one notebook cell can hand to the cells after it in one kernel, read from the cells' code.

A notebook runs its cells one after the other in one kernel; the snippet runner (``tools/runner/``)
runs each block alone in a fresh process, on every reader machine. A cell can print something else in
the notebook than alone only through what earlier cells left in the kernel:

* process state (default dtype, print options, rcParams, threads, cwd, ...): the runner records what
  each block leaves behind (``tools/runner/worker.global_state``) and a block that leaves any fails;
* random state: the runner reseeds every block from the OS, so a block whose output depends on draws
  it did not seed itself fails there;
* the shared namespace, checked here. A block that reads a name it does not bind raises NameError
  alone, and fails in the runner, unless it catches that, looks the name up by introspection, or the
  name is a built-in (alone it gets the built-in, in the notebook what an earlier cell bound). So:
  no cell binds a built-in's name that a later cell uses (``BUILTIN``), no cell looks into its
  namespace (``INTROSPECTION``), no cell catches NameError around a read of a name an earlier cell
  binds (``GUARDED``);
* module state the runner's list does not hold: no cell assigns to an attribute or item of a module
  (``MODULE``, e.g. ``torch.backends.mkldnn.enabled = False``, ``os.environ[...] = ...``);
* the kernel itself: IPython defines no ``__file__`` (the runner does), so no cell reads it (``FILE``).

What neither side sees: a call that changes process state outside the runner's list (say
``torch.set_flush_denormal(True)``); extend ``global_state`` when a snippet needs such a call.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass

BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_"))
INTROSPECTING_CALLS = {"globals", "locals", "vars", "dir", "eval", "exec"}  # vars() and dir() without arguments
INTROSPECTING_NAMES = {"__main__", "__builtins__"}
BROAD_HANDLERS = {"NameError", "Exception", "BaseException"}


@dataclass(frozen=True)
class Cell:
    where: str  # how a message names it, e.g. "docs/zh/notebooks/x.ipynb, code cell 3 (snippets/x/y.md)"
    code: str


def _scope_names(table: symtable.SymbolTable, reads: set[str], binds: set[str]) -> None:
    """Names of the module namespace that a scope and the scopes inside it read and bind."""
    module = table.get_type() == "module"
    for sym in table.get_symbols():
        name = sym.get_name()
        global_here = module or sym.is_global()
        if global_here and sym.is_referenced():
            reads.add(name)
        if global_here and (sym.is_assigned() or sym.is_imported()) and (module or sym.is_declared_global()):
            binds.add(name)
    for child in table.get_children():
        _scope_names(child, reads, binds)


def names(code: str, label: str = "<cell>") -> tuple[set[str], set[str]]:
    """(read, bound) names of the module namespace, in every scope of ``code``."""
    reads: set[str] = set()
    binds: set[str] = set()
    _scope_names(symtable.symtable(code, label, "exec"), reads, binds)
    return reads, binds


def _imported_modules(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {(a.asname or a.name.split(".")[0]) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found |= {(a.asname or a.name) for a in node.names if a.name != "*"}  # may be submodules
    return found


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _catches_name_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in BROAD_HANDLERS for k in kinds)


def _cell_problems(cell: Cell, tree: ast.Module, earlier: set[str]) -> list[str]:
    found = []
    modules = _imported_modules(tree)
    bound_before: set[str] = set()  # bound by this cell's top-level statements so far
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in INTROSPECTING_CALLS:
                if node.func.id in ("eval", "exec", "globals", "locals") or not (node.args or node.keywords):
                    found.append(f"{cell.where}: line {node.lineno} calls {node.func.id}(), which sees the names"
                                 " earlier cells left in the kernel")
            elif isinstance(node, ast.Name) and node.id in INTROSPECTING_NAMES | {"__file__"}:
                what = ("reads __file__, which the runner defines and a notebook kernel does not"
                        if node.id == "__file__" else f"uses {node.id}, which sees the names earlier cells left")
                found.append(f"{cell.where}: line {node.lineno} {what}")
            elif isinstance(node, ast.Constant) and node.value == "__main__" and not _is_main_guard(stmt):
                found.append(f"{cell.where}: line {node.lineno} names the __main__ module, which holds the names"
                             " earlier cells left")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    for part in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                        if isinstance(part, (ast.Attribute, ast.Subscript)) and _root(part) in modules:
                            found.append(f"{cell.where}: line {node.lineno} changes {ast.unparse(part)}, part of the"
                                         f" imported {_root(part)}, for every cell after it")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and node.args and _root(node.args[0]) in modules:
                found.append(f"{cell.where}: line {node.lineno} changes the imported {_root(node.args[0])}"
                             " with setattr, for every cell after it")
            elif isinstance(node, ast.Try) and any(_catches_name_error(h) for h in node.handlers):
                guarded = sorted(_reads_before_binding(node.body, set(bound_before)) & earlier - BUILTINS)
                if guarded:
                    found.append(f"{cell.where}: line {node.lineno} catches NameError around a read of"
                                 f" {', '.join(guarded)}, which an earlier cell binds: alone it is not defined,"
                                 " in the notebook it is")
        bound_before |= names(ast.unparse(stmt))[1]
    return found


def _reads_before_binding(stmts: list[ast.stmt], bound: set[str]) -> set[str]:
    """Names the statements read, in order, before one of them binds the name."""
    found = set()
    for stmt in stmts:
        reads, binds = names(ast.unparse(stmt))
        found |= reads - bound
        bound |= binds
    return found


def _is_main_guard(stmt: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (the same in both: the runner and IPython run code as __main__)."""
    test = stmt.test if isinstance(stmt, ast.If) else None
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant))


def problems(cells: list[Cell]) -> list[str]:
    """Ways the cells, run in this order in one kernel, can reach what an earlier cell left; each
    message names the cell and the line. Empty: each cell sees what it sees alone."""
    found = []
    bound_by: dict[str, str] = {}  # name -> the first cell that binds it
    for cell in cells:
        tree = ast.parse(cell.code)
        reads, binds = names(cell.code, cell.where)
        found += _cell_problems(cell, tree, set(bound_by))
        for name in sorted(reads & BUILTINS & set(bound_by)):
            found.append(f"{cell.where} uses {name}, and {bound_by[name]} binds {name}: alone this cell gets the"
                         f" built-in {name}, in the notebook that value; rename the variable")
        for name in binds:
            bound_by.setdefault(name, cell.where)
    return found
