"""Build speed without a changed byte: the highlight cache and provenance's one read of git.

* ``hooks/highlight_cache.py``: a fence gives exactly the HTML superfences gives without the hook
  (every kind of fence the site uses, and the options it does not); the same block is highlighted
  once, in a build and across builds (``.cache/highlight``); a change of code, options or settings
  misses; a damaged or foreign cache file is not trusted; what cannot be cached is not; an
  upstream change fails loudly. A strict build with the cache (cold, then warm from disk) and one
  without it give byte-identical sites.
* ``hooks/provenance.py``: the whole history read once gives, for any set of files, the commit and
  date ``git log -1 -- <files>`` gives (merges included), with two git calls per build.
* ``hooks/render_cache.py`` and ``hooks/search_cache.py``: a ``mkdocs serve`` reload converts and indexes
  again only the pages whose inputs changed (a snippet a snippet includes, the files a link
  may point to, the Markdown settings), keeps no page whose conversion warned (so ``--strict`` fails
  on every reload), and gives the site, search index included, byte for byte, that a build with
  empty caches gives; on the whole site, a second build in one process reuses every Markdown page
  and gives the site a build without the three caches gives. Each upstream detail they rely on fails
  loudly when it is missing.
"""

from __future__ import annotations

import filecmp
import functools
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest
from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from hooks import highlight_cache as hc
from hooks import provenance
from hooks.site_facts import ROOT
from tools.site.build import build, first_difference, reader_env

from test_publishing import _git  # git with a fixed author, committer and date

EXTENSIONS = ["admonition", "attr_list", "md_in_html", "pymdownx.highlight", "pymdownx.superfences",
              "pymdownx.details", "pymdownx.tabbed"]
CONFIGS = {"pymdownx.highlight": {"anchor_linenums": False, "pygments_lang_class": True},
           "pymdownx.tabbed": {"alternate_style": True}}

CODE = 'import torch\n\nx = torch.randn(3)  # (1)!\nprint(f"{x.norm():.4f}")\n'
FENCES = {
    "python": f"```python\n{CODE}```\n",
    "output": "```text\n1.2345\n0 < 1 & 2\n```\n",
    "linenums": f'```python linenums="1"\n{CODE}```\n',
    "title": f'```python title="block.py"\n{CODE}```\n',
    "hl_lines": f'```python hl_lines="2 3"\n{CODE}```\n',
    "attrs": f'```{{.python .extra #the-id data-x="1"}}\n{CODE}```\n',
    "no language": "```\nplain <text>\n```\n",
    "unknown language": "```nosuchlanguage\nx = 1\n```\n",
    "nested": f'!!! example "An example"\n\n    ```python\n    {CODE.replace(chr(10), chr(10) + "    ")}```\n',
    "in a tab": f'=== "One"\n\n    ```python\n    x = 1\n    ```\n\n=== "Two"\n\n    ```python\n    x = 2\n    ```\n',
    "title as html": f'```python title="<b>block</b>.py" title_mode="html"\n{CODE}```\n',
    "indented, no fence": "A paragraph.\n\n    x = 1\n    y = 2\n",
}


def _md(cache: hc.Cache | None = None, configs: dict = CONFIGS) -> markdown.Markdown:
    configs = {k: dict(v) for k, v in configs.items()}
    if cache is not None:
        configs["pymdownx.superfences"] = {"custom_fences": [hc.catch_all(cache)]}
    return markdown.Markdown(extensions=EXTENSIONS, extension_configs=configs)


def _cache(tmp_path: Path | None = None, configs: dict = CONFIGS) -> hc.Cache:
    return hc.Cache(tmp_path / "blocks.json" if tmp_path else None, hc.settings_of(configs))


@pytest.mark.parametrize("name", FENCES)
def test_a_cached_fence_is_the_fence_superfences_makes(name):
    text = f"# Page\n\nBefore.\n\n{FENCES[name]}\nAfter.\n"
    plain = _md().convert(text)
    cache = _cache()
    md = _md(cache)
    first = md.convert(text)
    md.reset()
    second = md.convert(text)  # from the cache, but for what cannot be cached
    assert first == plain, f"{name}: the catch-all fence changed the HTML"
    assert second == plain, f"{name}: the cached HTML differs from superfences' own"
    if name in ("title as html", "indented, no fence"):  # in the page's stash / no fence: nothing to reuse
        assert cache.hits == 0 and not cache.entries
    else:
        assert cache.hits >= 1, f"{name}: the second conversion highlighted the block again"


