"""What a course-grade site offers beside its pages (issue 21), each checked on the built site and each
check shown to fail on a broken fixture:

1. Open in Colab: every notebook page and every chapter with a notebook links the notebook in Colab, at
   a file git tracks; the link is an ``<a href>``, so the offline scan still finds nothing loaded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hooks import site_facts
from tools import built_site as checks
from tools import html_scan, notebooks

SITE = site_facts.load()


def test_every_notebook_opens_in_colab_from_a_tracked_file(built_site):
    problems = checks.colab_problems(built_site)
    assert not problems, "\n".join(problems)


def _one_chapter(site: Path, dest: Path) -> tuple[Path, str, Path, Path]:
    """A copy of one chapter page and its notebook page: (site, notebook path, chapter html, notebook html)."""
    lang, slug = SITE.default, notebooks.chapters()[0]
    out = []
    for page in (f"{slug}.md", f"notebooks/{slug}.ipynb"):
        rel = SITE.url_of(lang, page)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        out.append(shutil.copy(site / rel / "index.html", dest / rel / "index.html"))
    return dest, f"docs/{lang}/notebooks/{slug}.ipynb", Path(out[0]), Path(out[1])


def test_a_colab_link_must_open_a_tracked_notebook(built_site, tmp_path):
    site, nb, chapter, page = _one_chapter(built_site, tmp_path / "site")
    tracked = checks.tracked_files(SITE.root)
    assert nb in tracked and checks.colab_problems(site, tracked=tracked) == []
    found = checks.colab_problems(site, tracked=tracked - {nb})
    assert len(found) == 2 and all("opens no notebook git tracks" in p for p in found), found
    assert {p.split(":")[0] for p in found} == {chapter.relative_to(site).as_posix(), page.relative_to(site).as_posix()}


def test_a_page_without_its_colab_link_or_with_another_repository_fails(built_site, tmp_path):
    site, nb, chapter, _ = _one_chapter(built_site, tmp_path / "site")
    good = SITE.colab_url(nb.removeprefix("docs/"))
    text = chapter.read_text(encoding="utf-8")
    assert good in text
    chapter.write_text(text.replace(good, good.replace(SITE._repo(), "someone/else")), encoding="utf-8")
    found = checks.colab_problems(site)
    rel = chapter.relative_to(site).as_posix()
    assert any(p.startswith(f"{rel}: no Colab link") for p in found), found
    assert any(p.startswith(rel) and "someone/else" in p and "opens no notebook" in p for p in found), found


def test_the_colab_link_is_not_loaded_by_the_page(built_site, tmp_path):
    site, _, chapter, _ = _one_chapter(built_site, tmp_path / "site")
    (site / "assets").mkdir()
    assert html_scan.external_assets(site) == []  # an <a href> to Colab is opened by the reader, never loaded
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(
        "</article>", f'<iframe src="{site_facts.COLAB}x/y/blob/main/z.ipynb"></iframe></article>', 1), encoding="utf-8")
    found = html_scan.external_assets(site)
    assert len(found) == 1 and site_facts.COLAB in found[0] and chapter.relative_to(site).as_posix() in found[0], found


def test_the_first_cell_says_the_pins_and_how_to_install_them_in_colab(tmp_path):
    from tools import compat

    pins = compat.pinned()
    for lang in SITE.languages:
        text = notebooks.setup_text(lang)
        assert f"%pip install torch=={pins['torch']} --index-url {notebooks.TORCH_CPU_INDEX}" in text
        assert all(f"{dist}=={version}" in text for dist, version in pins.items())
        first = notebooks.build(lang, notebooks.chapters(lang)[0]).cells[0]
        assert text in first.source, f"the first cell of the {lang} notebook lacks the pins"
    # the pins are read from requirements.txt, not written into the strings: another pin, another cell
    req = (SITE.root / "requirements.txt").read_text(encoding="utf-8")
    moved = tmp_path / "requirements.txt"
    moved.write_text(req.replace(f"torch=={pins['torch']}", "torch==9.9.9"), encoding="utf-8")
    text = notebooks.setup_text(SITE.default, moved)
    assert "torch==9.9.9 --index-url" in text and f"torch=={pins['torch']}" not in text
