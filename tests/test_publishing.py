"""Publishing and provenance: what a reader of the published site can trace and where it is published.

* every page links to its source file, and after each snippet it shows, to that snippet's file in the
  repository (the link resolves to a file git tracks); every page says when it last changed, from git,
  and a clone whose history cannot tell says so instead of a wrong date;
* a 404 page per language, with the home page and search of its language;
* language alternates are declared in sitemap.xml (not in each page's head, where Material fetches
  ``sitemap.xml`` under each one: the 404s this caused on every page);
* the verification pages (``How this site is verified``) carry the compatibility table computed from what ``./run compat`` measured
  (compat/results.json) and today's snippet files: which versions were measured, when and at which commit,
  which blocks print something different, and which of today's blocks are not measured yet (added or changed
  since: a report, never a failure); results.json claims no block it did not run; ``./run compat PATH``
  merges what it measured into each row;
* the GitHub Pages workflow passes actionlint, runs the tests before the strict build, and deploys
  only what that build made; actionlint does fail on a broken workflow; the compat workflow measures
  everything weekly and on demand and opens the change as a pull request; the Pages workflow prints both
  PDF editions into site/ between the build and the upload, and .ci/run installs their Chinese font.

Each check is a function also fed a broken input below, so it is shown to be able to fail.
"""

from __future__ import annotations

import difflib
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
import yaml
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from hooks import compat as compat_hook
from hooks import provenance
from hooks import site_facts
from tools.checks import built_site as built_site_checks
from tools import sources
from tools.runner import selection
from tools.generators import compat
from tools.checks.reader_text import VERIFICATION  # the page that shows the versions and the compatibility table
from tools.site.browser import browser_decision

from mutation import mutated

SITE = site_facts.load()
ROOT = SITE.root
REPO = "https://github.com/residual-notes/residual-notes"
BLOB = f"{REPO}/blob/main/"
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
COMPAT_WORKFLOW = ROOT / ".github" / "workflows" / "compat.yml"
ACTIONLINT = Path(sys.executable).parent / "actionlint"


def _built(site_dir: Path, lang: str, src: str) -> Path:
    stem = src.rsplit(".", 1)[0]
    rel = "index.html" if stem == "index" else f"{stem.removesuffix('/index')}/index.html"
    return site_dir / ("" if lang == SITE.default else lang) / rel


GIT = shutil.which("git")


def git_missing(root: Path = ROOT, git: str | None = GIT) -> str | None:
    """Why git cannot say which files ``root`` tracks and when they changed (None: it can)."""
    if git is None:
        return "no `git` executable on PATH"
    proc = subprocess.run([git, "-C", str(root), "rev-parse", "--is-inside-work-tree"], capture_output=True, text=True)
    if proc.returncode != 0 or proc.stdout.strip() != "true":
        return f"{root} is no git work tree ({(proc.stderr or proc.stdout).strip()})"
    return None


def need_git(root: Path = ROOT, git: str | None = GIT) -> str:
    """The git executable, or the test is skipped saying why: without git, the source links' tracked
    status and the dates cannot be checked, and a check that passes without them would say nothing."""
    why = git_missing(root, git)
    if why:
        pytest.skip(f"git cannot be asked, so the source links and last-changed dates are not checked: {why}")
    return git


def _tracked(root: Path) -> set[str]:
    proc = subprocess.run([GIT, "-C", str(root), "ls-files", "-z"], capture_output=True, text=True, check=True)
    return set(proc.stdout.split("\0"))


