"""What a page includes from snippets/ is what the runners run, shown code first and output directly under it.

Each test reproduces one probe of a reliability review (a snippet saved as ``.markdown``, one block's code over
another block's output, an include hidden in a comment, a page given to ``tools.snippets check``) and its
neighbours (other suffixes, the block include syntax, nested includes, line ranges), against the same functions
the build (``hooks/page_checks.py``) and the commands use.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from hooks import includes, page_checks, site_facts
from tools import sources
from tools.runner import cli, selection

SITE = site_facts.load()
GOOD = f"```python\nprint(1)\n```\n{selection.MARKER}\n```text\n1\n```\n"
TYPED = f"```python\nprint(2 + 2)\n```\n{selection.MARKER}\n```text\n87\n```\n"  # an output nobody ran
SECTIONED = (f"<!-- --8<-- [start:code] -->\n```python\nprint({{n}})\n```\n<!-- --8<-- [end:code] -->\n"
             f"<!-- --8<-- [start:output] -->\n{selection.MARKER}\n```text\n{{n}}\n```\n<!-- --8<-- [end:output] -->\n")


def _base(tmp_path: Path, files: dict[str, str]) -> Path:
    base = tmp_path / "snippets"
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text, encoding="utf-8")
    return base


def test_every_page_s_includes_pass():
    found = [p for lang in SITE.languages for page in sorted(sources.pages(lang))
             for p in includes.problems(sources.read(lang, page), f"docs/{lang}/{page}")]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", ["c/made-up.markdown", "c/made-up.txt", "c/made-up.MD", "c/made-up.md.bak",
                                  "c/made_up.md", ".hidden/made-up.md", "build/made-up.md", "made-up.md"])
def test_a_snippet_no_runner_runs_is_refused_where_a_page_includes_it(tmp_path, name):
    """Probe 1: a snippet saved as .markdown with a typed output, included on a page, was never run and shown."""
    base = _base(tmp_path, {name: TYPED})
    found = includes.problems(f'# P\n\n--8<-- "{name}"\n', "docs/en/p.md", base)
    assert len(found) == 1 and found[0].startswith("docs/en/p.md:3: includes snippets/") and "no runner runs" in found[0]


@pytest.mark.parametrize("spelling", ['-8<- "{}"', "--8<-- '{}'", "--8<--\n{}\n--8<--", "----8<----\n\n{}\n----8<----"])
def test_every_include_syntax_is_seen(tmp_path, spelling):
    base = _base(tmp_path, {"c/made-up.markdown": TYPED})
    found = includes.problems("# P\n\n" + spelling.format("c/made-up.markdown") + "\n", "docs/en/p.md", base)
    assert found and "c/made-up.markdown" in found[0] and "no runner runs" in found[0]
    assert sources.includes("# P\n\n" + spelling.format("c/x.md") + "\n") == ["c/x.md"]


@pytest.mark.parametrize("text, found", [
    ("```python\nprint(1)\n```\n```python\nprint(2)\n```\n", "a second code fence"),
    ("``` python\nprint(1)\n```\n", "fence info string"),
    ("Just prose, no code.\n", "no ```python block"),
])
def test_a_snippet_of_a_shape_the_runners_refuse_is_refused_where_included(tmp_path, text, found):
    base = _base(tmp_path, {"c/x.md": text})
    [problem] = includes.problems('--8<-- "c/x.md"\n', "docs/en/p.md", base)
    assert problem.startswith("docs/en/p.md:1: includes snippets/c/x.md, whose shape the runners refuse") and found in problem


def test_a_nested_include_a_line_range_or_another_section_is_refused(tmp_path):
    base = _base(tmp_path, {"c/a.md": GOOD + '--8<-- "c/b.md"\n', "c/b.md": GOOD, "c/s.md": SECTIONED.format(n=3)})
    assert "includes 'c/b.md': a snippet file holds its own code and output, never an include" in \
        "\n".join(includes.problems('--8<-- "c/a.md"\n', "docs/en/p.md", base))
    assert "includes lines of snippets/c/b.md" in includes.problems('--8<-- "c/b.md:1:3"\n', "p", base)[0]
    assert "the section 'other'" in includes.problems('--8<-- "c/s.md:other"\n', "p", base)[0]


def test_one_block_s_code_over_another_block_s_output_is_refused(tmp_path):
    """Probe 2: degradation-10.md:code followed by degradation-18.md:output passed every check."""
    base = _base(tmp_path, {"c/ten.md": SECTIONED.format(n=10), "c/eighteen.md": SECTIONED.format(n=18)})
    ok = '??? example "Code"\n\n    --8<-- "c/ten.md:code"\n\n--8<-- "c/ten.md:output"\n'
    assert includes.problems(ok, "docs/en/p.md", base) == []
    swapped = '??? example "Code"\n\n    --8<-- "c/ten.md:code"\n\n--8<-- "c/eighteen.md:output"\n'
    found = "\n".join(includes.problems(swapped, "docs/en/p.md", base))
    assert "docs/en/p.md:5: shows the output of snippets/c/eighteen.md under snippets/c/ten.md:code" in found
    assert "docs/en/p.md:3: shows the code of snippets/c/ten.md without its output" in found
    alone = includes.problems('--8<-- "c/ten.md:output"\n', "docs/en/p.md", base)
    assert alone and "shows the output of snippets/c/ten.md under no include" in alone[0]
    between = '--8<-- "c/ten.md:code"\n\nA sentence that moves the output away.\n\n--8<-- "c/ten.md:output"\n'
    assert "text stands between the code of snippets/c/ten.md and its output" in \
        includes.problems(between, "docs/en/p.md", base)[0]


def test_a_section_that_does_not_hold_its_part_is_refused(tmp_path):
    moved = (f"<!-- --8<-- [start:code] -->\n<!-- --8<-- [end:code] -->\n```python\nprint(1)\n```\n"
             f"<!-- --8<-- [start:output] -->\n{selection.MARKER}\n```text\n1\n```\n<!-- --8<-- [end:output] -->\n")
    base = _base(tmp_path, {"c/m.md": moved})
    found = "\n".join(includes.problems('--8<-- "c/m.md:code"\n--8<-- "c/m.md:output"\n', "p", base))
    assert "the section 'code' of snippets/c/m.md does not hold exactly its code fence" in found


@pytest.mark.parametrize("wrap", [("<!--\n", "\n-->\n"), ("<!-- a note\n\n", "\n\nend -->\n"),
                                  ("<template>\n", "\n</template>\n"), ('<script type="text/plain">\n', "\n</script>\n"),
                                  ('<div markdown hidden>\n\n', "\n\n</div>\n"),
                                  ('<div style="display: none" markdown>\n\n', "\n\n</div>\n")])
def test_an_include_hidden_in_a_comment_is_refused(tmp_path, wrap):
    """Probe 3: the snippet's own output marker closed the comment early: code hidden, output shown."""
    base = _base(tmp_path, {"c/x.md": GOOD})
    text = f"# P <!-- ✔ a claim -->\n\n{wrap[0]}--8<-- \"c/x.md\"{wrap[1]}"
    [found] = includes.problems(text, "docs/en/p.md", base)
    assert found.startswith("docs/en/p.md:") and "the include of snippets/c/x.md lies inside" in found
    assert includes.problems('# P <!-- ✔ a claim -->\n\n--8<-- "c/x.md"\n', "docs/en/p.md", base) == []


