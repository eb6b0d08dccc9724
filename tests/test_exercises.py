"""Every chapter closes with 3 to 6 exercises, each with one collapsed solution that runs (issue 21,
CONTRIBUTING "Exercises"), the same in every language, and the chapter's notebook carries them: the
tasks where the page has them, the solutions with their code and verified outputs at the end.

The chapters are the pages with a notebook (``tools.sources.chapters``: every page that includes a
snippet, the home page and the verification page aside), so the glossary and the references need none. The solutions' snippets are
ordinary snippets (checked on the four reader machines by ``tests/test_snippets.py``); the PDF prints
them open (``tests/test_course.py``). Each check is shown to fail, naming the page, on a mutated copy of
a real chapter.
"""

from __future__ import annotations

import re

import pytest

from hooks import site_facts
from tools import exercise_section, sources
from tools.runner import selection
from tools.checks import exercises
from tools.generators import notebooks

SITE = site_facts.load()
CHAPTERS = sources.chapters()
EXAMPLE = "why-depth-is-hard"  # CONTRIBUTING's worked example


def _text(lang: str, slug: str) -> str:
    return sources.read(lang, f"{slug}.md")


@pytest.mark.parametrize("slug", CHAPTERS)
def test_each_chapter_has_its_exercises_in_every_language(slug):
    found = [p for lang in SITE.languages for p in exercises.problems(lang, f"{slug}.md", _text(lang, slug))]
    found += exercises.differences({lang: _text(lang, slug) for lang in SITE.languages}, f"{slug}.md")
    assert not found, "\n".join(found)


def test_the_chapters_are_the_pages_with_notebooks():
    assert EXAMPLE in CHAPTERS and "index" not in CHAPTERS
    assert not {"glossary", "references"} & set(CHAPTERS), CHAPTERS
    assert "verification" not in CHAPTERS  # it shows the package versions (a snippet), it teaches nothing
    assert set(CHAPTERS) == {p.removesuffix(".md") for p in SITE.nav_pages} - {"index", "glossary", "references",
                                                                               "model-atlas", "verification"}


def _cells(lang: str, slug: str, text: str | None = None):
    if text is None:
        return notebooks.build(lang, slug).cells
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp)
        for other in SITE.languages:
            (docs / other).mkdir()
            (docs / other / f"{slug}.md").write_text(text if other == lang else _text(other, slug), encoding="utf-8")
        return notebooks.build(lang, slug, docs).cells


def notebook_problems(lang: str, slug: str, cells) -> list[str]:
    """What the notebook of ``docs/<lang>/<slug>.md`` lacks of the page's exercises: each task (its heading
    and text) before the solutions heading, then each solution's heading followed by its code cells (the
    snippets the solution includes, with their verified outputs)."""
    where = f"docs/{lang}/notebooks/{slug}.ipynb"
    section = exercise_section.parse(_text(lang, slug))
    words = exercise_section.strings(lang)
    events = []  # the notebook in reading order: each markdown line, each code cell
    for c in cells:
        events += [("md", line) for line in "".join(c.source).splitlines()] if c.cell_type == "markdown" else [("code", c)]
    text = "\n".join(e for kind, e in events if kind == "md")
    solutions_at = next((i for i, (kind, e) in enumerate(events) if kind == "md" and e == f"## {words['solutions']}"), None)
    if solutions_at is None:
        return [f"{where}: no `## {words['solutions']}` heading"]
    found = []
    for ex in section.exercises:
        heads = [i for i, (kind, e) in enumerate(events) if kind == "md" and e == f"### {ex.heading}"]
        task = notebooks.notebook_markdown(ex.task, lang, slug)
        if not heads or heads[0] > solutions_at or f"### {ex.heading}\n\n{task}" not in text:
            found.append(f"{where}: the task of {ex.id} ({ex.heading!r}) is not in the notebook before the solutions")
        after = [i for i in heads if i > solutions_at]
        if not after:
            found.append(f"{where}: no solution for {ex.id} after `## {words['solutions']}`")
            continue
        later = [e for kind, e in events[after[0]:] if kind == "code"]
        for name in sources.includes(ex.solution):
            blocks = selection.extract(selection.SNIPPETS / name)
            code = [c for c in later if c.metadata.get("snippet") == f"snippets/{name}"]
            if len(code) != len(blocks) or any("".join(c.outputs[0].text) != b.expected
                                                for c, b in zip(code, blocks) if b.expected):
                found.append(f"{where}: the solution of {ex.id} lacks snippets/{name} with its verified output")
    return found


@pytest.mark.parametrize("slug", CHAPTERS)
def test_each_notebook_carries_its_chapters_exercises(slug):
    found = []
    for lang in SITE.languages:
        if exercise_section.parse(_text(lang, slug)) is not None:
            found += notebook_problems(lang, slug, _cells(lang, slug))
    assert not found, "\n".join(found)


# ------------------------------------------------------------------ mutations: each check names the page

def _mutated(lang: str, old: str, new: str) -> str:
    text = _text(lang, EXAMPLE)
    assert old in text, f"docs/{lang}/{EXAMPLE}.md no longer holds {old!r}: update the mutation"
    return text.replace(old, new, 1)


def test_a_missing_solution_is_named():
    lang = SITE.default
    title = exercise_section.strings(lang)["solution"]
    text = _mutated(lang, f'??? success "{title}"', "")
    found = exercises.problems(lang, f"{EXAMPLE}.md", text)
    assert any(p.startswith(f"docs/{lang}/{EXAMPLE}.md:") and "exactly one solution" in p for p in found), found