def last_changed_by_git(root: Path, files: list[Path]) -> tuple[str | None, str | None]:
    """(date, None) of the newest commit that changed any of ``files``, as git gives it, or (None, why):
    "untracked" (no commit has them) or "shallow" (that commit is the boundary of a shallow clone,
    which seems to add every file)."""
    rels = [f.relative_to(root).as_posix() for f in files]
    proc = subprocess.run([GIT, "-C", str(root), "log", "-1", "--format=%H %cs %P", "--", *rels],
                          capture_output=True, text=True, check=True)
    if not proc.stdout.strip():
        return None, "untracked"
    _, date, *parents = proc.stdout.split()
    shallow = subprocess.run([GIT, "-C", str(root), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True, check=True).stdout.strip() == "true"
    return (None, "shallow") if shallow and not parents else (date, None)


def link_problems(html: str, page: str, root: Path = ROOT, tracked: set[str] | None = None) -> list[str]:
    """Links into the repository that lead nowhere: a file that does not exist, or that git does not track."""
    found = []
    for href in re.findall(r'href="(https://github\.com/residual-notes/residual-notes/blob/[^"]+)"', html):
        rel = href.removeprefix(BLOB)
        if rel == href:
            found.append(f"{page}: {href} is not under {BLOB}")
        elif not (root / rel).is_file():
            found.append(f"{page}: {href} links to {rel}, which does not exist")
        elif tracked is not None and rel not in tracked:
            found.append(f"{page}: {href} links to {rel}, which git does not track (`git add` it)")
    return found


_DATE = re.compile(r'<time datetime="([^"]*)">')


def provenance_problems(site_dir: Path, docs: Path = SITE.docs, root: Path = ROOT) -> list[str]:
    """Each page's source link, the date git gives for the newest of the page and the snippet files it
    includes (or, where git cannot tell, a line saying so), and one link per snippet file, in order.
    Needs git in ``root`` (see need_git)."""
    found = []
    tracked = _tracked(root)
    for lang in SITE.languages:
        for src in sorted(sources.pages(lang, docs)):
            built = _built(site_dir, lang, src)
            name = f"docs/{lang}/{src}"
            if not built.exists():
                found.append(f"{name}: not built ({built})")
                continue
            html = built.read_text(encoding="utf-8")
            names = sources.includes((docs / lang / src).read_text(encoding="utf-8")) if src.endswith(".md") else []
            files = [docs / lang / src] + [root / "snippets" / n for n in dict.fromkeys(names)]
            aside = re.search(r'<aside class="rn-provenance">(.*?)</aside>', html, re.S)
            if not aside:
                found.append(f"{name}: no provenance line (source link and date) at the end of the page")
            else:
                if f'href="{BLOB}{name}"' not in aside.group(1):
                    found.append(f"{name}: the provenance line does not link to {BLOB}{name}")
                date, why = last_changed_by_git(root, files)
                shown = _DATE.findall(aside.group(1))
                unknown = "rn-provenance__unknown" in aside.group(1)
                rels = ", ".join(f.relative_to(root).as_posix() for f in files)
                if date and shown != [date]:
                    found.append(f"{name}: the page says it last changed {shown[0] if shown else 'unknown'}, git says "
                                 f"{date} (the newest commit of {rels})")
                elif not date and (shown or not unknown):
                    found.append(f"{name}: the page says it last changed {shown[0] if shown else '(no date line)'}, "
                                 f"but git cannot tell ({why}): it should say the date is unknown")
            if src.endswith(".md"):
                # one link per file, after its last include (a file may be included in sections)
                want = [f"snippets/{n}" for i, n in enumerate(names) if n not in names[i + 1:]]
                got = [h.removeprefix(BLOB) for h in
                       re.findall(r'<p class="rn-source">.*?<a href="([^"]+)"', html)]
                if got != want:
                    found.append(f"{name}: snippet source links {got}, expected one per include {want}")
            found += link_problems(html, name, root, tracked)
    return found


# --------------------------------------------------------------------------- provenance


def test_every_page_links_its_source_and_each_snippet_file(built_site):
    need_git()
    problems = provenance_problems(built_site)
    assert not problems, "\n".join(problems)


def test_without_git_the_provenance_checks_skip_saying_why(tmp_path):
    """Mutation: no git on PATH, or a copy that is no repository; the checks never pass silently."""
    with pytest.raises(pytest.skip.Exception, match=r"not checked: no `git` executable on PATH"):
        need_git(ROOT, None)
    with pytest.raises(pytest.skip.Exception, match=rf"not checked: {re.escape(str(tmp_path))} is no git work tree"):
        need_git(tmp_path)


def test_a_link_to_a_missing_snippet_file_is_found(tmp_path):
    html = f'<p class="rn-source"><a href="{BLOB}snippets/no-such/snippet.md">x</a></p>'
    [problem] = link_problems(html, "docs/en/page.md")
    assert "docs/en/page.md" in problem and "snippets/no-such/snippet.md" in problem and "does not exist" in problem
    untracked = link_problems(f'<a href="{BLOB}README.md">', "docs/en/page.md", tracked=set())
    assert untracked and "git does not track" in untracked[0]


def test_a_page_without_its_source_links_is_found(built_site, tmp_path):
    need_git()
    broken = tmp_path / "site"
    shutil.copytree(built_site, broken)
    page = _built(broken, "en", "ffn-design.md")
    text = page.read_text(encoding="utf-8")
    text = re.sub(r'<p class="rn-source">.*?</p>', "", text, count=1, flags=re.S)
    text = re.sub(r'<aside class="rn-provenance">.*?</aside>', "", text, flags=re.S)
    page.write_text(text, encoding="utf-8")
    problems = provenance_problems(broken)
    assert any(p.startswith("docs/en/ffn-design.md: no provenance line") for p in problems), problems
    assert any(p.startswith("docs/en/ffn-design.md: snippet source links") for p in problems), problems


def _git(cwd: Path, *args: str, date: str | None = None) -> str:
    """git as this host has it (found on PATH), with a fixed identity and no user configuration."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    if GIT is None:
        pytest.skip("no `git` executable on PATH: the fixture repositories of the provenance checks cannot be made")
    return subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _provenance_fixture(tmp_path: Path, shown: str) -> tuple[Path, Path]:
    """A repository whose page (both languages) was committed on 2020-01-02 and the snippet it
    includes on 2021-03-04, and a built site whose pages say they last changed on ``shown``
    (a date, or "" for the line saying the date is unknown). Returns (repo, site)."""
    repo, site = tmp_path / "repo", tmp_path / "site"
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for lang in SITE.languages:
        (repo / "docs" / lang).mkdir(parents=True)
        (repo / "docs" / lang / "page.md").write_text('# Page\n\n--8<-- "demo/shown.md"\n', encoding="utf-8")
    _git(repo, "add", "docs")
    _git(repo, "commit", "-q", "-m", "page", date="2020-01-02T03:04:05+00:00")
    (repo / "snippets" / "demo").mkdir(parents=True)
    (repo / "snippets" / "demo" / "shown.md").write_text("```python\nprint(1)\n```\n", encoding="utf-8")
    _git(repo, "add", "snippets")
    _git(repo, "commit", "-q", "-m", "snippet", date="2021-03-04T05:06:07+00:00")
    when = f'<time datetime="{shown}">{shown}</time>' if shown else '<span class="rn-provenance__unknown">?</span>'
    for lang in SITE.languages:
        page = _built(site, lang, "page.md")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f'<p class="rn-source"><a href="{BLOB}snippets/demo/shown.md"><code>x</code></a></p>\n'
                        f'<aside class="rn-provenance"><a href="{BLOB}docs/{lang}/page.md">src</a>{when}</aside>',
                        encoding="utf-8")
    return repo, site


@pytest.mark.parametrize("shown", ["2021-03-04", "2020-01-02", ""])
def test_the_date_a_page_shows_is_the_newest_of_the_page_and_its_snippets(tmp_path, shown):
    """Mutation: the hook dates a page by its own file only (``info["files"][:1]``), so it shows
    the page's 2020-01-02 though its snippet changed on 2021-03-04; or it says "unknown" where git knows."""
    repo, site = _provenance_fixture(tmp_path, shown)
    problems = provenance_problems(site, repo / "docs", repo)
    if shown == "2021-03-04":
        assert problems == []
        return
    assert [p.split(":")[0] for p in problems] == [f"docs/{lang}/page.md" for lang in SITE.languages], problems
    said = shown or "unknown"
    assert all(f"says it last changed {said}, git says 2021-03-04" in p and "snippets/demo/shown.md" in p
               for p in problems), problems


def test_a_shallow_clone_must_say_the_date_is_unknown(tmp_path):
    repo, _ = _provenance_fixture(tmp_path, "2021-03-04")
    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    files = [shallow / "docs" / SITE.default / "page.md", shallow / "snippets" / "demo" / "shown.md"]
    assert last_changed_by_git(repo, [repo / f.relative_to(shallow) for f in files]) == ("2021-03-04", None)
    assert last_changed_by_git(shallow, files) == (None, "shallow")
    shutil.copytree(tmp_path / "site", shallow / "site")
    problems = provenance_problems(shallow / "site", shallow / "docs", shallow)
    assert problems and all("but git cannot tell (shallow)" in p for p in problems), problems


def test_last_changed_date_comes_from_git_and_falls_back_visibly(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "old.md").write_text("old\n")
    _git(repo, "add", "old.md")
    _git(repo, "commit", "-q", "-m", "old", date="2020-01-02T03:04:05+00:00")
    (repo / "new.md").write_text("new\n")
    _git(repo, "add", "new.md")
    _git(repo, "commit", "-q", "-m", "new")

    assert provenance.last_changed(repo, [repo / "old.md"]) == ("2020-01-02", None, False)
    (repo / "old.md").write_text("edited\n")
    assert provenance.last_changed(repo, [repo / "old.md"]) == ("2020-01-02", None, True)
    (repo / "draft.md").write_text("draft\n")
    assert provenance.last_changed(repo, [repo / "draft.md"]) == (None, "untracked", False)

    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    # the only commit of a depth-1 clone seems to add every file: its date is not old.md's
    assert provenance.last_changed(shallow, [shallow / "old.md"]) == (None, "shallow", False)

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "page.md").write_text("x\n")
    assert provenance.last_changed(plain, [plain / "page.md"]) == (None, "no-git", False)