def test_the_same_block_is_highlighted_once_across_pages_and_languages():
    cache = _cache()
    zh, en = f"# 页面\n\n{FENCES['python']}", f"# Page\n\n{FENCES['python']}"
    _md(cache).convert(zh)
    assert (cache.misses, cache.hits) == (1, 0)
    _md(cache).convert(en)  # the other language: a new Markdown instance, the same block
    assert (cache.misses, cache.hits) == (1, 1)


@pytest.mark.parametrize("change", ["code", "language", "options", "classes"])
def test_a_change_of_the_block_misses_the_cache(change):
    cache = _cache()
    _md(cache).convert(FENCES["python"])
    changed = {"code": FENCES["python"].replace("randn(3)", "randn(4)"),
               "language": FENCES["python"].replace("```python", "```pycon"),
               "options": FENCES["linenums"],
               "classes": FENCES["python"].replace("```python", "```{.python .other}")}[change]
    html = _md(cache).convert(changed)
    assert cache.misses == 2, f"a change of {change} was served from the cache"
    assert html == _md().convert(changed)


def test_a_change_of_settings_or_versions_misses_the_cache(tmp_path, monkeypatch):
    cache = _cache(tmp_path)
    _md(cache).convert(FENCES["python"])
    cache.save()
    other = {**CONFIGS, "pymdownx.highlight": {**CONFIGS["pymdownx.highlight"], "pygments_lang_class": False}}
    assert hc.settings_of(other) != cache.settings
    reread = hc.Cache(tmp_path / "blocks.json", hc.settings_of(other))
    html = _md(reread, other).convert(FENCES["python"])
    assert (reread.misses, reread.hits) == (1, 0)
    assert html == _md(configs=other).convert(FENCES["python"])
    other_pygments = SimpleNamespace(version=lambda dist: "0+other" if dist == "Pygments" else "1")
    monkeypatch.setattr(hc, "metadata", other_pygments)  # hooks/highlight_cache.py's name only
    assert hc.settings_of(CONFIGS) != cache.settings, "a Pygments upgrade must not reuse the old HTML"


def test_the_cache_lasts_between_builds_and_a_bad_file_is_not_trusted(tmp_path):
    cache = _cache(tmp_path)
    _md(cache).convert(FENCES["python"] + "\n" + FENCES["output"])
    cache.save()
    path = tmp_path / "blocks.json"
    assert path.exists() and not list(tmp_path.glob("*.tmp")), "written atomically, no temp file left"
    again = _cache(tmp_path)
    html = _md(again).convert(FENCES["python"])
    assert (again.misses, again.hits) == (0, 1) and html == _md().convert(FENCES["python"])
    again.save()  # keeps only what this build used
    assert len(_cache(tmp_path).entries) == 1
    for damage in ("{not json", '{"format": 0, "entries": {}}', '["a list"]'):
        path.write_text(damage, encoding="utf-8")
        assert _cache(tmp_path).entries == {}, f"a cache file holding {damage!r} was trusted"


def test_a_superfences_without_the_default_formatter_fails_naming_it():
    md = SimpleNamespace(preprocessors={"fenced_code_block": SimpleNamespace()})
    with pytest.raises(SuperFencesException, match=r"fenced_code_block.*highlight\(\)"):
        hc.fence("x = 1\n", "python", "highlight", {}, md, cache=_cache(), classes=[], id_value="", attrs={})


def _config(tmp_path: Path, highlight: dict | None = None, fences: list | None = None) -> SimpleNamespace:
    mdx = {"pymdownx.highlight": highlight or {}}
    if fences is not None:
        mdx["pymdownx.superfences"] = {"custom_fences": fences}
    return SimpleNamespace(markdown_extensions=["pymdownx.highlight", "pymdownx.superfences"], mdx_configs=mdx,
                           config_file_path=str(tmp_path / "mkdocs.yml"))


