"""Promise 5 — true: every claim is cited, and every citation leads somewhere.

A citation is a link ``references.md#key`` in any page. Each key must have an entry ``{ #key }`` in
the references page of **both** languages (a reader who switches language keeps the citation), the
two references pages list the same entries in the same order, and every entry is cited by at least
one page of its language (an entry no page cites is dead weight, or a citation someone dropped).
Failures name the page and the key. The last tests feed each kind of mistake to the same functions
on a temporary folder and check that it is caught.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hooks import site_facts
from tools.checks import references

SITE = site_facts.load()
# The failure tests use two languages: the default one (D) and another (O).
D, O = SITE.default, SITE.others[0]
TWO = dataclasses.replace(SITE, languages=(D, O))


def test_every_citation_has_an_entry_in_both_languages():
    problems = references.citation_problems()
    assert not problems, "\n".join(problems)


def test_references_pages_have_the_same_entries_in_the_same_order():
    problems = references.reference_order_problems()
    assert not problems, "\n".join(problems)


def test_every_entry_is_cited_by_a_page():
    problems = references.uncited_references()
    assert not problems, "entries no page cites (cite them or remove them from both languages):\n" + "\n".join(problems)


# --------------------------------------------------------------------------- the checks can fail

_REFS = "# R { #references }\n\n**A 2020** — A. *T*.\n{ #a2020 }\n\n**B 2021** — B. *U*.\n{ #b2021 }\n"


def _docs(tmp_path: Path, d_page: str, o_page: str, d_refs: str = _REFS, o_refs: str = _REFS) -> Path:
    for lang, page, refs in ((D, d_page, d_refs), (O, o_page, o_refs)):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "chapter.md").write_text(page, encoding="utf-8")
        (tmp_path / lang / "references.md").write_text(refs, encoding="utf-8")
    return tmp_path


def test_reference_keys_are_entry_anchors_not_heading_ids():
    assert references.reference_keys(_REFS) == ["a2020", "b2021"]


def test_a_clean_tree_has_no_problems(tmp_path):
    page = "[A 2020](references.md#a2020), [B 2021](references.md#b2021)\n"
    docs = _docs(tmp_path, page, page)
    assert references.citation_problems(docs, TWO) == []
    assert references.reference_order_problems(docs, TWO) == []
    assert references.uncited_references(docs, TWO) == []


def test_a_missing_key_is_caught_with_page_and_key(tmp_path):
    page = "[A 2020](references.md#a2020), [B 2021](references.md#b2021), [C](references.md#c2022)\n"
    docs = _docs(tmp_path, page, "[A 2020](references.md#a2020), [B 2021](references.md#b2021)\n")
    assert references.citation_problems(docs, TWO) == [
        f"docs/{D}/chapter.md cites references.md#c2022, but docs/{D}/references.md has no entry {{ #c2022 }}",
        f"docs/{D}/chapter.md cites references.md#c2022, but docs/{O}/references.md has no entry {{ #c2022 }}",
    ]


def test_a_key_in_one_references_page_only_is_caught(tmp_path):
    page = "[A 2020](references.md#a2020), [B 2021](references.md#b2021)\n"
    docs = _docs(tmp_path, page, page, o_refs=_REFS.split("\n\n**B")[0] + "\n")
    assert references.citation_problems(docs, TWO) == [
        f"docs/{D}/chapter.md cites references.md#b2021, but docs/{O}/references.md has no entry {{ #b2021 }}",
        f"docs/{O}/chapter.md cites references.md#b2021, but docs/{O}/references.md has no entry {{ #b2021 }}",
    ]
    assert references.reference_order_problems(docs, TWO) == [
        f"docs/{D}/references.md and docs/{O}/references.md differ: only in docs/{D}/references.md: ['b2021']"]


def test_a_different_order_is_caught(tmp_path):
    page = "[A 2020](references.md#a2020), [B 2021](references.md#b2021)\n"
    swapped = "# R { #references }\n\n**B 2021** — B. *U*.\n{ #b2021 }\n\n**A 2020** — A. *T*.\n{ #a2020 }\n"
    docs = _docs(tmp_path, page, page, o_refs=swapped)
    assert references.citation_problems(docs, TWO) == []
    assert references.reference_order_problems(docs, TWO) == [f"docs/{D}/references.md and docs/{O}/references.md differ: same keys, different order "
                        f"from entry 1: a2020 in {D}, b2021 in {O}"]


def test_an_uncited_entry_is_caught(tmp_path):
    docs = _docs(tmp_path, "[A 2020](references.md#a2020)\n",
                 "[A 2020](references.md#a2020), [B 2021](references.md#b2021)\n")
    assert references.uncited_references(docs, TWO) == [f"docs/{D}/references.md#b2021 is cited by no page in docs/{D}/"]