def test_a_wrong_edit_uri_fails_loudly():
    config = {"repo_url": REPO, "edit_uri": "edit/main/", "docs_dir": str(ROOT / "docs")}
    with pytest.raises(Exception, match=r"edit_uri: blob/<branch>/docs/"):
        provenance.blob_root(config)
    assert provenance.blob_root({**config, "edit_uri": "blob/main/docs/"}) == BLOB


# --------------------------------------------------------------------------- 404 and alternates


@pytest.mark.parametrize("lang", SITE.languages)
def test_a_404_page_per_language_leads_home_and_to_search(built_site, lang):
    base = "/residual-notes/"
    here = base + SITE.prefix(lang)
    path = built_site / ("" if lang == SITE.default else lang) / "404.html"
    assert path.exists(), f"no 404 page for {lang}: {path.relative_to(built_site)}"
    html = path.read_text(encoding="utf-8")
    assert re.search(rf'<html lang="{lang}\b', html), f"{path.relative_to(built_site)} is not in {lang}"
    article = re.search(r"<article.*?</article>", html, re.S).group(0)
    assert f'href="{here}"' in article, f"{path.relative_to(built_site)}: no link to {here}"
    assert f'href="{here}?q="' in article, f"{path.relative_to(built_site)}: no link to search ({here}?q=)"
    switcher = dict((b, a) for a, b in re.findall(r'<a href="([^"]*)" hreflang="([\w-]+)"', html))
    want = {x: base + SITE.prefix(x) for x in SITE.languages}
    assert switcher == want, f"{path.relative_to(built_site)}: language links {switcher}, expected the home pages {want}"


def test_alternates_are_in_the_sitemap_and_not_in_page_heads(built_site):
    """Material fetches ``sitemap.xml`` under every ``<link rel=alternate>`` of a page's head."""
    problems = built_site_checks.alternate_problems(built_site)
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- compatibility table


def compat_results_problems(result: dict, now: dict[str, str], root: Path = ROOT, shown: str = "compat/results.json",
                            git: str | None = GIT) -> list[str]:
    """What compat/results.json claims that it cannot have measured, each naming the file and the block:
    an outcome without the fingerprint, date and commit of what it ran; one whose "same" disagrees with its
    diff and error; two of one snippet file in a row; and one whose snippet file had another fingerprint at
    the commit it names and has another today (a block it did not run). Checked against git where git can say;
    an outcome measured on a file not committed as it ran names no commit ("") and is checked against today's
    file alone."""
    problems, wanted = [], set()
    for env in result["environments"]:
        where = f"{shown} (Python {env['python']}, {env['set']})"
        if env["error"]:
            if env["outcomes"]:
                problems.append(f"{where}: could not be installed, yet claims {len(env['outcomes'])} outcomes")
            continue
        if not re.fullmatch(r"\d{4}-\d\d-\d\d", env.get("date", "")) or "commit" not in env:
            problems.append(f"{where}: no date and commit of its measurement")
        files = [compat_hook.snippet_of(o["name"]) for o in env["outcomes"]]
        problems += [f"{where}: {f} measured twice in one row" for f in sorted({f for f in files if files.count(f) > 1})]
        for o in env["outcomes"]:
            name = f"{where}: {o['name']}"
            if not re.fullmatch(r"[0-9a-f]{16}", o.get("source", "")):
                problems.append(f"{name}: no fingerprint of the snippet file it ran")
            if not re.fullmatch(r"\d{4}-\d\d-\d\d", o.get("date", "")) or not re.fullmatch(r"([0-9a-f]{7,40})?", o.get("commit", "x")):
                problems.append(f"{name}: no date and commit of its measurement")
            if o["same"] != (not o["diff"] and not o["error"]):
                problems.append(f"{name}: says it prints {'the same' if o['same'] else 'something else'}, "
                                f"but its diff is {o['diff']!r} and its error {o['error']!r}")
            if o.get("commit"):
                wanted.add((o["commit"], compat_hook.snippet_of(o["name"])))
    if wanted and git and not git_missing(root, git):
        at = compat.fingerprints_at(wanted, root)
        for env in result["environments"]:
            for o in [o for o in env["outcomes"] if o.get("commit")] if not env["error"] else []:
                path = compat_hook.snippet_of(o["name"])
                then = at.get((o.get("commit"), path))
                if o.get("source") not in (then, now.get(path)):
                    problems.append(f"{shown} (Python {env['python']}, {env['set']}): {o['name']}: claims a block it did "
                                    f"not run: the snippet file had fingerprint {then or '(no such file)'} at commit "
                                    f"{o['commit'][:12]} and has {now.get(path, '(no such file)')} today, not "
                                    f"{o.get('source')}; measure it with `./run compat {path}`")
    return problems