def test_the_hook_adds_one_catch_all_fence_and_refuses_to_replace_one(tmp_path, monkeypatch):
    monkeypatch.setattr(hc, "_cache", None)
    config = _config(tmp_path, fences=[{"name": "mermaid", "class": "mermaid"}])
    hc.on_config(config)
    hc.on_config(config)  # i18n runs on_config again for each language
    names = [f["name"] for f in config.mdx_configs["pymdownx.superfences"]["custom_fences"]]
    assert names == ["mermaid", "*"]
    with pytest.raises(PluginError, match="custom fence named"):
        hc.on_config(_config(tmp_path, fences=[{"name": "*", "class": "x"}]))
    monkeypatch.setattr(hc, "_cache", None)
    numbered = _config(tmp_path, highlight={"anchor_linenums": True})
    hc.on_config(numbered)  # line anchors number the blocks of a page: nothing may be shared
    assert not numbered.mdx_configs["pymdownx.superfences"]["custom_fences"]
    with pytest.raises(PluginError, match="expected pymdownx.superfences"):
        hc.on_config(SimpleNamespace(markdown_extensions=["toc"], mdx_configs={}))


def _site_files(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())


def _differences(a: Path, b: Path) -> list[str]:
    files_a, files_b = _site_files(a), _site_files(b)
    if files_a != files_b:
        return [f"file sets differ: {sorted(set(files_a) ^ set(files_b))[:10]}"]
    return [f for f in files_a if not filecmp.cmp(a / f, b / f, shallow=False)]


CACHE_HOOKS = ("highlight_cache", "render_cache", "search_cache")


def _rebuild(config: Path, site: Path, rounds: int) -> list[dict]:
    """``tools/site/rebuild.py``: ``rounds`` strict builds of ``config`` in one process, as ``mkdocs serve``
    rebuilds; one record per build (its CPU seconds, warnings, what each cache reused)."""
    proc = subprocess.run([sys.executable, "-m", "tools.site.rebuild", "-f", str(config), "-d", str(site),
                           "--rounds", str(rounds)], capture_output=True, text=True, cwd=ROOT, env=reader_env())
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _caches_compared(tmp_path: Path, scratch) -> None:
    """The cold build with the caches is the session's clean ``-f`` build (tests/conftest.py); the one
    without them starts from that build's other caches (fonts, templates, notebooks), not its blocks.
    The warm one is two builds in one process, as ``mkdocs serve`` makes them: the first with the
    highlighted blocks from disk, the second reusing every page's conversion and search entries. An
    ``AT_START`` job (off pytest's own thread); an assertion that fails here fails the test below."""
    scratch_builds = scratch()
    cold = scratch_builds.site("other-cwd")
    cached = scratch_builds.project("other-cwd") / "mkdocs.yml"
    plain = scratch_builds.warm_copy(tmp_path / "plain", without=("highlight",))
    text = plain.read_text(encoding="utf-8")
    for hook in CACHE_HOOKS:
        assert f"  - hooks/{hook}.py" in text, f"mkdocs.yml no longer lists hooks/{hook}.py"
        text = re.sub(rf"^  - hooks/{hook}\.py.*\n", "", text, flags=re.M)
    plain.write_text(text, encoding="utf-8")
    assert not (plain.parent / ".cache" / "highlight").exists()
    proc = build(tmp_path / "site-plain", plain)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    blocks = cached.parent / ".cache" / "highlight" / "blocks.json"
    assert blocks.exists(), "the cold build wrote no highlight cache"
    first, second = _rebuild(cached, tmp_path / "site-warm", rounds=2)
    pages = len(list((cached.parent / "docs").rglob("*.md")))
    assert second["render_cache"] == {"reused": pages, "converted": 0, "not_kept": 0}, second
    assert second["search_cache"]["indexed"] == 0 and second["search_cache"]["reused"] >= pages, second
    for label, site in (("cold", cold), ("warm, rebuilt in one process", tmp_path / "site-warm")):
        diff = _differences(tmp_path / "site-plain", site)
        assert not diff, f"the {label} build with {', '.join(CACHE_HOOKS)} differs from one without them: {diff[:10]}"


AT_START = {"caches_compared": _caches_compared}  # tests/conftest.py starts it with the session


@pytest.fixture(scope="session")
def caches_compared(at_start):
    return lambda: at_start("caches_compared")


def test_a_build_with_the_caches_is_byte_identical_to_one_without(caches_compared):
    caches_compared()


# --------------------------------------------------------------------------- a serve reload reuses what did not change

