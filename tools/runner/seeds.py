"""Every seed a block sets, shifted by ``N`` at run time: the patch behind ``python -m tools.snippets replicate``.

The code the reader sees is not changed. In the process that runs one block (``tools/runner/worker.py``, when the
environment holds ``OFFSET_ENV``), before the block's code runs, ``shift_seeds(N)`` replaces the seeding
functions and classes with ones that add ``N`` to each integer seed:

* torch: ``torch.manual_seed`` and ``torch.random.manual_seed`` (the default generator), and
  ``torch.Generator``, a subclass whose ``manual_seed`` shifts: ``torch.Generator().manual_seed(s)``,
  ``g.manual_seed(s)`` on a generator made so, and every generator the libraries make with
  ``torch.Generator()`` (``isinstance`` still holds for every generator, the default one included);
* NumPy: ``numpy.random.seed``, ``numpy.random.default_rng(seed)``, ``numpy.random.RandomState(seed)`` and
  its ``.seed(s)``;
* Python: ``random.seed`` and ``random.Random(seed)`` and its ``.seed(s)``.

``torch.initial_seed()`` and ``Generator.initial_seed()`` give back the seed the block asked for, so the
idiom ``torch.manual_seed(torch.initial_seed())`` replays the shifted stream instead of shifting it twice.
A seed drawn from the operating system (``torch.seed()``, ``random.seed()``, no seed) is left as it is; a
seed that is not an integer (a string, a float) is refused with an error naming it, never silently kept.

A seeding call of any other form (``torch.default_generator.manual_seed``, ``numpy.random.PCG64(s)``,
``SeedSequence(s)``, ...) would run unshifted: ``seeding_calls`` finds every seeding call of a block's code
and names its form, and ``uncovered`` lists those not in ``COVERED`` (tests/test_replicate.py runs it over
every snippet, and proves each covered form is shifted).
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable

OFFSET_ENV = "RESIDUAL_NOTES_SEED_OFFSET"  # set for a block's process: shift every seed it sets by this much

# The forms ``shift_seeds`` shifts, as ``seeding_calls`` names them.
COVERED = frozenset({
    "torch.manual_seed", "torch.random.manual_seed", "torch.Generator().manual_seed",
    "numpy.random.seed", "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.RandomState().seed",
    "random.seed", "random.Random", "random.Random().seed",
})
# Names whose call sets a seed (given one); any of them on a receiver ``seeding_calls`` cannot trace is a form
# of its own ("<...>.manual_seed"), not covered.
_SEEDING = {"manual_seed", "seed", "default_rng", "RandomState", "Random", "SeedSequence", "PCG64", "PCG64DXSM",
            "MT19937", "Philox", "SFC64"}
_MADE_BY = {"torch.Generator": "torch.Generator()", "numpy.random.RandomState": "numpy.random.RandomState()",
            "random.Random": "random.Random()"}


def shifted(seed, offset: int):
    """``seed`` plus ``offset``: an integer (or a 0-d integer tensor or array), or each integer of a list or
    tuple (NumPy takes those); None (a seed from the operating system) stays None."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise TypeError(f"replicate shifts integer seeds; this block seeds with the bool {seed!r}")
    try:
        return operator.index(seed) + offset
    except TypeError:
        pass
    if isinstance(seed, (list, tuple)):
        return type(seed)(shifted(s, offset) for s in seed)
    raise TypeError(f"replicate shifts integer seeds; this block seeds with {type(seed).__name__} {seed!r}, "
                    "which it cannot shift (tools/runner/seeds.py)")


def _class_like(original: type) -> type:
    """A metaclass under which ``isinstance(x, Sub)`` is ``isinstance(x, original)``: the generators made before
    the patch (torch's default one, NumPy's global RandomState) still pass the libraries' checks."""
    class Meta(type(original)):
        def __instancecheck__(cls, obj):
            return isinstance(obj, original)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, original)

    return Meta


def _named_as(cls: type, original: type) -> type:
    cls.__name__, cls.__qualname__, cls.__module__ = original.__name__, original.__qualname__, original.__module__
    cls.__doc__ = original.__doc__
    return cls