def _compat_rendered(html: str, header: list[str] | None = None) -> list[list[str]] | None:
    """The compatibility table of a page as text: its rows of cells, then the paragraph after it
    (the first table whose header is ``header``, or the first table)."""
    nodes = HTMLParser(html).css("table, p")
    for i, node in enumerate(nodes):
        if node.tag != "table":
            continue
        rows = [[" ".join(c.text().split()) for c in tr.css("th, td")] for tr in node.css("tr")]
        if header is None or rows[:1] == [header]:
            after = next((n for n in nodes[i + 1:] if n.tag == "p"), None)
            return rows + [[" ".join(after.text().split()) if after else ""]]
    return None


def compat_page_problems(html: str, page: str, lang: str, result: dict, now: dict[str, str]) -> list[str]:
    """A built verification page must show, whole, the table computed from results.json and today's snippet files."""
    want = _compat_rendered(markdown.markdown(compat_hook.table(lang, result, now), extensions=["tables"]))
    have = _compat_rendered(html, want[0])
    if have is None:
        return [f"{page}: no compatibility table headed {' | '.join(want[0])}"]
    if have != want:
        diff = "".join(difflib.unified_diff([" | ".join(r) + "\n" for r in want], [" | ".join(r) + "\n" for r in have],
                                            "compat/results.json and today's snippets say", page))
        return [f"{page}: the compatibility table is not what compat/results.json and today's snippet files say:\n{diff}"]
    return []


def test_verification_pages_carry_the_measured_compatibility_table(built_site):
    """The table says what results.json holds of today's blocks; a block new or changed since is shown as
    not measured (so it fails nothing), and results.json claims no block it did not run."""
    result = json.loads((ROOT / "compat" / "results.json").read_text(encoding="utf-8"))
    now = compat_hook.today(ROOT)
    problems = compat_results_problems(result, now)
    for lang in SITE.languages:
        source = (SITE.docs / lang / VERIFICATION).read_text(encoding="utf-8")
        assert compat_hook.MARKER.search(source), f"docs/{lang}/{VERIFICATION} has no <!-- compat-table --> line"
        page = _built(built_site, lang, VERIFICATION)
        problems += compat_page_problems(page.read_text(encoding="utf-8"), str(page.relative_to(built_site)), lang,
                                         result, now)
    assert not problems, "\n".join(problems)


def _compat_fixture(tmp_path: Path) -> tuple[dict, dict[str, str]]:
    """A measured result: one environment where the second of two blocks prints something else; and the
    snippet files as they are (``hooks.compat.today`` of ``tmp_path``)."""
    folder = tmp_path / "snippets"
    folder.mkdir(exist_ok=True)
    one, two = folder / "one.md", folder / "two.md"  # one block per file, as the runner requires
    one.write_text(f"```python\nprint(2)\n```\n{selection.MARKER}\n```text\n2\n```\n", encoding="utf-8")
    two.write_text(f"```python\nprint(1 + 2)\n```\n{selection.MARKER}\n```text\n4\n```\n", encoding="utf-8")
    same, differs = compat.compare(sys.executable, selection.collect([one, two]), jobs=2, timeout=60)
    assert same.same and not same.diff
    assert not differs.same and "-4" in differs.diff and "+3" in differs.diff and differs.name.endswith("two.md:1")
    outcomes = []
    for o in (same, differs):  # named as in a project rooted at tmp_path, measured on 2000-01-02 at commit abcdef1
        outcomes.append({**vars(o), "name": f"snippets/{o.name.rsplit('/', 1)[1]}", "date": "2000-01-02",
                         "commit": "abcdef1234567"})
    versions = {"python": "3.12.9", **{d: "2.0" for d in compat.PACKAGES}, "torch_build": "CUDA 13.0"}
    env = {"python": "3.12", "set": "newest", "date": "2000-01-02", "commit": "abcdef1234567",
           "asked": {d: "2.0" for d in compat.PACKAGES}, "versions": versions, "error": "", "outcomes": outcomes}
    pages = {"python": "3.11.9", **{d: "1.0" for d in compat.PACKAGES}, "torch_build": "CPU"}
    return {"machine": "a test machine", "pages": pages, "environments": [env]}, compat_hook.today(tmp_path)


def test_compat_reports_a_block_that_prints_something_different(tmp_path):
    result, now = _compat_fixture(tmp_path)
    differs = result["environments"][0]["outcomes"][1]["name"]
    for lang in SITE.languages:
        text = compat_hook.table(lang, result, now)
        assert "2000-01-02" in text and "a test machine" in text and differs in text and "`abcdef1`" in text
        assert result["environments"][0]["outcomes"][0]["name"] not in text
        assert "| 3.11.9 |" in text and "| 3.12.9 |" in text and "| 2.0 |" in text
        assert compat_hook._labels(lang)["count"].format(same=1, total=2) in text


def test_compat_names_each_set_of_differing_blocks_once_with_every_python_it_differs_on(tmp_path):
    """Two Pythons with the newest releases differ on the same block: one note names both, and the version
    numbers' explanation is said once; another set of blocks on another Python and set is a note of its own."""
    result, now = _compat_fixture(tmp_path)
    env = result["environments"][0]
    same, differs = env["outcomes"]
    (tmp_path / "snippets" / "home").mkdir()  # the block that prints the version numbers
    (tmp_path / "snippets" / "home" / "versions.md").write_text("x", encoding="utf-8")
    now = compat_hook.today(tmp_path)
    differs = {**differs, "name": "snippets/home/versions.md:1", "source": now["snippets/home/versions.md"]}
    env = {**env, "outcomes": [same, differs]}
    result["environments"] = [
        {**env, "python": python, "versions": {**env["versions"], "python": f"{python}.9"}} for python in ("3.11", "3.12")]
    other = {**differs, "name": "snippets/two.md:1", "source": now["snippets/two.md"]}
    result["environments"].append({**env, "python": "3.13", "set": "pinned", "outcomes": [differs, other]})
    for lang in SITE.languages:
        lab = compat_hook._labels(lang)
        text = compat_hook.table(lang, result, now)
        newest = lab["env_name"].format(python=lab["pythons_join"].join(["3.11", "3.12"]), set=lab["set"]["newest"])
        pinned = lab["env_name"].format(python="3.13", set=lab["set"]["pinned"])
        assert text.count(lab["differs"].format(env=newest, names=f"`{differs['name']}`")) == 1, text
        assert lab["differs"].format(env=pinned, names=f"`{differs['name']}`, `{other['name']}`") in text, text
        assert text.count(differs["name"]) == 2 and text.count(lab["versions_note"]) == 1, text