_RELOAD_DRIVER = r"""
import json, shutil, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tools.site.rebuild import rebuilds
project, steps = Path(sys.argv[2]), json.loads(sys.argv[3])

def before(n):
    for rel, text in steps[n].get("write", {}).items():
        (project / rel).write_text(text, encoding="utf-8")
    for rel in steps[n].get("delete", []):
        (project / rel).unlink()
    if steps[n].get("fresh"):
        for name, kept in (("render_cache", "_entries"), ("search_cache", "_entries")):
            getattr(sys.modules[f"hooks.{name}"], kept).clear()

for record in rebuilds(project / "mkdocs.yml", project / "site", len(steps), before, strict=False):
    shutil.copytree(project / "site", project / f"site-{record['build']}")
    print(json.dumps(record), flush=True)
"""
_FIXTURE_CONFIG = """site_name: Reload fixture
theme:
  name: material
plugins:
  - search
  - glightbox
markdown_extensions:
  - toc:
      permalink: {permalink}
  - pymdownx.snippets:
      base_path: !relative $config_dir/snippets
      check_paths: true
hooks:
  - {hooks}/render_cache.py
  - {hooks}/search_cache.py
"""
# (what changes before the build, what the build must report: each cache hook's counts, warnings)
_RELOADS = [
    ("the first build", {},
     {"render_cache": {"reused": 0, "converted": 3, "not_kept": 1}, "search_cache": {"reused": 0, "indexed": 3},
      "warnings": 1}),
    ("nothing changed", {},
     {"render_cache": {"reused": 2, "converted": 1, "not_kept": 1}, "search_cache": {"reused": 3, "indexed": 0},
      "warnings": 1}),
    ("a snippet included by a snippet changed", {"write": {"snippets/b.md": "B version 2.\n"}},
     {"render_cache": {"reused": 1, "converted": 2, "not_kept": 1}, "search_cache": {"reused": 2, "indexed": 1},
      "warnings": 1}),
    ("the same files, every cache emptied", {"fresh": True},
     {"render_cache": {"reused": 0, "converted": 3, "not_kept": 1}, "search_cache": {"reused": 0, "indexed": 3},
      "warnings": 1}),
    ("the page the home page links to deleted", {"delete": ["docs/other.md"]},
     {"render_cache": {"reused": 0, "converted": 2, "not_kept": 2}, "search_cache": {"reused": 1, "indexed": 1},
      "warnings": 2}),
    ("the Markdown settings changed", {"write": {"mkdocs.yml": "permalink: false"}},
     {"render_cache": {"reused": 0, "converted": 2, "not_kept": 2}, "search_cache": {"reused": 0, "indexed": 2},
      "warnings": 2}),
]


def _reload_fixture(tmp_path: Path, hooks: Path) -> list[str]:
    """Three pages (one includes a snippet that includes another and links to a second page, one links
    to no page), built six times in one process with ``hooks``' cache hooks, the changes of
    ``_RELOADS`` made in between. What differs from what each build must do, naming the page or file."""
    project = tmp_path / "project"
    files = {"docs/index.md": '# Home\n\n--8<-- "a.md"\n\nSee [the other page](other.md#part).\n',
             "docs/other.md": "# Other\n\n## Part\n\n残差连接把输入加回输出。\n\n![A figure](fig.svg)\n",
             "docs/fig.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>\n',
             "docs/broken.md": "# Broken\n\nA [link](missing.md) to no page.\n",
             "snippets/a.md": 'A says hi.\n\n--8<-- "b.md"\n', "snippets/b.md": "B version 1.\n",
             "mkdocs.yml": _FIXTURE_CONFIG.format(permalink="true", hooks=hooks)}
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    steps = [{**change, "write": {rel: _FIXTURE_CONFIG.format(permalink="false", hooks=hooks) if rel == "mkdocs.yml"
                                  else text for rel, text in change.get("write", {}).items()}}
             for _, change, _ in _RELOADS]
    proc = subprocess.run([sys.executable, "-c", _RELOAD_DRIVER, str(ROOT), str(project), json.dumps(steps)],
                          capture_output=True, text=True, cwd=tmp_path, env={**reader_env(), "SOURCE_DATE_EPOCH": "86400"})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(records) == len(_RELOADS), proc.stdout + proc.stderr[-2000:]
    problems = []
    for n, ((what, _, expected), record) in enumerate(zip(_RELOADS, records)):
        got = {k: record.get(k) for k in expected}
        if got != expected:
            problems.append(f"build {n} ({what}): expected {expected}, got {got}")
    for n, same_as in ((1, 0), (3, 2)):  # reused everything it could / emptied caches: the same bytes
        diff = first_difference(project / f"site-{same_as}", project / f"site-{n}")
        if diff:
            problems.append(f"build {n} ({_RELOADS[n][0]}) differs from build {same_as}: {diff}")
    if 'class="glightbox"' not in (project / "site-1" / "other" / "index.html").read_text(encoding="utf-8"):
        problems.append("build 1: other/index.html has no glightbox link around its figure")
    home = (project / "site-2" / "index.html").read_text(encoding="utf-8")
    if "B version 2." not in home:
        problems.append("build 2: index.html does not show the edit of snippets/b.md (included by snippets/a.md)")
    return problems