def _page(src_uri: str):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri))


def test_the_build_refuses_what_the_checks_refuse(tmp_path):
    base = _base(tmp_path, {"c/made-up.markdown": TYPED, "c/x.md": GOOD})
    config = {"mdx_configs": {"pymdownx.snippets": {"base_path": [str(base)], "check_paths": True}}}
    assert page_checks.on_page_markdown('--8<-- "c/x.md"\n', page=_page("en/p.md"), config=config) == '--8<-- "c/x.md"\n'
    with pytest.raises(PluginError, match=r"docs/en/p.md:1: includes snippets/c/made-up.markdown, which no runner runs"):
        page_checks.on_page_markdown('--8<-- "c/made-up.markdown"\n', page=_page("en/p.md"), config=config)


def test_the_folders_pytest_never_enters_are_pytest_s_own():
    import _pytest.main

    source = Path(_pytest.main.__file__).read_text(encoding="utf-8")
    assert all(repr(s).replace("'", '"') in source for s in includes.PYTEST_SKIPS)


def test_a_file_of_snippets_no_runner_runs_fails_alone_naming_itself(tmp_path):
    base = _base(tmp_path, {"c/made-up.markdown": TYPED, "c/.h/x.md": GOOD, "c/good.md": GOOD})
    blocks = selection.collect([base])
    bad = sorted(Path(b.error.split(":")[0]).name for b in blocks if b.error)
    assert bad == ["made-up.markdown", "x.md"], [b.error for b in blocks]
    assert [b.code for b in blocks if not b.error] == ["print(1)\n"]


def test_check_given_a_page_checks_that_page_s_blocks(capsys):
    """Probe 12: `tools.snippets check docs/en/practice.md` said '0 blocks, 0 problems' and exited 0."""
    paths, bad = selection.page_paths([selection.ROOT / "docs" / "en" / "practice.md"])
    assert bad == [] and paths == [selection.SNIPPETS / n for n in dict.fromkeys(sources.includes(
        sources.read("en", "practice.md")))]
    assert cli.main(["check", str(selection.ROOT / "docs" / "en" / "references.md")]) == 1
    assert "docs/en/references.md: a page that includes no snippet: nothing to check" in capsys.readouterr().out
    assert cli.main(["check", str(selection.ROOT / "mkdocs.yml")]) == 1
    assert "mkdocs.yml: not a snippet file (.md) nor a page of docs/" in capsys.readouterr().out


def test_the_block_include_form_is_refused_even_for_a_good_snippet(tmp_path):
    base = _base(tmp_path, {"c/x.md": GOOD})
    [found] = includes.problems("# P\n\n--8<--\nc/x.md\n--8<--\n", "docs/en/p.md", base)
    assert found.startswith("docs/en/p.md:4: snippets/c/x.md is included in another spelling")


def test_check_given_a_folder_of_pages_checks_their_blocks():
    paths, bad = selection.page_paths([selection.ROOT / "docs" / "en"])
    assert bad == []
    assert set(paths) == {selection.SNIPPETS / n for p in sources.pages("en") for n in sources.includes(sources.read("en", p))}


def test_a_snippet_that_hides_its_own_code_in_a_comment_is_refused_where_included(tmp_path):
    base = _base(tmp_path, {"c/x.md": "<!--\n" + GOOD.replace(selection.MARKER, "-->\n" + selection.MARKER)})
    [found] = includes.problems('--8<-- "c/x.md"\n', "docs/en/p.md", base)
    assert "snippets/c/x.md:2: the fence lies inside an HTML comment" in found