def shift_seeds(offset: int) -> Callable[[], None]:
    """Patch every covered seeding form in this process to add ``offset``; returns a function that undoes it."""
    import random

    import numpy
    import torch

    undo: list[tuple[object, str, object]] = []

    def put(owner, name: str, value) -> None:
        undo.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    # --- torch: the seed each generator was given, to give it back from initial_seed()
    TorchGenerator = torch.Generator
    asked: dict[int, tuple[int, int]] = {}  # id(generator) -> (seed the block asked for, seed it got)

    def note(gen, seed) -> None:
        asked[id(gen)] = (operator.index(seed), TorchGenerator.initial_seed(gen))

    def initial_seed_of(gen) -> int:
        got = TorchGenerator.initial_seed(gen)
        want, given = asked.get(id(gen), (None, None))
        return want if given == got and want is not None else got  # reseeded since (torch.seed()): its own

    manual_seed = torch.random.manual_seed

    @functools.wraps(manual_seed)
    def shifted_manual_seed(seed):
        gen = manual_seed(shifted(seed, offset))
        note(gen, seed)
        return gen

    @functools.wraps(torch.random.initial_seed)
    def shifted_initial_seed():
        return initial_seed_of(torch.random.default_generator)

    class Generator(TorchGenerator, metaclass=_class_like(TorchGenerator)):
        def manual_seed(self, seed):
            out = super().manual_seed(shifted(seed, offset))
            note(self, seed)
            return out

        def initial_seed(self):
            return initial_seed_of(self)

    for owner in (torch, torch.random):
        put(owner, "manual_seed", shifted_manual_seed)
        put(owner, "initial_seed", shifted_initial_seed)
    put(torch, "Generator", _named_as(Generator, TorchGenerator))

    # --- NumPy
    np_random = numpy.random
    np_seed, np_default_rng, NpRandomState = np_random.seed, np_random.default_rng, np_random.RandomState
    unshiftable = (np_random.SeedSequence, np_random.BitGenerator, np_random.Generator)

    def np_shifted(seed):
        return seed if isinstance(seed, unshiftable) else shifted(seed, offset)

    @functools.wraps(np_seed)
    def shifted_np_seed(seed=None):
        return np_seed(np_shifted(seed))

    @functools.wraps(np_default_rng)
    def shifted_default_rng(seed=None):
        return np_default_rng(np_shifted(seed))

    class RandomState(NpRandomState, metaclass=_class_like(NpRandomState)):
        def __init__(self, seed=None):
            super().__init__(np_shifted(seed))

        def seed(self, seed=None):
            super().seed(np_shifted(seed))

    put(np_random, "seed", shifted_np_seed)
    put(np_random, "default_rng", shifted_default_rng)
    put(np_random, "RandomState", _named_as(RandomState, NpRandomState))

    # --- Python's random
    py_seed, PyRandom = random.seed, random.Random

    @functools.wraps(py_seed)
    def shifted_py_seed(a=None, version=2):
        return py_seed(shifted(a, offset), version)

    class Random(PyRandom, metaclass=_class_like(PyRandom)):
        def seed(self, a=None, version=2):
            super().seed(shifted(a, offset), version)

    put(random, "seed", shifted_py_seed)
    put(random, "Random", _named_as(Random, PyRandom))

    def restore() -> None:
        for owner, name, value in reversed(undo):
            setattr(owner, name, value)

    return restore


# --------------------------------------------------------------------------- which seeding calls a block makes


def _imports(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it stands for (``np`` -> ``numpy``, ``default_rng`` -> ``numpy.random.default_rng``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _dotted(node: ast.AST, names: dict[str, str], made: dict[str, str]) -> str:
    """The dotted form of an expression: imports resolved, ``X(...)`` as ``X()``, a variable bound to
    ``torch.Generator(...)`` (or ``....manual_seed(...)`` on one) as ``torch.Generator()``; ``<...>`` otherwise."""
    if isinstance(node, ast.Name):
        return made.get(node.id) or names.get(node.id, "<...>")
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value, names, made)}.{node.attr}"
    if isinstance(node, ast.Call):
        callee = _dotted(node.func, names, made)
        if callee in _MADE_BY:
            return _MADE_BY[callee]
        if callee.endswith("().manual_seed") or callee.endswith("().seed"):
            return callee.rsplit(".", 1)[0]  # manual_seed returns its generator
        return "<...>"
    return "<...>"


def seeding_calls(code: str) -> list[tuple[int, str]]:
    """(line, form) of every call in ``code`` that sets a seed: a call named in ``_SEEDING`` given a seed (an
    argument other than None), its form the dotted name ``_dotted`` reads (``torch.Generator().manual_seed``)."""
    tree = ast.parse(code)
    names = _imports(tree)
    made: dict[str, str] = {}
    for node in ast.walk(tree):  # variables bound to a generator made by a covered constructor
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            form = _dotted(node.value, names, {})
            if form in _MADE_BY.values():
                made[node.targets[0].id] = form
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        given = [a for a in node.args if not (isinstance(a, ast.Constant) and a.value is None)]
        given += [k for k in node.keywords if k.arg in (None, "seed", "a", "x") and
                  not (isinstance(k.value, ast.Constant) and k.value.value is None)]
        if name in _SEEDING and given:
            found.append((node.lineno, _dotted(f, names, made)))
    return sorted(found)


def uncovered(code: str) -> list[tuple[int, str]]:
    """The seeding calls of ``code`` whose form ``shift_seeds`` does not shift."""
    return [(line, form) for line, form in seeding_calls(code) if form not in COVERED]
