"""Where each page comes from: its source file, each snippet's file, and the date it last changed.

* After every ``--8<-- "<page>/<what>.md"`` include (after the last one, for a file included in
  sections), a small link to that snippet's file in the repository (``repo_url``), so a reader can
  see the code and its recorded output as committed.
* At the end of every page, a line with a link to the page's own source file and the date the page
  last changed: the newest commit date (``git log -1 --format=%cs``) over the page and the snippet
  files it includes. Where git cannot say (no git, a file never committed, or a shallow clone whose
  history stops before that change) the line says so instead of showing a wrong date. Git is asked
  twice per build, not per page: ``History`` reads the whole history once and replays
  ``git log -1 -- <files>`` for each page.

Links point at ``<repo_url>/blob/<branch>/<path>``; the branch is read from ``edit_uri``, which must
be ``blob/<branch>/<docs_dir>/``.
"""

from __future__ import annotations

import functools
import heapq
import html
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module, site_facts  # noqa: E402

one_module(__name__, __file__)

# the include syntax of pymdownx.snippets (a line that starts with ";" is an escaped include)
INCLUDE = re.compile(r"""^(?P<indent>[ \t]*)-{1,}8<-{1,}[ \t]+(?P<q>["'])(?P<name>[^"']+)(?P=q)[ \t]*$""")
SECTION = re.compile(r":[a-z][-_0-9a-z]*$|(:\d*)+$")

def _labels(config, lang: str) -> dict:
    """This language's provenance strings (mkdocs.yml: the i18n language's ``extra.strings.provenance``)."""
    return site_facts.from_config(config).text(lang, "provenance")


def blob_root(config) -> str:
    """``<repo_url>/blob/<branch>/``: the repository's files as GitHub shows them."""
    repo = (config.get("repo_url") or "").rstrip("/")
    edit_uri = config.get("edit_uri") or ""
    docs = Path(config["docs_dir"]).name
    m = re.fullmatch(rf"blob/(?P<branch>[^/]+)/{re.escape(docs)}/", edit_uri)
    if not repo or not m:
        raise PluginError(f"hooks/provenance.py: expected repo_url and edit_uri: blob/<branch>/{docs}/ in "
                          f"mkdocs.yml, found repo_url={repo!r}, edit_uri={edit_uri!r}")
    return f"{repo}/blob/{m.group('branch')}/"


def _lang(page, config) -> str:
    lang = (config.theme.get("language") or "").split("-")[0]
    if lang not in site_facts.from_config(config).languages:
        raise PluginError(f"hooks/provenance.py: theme language {lang!r} is no site language ({page.file.src_path})")
    return lang


def _root(config) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def snippet_base(config) -> Path:
    opts = config["mdx_configs"].get("pymdownx.snippets", {})
    base = opts.get("base_path")
    base = base[0] if isinstance(base, list) else base
    if not base:
        raise PluginError("hooks/provenance.py: expected pymdownx.snippets with a base_path in mkdocs.yml")
    return Path(base).resolve()


def included(markdown: str) -> list[str]:
    """Snippet names a page includes, in order (a ``:section`` or line-range suffix names the same file)."""
    return [SECTION.sub("", m.group("name")) for line in markdown.splitlines() if (m := INCLUDE.match(line))]


def on_page_markdown(markdown, page, config, files):
    lang = _lang(page, config)
    root, base, blob = _root(config), snippet_base(config), blob_root(config)
    page.rn_provenance = {"files": [Path(page.file.abs_src_path).resolve()]
                          + [base / name for name in included(markdown)]}
    return _with_links(markdown, _labels(config, lang)["snippet"], root, base, blob)


@functools.lru_cache(maxsize=128)  # a page unchanged since the last build in this process: linked once
def _with_links(markdown: str, label: str, root: Path, base: Path, blob: str) -> str:
    """The page's Markdown with a link to each snippet file it includes, after the file's last include."""
    lines = markdown.splitlines()
    # one link per snippet file, after its last include: a file included in sections (code, then a
    # list of code annotations, then output) gets it after the output, never between code and list
    last = {SECTION.sub("", m.group("name")): i for i, line in enumerate(lines) if (m := INCLUDE.match(line))}
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        m = INCLUDE.match(line)
        if not m or last[SECTION.sub("", m.group("name"))] != i:
            continue
        path = base / SECTION.sub("", m.group("name"))
        rel = path.resolve().relative_to(root).as_posix()
        out += ["", f'{m.group("indent")}<p class="rn-source"><span class="rn-source__label">{label}</span>'
                    f'<a href="{html.escape(blob + rel)}"><code>{html.escape(rel)}</code></a></p>', ""]
    return "\n".join(out)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None


