"""A chapter's closing exercises: what is wrong with them (CONTRIBUTING "Exercises"). The section as the page
holds it is parsed by ``tools/exercise_section.py``; here each chapter has 3 to 6 exercises, numbered and titled
in its language's pattern, each with a task and exactly one collapsed solution, and every language's exercises
include the same snippets as the default language's.

    python -m tools.checks.exercises [PAGE…]   # every chapter's problems (page:line), exit 1 if any

``tests/test_exercises.py`` checks every chapter with :func:`problems`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.exercise_section import SECTION_ID, parse, strings

MIN_EXERCISES, MAX_EXERCISES = 3, 6


def _title_pattern(lang: str) -> re.Pattern:
    parts = re.split(r"(\{n\}|\{title\})", strings(lang)["title"])
    rx = "".join({"{n}": r"(?P<n>\d+)", "{title}": r"(?P<title>\S.*)"}.get(p, re.escape(p)) for p in parts)
    return re.compile(rx + "$")


def problems(lang: str, page: str, text: str) -> list[str]:
    """What is wrong with the exercises of ``docs/<lang>/<page>``, each naming page:line."""
    where = f"docs/{lang}/{page}"
    words = strings(lang)
    section = parse(text)
    if section is None:
        return [f"{where}: no exercises section (`## {words['section']} {{ #{SECTION_ID} }}`)"]
    found = []
    if section.heading != words["section"]:
        found.append(f"{where}:{section.line}: the exercises section is titled {section.heading!r}, "
                     f"expected {words['section']!r}")
    n = len(section.exercises)
    if not MIN_EXERCISES <= n <= MAX_EXERCISES:
        found.append(f"{where}:{section.line}: {n} exercises; a chapter has {MIN_EXERCISES} to {MAX_EXERCISES}")
    title = _title_pattern(lang)
    for number, ex in enumerate(section.exercises, 1):
        at = f"{where}:{ex.line}"
        if ex.id != f"exercise-{number}":
            found.append(f"{at}: exercise {number} has the id {ex.id!r}, expected 'exercise-{number}'")
        m = title.match(ex.heading)
        if not m or int(m["n"]) != number:
            found.append(f"{at}: heading {ex.heading!r} is not {words['title'].format(n=number, title='…')!r}")
        if not ex.task.strip():
            found.append(f"{at}: exercise {number} has no task before its solution")
        good = [s for s in ex.solutions if s[1] == "success" and s[2] == words["solution"]]
        if len(ex.solutions) != 1 or len(good) != 1:
            shown = ", ".join(f"line {ln}: {k} {t!r}" for ln, k, t in ex.solutions) or "none"
            found.append(f"{at}: exercise {number} needs exactly one solution `??? success \"{words['solution']}\"` "
                         f"and no other admonition; found {shown}")
        elif ex.solutions[0][0] and not ex.solution.strip():
            found.append(f"{where}:{ex.solutions[0][0]}: exercise {number}'s solution is empty "
                         f"(its body is indented four spaces)")
        if ex.trailing:
            found.append(f"{where}:{ex.trailing}: text after exercise {number}'s solution, outside it "
                         "(indent it four spaces, or move it into the task)")
    after = text[section.end:]
    if sources.includes(after):
        found.append(f"{where}: snippets included after the exercises section: the exercises close the chapter")
    return found


def differences(texts: dict[str, str], page: str) -> list[str]:
    """How the languages' exercises of one page differ from the default language's: the exercise ids,
    and each exercise's snippet includes in order (``texts``: the page's text per language)."""
    default = site_facts.load().default
    sections = {lang: parse(text) for lang, text in texts.items()}
    base = sections[default]
    found = []
    for lang, section in sections.items():
        if lang == default or (section is None and base is None):
            continue
        where = f"docs/{lang}/{page}"
        if (section is None) != (base is None):
            found.append(f"{where}: {'no' if section is None else 'an'} exercises section, "
                         f"docs/{default}/{page} has {'one' if section is None else 'none'}")
            continue
        ids, base_ids = [e.id for e in section.exercises], [e.id for e in base.exercises]
        if ids != base_ids:
            found.append(f"{where}:{section.line}: exercise ids {ids}, docs/{default}/{page} has {base_ids}")
        for ex, other in zip(section.exercises, base.exercises):
            if ex.includes() != other.includes():
                found.append(f"{where}:{ex.line}: {ex.id} includes {ex.includes()}, docs/{default}/{page}:"
                             f"{other.line} includes {other.includes()}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.checks.exercises", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="docs/<lang>/<page>.md (default: every chapter)")
    args = parser.parse_args(argv)
    facts = site_facts.load()
    targets = [Path(p) for p in args.pages] or [facts.docs / lang / f"{slug}.md" for lang in facts.languages
                                                 for slug in sources.chapters(lang)]
    found = []
    for path in targets:
        path = path.resolve()
        lang = path.parent.name
        found += problems(lang, path.name, path.read_text(encoding="utf-8"))
    for page in sorted({Path(p).name for p in targets}):
        texts = {lang: (facts.docs / lang / page).read_text(encoding="utf-8") for lang in facts.languages}
        found += differences(texts, page)
    for p in found:
        print(p)
    print(f"exercises: {len(targets)} pages, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
