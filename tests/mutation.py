"""Mutation tests' helper: a scratch copy of one of the project's modules with one change, loaded
under a name of its own (the real module stays as it is). The change must match exactly once, so
a mutation test whose target code moved fails loudly instead of testing nothing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def mutated(module: ModuleType, old: str, new: str, tmp_path: Path) -> ModuleType:
    """``module`` with ``old`` replaced by ``new`` in its source, from a copy in ``tmp_path``."""
    source = Path(module.__file__).read_text(encoding="utf-8")
    rel = Path(module.__file__).resolve().relative_to(ROOT).as_posix()
    assert source.count(old) == 1, f"mutation target {old!r} occurs {source.count(old)} times in {rel}, not once"
    path = tmp_path / f"mutant_{module.__name__.replace('.', '_')}.py"
    path.write_text(source.replace(old, new), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mutant = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mutant  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(mutant)
    finally:
        del sys.modules[path.stem]
    return mutant


def render_markdown(text: str) -> str:
    """``text`` rendered with mkdocs.yml's Markdown extensions and their settings, as the build renders a
    page's body before the hooks change it: for a mutated page without a build."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(config_file=str(ROOT / "mkdocs.yml"), hooks=[])  # the extensions only; hooks stay importable as hooks.x
    return markdown.Markdown(extensions=config.markdown_extensions, extension_configs=config.mdx_configs).convert(text)