def test_a_reload_converts_and_indexes_again_only_what_changed(tmp_path):
    assert _reload_fixture(tmp_path, ROOT / "hooks") == []


def _mutant_hooks(tmp_path: Path, hook: str, old: str, new: str) -> Path:
    """A copy of the two cache hooks (and the package they belong to) with ``old`` replaced in ``hook``."""
    hooks = tmp_path / "mutant" / "hooks"
    hooks.mkdir(parents=True)
    for name in ("__init__.py", "render_cache.py", "search_cache.py"):
        shutil.copy(ROOT / "hooks" / name, hooks / name)
    text = (hooks / f"{hook}.py").read_text(encoding="utf-8")
    assert text.count(old) == 1, f"hooks/{hook}.py no longer holds {old!r}: update the mutation"
    (hooks / f"{hook}.py").write_text(text.replace(old, new), encoding="utf-8")
    return hooks


@pytest.mark.parametrize("hook, old, new, named", [
    ("render_cache", "all(_digest(p) == d for p, d in entry.inputs.items())", "True", "snippets/b.md"),
    ("render_cache", "page.url, listing, extensions", "page.url, extensions", "build 4 (the page the home page"),
    ("search_cache", "[page.content, page.url", "[page.url", "build 2 (a snippet included"),
], ids=["included files not compared", "the build's files not in the key", "the page's HTML not in the key"])
def test_a_cache_that_misses_a_change_is_caught(tmp_path, hook, old, new, named):
    """Mutation: a cache hook that reuses a page whose input changed. The fixture's check names the build
    and what it did instead (or the file the edit did not reach)."""
    problems = _reload_fixture(tmp_path, _mutant_hooks(tmp_path, hook, old, new))
    assert any(named in p for p in problems), problems


def _stand_in_page(src_uri: str = "x.md") -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri, dest_uri=src_uri.replace(".md", ".html")),
                           markdown="# X\n", url=src_uri.replace(".md", "/"), content=None, meta={})


_STAND_IN_CONFIG = {"markdown_extensions": ["toc"], "mdx_configs": {}, "validation": {}, "use_directory_urls": True}


@pytest.mark.parametrize("sets, message", [
    ({"content": "<p>x</p>", "odd": object()}, r"x\.md: Page\.render set \{'odd': 'object'\}"),
    ({}, r"x\.md: Page\.render set no `content`"),
], ids=["a value it cannot copy", "no content"])
def test_a_render_the_cache_cannot_reuse_fails_naming_the_page(sets, message):
    """hooks/render_cache.py keeps what MkDocs 1.6's render sets (text, containers, the table of contents);
    a render that sets anything else, or no HTML, is an upstream change: the build fails naming it."""
    from hooks import render_cache

    page = _stand_in_page()
    with pytest.raises(PluginError, match=message):
        render_cache._render(page, lambda config, files: vars(page).update(sets), _STAND_IN_CONFIG, [])


def test_the_render_cache_wraps_mkdocs_pages_only_and_needs_render():
    from mkdocs.structure.pages import Page

    from hooks import render_cache

    class Notebook(Page):  # mkdocs-jupyter's pages render themselves
        def render(self, config, files):
            pass

    mkdocs_page, notebook = object.__new__(Page), object.__new__(Notebook)
    for page in (mkdocs_page, notebook):
        page.file = SimpleNamespace(src_uri="x.md")
        render_cache.on_pre_page(page, config=None, files=None)
    assert "render" in vars(mkdocs_page) and "render" not in vars(notebook)
    with pytest.raises(PluginError, match="expected MkDocs' Page to have render"):
        render_cache.on_pre_page(SimpleNamespace(file=SimpleNamespace(src_uri="y.md")), config=None, files=None)


