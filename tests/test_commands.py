"""The ecosystem's own commands work: `mkdocs build --strict`, `mkdocs serve` and `mkdocs gh-deploy` as
a reader types them in the activated venv (the console script, which puts no project folder on
sys.path), from the project's folder and with `-f` from another one; `python -m properdocs` builds
the same site; two clean builds are identical; and our own code compiles without a warning.

The builds run in scratch copies (tools/site/build.py), each once, shared with the other modules (tests/conftest.py:
``ScratchBuilds``): the two compared as clean builds start with no ``.cache``, the others with a copy of it.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
import warnings
from pathlib import Path

import pytest
from mkdocs import __version__ as mkdocs_version

from hooks import site_facts
from tools.site.build import console_script, copy_project, first_difference, reader_env, warnings as log_warnings

SITE = site_facts.load()
ROOT = site_facts.ROOT
GENERATOR = re.compile(rb'<meta name="generator" content="[^"]*">')


@pytest.fixture(scope="module")
def builds(scratch_builds):
    """The scratch builds (tests/conftest.py): ``root`` and ``other-cwd`` clean, the others warm."""
    return scratch_builds


# --------------------------------------------------------------------------- one name per module

def _python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter of this venv, in ``cwd``, with nothing of ours on sys.path."""
    return subprocess.run([sys.executable, "-I", "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=cwd, env=reader_env(), timeout=300)


ONE_OBJECT_PER_FILE = """
    import sys
    from pathlib import Path
    {load}
    load_config(config_file={config!r})
    import importlib
    hooks = Path({config!r}).parent / "hooks"
    for path in sorted(hooks.glob("*.py")):
        if path.name != "__init__.py":
            importlib.import_module("hooks." + path.stem)
    seen = {{}}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().parent == hooks.resolve():
            seen.setdefault(Path(file).name, set()).add(id(module))
    twice = sorted(f for f, ids in seen.items() if len(ids) > 1)
    print("files", len(seen), "twice", twice)
"""


@pytest.mark.parametrize("builder", ["mkdocs", "properdocs"])
def test_every_hook_is_one_module_after_the_config_loads_them(builder, tmp_path):
    """As the console script does (no project folder on sys.path): the config loads every hook by its
    path, and every file of hooks/ is then one module object, also under ``hooks.<stem>``."""
    load = ("from mkdocs.config import load_config" if builder == "mkdocs"
            else "import properdocs.replacement; from properdocs.config import load_config")
    proc = _python(ONE_OBJECT_PER_FILE.format(load=load, config=str(ROOT / "mkdocs.yml")), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = len([p for p in (ROOT / "hooks").glob("*.py")])
    assert proc.stdout.split() == ["files", str(files), "twice", "[]"], proc.stdout + proc.stderr[-3000:]


def test_a_hook_run_by_mkdocs_after_its_import_fails_naming_it(tmp_path):
    proc = _python(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import hooks.notebooks
        from mkdocs.config import load_config
        load_config(config_file={str(ROOT / "mkdocs.yml")!r})
    """, tmp_path)
    assert proc.returncode != 0
    assert "ImportError: hooks/notebooks.py: MkDocs runs it as the hook 'hooks/notebooks.py', but it is already " \
           "imported as 'hooks.notebooks'" in proc.stderr, proc.stderr[-3000:]


def test_a_module_imported_under_a_second_name_fails_naming_it(tmp_path):
    """``import site_facts`` with hooks/ on sys.path (what MkDocs puts there while a hook runs)."""
    proc = _python(f"""
        import sys
        import mkdocs.exceptions
        sys.path.insert(0, {str(ROOT / "hooks")!r})
        import site_facts
    """, tmp_path)
    assert proc.returncode != 0
    assert "ImportError: hooks/site_facts.py imported as 'site_facts': its one name is 'hooks.site_facts'" \
           in proc.stderr, proc.stderr[-3000:]


def test_two_projects_hooks_in_one_process_fail_naming_the_file(tmp_path):
    other = copy_project(tmp_path / "other")
    proc = _python(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import hooks.site_facts
        from mkdocs.config import load_config
        load_config(config_file={str(other)!r})
    """, tmp_path)
    assert proc.returncode != 0
    hooks = re.escape(str((other.parent / "hooks").resolve()))
    assert re.search(rf"ImportError: {hooks}/\w+\.py: the package `hooks` already imported in this process is "
                     rf"{re.escape(str(ROOT / 'hooks'))}, not the folder of this file", proc.stderr), proc.stderr[-3000:]


def test_a_hook_loader_that_registers_nothing_fails_naming_what_was_expected():
    """MkDocs' loader puts the module in sys.modules under the hook's path before running it: the one
    upstream detail hooks/__init__.py relies on."""
    import hooks

    with pytest.raises(ImportError, match=r"hooks/math.py loaded as 'hooks/nowhere.py'.*Hooks._load_hook"):
        hooks.one_module("hooks/nowhere.py", str(ROOT / "hooks" / "math.py"))


# --------------------------------------------------------------------------- the plain commands

def test_mkdocs_build_strict_from_the_root(builds):
    builds.site("root")


def test_mkdocs_build_strict_with_f_from_another_folder(builds):
    builds.site("other-cwd")


SEARCH_DICTIONARY = """\
import sys
from pathlib import Path
from mkdocs.config import load_config
sys.path.insert(0, sys.argv[1])
from hooks import search_index
config = load_config(config_file=str(Path(sys.argv[1]) / "mkdocs.yml"), hooks=[])
search = config.plugins["material/search"]
print(Path(search.config.jieba_dict_user).is_file())
search_index.on_config(config)
print(search.config.jieba_dict_user)
"""


def test_the_search_dictionary_is_found_from_any_folder(tmp_path):
    """Material opens search.jieba_dict_user relative to the working directory: hooks/search_index.py
    makes it relative to mkdocs.yml (without it, the -f build above fails under --strict). From another
    folder, in a process of its own (the suite's jobs share this one's working directory)."""
    proc = subprocess.run([sys.executable, "-c", SEARCH_DICTIONARY, str(ROOT)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    relative, resolved = proc.stdout.splitlines()
    assert relative == "False", "the dictionary's path is relative, and not found from here"
    assert Path(resolved) == ROOT / "search-terms.zh.txt"


def test_two_clean_builds_are_identical(builds):
    """Two scratch copies in different folders, built by `mkdocs build --strict` from the root and with
    `-f` from elsewhere: the same files, byte for byte."""
    difference = first_difference(builds.site("root"), builds.site("other-cwd"))
    assert difference is None, f"two clean builds of the same tree differ: {difference}"


def test_first_difference_names_the_file(tmp_path):
    """The comparison above can fail, and says where."""
    for side, font in (("a", b"wOF2\xff\x01"), ("b", b"wOF2\xff\x02")):
        (tmp_path / side / "assets").mkdir(parents=True)
        (tmp_path / side / "assets" / "font.woff2").write_bytes(font)
        (tmp_path / side / "index.html").write_text("<p>same</p>\n")
    assert first_difference(tmp_path / "a", tmp_path / "b") == "assets/font.woff2: differs (6 / 6 bytes), first at byte 5"
    (tmp_path / "b" / "extra.html").write_text("")
    assert first_difference(tmp_path / "a", tmp_path / "b").startswith("extra.html: only in")


def _without_generator(rel: str, data: bytes) -> bytes:
    return GENERATOR.sub(b"", data) if rel.endswith(".html") else data


def test_properdocs_builds_the_same_site(builds):
    """ProperDocs 1.6.7 (requirements.txt), the drop-in continuation of MkDocs 1.x: the same site
    but for the generator line, so switching builders is one line (CONTRIBUTING.md)."""
    site = builds.site("properdocs")
    generator = GENERATOR.search((site / "index.html").read_bytes())
    assert generator and b"ProperDocs 1.6.7" in generator.group(), generator
    difference = first_difference(builds.site("root"), site, _without_generator)
    assert difference is None, f"the ProperDocs build differs from the MkDocs build: {difference}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode()


def test_mkdocs_serve_answers_on_every_language_root(builds):
    """`mkdocs serve --strict` as ./run serve runs it (live reload on), from the project's folder."""
    project = builds.project("serve")
    port = _free_port()
    log = project.parent / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(console_script("mkdocs")), "serve", "--strict", "--dev-addr", f"127.0.0.1:{port}"],
                                cwd=project, env=reader_env(), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        root = f"http://127.0.0.1:{port}{SITE.base_path}"
        deadline = time.monotonic() + 600
        while "Serving on" not in log.read_text():
            assert proc.poll() is None, f"mkdocs serve exited ({proc.returncode}):\n{log.read_text()[-4000:]}"
            assert time.monotonic() < deadline, f"mkdocs serve did not serve in 600 s:\n{log.read_text()[-4000:]}"
            time.sleep(1)
        for lang in SITE.languages:
            status, text = _get(root + SITE.prefix(lang))
            assert status == 200 and f'<html lang="{lang}"' in text, (lang, status, text[:300])
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log.read_text()
    assert not [line for line in text.splitlines() if line.startswith(("WARNING", "ERROR", "Traceback"))], text[-4000:]


GIT_USER = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}


def _git(cwd: Path, *args: str, **env: str) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          env={**reader_env(), **GIT_USER, **env})
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def test_mkdocs_gh_deploy_pushes_the_strict_build(builds, tmp_path):
    """`mkdocs gh-deploy --strict --force` (README, Publishing) in a git checkout whose remote is a bare
    repository on disk: no network, the real push. The gh-pages branch gets every language's home,
    404 page and search index (the hooks ran) and .nojekyll; sitemap.xml dates every page by its last
    commit, not by the day of the build (SOURCE_DATE_EPOCH, which MkDocs would use, says 1970)."""
    project = builds.project("gh-deploy")
    bare = tmp_path / "remote.git"
    _git(tmp_path, "init", "--quiet", "--bare", str(bare))
    _git(project, "init", "--quiet", "-b", "main")
    _git(project, "add", "-A")
    committed = "2026-11-15"
    _git(project, "commit", "--quiet", "-m", "scratch copy", GIT_COMMITTER_DATE=f"{committed}T12:00:00Z")
    _git(project, "remote", "add", "pages", bare.as_uri())
    proc = subprocess.run([str(console_script("mkdocs")), "gh-deploy", "--strict", "--force", "--remote-name", "pages"],
                          cwd=project, env={**reader_env(), **GIT_USER, "SOURCE_DATE_EPOCH": "86400"},
                          capture_output=True, text=True, timeout=900)
    # MkDocs' own warning on a first deployment: no earlier gh-pages commit to read its version from
    first = "WARNING -  Version check skipped: No version specified in previous deployment."
    assert proc.returncode == 0 and [w for w in log_warnings(proc) if w != first] == [], \
        "\n".join(log_warnings(proc)) or (proc.stdout + proc.stderr)[-4000:]
    head = _git(bare, "log", "-1", "--format=%s", "gh-pages").strip()
    assert head.startswith("Deployed ") and head.endswith(f"with MkDocs version: {mkdocs_version}"), head  # the next one reads it
    files = set(_git(bare, "ls-tree", "-r", "--name-only", "gh-pages").split())
    for lang in SITE.languages:
        for name in ("index.html", "404.html", "search/search_index.json"):
            assert SITE.prefix(lang) + name in files, (lang, name, sorted(files)[:20])
    assert {".nojekyll", "sitemap.xml", "assets/fonts/STIXTwoMath.woff2"} <= files
    sitemap = _git(bare, "show", "gh-pages:sitemap.xml")
    dates = re.findall(r"<lastmod>([^<]*)</lastmod>", sitemap)
    assert len(dates) == sitemap.count("<url>") and set(dates) == {committed}, sorted(set(dates))


# --------------------------------------------------------------------------- no warnings in our code

def _our_python() -> dict[str, str]:
    """Every Python source of ours: modules and the code of every snippet block (as path -> code)."""
    from pytest_codeblocks import extract_from_file

    out = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
           for folder in ("hooks", "tools", "tests", "snippets") for p in sorted((ROOT / folder).rglob("*.py"))}
    for md in sorted((ROOT / "snippets").rglob("*.md")):
        for block in extract_from_file(str(md)):
            if block.syntax == "python":
                out[f"{md.relative_to(ROOT).as_posix()}:{block.lineno}"] = block.code
    return out


def compile_warnings(sources: dict[str, str]) -> list[str]:
    """The warnings compiling each source gives ("file:line: Category: message"), whatever the
    interpreter: an invalid escape is a DeprecationWarning on 3.11 and a SyntaxWarning from 3.12. Only
    the warnings about the source compiled count: the warnings machinery is the process's, and the
    session's background jobs run in threads of it (a file another thread leaves unclosed is not ours here)."""
    found = []
    for name, code in sources.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile(code, name, "exec", dont_inherit=True)
        found += [f"{name}:{w.lineno}: {w.category.__name__}: {w.message}" for w in caught if w.filename == name]
    return found


def test_our_code_compiles_without_a_warning():
    sources = _our_python()
    assert "hooks/math.py" in sources and any(".md:" in name for name in sources)
    assert compile_warnings(sources) == []


def test_an_invalid_escape_is_found_naming_file_and_line():
    found = compile_warnings({"hooks/x.py": 'x = 1\n"""A \\Bigr bar."""\n'})
    assert len(found) == 1 and found[0].startswith("hooks/x.py:2: ") and "invalid escape sequence" in found[0]


def test_pytest_fails_on_a_syntax_warning_in_our_code(tmp_path):
    """pytest.ini turns the warning into an error: a module with an invalid escape fails the run,
    naming the file; the same module with a raw string passes."""
    for bad in (True, False):
        folder = tmp_path / ("bad" if bad else "good")
        folder.mkdir()
        (folder / "escapes.py").write_text('PATTERN = "\\Bigr"\n' if bad else 'PATTERN = r"\\Bigr"\n')
        (folder / "test_escapes.py").write_text("import escapes\n\ndef test_it():\n    assert escapes.PATTERN\n")
        proc = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pytest.ini"), "--rootdir", str(folder),
                               "-q", "-p", "no:randomly", str(folder)], capture_output=True, text=True, cwd=folder,
                              env={**reader_env(), "PYTHONDONTWRITEBYTECODE": "1"}, timeout=300)
        if bad:
            assert proc.returncode != 0 and "escapes.py" in proc.stdout and "invalid escape sequence" in proc.stdout, \
                proc.stdout[-3000:]
        else:
            assert proc.returncode == 0, proc.stdout[-3000:]