def _page(text: str) -> str:
    return f"<article>{markdown.markdown(text, extensions=['tables'])}</article>"


def test_a_compat_table_that_says_other_than_its_results_fails_naming_the_page(tmp_path):
    """The mutation the audit made: "1 of 2" -> "2 of 2" and the list of differing blocks replaced by
    the sentence that none differs, on the built page."""
    result, now = _compat_fixture(tmp_path)
    lang = SITE.languages[-1]
    text = compat_hook.table(lang, result, now)
    count = compat_hook._labels(lang)["count"]
    lie = text.replace(count.format(same=1, total=2), count.format(same=2, total=2))
    differs = re.search(r"[^.。]*two\.md:1[^.。]*[.。]", lie).group(0)
    lie = lie.replace(differs, compat_hook._labels(lang)["none_differs"])
    assert lie != text
    assert compat_page_problems(_page(text), "en/index.html", lang, result, now) == []
    [problem] = compat_page_problems(_page(lie), "en/index.html", lang, result, now)
    assert "en/index.html: the compatibility table is not" in problem and count.format(same=2, total=2) in problem


def test_a_block_changed_since_it_was_measured_is_shown_not_measured_and_fails_nothing(tmp_path):
    """A snippet file edited after the measurement (and a new one): the table counts only what was measured
    of today's files, says per environment how many are not measured, and names them; results.json is still
    honest. A table that still counts the changed block as measured (hooks/compat.py without the
    fingerprint comparison) fails the page check, naming the page."""
    result, _ = _compat_fixture(tmp_path)
    (tmp_path / "snippets" / "one.md").write_text("```python\nprint(22)\n```\n", encoding="utf-8")
    (tmp_path / "snippets" / "new.md").write_text("```python\nprint(3)\n```\n", encoding="utf-8")
    now = compat_hook.today(tmp_path)
    assert compat_results_problems(result, now, git=None) == []
    for lang in SITE.languages:
        lab = compat_hook._labels(lang)
        text = compat_hook.table(lang, result, now)
        row = next(line for line in text.splitlines() if line.startswith("| 3.12.9 |"))
        assert lab["count"].format(same=0, total=1) in row, row
        assert lab["unmeasured_cell"].format(n=2, blocks=lab["blocks"][1]) in row, row
        env = lab["env_name"].format(python="3.12", set=lab["set"]["newest"])
        assert lab["unmeasured_note"].format(env=env, n=2, blocks=lab["blocks"][1],
                                             names="`snippets/new.md`, `snippets/one.md`") in text, text
        assert compat_page_problems(_page(text), "en/index.html", lang, result, now) == []
    # what a table blind to the fingerprints shows: every outcome counted as if measured on today's file
    blind = {**result, "environments": [{**env, "outcomes": [{**o, "source": now[compat_hook.snippet_of(o["name"])]}
                                                           for o in env["outcomes"]]} for env in result["environments"]]}
    lang = SITE.languages[-1]
    [problem] = compat_page_problems(_page(compat_hook.table(lang, blind, now)), "en/index.html", lang, result, now)
    assert problem.startswith("en/index.html: the compatibility table is not"), problem


def test_results_that_claim_a_block_they_did_not_run_fail_naming_the_file(tmp_path):
    """results.json mutated four ways: a fingerprint no version of the file had (at its commit or today),
    an outcome without its fingerprint, a "same" that has a diff, a row that measured one file twice."""
    result, now = _compat_fixture(tmp_path)
    assert compat_results_problems(result, now, git=None) == []
    outcomes = result["environments"][0]["outcomes"]
    real = json.loads((ROOT / "compat" / "results.json").read_text(encoding="utf-8"))
    env = next(e for e in real["environments"] if not e["error"])
    forged = {**env["outcomes"][0], "source": "0123456789abcdef"}
    real_now = compat_hook.today(ROOT)
    assert compat_results_problems({**real, "environments": [env]}, real_now) == []
    [problem] = compat_results_problems({**real, "environments": [{**env, "outcomes": [forged]}]}, real_now)
    assert problem.startswith(f"compat/results.json (Python {env['python']}, {env['set']}): {forged['name']}: "
                              "claims a block it did not run"), problem
    for broken, said in ((dict(outcomes[0], source=""), "no fingerprint"),
                         (dict(outcomes[1], same=True), "says it prints the same, but its diff is"),
                         (dict(outcomes[0], date=""), "no date and commit")):
        mutant = {**result, "environments": [{**result["environments"][0], "outcomes": [broken]}]}
        [problem] = compat_results_problems(mutant, now, git=None)
        assert problem.startswith("compat/results.json (Python 3.12, newest): snippets/") and said in problem, problem
    twice = {**result, "environments": [{**result["environments"][0], "outcomes": [outcomes[0], outcomes[0]]}]}
    assert compat_results_problems(twice, now, git=None) == [
        "compat/results.json (Python 3.12, newest): snippets/one.md measured twice in one row"]


def _fake_environment(cache: Path, name: str) -> None:
    """An environment of ``./run compat --no-install``: a ``bin/python`` that is this test's Python."""
    python = cache / name / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n", encoding="utf-8")
    python.chmod(0o755)


