"""Shared assets (``docs/assets/…``: figures, diagrams, css, the favicon) in every language's build.

With ``fallback_to_default: false``, mkdocs-static-i18n leaves the files outside the language
folders out of the other languages' builds, so an English page's ``../assets/figures/x.svg`` was
neither checked nor rewritten and 404ed under ``/en/``. After i18n has made one language's file
list (its ``on_files`` runs at priority -100), each shared file that is missing is added back
with its one published path (``assets/…``), so every language links to the same copy.

Upstream assumption, checked on every build: after this hook every shared file is in the list,
and after the build it exists in ``site_dir`` at its one path. Otherwise ``PluginError``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs import plugins
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)


def shared_files(docs: Path, languages: tuple[str, ...]) -> list[str]:
    """Files under docs/ outside every language folder (and not hidden), as src URIs."""
    out = []
    for path in sorted(docs.rglob("*")):
        rel = path.relative_to(docs).as_posix()
        if path.is_file() and rel.split("/")[0] not in languages and not rel.startswith("."):
            out.append(rel)
    return out


@plugins.event_priority(-150)  # after i18n (-100) has made this language's file list
def on_files(files, config):
    facts = site_facts.from_config(config)
    have = {f.src_uri for f in files}
    for rel in shared_files(facts.docs, facts.languages):
        if rel not in have:
            shared = File(rel, str(facts.docs), config.site_dir, config.use_directory_urls)
            if shared.is_documentation_page():
                raise PluginError(f"hooks/shared_assets.py: docs/{rel} is a page outside every language folder "
                                  f"{facts.languages}; pages belong in docs/<lang>/")
            files.append(shared)
    have = {f.src_uri for f in files}
    missing = [rel for rel in shared_files(facts.docs, facts.languages) if rel not in have]
    if missing:
        raise PluginError(f"hooks/shared_assets.py: shared files still missing from the build: {missing[:5]}")
    return files


def on_post_build(config):
    facts = site_facts.from_config(config)
    site = Path(config.site_dir)
    missing = [rel for rel in shared_files(facts.docs, facts.languages) if not (site / rel).is_file()]
    if missing:
        raise PluginError("hooks/shared_assets.py: shared files were not written at their one path "
                          f"(expected site/<path> for each; mkdocs-static-i18n's on_files (priority -100) must run "
                          f"before this hook's (-150)): {missing[:5]}")