class History:
    """What git says of the files under ``root``, from one ``git status`` and one ``git log`` per build.

    ``git log -1 -- <files>`` (run per page before) shows the first commit of git's walk from HEAD,
    newest committer date first, that is not TREESAME for those files: a commit that changes one
    of them, or a merge that differs from every parent in them; through a merge that is TREESAME
    to a parent, the walk follows only the first such parent. ``first_change`` replays that walk
    over the whole history read once (``git log -m --pretty=raw --name-only``: each commit's
    parents, committer time and the files it changes against each parent), so every page gets the
    commit, and the date, that ``git log -1`` gave it.
    """

    def __init__(self, root: Path):
        self.root = root
        self.commits: dict[str, dict] = {}  # hash -> parents, committer time, date, files by parent
        self.head: str | None = None
        self.dirty: set[str] = set()
        status = _git(root, "-c", "core.quotePath=false", "-c", "status.relativePaths=true", "status", "--short",
                      "--untracked-files=all", "--no-renames", "--", ".")
        self.git = status is not None and status.returncode == 0
        if not self.git:
            return
        self.dirty = {_unquote(line[3:]) for line in status.stdout.splitlines() if len(line) > 3}
        log = _git(root, "-c", "log.showRoot=true", "log", "-m", "--no-renames", "--name-only", "--relative",
                   "--no-show-signature", "--pretty=raw", "-z")
        if log is not None and log.returncode == 0:
            self._read(log.stdout)

    def _read(self, out: str) -> None:
        entry = None
        for token in out.split("\0"):
            if entry is None:  # a commit's header, message and first file
                if not token.startswith("commit "):
                    continue
                head, _, rest = token.partition("\n\n")
                lines = head.split("\n")
                commit, _, parent = lines[0][len("commit "):].partition(" (from ")
                info = self.commits.get(commit)
                if info is None:
                    info = self.commits[commit] = {"parents": [], "files": {}}
                    info["parents"] = [line.split()[1] for line in lines if line.startswith("parent ")]
                    committer = next(line for line in lines if line.startswith("committer ")).split()
                    info["time"] = int(committer[-2])
                    sign, hours, minutes = committer[-1][0], int(committer[-1][1:3]), int(committer[-1][3:5])
                    offset = timedelta(hours=hours, minutes=minutes) * (-1 if sign == "-" else 1)
                    info["date"] = datetime.fromtimestamp(info["time"], timezone(offset)).strftime("%Y-%m-%d")
                    self.head = self.head or commit
                entry = info["files"].setdefault(parent.rstrip(")") or None, set())
                i = 0
                while rest.startswith("    ", i):  # the message: every line indented by four spaces
                    i = rest.find("\n", i) + 1 or len(rest)
                first = rest[i:]
                if not first:
                    entry = None  # no file under root: the next token starts a commit
                else:
                    entry.add(first[1:] if first.startswith("\n") else first)
            elif token:
                entry.add(token)
            else:
                entry = None

    def _changed(self, commit: str, parent: str | None) -> set[str]:
        """Files ``commit`` changes against ``parent`` (a merge's) or its only parent (None)."""
        info = self.commits[commit]
        return info["files"].get(parent if len(info["parents"]) > 1 else None, set())

    def first_change(self, rels: set[str]) -> str | None:
        """The commit ``git log -1 -- <rels>`` shows, or None."""
        if self.head is None:
            return None
        queue, seen = [(-self.commits[self.head]["time"], 0, self.head)], {self.head}
        while queue:
            commit = heapq.heappop(queue)[2]
            parents = self.commits[commit]["parents"]
            if self.shallow(commit) or not parents:  # git walks a shallow clone's boundary as a root
                if self._changed(commit, None) & rels:
                    return commit
                continue
            same = [p for p in parents if not self._changed(commit, p) & rels]
            if not same:
                return commit
            if same[0] not in seen:  # TREESAME to a parent: follow the first such parent alone
                seen.add(same[0])
                heapq.heappush(queue, (-self.commits[same[0]]["time"], len(seen), same[0]))
        return None

    def shallow(self, commit: str) -> bool:
        return any(p not in self.commits for p in self.commits[commit]["parents"])


def _unquote(path: str) -> str:
    """A path as ``git status --short`` prints it: in double quotes, C-style, when it holds a space,
    a quote, a backslash or a control character."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    escapes = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f", b"r": b"\r"}
    raw = re.sub(rb"\\([0-7]{3}|.)", lambda m: bytes([int(m.group(1), 8)]) if len(m.group(1)) == 3
                 else escapes.get(m.group(1), m.group(1)), path[1:-1].encode("utf-8"))
    return raw.decode("utf-8", "surrogateescape")


def last_changed(root: Path, paths: list[Path], history: History | None = None) -> tuple[str | None, str | None, bool]:
    """(date, reason it is unknown, uncommitted changes) over ``paths``, from git (``history``: read
    once for the build; without it, git is asked now)."""
    history = history or History(root)
    rels = {p.resolve().relative_to(root).as_posix() for p in paths}
    if not history.git:
        return None, "no-git", False
    commit = history.first_change(rels)
    if commit is None:
        return None, "untracked", False
    uncommitted = bool(rels & history.dirty)
    if history.shallow(commit):
        # the oldest commit of a shallow clone appears to add every file: its date says nothing
        return None, "shallow", uncommitted
    return history.commits[commit]["date"], None, uncommitted


_history: tuple[object, History] | None = None


def _history_of(config, root: Path) -> History:
    """One History per build: i18n builds every language with the same config object, and
    ``mkdocs serve`` loads the config again for each rebuild."""
    global _history
    if _history is None or _history[0] is not config:
        _history = (config, History(root))
    return _history[1]


def on_page_content(html_text, page, config, files):
    lang = _lang(page, config)
    labels = _labels(config, lang)
    root, blob = _root(config), blob_root(config)
    info = getattr(page, "rn_provenance", None) or {"files": [Path(page.file.abs_src_path).resolve()]}
    source = info["files"][0].relative_to(root).as_posix()
    date, why, uncommitted = last_changed(root, info["files"], _history_of(config, root))
    if date:
        page.update_date = date  # sitemap.xml's lastmod: the page's last change, not the build's day
        when = (f'<span class="rn-provenance__date">{labels["changed"]}<time datetime="{date}">{date}</time>'
                + (labels["uncommitted"] if uncommitted else "") + "</span>")
    else:
        when = f'<span class="rn-provenance__unknown">{labels["unknown"].format(why=labels["why"][why])}</span>'
    return (html_text + f'\n<aside class="rn-provenance"><span class="rn-provenance__source">{labels["page"]}'
            f'<a href="{html.escape(blob + source)}"><code>{html.escape(source)}</code></a></span>{when}</aside>')