def test_compat_of_some_snippet_files_merges_them_into_each_row(tmp_path):
    """``./run compat PATH`` in a fake environment (this Python, --no-install): the block measured replaces
    its outcome in that row, stamped with today's date and HEAD, every other outcome and row is kept, and
    results.json stays honest. Then the environment's versions move: the row holds only what was measured
    under them. A merge that kept the others anyway (tools/generators/compat.py without the versions check) would
    claim blocks under versions that never ran them: the test names the row it finds wrong."""
    out, cache = tmp_path / "compat", tmp_path / "cache"
    out.mkdir()
    real = json.loads((ROOT / "compat" / "results.json").read_text(encoding="utf-8"))
    mine = compat.versions(sys.executable)
    minor = ".".join(mine["python"].split(".")[:2])
    row = next(e for e in real["environments"] if e["set"] == "newest" and e["python"] == minor)
    row["versions"] = mine  # the fake environment is this Python: the row was measured with its versions
    (out / "results.json").write_text(json.dumps(real), encoding="utf-8")
    _fake_environment(cache, f"{minor}-newest")
    target = "snippets/practice/exercise-float32-spacing.md"
    argv = ["--python", minor, "--set", "newest", "--no-install", "--out", str(out), "--cache", str(cache),
            str(ROOT / target)]
    assert compat.main(argv) == 0
    merged = json.loads((out / "results.json").read_text(encoding="utf-8"))
    now = compat_hook.today(ROOT)
    assert compat_results_problems(merged, now) == []
    others = [e for e in real["environments"] if (e["python"], e["set"]) != (minor, "newest")]
    assert [e for e in merged["environments"] if (e["python"], e["set"]) != (minor, "newest")] == others
    new = next(e for e in merged["environments"] if (e["python"], e["set"]) == (minor, "newest"))
    by_name = {o["name"]: o for o in new["outcomes"]}
    assert len(new["outcomes"]) == len(row["outcomes"]) and by_name[f"{target}:1"]["same"]
    assert by_name[f"{target}:1"]["commit"] == compat.head_commit() and by_name[f"{target}:1"]["source"] == now[target]
    assert [o for o in new["outcomes"] if o["name"] != f"{target}:1"] == \
           [o for o in row["outcomes"] if o["name"] != f"{target}:1"]
    # a file measured as it was not committed names no commit, and is then checked against today's file alone
    uncommitted = {**by_name[f"{target}:1"], "source": "0123456789abcdef"}
    [blank] = compat.committed_only([uncommitted])
    assert blank == {**uncommitted, "commit": ""}
    assert compat_results_problems({**merged, "environments": [{**new, "outcomes": [blank]}]}, now) == []
    [problem] = compat_results_problems({**merged, "environments": [{**new, "outcomes": [uncommitted]}]}, now)
    assert "claims a block it did not run" in problem, problem

    row["versions"] = {**mine, "numpy": "0.1"}  # measured before under other versions
    (out / "results.json").write_text(json.dumps(real), encoding="utf-8")
    assert compat.main(argv) == 0
    new = next(e for e in json.loads((out / "results.json").read_text(encoding="utf-8"))["environments"]
               if (e["python"], e["set"]) == (minor, "newest"))
    assert [o["name"] for o in new["outcomes"]] == [f"{target}:1"] and new["versions"] == mine
    for lang in SITE.languages:
        lab = compat_hook._labels(lang)
        text = compat_hook.table(lang, {**real, "environments": [new]}, now)
        assert lab["count"].format(same=1, total=1) + lab["unmeasured_cell"].format(
            n=len(now) - 1, blocks=lab["blocks"][1]) in text, text

    careless = mutated(compat, 'if old["versions"] != new["versions"]:', "if False:", tmp_path)
    merged, _ = careless.merge_blocks(row, new)
    assert len(merged["outcomes"]) == len(row["outcomes"]) and merged["versions"] == row["versions"], \
        "the mutant keeps the blocks measured under other versions"


def test_a_package_pip_cannot_install_is_reported_with_pips_own_error_line(tmp_path):
    """No guess: the row says pip failed, and the table quotes pip's own first ERROR line."""
    pip = tmp_path / "python"
    line = "ERROR: Could not find a version that satisfies the requirement torch==9.9.9 (from versions: 2.15.0)"
    pip.write_text(f"#!/bin/sh\necho 'Looking in indexes: somewhere'\necho '{line}' >&2\n"
                   "echo 'ERROR: No matching distribution found for torch==9.9.9' >&2\nexit 1\n")
    pip.chmod(0o755)
    with pytest.raises(compat.EnvError) as err:
        compat.install(pip, {"torch": "9.9.9", "numpy": "2.0"})
    assert str(err.value) == f"`pip install torch==9.9.9` failed: `{line}`"
    result, now = _compat_fixture(tmp_path)
    result["environments"][0].update(error=str(err.value), versions={}, outcomes=[],
                                     asked={"torch": "9.9.9", "numpy": "2.0", "matplotlib": "2.0", "scikit-learn": "2.0"})
    assert compat_results_problems(result, now, git=None) == []
    for lang in SITE.languages:
        text = compat_hook.table(lang, result, now)
        assert line in text and "| 9.9.9 |" in text and compat_hook._labels(lang)["not_measured"] in text, text