def test_a_solution_with_another_title_or_kind_is_named():
    lang = SITE.languages[-1]
    title = exercise_section.strings(lang)["solution"]
    for new in (f'??? note "{title}"', '??? success "Answer"', f'!!! success "{title}"\n\n    Open.\n\n??? success "{title}"'):
        found = exercises.problems(lang, f"{EXAMPLE}.md", _mutated(lang, f'??? success "{title}"', new))
        if new.startswith("!!!"):
            assert any("exactly one solution" in p for p in found), (new, found)
        else:
            assert any(p.startswith(f"docs/{lang}/{EXAMPLE}.md:") and "exactly one solution" in p for p in found), (new, found)


def test_a_chapter_without_its_section_is_named():
    for lang in SITE.languages:
        section = exercise_section.parse(_text(lang, EXAMPLE))
        text = _text(lang, EXAMPLE)
        text = text[:section.start] + text[section.end:]
        assert exercises.problems(lang, f"{EXAMPLE}.md", text) == [
            f"docs/{lang}/{EXAMPLE}.md: no exercises section "
            f"(`## {exercise_section.strings(lang)['section']} {{ #{exercise_section.SECTION_ID} }}`)"]
        others = {other: (text if other == lang else _text(other, EXAMPLE)) for other in SITE.languages}
        if lang != SITE.default:
            assert any(p.startswith(f"docs/{lang}/{EXAMPLE}.md: no exercises section") for p in
                       exercises.differences(others, f"{EXAMPLE}.md"))


def test_an_include_changed_in_one_language_is_named():
    lang = next(x for x in SITE.languages if x != SITE.default)
    name = exercise_section.parse(_text(lang, EXAMPLE)).exercises[0].includes()[0]
    text = _mutated(lang, f'--8<-- "{name}"', f'--8<-- "{EXAMPLE}/default-init.md"')
    found = exercises.differences({**{x: _text(x, EXAMPLE) for x in SITE.languages}, lang: text}, f"{EXAMPLE}.md")
    assert len(found) == 1 and found[0].startswith(f"docs/{lang}/{EXAMPLE}.md:") and "exercise-1 includes" in found[0], found


def test_wrong_ids_titles_counts_and_trailing_text_are_named():
    lang = SITE.languages[-1]
    text = _text(lang, EXAMPLE)
    section = exercise_section.parse(text)
    ex = section.exercises[0]
    where = f"docs/{lang}/{EXAMPLE}.md:"
    cases = {
        "has the id 'exercise-one'": text.replace("{ #exercise-1 }", "{ #exercise-one }", 1),
        "is not": text.replace(f"### {ex.heading}", "### " + ex.heading.split(" ", 2)[-1], 1),
        "a chapter has 3 to 6": text[:section.end] + "".join(
            f"### {exercise_section.strings(lang)['title'].format(n=n, title='T')} {{ #exercise-{n} }}\n\nTask.\n\n"
            f'??? success "{exercise_section.strings(lang)["solution"]}"\n\n    Answer.\n\n' for n in range(2, 9)) + text[section.end:],
        f"text after exercise {len(section.exercises)}'s solution": text[:section.end] + "Stray paragraph.\n\n"
        + text[section.end:],
    }
    for expected, mutated in cases.items():
        found = exercises.problems(lang, f"{EXAMPLE}.md", mutated)
        assert any(p.startswith(where) and expected in p for p in found), (expected, found)


def test_a_notebook_without_a_solution_or_a_task_is_named():
    lang = SITE.default
    cells = _cells(lang, EXAMPLE)
    assert notebook_problems(lang, EXAMPLE, cells) == []
    solution_code = [i for i, c in enumerate(cells) if c.cell_type == "code" and "exercise-" in c.metadata.get("snippet", "")]
    assert solution_code, "the example's notebook has no solution code cell"
    found = notebook_problems(lang, EXAMPLE, [c for i, c in enumerate(cells) if i != solution_code[0]])
    assert any(p.startswith(f"docs/{lang}/notebooks/{EXAMPLE}.ipynb:") and "lacks snippets/" in p for p in found), found
    # the page's exercises dropped from the notebook (a notebook built from the page without its section)
    text = _text(lang, EXAMPLE)
    section = exercise_section.parse(text)
    found = notebook_problems(lang, EXAMPLE, _cells(lang, EXAMPLE, text[:section.start] + text[section.end:]))
    assert found and all(p.startswith(f"docs/{lang}/notebooks/{EXAMPLE}.ipynb:") for p in found), found


def test_the_notebook_meets_the_tasks_before_the_solutions():
    for lang in SITE.languages:
        cells = _cells(lang, EXAMPLE)
        words = exercise_section.strings(lang)
        md = "\n\n".join("".join(c.source) for c in cells if c.cell_type == "markdown")
        at = [m.start() for m in re.finditer(f"^## {re.escape(words['section'])}$", md, re.M)]
        sol = [m.start() for m in re.finditer(f"^## {re.escape(words['solutions'])}$", md, re.M)]
        assert len(at) == 1 and len(sol) == 1 and at[0] < sol[0], (lang, at, sol)
        assert "\\(" not in md[at[0]:] and "](#" not in md[at[0]:], "page markup left in the notebook"
        pairs = zip(cells, cells[1:])
        assert not any(a.cell_type == b.cell_type == "markdown" for a, b in pairs), f"{lang}: two markdown cells in a row"