@pytest.mark.parametrize("plugin, message", [
    (SimpleNamespace(config={"enabled": True}), "to have a search_index"),
    (SimpleNamespace(config={"enabled": True}, search_index=SimpleNamespace(add_entry_from_context=print)),
     r"add_entry_from_context\(\) and an `entries` list"),
], ids=["no index", "an index without entries"])
def test_a_search_plugin_without_the_index_the_cache_wraps_fails_naming_it(plugin, message):
    from hooks import search_cache

    config = SimpleNamespace(plugins={search_cache.SEARCH: plugin})
    with pytest.raises(PluginError, match=message):
        search_cache.on_page_context({}, page=_stand_in_page(), config=config, nav=None)



# --------------------------------------------------------------------------- work done once per process

def test_a_page_or_block_seen_again_in_the_process_is_not_redone_and_a_changed_one_is():
    """On a `mkdocs serve` reload (and for the other language's copy of a block) the hooks that rewrite
    a page's HTML reuse what they made for the same input in this process: the same output, no second
    computation; a changed input is computed again (notebook pages: tests/test_site_hooks.py)."""
    from hooks import compact_html, page_checks, search_text, torch_docs, zh_typeset

    code = _md().convert(FENCES["python"])
    page = f'<article>\n  <p data-search-exclude="x">残差\n连接，</p>\n{code}\n</article>'
    changed = page.replace("randn", "rand")
    memos = {"torch_docs": (torch_docs._link_page, lambda h: torch_docs.on_page_content(h, None, None, None)),
             "compact_html": (compact_html._compact_once, compact_html.on_post_page),
             "zh_typeset": (zh_typeset._typeset_once, zh_typeset._typeset_once),
             "search_text lean": (search_text._lean_once, search_text._lean_once),
             "search_text unmarked": (search_text._unmarked, search_text._unmarked),
             "page_checks": (page_checks.problems, lambda h: page_checks.problems(h, "docs/x.md"))}
    plain = {"torch_docs": torch_docs.link_page, "compact_html": compact_html.compact, "zh_typeset": zh_typeset.typeset,
             "search_text lean": search_text.lean, "search_text unmarked": search_text._unmarked.__wrapped__,
             "page_checks": lambda h: page_checks.problems.__wrapped__(h, "docs/x.md")}
    torch_docs._link_block.cache_clear()
    for memo, _ in memos.values():
        memo.cache_clear()
    first = {name: call(page) for name, (_, call) in memos.items()}
    assert 'class="rn-api"' in first["torch_docs"] and "残差连接" in first["compact_html"], first  # the work was done
    assert "残\n连" not in first["zh_typeset"] and "data-search" not in first["search_text unmarked"], first
    assert {name: call(page) for name, (_, call) in memos.items()} == first
    for name, (memo, _) in memos.items():
        assert (memo.cache_info().hits, memo.cache_info().misses) == (1, 1), f"{name}: the same page was redone"
    other = {name: call(changed) for name, (_, call) in memos.items()}
    assert other == {name: f(changed) for name, f in plain.items()}
    assert other["torch_docs"] != first["torch_docs"] and other["compact_html"] != first["compact_html"]
    for name, (memo, _) in memos.items():
        assert memo.cache_info().misses == 2, f"{name}: a changed page was served from the memo"
    assert torch_docs._link_block.cache_info().misses == 2, "each distinct block is linked once"
    markdown = '# Page\n\n--8<-- "add-and-norm/layernorm.md"\n'
    args = ("label", ROOT, ROOT / "snippets", "https://example.org/blob/main/")
    provenance._with_links.cache_clear()
    linked = [provenance._with_links(markdown, *args) for _ in range(2)]
    assert linked[0] == linked[1] == provenance._with_links.__wrapped__(markdown, *args)
    assert "snippets/add-and-norm/layernorm.md" in linked[0] and provenance._with_links.cache_info().misses == 1


# --------------------------------------------------------------------------- provenance: one read of git

