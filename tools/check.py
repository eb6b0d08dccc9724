"""``./run check PATH…``: what a change to some snippet files and pages needs, and nothing else.

For the snippet files named (and those the named pages include), their blocks run on the native machine
and are compared with the outputs they show, the figures they draw and the explorable data they write
(``tools/runner/refresh.py``: ``reconcile``, the tests' own comparison), and their verdicts are checked. For the
named pages, and the pages that include a named snippet file, in every language (the languages are
compared with each other): parity, numbers, terms, verdicts, exercises, the notebooks, "the same code"
claims and citations, each by the project's own check (``tools/*.py``), kept to what names these files.
Then the strict build (``mkdocs build --strict`` into a scratch folder), while the blocks run, and on it what the
named chapters show of their code (``tools/checks/code_share.py``: no block longer than 60 visible lines, no
site plumbing in sight, every output marked; the share of the page's height needs a browser: ``./run test``).

It says what to do next only when something fails, and then names the command. It is the contributor's
loop, not the whole suite: ``./run test`` remains the gate before a merge (other reader machines, the
browser, the build's every page).

    ./run check snippets/practice/float16-ceiling.md docs/en/practice.md docs/zh/practice.md
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from hooks import site_facts
from tools.site import build as site_build
from tools import sources
from tools.runner import execution, reader_machines, refresh, selection
from tools.checks import code_share, exercises, numbers, parity, references, same_code, terms, verdicts
from tools.generators import notebooks

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Targets:
    files: list[Path]  # snippet files whose blocks run
    pages: list[tuple[str, str]]  # (language, page under docs/<lang>/), every language of each
    named: list[str] = field(default_factory=list)  # what the command line named, as typed

    def page_names(self) -> list[str]:
        return [f"docs/{lang}/{page}" for lang, page in self.pages]

    def snippet_names(self) -> list[str]:
        return [f"snippets/{p.relative_to(selection.SNIPPETS).as_posix()}" for p in self.files
                if p.is_relative_to(selection.SNIPPETS)]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def targets(paths: list[Path], facts: site_facts.Facts | None = None) -> Targets:
    """The snippet files and pages ``paths`` name (files or folders), with the snippet files the named pages
    include and the pages that include a named snippet file, each page in every language."""
    facts = facts or site_facts.load()
    docs = facts.docs.resolve()
    files, pages = [], set()
    for path in paths:
        path = Path(path).resolve()
        if not path.exists():
            raise SystemExit(f"./run check: {path} does not exist")
        if path.is_relative_to(selection.SNIPPETS):
            files += selection.snippet_files([path])
        elif path.is_relative_to(docs) and path != docs and (path.is_dir() or path.suffix == ".md"):
            rel = path.relative_to(docs)
            lang = rel.parts[0]
            if lang not in facts.languages:
                raise SystemExit(f"./run check: {_rel(path)} is in no language's tree ({', '.join(facts.languages)})")
            found = sorted(path.rglob("*.md")) if path.is_dir() else [path]
            for page in found:
                name = page.relative_to(docs / lang).as_posix()
                pages.add(name)
                files += [selection.SNIPPETS / inc for inc in sources.includes(page.read_text(encoding="utf-8"))]
        else:
            raise SystemExit(f"./run check: {_rel(path)} is neither a snippet file (snippets/...md) nor a page "
                             f"(docs/<language>/...md)")
    named = {f.resolve() for f in files}
    for lang in facts.languages:  # the pages that show a named snippet file
        for page in sources.pages(lang, facts.docs):
            if page.endswith(".md") and any((selection.SNIPPETS / inc).resolve() in named
                                            for inc in sources.includes(sources.read(lang, page, facts.docs))):
                pages.add(page)
    unique = list(dict.fromkeys(f.resolve() for f in files))
    return Targets(unique, [(lang, page) for page in sorted(pages) for lang in facts.languages
                            if (facts.docs / lang / page).exists() or lang == facts.default],
                   [_rel(Path(p).resolve()) for p in paths])


def _about(problems: list[str], names: list[str]) -> list[str]:
    """The problems of a whole-site check that name one of ``names``."""
    return [p for p in problems if any(n in p for n in names)]


# --------------------------------------------------------------------------- the checks

REFRESH = "refresh"  # a problem `./run refresh` fixes


@dataclass
class Problem:
    check: str
    message: str
    fix: str = ""  # REFRESH, or what the contributor does (empty: the message says it)


def block_problems(t: Targets) -> tuple[list[Problem], str]:
    """Each block run once on the native machine, compared as the tests compare it; and its verdicts."""
    if not t.files:
        return [], "no snippet files"
    blocks = selection.collect(t.files)
    label = next(iter(reader_machines.VARIANTS))
    runs, seconds = execution.run_variants(blocks, {label: reader_machines.DEFAULT}, probe=False)
    found = []
    for finding in refresh.check(blocks, runs[label]):
        refreshable = " prints output but shows none" in finding.message or " output differs from the page" in \
            finding.message or " is not committed" in finding.message or " differently (" in finding.message
        found.append(Problem("blocks", finding.message, REFRESH if refreshable else ""))
    for block in blocks:
        found += [Problem("verdicts", m) for m in verdicts.block_problems(block)]
    return found, f"{len(blocks)} blocks run in {seconds[label]:.1f} s"


def page_problems(t: Targets, facts: site_facts.Facts) -> list[Problem]:
    """The pages' checks, each the project's own, kept to the problems that name these pages or files."""
    if not t.pages:
        return []
    names = t.page_names() + t.snippet_names()
    bare = [f"{page}:" for _, page in t.pages] + [f"/{page} has no counterpart" for _, page in t.pages]
    found = [Problem("parity", m) for m in _about(parity.parity_problems(facts=facts), names + bare)]
    paths = [facts.docs / lang / page for lang, page in t.pages if (facts.docs / lang / page).exists()]
    checked = set(numbers.checked_pages(facts.docs, facts))
    found += [Problem("numbers", str(p), "print the number in a block, cite it, or derive it in the page's math")
              for p in numbers.problems([p for p in paths if p in checked])]
    found += [Problem("terms", m) for m in _about(terms.problems(), names)]
    found += [Problem("verdicts", m) for m in _about(verdicts.problems(), names)]
    found += [Problem("references", m) for m in _about(references.citation_problems(facts=facts), names)]
    claims = [c for c in same_code.all_claims() if c.page in names or any(c.page.endswith(n) for n in names)]
    found += [Problem("same code", m) for m in map(same_code.problem, claims) if m]
    chapters = {(lang, f"{slug}.md") for lang in facts.languages for slug in sources.chapters(lang)}
    for lang, page in t.pages:
        if (lang, page) in chapters:
            text = (facts.docs / lang / page).read_text(encoding="utf-8")
            found += [Problem("exercises", m) for m in exercises.problems(lang, page, text)]
    for page in sorted({page for lang, page in t.pages if (lang, page) in chapters}):
        texts = {lang: (facts.docs / lang / page).read_text(encoding="utf-8") for lang in facts.languages}
        found += [Problem("exercises", m) for m in exercises.differences(texts, page)]
    books = [_rel(notebooks.notebook_path(lang, page[:-3])) for lang, page in t.pages if (lang, page) in chapters]
    found += [Problem("notebooks", m, REFRESH) for m in _about(notebooks.problems(), books)]
    return found


def shown_problems(site: Path, t: Targets, facts: site_facts.Facts) -> list[Problem]:
    """What the built chapters among ``t``'s pages show of their code, against ``code_share``'s rules."""
    wanted = set(t.page_names())
    return [Problem("code shown", m, "fold the block's plumbing or long steps (`# --8<-- [start:<kind>]`, "
                                     "CONTRIBUTING.md, \"Snippets\"), or split it")
            for page in code_share.pages(site, facts) if page.name in wanted for m in code_share.problems(page)]


def strict_build(into: Path, out: dict) -> None:
    start = time.perf_counter()
    proc = site_build.build(into)
    out.update(proc=proc, seconds=time.perf_counter() - start)


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="./run check", description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path, help="snippet files and pages (files or folders)")
    args = ap.parse_args(argv)
    facts = site_facts.load()
    t = targets(args.paths, facts)
    start = time.perf_counter()
    print(f"./run check: {len(t.files)} snippet files, {len(t.pages)} pages "
          f"({', '.join(t.page_names()) or 'none'}), then the strict build", flush=True)
    built: dict = {}
    with tempfile.TemporaryDirectory(prefix="check-site-") as tmp:
        builder = threading.Thread(target=strict_build, args=(Path(tmp) / "site", built))
        builder.start()  # the build is a process of its own: it runs while the blocks do
        found, ran = block_problems(t)
        print(f"blocks: {ran}, {sum(p.check in ('blocks', 'verdicts') for p in found)} problems", flush=True)
        pages = page_problems(t, facts)
        print(f"pages: parity, numbers, terms, verdicts, references, same code, exercises, notebooks: "
              f"{len(pages)} problems", flush=True)
        found += pages
        builder.join()
        proc = built["proc"]
        if proc.returncode != 0:
            shown = site_build.warnings(proc) or (proc.stdout + proc.stderr).strip().splitlines()[-15:]
            found.append(Problem("build", "mkdocs build --strict failed:\n  " + "\n  ".join(shown),
                                 "fix what it names, then check again"))
        print(f"strict build: {'ok' if proc.returncode == 0 else 'failed'} ({built['seconds']:.0f} s)")
        if proc.returncode == 0:
            code = shown_problems(Path(tmp) / "site", t, facts)
            print(f"code shown on the chapters: {len(code)} problems")
            found += code
    for p in found:
        print(f"\n[{p.check}] {p.message}")
    wall = time.perf_counter() - start
    if not found:
        print(f"\ngreen in {wall:.0f} s: nothing to do")
        return 0
    print(f"\n{len(found)} problems in {wall:.0f} s. Next:")
    if any(p.fix == REFRESH for p in found):
        shown = " ".join(t.named)
        print(f"  ./run refresh {shown}   # writes what the blocks print now, their figures, data and the notebooks;"
              f" read the diff it prints, then ./run check {shown} again")
    for fix in dict.fromkeys(p.fix for p in found if p.fix and p.fix != REFRESH):
        print(f"  [{', '.join(sorted({p.check for p in found if p.fix == fix}))}] {fix}")
    if any(not p.fix for p in found):
        print(f"  [{', '.join(sorted({p.check for p in found if not p.fix}))}] fix what each message above names"
              " (refresh cannot)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