def test_a_marker_without_its_results_fails_the_build_and_a_new_block_shows_as_not_measured(tmp_path):
    """The hook, as the build runs it, in a copy of the project's snippets and results with one snippet added
    (a contributor's new block that compat has not measured): the table the home page gets says, in each
    language, that each environment has not measured it, and the results still pass their check."""
    from mkdocs.config import load_config

    config = load_config(config_file=str(ROOT / "mkdocs.yml"), hooks=[])
    page = SimpleNamespace(file=SimpleNamespace(src_path="en/index.md"))
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "snippets", copy / "snippets")
    config["config_file_path"] = str(copy / "mkdocs.yml")
    with pytest.raises(Exception, match=r"project/compat/results\.json does not exist"):
        compat_hook.on_page_markdown("x\n<!-- compat-table -->\n", page, config, None)
    (copy / "compat").mkdir()
    (copy / "compat" / "results.json").write_text('{"machine": "x"}', encoding="utf-8")  # no environments
    with pytest.raises(Exception, match=r"results\.json is not what `\./run compat` writes \(KeyError"):
        compat_hook.on_page_markdown("x\n<!-- compat-table -->\n", page, config, None)
    shutil.copy(ROOT / "compat" / "results.json", copy / "compat" / "results.json")
    result = json.loads((copy / "compat" / "results.json").read_text(encoding="utf-8"))
    measured = [e for e in result["environments"] if not e["error"]]

    def unmeasured(shown: str, lab: dict) -> list[int]:
        """Each measured row's count of blocks it has not measured (0 where its cell says none)."""
        cell = re.escape(lab["unmeasured_cell"]).replace(r"\{n\}", r"(\d+)").replace(r"\{blocks\}", r"[^<|]*?")
        rows = [line for line in shown.splitlines() if line.startswith("| ")][1:]  # the header aside
        counts = [int(m.group(1)) if (m := re.search(cell, row)) else 0 for row in rows]
        return counts[-len(measured):]

    before = {}
    for lang in SITE.languages:
        config.theme["language"] = lang
        before[lang] = unmeasured(compat_hook.on_page_markdown("x\n<!-- compat-table -->\n", page, config, None),
                                  compat_hook._labels(lang))
    # a name that sorts first, so the note names it among its first compat_hook.NAMED blocks (the rest are counted)
    (copy / "snippets" / "add-and-norm" / "a-float16-ceiling.md").write_text(
        f"```python\nprint(65504)\n```\n{selection.MARKER}\n```text\n65504\n```\n", encoding="utf-8")
    now = compat_hook.today(copy)
    assert compat_results_problems(result, now) == []
    for lang in SITE.languages:
        config.theme["language"] = lang
        shown = compat_hook.on_page_markdown("x\n<!-- compat-table -->\n", page, config, None)
        after = unmeasured(shown, compat_hook._labels(lang))
        assert after == [n + 1 for n in before[lang]], (before[lang], after, shown)  # one more, in every row
        assert "`snippets/add-and-norm/a-float16-ceiling.md`" in shown, shown
        assert shown == "x\n" + compat_hook.table(lang, result, now).strip() + "\n"


# --------------------------------------------------------------------------- GitHub Pages workflow