def _history_repo(tmp_path: Path) -> Path:
    """A history with what ``git log -1`` treats specially: merges that bring one file each (a set
    of files then changes in the merge), a merge that resolves a file, a side branch whose change
    was dropped, commits outside the site folder, committer dates out of order, odd file names."""
    repo = tmp_path / "repo"
    site = repo / "site"
    site.mkdir(parents=True)
    day = iter(f"2021-01-{d:02d}T12:00:00+0{d % 3}:00" for d in range(1, 29))

    def commit(message: str, date: str | None = None, **files: str) -> None:
        for name, text in files.items():
            (site / name.replace("__", " ")).write_text(text, encoding="utf-8")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", message, "-m", "a second\n\nparagraph", date=date or next(day))

    _git(repo, "init", "-q", "-b", "main")
    commit("root", page="1", snippet="1", other="1", odd__name="1")
    _git(repo, "checkout", "-q", "-b", "side")
    commit("side snippet", snippet="2")
    _git(repo, "checkout", "-q", "main")
    commit("main page", page="2")
    _git(repo, "merge", "-q", "--no-ff", "side", "-m", "merge side", date=next(day))
    (repo / "outside").write_text("x", encoding="utf-8")
    commit("outside the site folder")
    _git(repo, "checkout", "-q", "-b", "dropped")
    commit("dropped change", other="dropped")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-s", "ours", "dropped", "-m", "drop it", date=next(day))
    _git(repo, "checkout", "-q", "-b", "conflict")
    commit("conflict side", page="3")
    _git(repo, "checkout", "-q", "main")
    commit("conflict main", page="4")
    subprocess.run(["git", "merge", "-q", "conflict"], cwd=repo, capture_output=True)
    commit("resolve", page="resolved")
    commit("clock went back", date="2020-06-01T00:00:00+00:00", odd__name="2")
    commit("late", snippet="3")
    return site


def test_one_read_of_the_history_dates_every_file_set_as_git_log_does(tmp_path):
    site = _history_repo(tmp_path)
    history = provenance.History(site)
    names = ["page", "snippet", "other", "odd name"]
    for k in range(1, len(names) + 1):
        for chosen in itertools.combinations(names, k):
            expected = _git(site, "log", "-1", "--format=%H %cs", "--", *chosen).split()
            commit = history.first_change(set(chosen))
            assert [commit, history.commits[commit]["date"]] == expected, f"{chosen}: not git log -1's commit"


def test_provenance_asks_git_twice_per_build(tmp_path, monkeypatch):
    site = _history_repo(tmp_path)
    (site / "odd name").write_text("edited", encoding="utf-8")
    (site / "draft").write_text("new", encoding="utf-8")
    calls = []
    monkeypatch.setattr(provenance, "_git", functools.partial(lambda real, root, *a: calls.append(a) or real(root, *a),
                                                              provenance._git))
    monkeypatch.setattr(provenance, "_history", None)
    config = object()
    for name in ("page", "snippet", "odd name", "draft"):
        provenance.last_changed(site, [site / name], provenance._history_of(config, site))
    assert len(calls) == 2, calls
    history = provenance._history_of(config, site)
    assert provenance.last_changed(site, [site / "odd name"], history)[2] is True, "the edit is uncommitted"
    assert provenance.last_changed(site, [site / "draft"], history) == (None, "untracked", False)
    assert provenance.last_changed(site, [site / "page", site / "draft"], history)[2] is True
    provenance._history_of(object(), site)  # the next build (mkdocs serve loads the config again)
    assert len(calls) == 4


# --------------------------------------------------------------------------- the bench's floor

def test_the_floor_is_bare_material_with_the_same_pages_and_extensions():
    from tools.site import bench

    text = Path(provenance.__file__).resolve().parent.parent.joinpath("mkdocs.yml").read_text(encoding="utf-8")
    floor = bench.floor_config(text)
    assert not re.search(r"^hooks:|^\s+custom_dir:|mkdocs-jupyter|glightbox", floor, re.M), floor

    def block(yml: str, key: str) -> str:
        return re.search(rf"^{key}:\n(?:(?:[ #].*)?\n)*", yml, re.M).group(0)

    for key in ("markdown_extensions", "nav", "validation"):
        assert block(floor, key) == block(text, key), f"the floor changed {key}"
    assert re.findall(r"^  - ([\w/-]+)", block(floor, "plugins"), re.M) == ["search", "i18n"]
    assert block(floor, "plugins").split("  - i18n:")[1] == block(text, "plugins").split("  - i18n:")[1]
    with pytest.raises(SystemExit, match="not bare Material"):
        bench.floor_config(text.replace("  - i18n:", "  - other-i18n:"))
