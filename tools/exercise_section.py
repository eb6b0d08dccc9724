"""A chapter's closing exercises section as the page holds it, parsed (not judged): what the exercises check
(``tools/checks/exercises.py``) and the notebook generator (``tools/generators/notebooks.py``) both read.

The section is the page's ``## <section> { #exercises }`` (``extra.strings.exercises`` of the page's
language in mkdocs.yml: its word for the section, the exercise title pattern, the solution's title).
Each ``### <title> { #exercise-N }`` under it is one exercise: its task, then its collapsed solution
``??? success "<solution>"`` whose body is indented four spaces and may include snippets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hooks import site_facts
from tools import sources

SECTION_ID = "exercises"
INDENT = " " * 4

_H2 = re.compile(r"^#{1,2} ")
_H3 = re.compile(r"^### (?P<text>.+?)[ \t]*(?:\{[^}\n]*#(?P<id>[\w-]+)[^}\n]*\})?[ \t]*$")
_SECTION = re.compile(r"^## (?P<text>.+?)[ \t]*\{[^}\n]*#" + SECTION_ID + r"\b[^}\n]*\}[ \t]*$")
_ADMONITION = re.compile(r'^(?P<mark>\?\?\?\+?|!!!)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+"(?P<title>[^"\n]*)")?[ \t]*$')


@dataclass
class Exercise:
    line: int  # of its heading, 1-based
    id: str | None
    heading: str  # the heading's text, without its id
    task: str  # markdown between the heading and the solution
    solutions: list[tuple[int, str | None, str]] = field(default_factory=list)  # (line, kind, title) of each admonition
    solution: str = ""  # the first solution's body, dedented
    trailing: int | None = None  # line of unindented text after the solution (not allowed)

    def includes(self) -> list[str]:
        return sources.includes(self.task) + sources.includes(self.solution)


@dataclass
class Section:
    line: int  # of its heading
    heading: str
    start: int  # offsets of the section in the page's text
    end: int
    exercises: list[Exercise]


def strings(lang: str) -> dict:
    return site_facts.load().text(lang, "exercises")


def parse(text: str) -> Section | None:
    """The page's exercises section, or None when it has none."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))
    start = next((i for i, ln in enumerate(lines) if _SECTION.match(ln.rstrip("\n"))), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _H2.match(lines[i])), len(lines))
    heading = _SECTION.match(lines[start].rstrip("\n"))["text"]
    exercises: list[Exercise] = []
    body = lines[start + 1:end]
    marks = [i for i, ln in enumerate(body) if ln.startswith("### ")] + [len(body)]
    for a, b in zip(marks, marks[1:]):
        m = _H3.match(body[a].rstrip("\n"))
        ex = Exercise(line=start + 2 + a, id=m["id"], heading=m["text"], task="")
        task, sol, state = [], [], "task"
        for j in range(a + 1, b):
            ln = body[j]
            adm = _ADMONITION.match(ln.rstrip("\n"))
            if adm:  # an unindented admonition line (one nested in the solution is indented: its body)
                ex.solutions.append((start + 2 + j, adm["kind"], adm["title"]))
                state = "solution-body" if len(ex.solutions) == 1 else "other"
                continue
            if state == "task":
                task.append(ln)
            elif state == "solution-body":
                if ln.strip() and not ln.startswith(INDENT):
                    state = "after"
                    ex.trailing = ex.trailing or start + 2 + j
                else:
                    sol.append(ln[len(INDENT):] if ln.startswith(INDENT) else ln.lstrip(" \t"))
            elif ln.strip() and not ln.startswith(INDENT) and ex.trailing is None:  # after it, or another's body
                ex.trailing = start + 2 + j
        ex.task, ex.solution = "".join(task).strip("\n"), "".join(sol).strip("\n")
        exercises.append(ex)
    return Section(line=start + 1, heading=heading, start=offsets[start], end=offsets[end], exercises=exercises)