def _actionlint(path: Path) -> subprocess.CompletedProcess:
    assert ACTIONLINT.exists(), f"actionlint is not installed in {ACTIONLINT.parent}: pip install -r requirements.txt"
    return subprocess.run([str(ACTIONLINT), "-no-color", str(path)], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("workflow", [WORKFLOW, COMPAT_WORKFLOW], ids=lambda p: p.name)
def test_workflows_pass_actionlint(workflow):
    proc = _actionlint(workflow)
    assert proc.returncode == 0, f"actionlint {workflow.relative_to(ROOT)}:\n{proc.stdout}{proc.stderr}"


def compat_workflow_problems(text: str, shown: str = ".github/workflows/compat.yml") -> list[str]:
    """The scheduled measurement: weekly and on demand, the whole ``./run compat``, and its change to
    compat/results.json opened as a pull request by an action pinned to a commit."""
    wf = yaml.safe_load(text)
    on = wf.get(True, wf.get("on")) or {}  # YAML 1.1 reads the key `on` as True
    problems = []
    crons = [c.get("cron", "") for c in on.get("schedule") or []]
    if not any(len(c.split()) == 5 and c.split()[2:4] == ["*", "*"] and c.split()[4] != "*" for c in crons):
        problems.append(f"{shown}: no weekly schedule (on.schedule cron 'M H * * D'), found {crons}")
    if "workflow_dispatch" not in on:
        problems.append(f"{shown}: cannot be run on demand (no on.workflow_dispatch)")
    steps = [s for job in wf.get("jobs", {}).values() for s in job.get("steps", [])]
    runs = [s.get("run", "") for s in steps]
    at = next((i for i, r in enumerate(runs) if re.search(r"^\./run compat(\s+--[a-z-]+)*\s*(\|\||&&|;|$)", r.strip())), None)
    if at is None:
        problems.append(f"{shown}: no step runs the whole `./run compat` (every environment, every block)")
    pr = next((i for i, s in enumerate(steps) if s.get("uses", "").startswith("peter-evans/create-pull-request@")), None)
    if pr is None or (at is not None and pr < at):
        problems.append(f"{shown}: no peter-evans/create-pull-request step after the measurement")
    elif not re.fullmatch(r"peter-evans/create-pull-request@[0-9a-f]{40}", steps[pr]["uses"]):
        problems.append(f"{shown}: {steps[pr]['uses']} is not pinned to a commit")
    elif "compat/results.json" not in str(steps[pr].get("with", {}).get("add-paths", "")):
        problems.append(f"{shown}: the pull request does not add compat/results.json")
    return problems


def test_compat_is_measured_weekly_and_on_demand_and_opened_as_a_pull_request():
    text = COMPAT_WORKFLOW.read_text(encoding="utf-8")
    assert compat_workflow_problems(text) == []
    for old, new, said in (('    - cron: "17 3 * * 1"', '    - cron: "17 3 * * *"', "no weekly schedule"),
                           ("  workflow_dispatch:\n", "", "cannot be run on demand"),
                           ("run: ./run compat --discard", "run: ./run compat --discard snippets/home", "no step runs"),
                           ("create-pull-request@22a9089034f40e5a961c8808d113e2c98fb63676", "create-pull-request@v7",
                            "is not pinned")):
        assert text.count(old) == 1, old
        [problem] = compat_workflow_problems(text.replace(old, new))
        assert problem.startswith(".github/workflows/compat.yml: ") and said in problem, problem


def test_actionlint_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / ".github" / "workflows" / "pages.yml"
    broken.parent.mkdir(parents=True)
    text = WORKFLOW.read_text(encoding="utf-8")
    text = text.replace("needs: build", "needs: biuld").replace("${{ steps.deployment.outputs.page_url }}",
                                                                 "${{ steps.deployment.outputs.page_url ")
    broken.write_text(text, encoding="utf-8")
    proc = _actionlint(broken)
    assert proc.returncode != 0 and "biuld" in proc.stdout, proc.stdout + proc.stderr


def test_pages_workflow_tests_then_builds_then_deploys_what_it_built():
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    steps = build["steps"]
    runs = [s.get("run", "") for s in steps]
    uses = [s.get("uses", "") for s in steps]
    test_at = next(i for i, r in enumerate(runs) if ".ci/run" in r)
    build_at = next(i for i, r in enumerate(runs) if r.strip() == "./run build")
    upload_at = next(i for i, u in enumerate(uses) if u.startswith("actions/upload-pages-artifact@"))
    assert test_at < build_at < upload_at, "the workflow must run the tests, then the strict build, then upload"
    assert steps[upload_at]["with"]["path"] == "site"
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0, \
        "checkout must fetch the whole history (pages show the date they last changed)"
    assert deploy["needs"] == "build" and any(s.get("uses", "").startswith("actions/deploy-pages@")
                                              for s in deploy["steps"])
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.strip().endswith("./run test"), ".ci/run must end by running exactly ./run test"


def pdf_publishing_problems(workflow: str, ci: str) -> list[str]:
    """The published site carries both PDF editions: the Pages workflow prints them into site/ (the home
    pages then link them relatively, tools/site/pdf.py's localize) after the strict build and before the upload,
    and .ci/run installs the Simplified-Chinese font the Chinese edition embeds. Each problem names the file."""
    from tools.site import pdf

    problems = []
    steps = yaml.safe_load(workflow)["jobs"]["build"]["steps"]
    runs = [s.get("run", "").strip() for s in steps]
    uses = [s.get("uses", "") for s in steps]
    build_at = next((i for i, r in enumerate(runs) if r == "./run build"), None)
    pdf_at = next((i for i, r in enumerate(runs) if re.fullmatch(r"\S*python3? -m tools\.site\.pdf site", r)), None)
    upload_at = next((i for i, u in enumerate(uses) if u.startswith("actions/upload-pages-artifact@")), None)
    if pdf_at is None:
        problems.append(".github/workflows/pages.yml: no step prints the PDF editions into site/ (python -m tools.site.pdf site)")
    elif not (build_at is not None and upload_at is not None and build_at < pdf_at < upload_at):
        problems.append(".github/workflows/pages.yml: the PDF editions must be printed after ./run build, before the upload")
    installs = re.findall(r"apt-get install[^\n]*", ci)
    if not any(pdf.CJK_PACKAGE in line.split() for line in installs):
        problems.append(f".ci/run: installs no {pdf.CJK_PACKAGE} (the Chinese edition's Noto Sans CJK SC): {installs}")
    return problems


def test_the_published_site_carries_both_pdf_editions():
    workflow = WORKFLOW.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert pdf_publishing_problems(workflow, ci) == []
    step = next(line for line in workflow.splitlines() if "-m tools.site.pdf site" in line)
    [problem] = pdf_publishing_problems(workflow.replace(step, "        run: echo no PDF"), ci)
    assert problem.startswith(".github/workflows/pages.yml: no step prints the PDF editions"), problem
    moved = yaml.safe_load(workflow)
    steps = moved["jobs"]["build"]["steps"]
    steps.append(steps.pop(next(i for i, s in enumerate(steps) if "tools.site.pdf" in s.get("run", ""))))
    [problem] = pdf_publishing_problems(yaml.safe_dump(moved), ci)
    assert "after ./run build, before the upload" in problem, problem
    [problem] = pdf_publishing_problems(workflow, ci.replace(" fonts-noto-cjk", " fonts-wqy-zenhei"))
    assert problem.startswith(".ci/run: installs no fonts-noto-cjk"), problem


# --------------------------------------------------------------------------- CI


def test_missing_chromium_fails_where_ci_runs(tmp_path):
    """tests/test_browser.py skips without Chromium only where CI is not set."""
    missing = str(tmp_path / "no-chromium")
    assert browser_decision(missing, {"CI": "true"}) == "fail"
    assert browser_decision(missing, {"CI": "1"}) == "fail"
    assert browser_decision(missing, {}) == "skip"
    assert browser_decision(missing, {"CI": "false"}) == "skip"
    assert browser_decision(sys.executable, {"CI": "true"}) == "run"


# --------------------------------------------------------------------------- hooks fail loudly


def test_alternates_hook_drops_head_links_and_fails_when_material_changes():
    from hooks import alternates

    page = SimpleNamespace(file=SimpleNamespace(src_path="en/page.md"))
    config = SimpleNamespace(extra={"alternate": [{"lang": "zh"}, {"lang": "en"}]})
    html = ('<html><head>\n  <link rel="alternate" href="/x/" hreflang="zh">\n'
            '  <link rel="alternate" href="/en/x/" hreflang="en">\n</head><body>'
            '<a href="/en/x/" hreflang="en" class="md-select__link">English</a></body></html>')
    out = alternates.on_post_page(html, page, config)
    assert '<link rel="alternate"' not in out and 'class="md-select__link"' in out
    with pytest.raises(Exception, match=r"en/page\.md: expected Material 9\.8's <link rel=\"alternate\""):
        alternates.on_post_page("<html><head></head><body></body></html>", page, config)


def test_not_found_hook_needs_the_i18n_languages():
    from hooks import not_found

    config = SimpleNamespace(plugins={}, get={}.get, theme={"language": "en"}, extra={})
    with pytest.raises(Exception, match=r"expected the mkdocs-static-i18n plugin"):
        not_found.on_template_context({}, "404.html", config)
    assert not_found.on_template_context({"x": 1}, "sitemap.xml", config) == {"x": 1}


def test_the_compat_dates_are_a_range_written_the_languages_way():
    """A Chinese page writes a range with 至, not “–” (zh-style.md); the zh string is in mkdocs.yml."""
    from hooks import compat as hook
    from hooks import site_facts
    days = {"2026-12-04", "2026-12-02"}
    assert hook._dates(days, site_facts.load().text("zh", "compat")) == "2026-12-02 至 2026-12-04"
    assert hook._dates(days, site_facts.load().text("en", "compat")) == "2026-12-02–2026-12-04"
    assert hook._dates({"2026-12-04"}) == "2026-12-04"
