"""What a course-grade site offers beside its pages (issue 21), each checked on the built site and each
check shown to fail on a broken fixture:

1. Open in Colab: every notebook page and every chapter with a notebook links the notebook in Colab, at
   a file git tracks; the link is an ``<a href>``, so the offline scan still finds nothing loaded.
2. Cite this site: CITATION.cff is valid CFF 1.2.0, and each home page's BibTeX and text citation say
   what CITATION.cff and git say (title, authors, url, repository, commit, date).
3. Code linked to PyTorch's docs: at least 30 torch names across the site, each a class or function
   of the installed torch (the pinned version), each linked to its page in the docs of that version.
4. PDF edition (tools/site/pdf.py, ``./run pdf``): per language, enough pages, every chapter in the
   outline, prose in the edition's script, no raw TeX outside code, every font embedded, the date and
   commit on the title page; the home pages link it; the exercises' solutions are printed (open). As a
   book: title page (title, subtitle, licence), contents with each chapter's page, running headers with
   the chapter, list markers as text, lang zh-CN and Noto Sans CJK SC embedded (subset) in Chinese.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hooks import pdf_link, site_facts
from tools.checks import built_site as checks
from tools import exercise_section, sources
from tools.checks import html_scan
from tools.generators import notebooks
from tools.site.browser import NO_CHROMIUM, browser_decision

SITE = site_facts.load()


def test_every_notebook_opens_in_colab_from_a_tracked_file(built_site):
    problems = checks.colab_problems(built_site)
    assert not problems, "\n".join(problems)


def _one_chapter(site: Path, dest: Path) -> tuple[Path, str, Path, Path]:
    """A copy of one chapter page and its notebook page: (site, notebook path, chapter html, notebook html)."""
    lang, slug = SITE.default, sources.chapters()[0]
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


def test_the_first_cells_say_the_pins_and_install_them_in_colab(tmp_path):
    """The notebook opens with a note naming the pins (and the commands outside Colab), then the setup cell
    that installs exactly those pins in Colab (tests/test_notebooks.py runs it, in Colab and out)."""
    from tools.generators import compat

    pins = compat.pinned()
    for lang in SITE.languages:
        text = notebooks.setup_text(lang)
        assert f"pip install torch=={pins['torch']} --index-url {notebooks.TORCH_CPU_INDEX}" in text
        assert all(f"{dist}=={version}" in text for dist, version in pins.items())
        note, setup = notebooks.build(lang, sources.chapters(lang)[0]).cells[:2]
        assert text in note.source, f"the first cell of the {lang} notebook lacks the pins"
        assert notebooks.is_setup(setup) and setup.source == notebooks.setup_code(), \
            f"the first code cell of the {lang} notebook is not the setup cell"
    # the pins are read from requirements.txt, not written into the strings: another pin, another cell
    req = (SITE.root / "requirements.txt").read_text(encoding="utf-8")
    moved = tmp_path / "requirements.txt"
    moved.write_text(req.replace(f"torch=={pins['torch']}", "torch==9.9.9"), encoding="utf-8")
    text = notebooks.setup_text(SITE.default, moved)
    assert "torch==9.9.9 --index-url" in text and f"torch=={pins['torch']}" not in text
    code = notebooks.setup_code(moved)
    assert '"torch": "9.9.9"' in code and f'"torch": "{pins["torch"]}"' not in code


# --------------------------------------------------------------------------- citation

def _cff(path: Path = SITE.root / "CITATION.cff") -> dict:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _cff_errors(cff: dict) -> list[str]:
    import json

    import jsonschema

    schema = json.loads((Path(__file__).parent / "data" / "cff-1.2.0.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(cff)]


def test_citation_cff_is_valid_cff_1_2_0_and_names_the_site():
    cff = _cff()
    assert cff["cff-version"] == "1.2.0"
    assert not _cff_errors(cff), "CITATION.cff is no valid CFF 1.2.0:\n" + "\n".join(_cff_errors(cff))
    assert cff["url"] == SITE.site_url and cff["repository-code"] == SITE.repo_url
    # mutations: the schema (the CFF project's own, tag 1.2.0) catches a missing author and a bad date
    assert any("authors" in e for e in _cff_errors({k: v for k, v in cff.items() if k != "authors"}))
    assert _cff_errors({**cff, "date-released": "1 Dec 2026"})


def test_home_pages_cite_the_site_as_citation_cff_and_git_say(built_site):
    from hooks import citation

    commit, date = citation.git_version(SITE.root)
    assert commit, "the tests run in a git work tree"
    problems = checks.citation_problems(built_site, _cff(), commit, date)
    assert not problems, "\n".join(problems)


def test_a_citation_that_drifted_from_citation_cff_or_git_is_found(built_site):
    """Mutation: CITATION.cff or the commit changed after the build: the built citation no longer matches."""
    from hooks import citation

    commit, date = citation.git_version(SITE.root)
    cff = _cff()
    home = SITE.url_of(SITE.default, "index.md") + "index.html"
    found = checks.citation_problems(built_site, {**cff, "title": cff["title"] + " 2"}, commit, date)
    assert len(found) >= len(SITE.languages) and any(p.startswith(f"{home}: BibTeX title") for p in found), found
    found = checks.citation_problems(built_site, cff, "0" * 40, date)
    assert any("BibTeX version" in p for p in found) and any("lacks '000000000000'" in p for p in found), found
    authors = [{"given-names": "Ada", "family-names": "Lovelace"}]
    assert any("BibTeX author" in p for p in checks.citation_problems(built_site, {**cff, "authors": authors}, commit, date))


def test_bibtex_parser_reads_braces_and_rejects_broken_entries():
    bib = checks.parse_bibtex('@misc{k-1,\n  author = {{A B} and {C}},\n  title = "T",\n  note = {x, y},\n}')
    assert bib == {"ENTRYTYPE": "misc", "ID": "k-1", "author": "{A B} and {C}", "title": "T", "note": "x, y"}
    for broken in ("@misc{k, title = {T}", "misc{k, title = {T}}", "@misc{k, title = T}"):
        try:
            checks.parse_bibtex(broken)
        except ValueError:
            continue
        raise AssertionError(f"parsed a broken entry: {broken}")


def test_the_citation_hook_fails_on_a_cff_that_disagrees_with_mkdocs_yml_and_cites_no_commit_without_git(tmp_path):
    import pytest
    from mkdocs.exceptions import PluginError

    from hooks import citation

    text = (SITE.root / "CITATION.cff").read_text(encoding="utf-8")
    (tmp_path / "CITATION.cff").write_text(text, encoding="utf-8")
    out = citation.citation(SITE, SITE.default, tmp_path)  # no git work tree: no commit, said so
    assert SITE.text(SITE.default, "citation_no_commit") in out and "version = " not in out
    (tmp_path / "CITATION.cff").write_text(text.replace(SITE.site_url, "https://example.org/"), encoding="utf-8")
    with pytest.raises(PluginError, match=r"CITATION\.cff has url: https://example\.org/ but mkdocs\.yml's site_url"):
        citation.citation(SITE, SITE.default, tmp_path)
    (tmp_path / "CITATION.cff").unlink()
    with pytest.raises(PluginError, match=r"CITATION\.cff does not exist"):
        citation.citation(SITE, SITE.default, tmp_path)


# --------------------------------------------------------------------------- code linked to PyTorch's docs

MIN_TORCH_NAMES = 30


def test_code_links_at_least_30_torch_names_each_an_object_of_the_pinned_torch(built_site):
    from tools.generators import compat

    links = checks.torch_links(built_site)
    assert len(links) >= MIN_TORCH_NAMES, f"only {len(links)} torch names linked across the site: {sorted(links)}"
    problems = checks.torch_link_problems(links, compat.pinned()["torch"])
    assert not problems, "\n".join(problems)


def test_a_linked_name_torch_does_not_have_is_found():
    """Mutation: a link to a name the pinned torch lacks, one to the wrong page, a wrong pin."""
    from hooks import torch_docs

    good = {"torch.randn": {torch_docs.doc_url("torch.randn")}}
    assert checks.torch_link_problems(good, f"{torch_docs.version()}.0") == []
    [p] = checks.torch_link_problems({"torch.nn.NoSuchLayer": {torch_docs.doc_url("torch.nn.NoSuchLayer")}},
                                     f"{torch_docs.version()}.0")
    assert p.startswith("torch.nn.NoSuchLayer:") and "no class or function" in p
    [p] = checks.torch_link_problems({"torch.randn": {torch_docs.doc_url("torch.rand")}}, f"{torch_docs.version()}.0")
    assert "expected" in p
    assert any("pins 1.0.0" in p for p in checks.torch_link_problems(good, "1.0.0"))


def _highlight(code: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))


def test_the_hook_links_only_names_the_block_reaches_through_torch_and_keeps_the_text():
    import html
    import re

    from hooks import torch_docs

    code = ("import torch\nimport torch.nn as nn\nfrom torch.autograd.functional import jacobian\n"
            "x = torch.nn.functional.relu(nn.Linear(2, 2).weight)\ny = F.relu(x)\n"  # F is not imported here
            "z = torch.no_such_function(x)\nw = torch.float64\nm = nn\nq = model.nn.Linear\n")
    out, linked = torch_docs.link_block(_highlight(code))
    # the imported function is linked where it is imported; F (not imported here), a name torch lacks,
    # a dtype, a module and a chain that does not start at an import stay plain
    assert linked == ["torch.autograd.functional.jacobian", "torch.nn.functional.relu", "torch.nn.Linear"], linked
    text = lambda h: html.unescape(re.sub(r"<[^>]+>", "", h))  # noqa: E731 - what the copy button copies
    assert text(out) == text(_highlight(code))
    assert 'href="https://docs.pytorch.org/docs/' in out and "no_such_function</span></a>" not in out
    # a mutated inventory that holds whatever is written is caught by the built-site check
    assert not torch_docs.public("torch.no_such_function")
    assert not torch_docs.public("torch.float64") and not torch_docs.public("torch.nn")


def test_the_pages_elsewhere_name_objects_of_the_installed_torch():
    from hooks import torch_docs
    from tools.generators import torch_names

    for name in (*torch_docs.ELSEWHERE, *(f"{m}.zeros_" for m in torch_docs.ONE_PAGE)):
        assert torch_names.linkable(torch_names.resolve(name)) and torch_docs.public(name), name
        assert torch_docs.version() in torch_docs.doc_url(name)


# --------------------------------------------------------------------------- PDF edition

import re  # noqa: E402

import pytest  # noqa: E402


def _chapter_titles(site: Path, lang: str) -> list[str]:
    import html

    titles = []
    for page in SITE.nav_pages:
        text = (site / SITE.url_of(lang, page) / "index.html").read_text(encoding="utf-8")
        h1 = re.search(r"<h1\b[^>]*>(.*?)</h1>", text, re.S)
        titles.append(html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))).replace("¶", "").strip())
    return titles


def _code_lines() -> set[str]:
    from tools.runner import selection

    return {line.strip() for path in sorted(selection.SNIPPETS.rglob("*.md"))
            for block in selection.extract(path) for line in (block.code + "\n" + (block.expected or "")).splitlines()}


def _pdf_job(site: Path, tmp: Path, config) -> dict:
    """The editions printed, then read as the three tests below read them: reading them is most of the work
    (pdftotext, pdftoppm, fonts), done here in the background rather than in pytest's own thread."""
    from tools.site import pdf

    pdf.write(site, out_dir=tmp)
    return {"folder": tmp, "outline": _outline_problems(site, tmp), "book": _book_problems(site, tmp),
            "solutions": _solution_problems(tmp)}


@pytest.fixture(scope="session")
def pdf_editions(built_site, after_build) -> dict:
    if browser_decision() != "run":
        pytest.skip(NO_CHROMIUM) if browser_decision() == "skip" else pytest.fail(NO_CHROMIUM)
    return after_build("pdf_editions")


def _outline_problems(built_site: Path, folder: Path) -> list[str]:
    from hooks import citation
    from tools.site import pdf

    commit, date = citation.git_version(SITE.root)
    found = []
    for lang in SITE.languages:
        path = folder / pdf.pdf_name(SITE, lang)
        if not path.exists():
            found.append(f"tools/site/pdf.py wrote no {pdf.pdf_name(SITE, lang)}")
            continue
        found += pdf.problems(path, SITE.text(lang, "script"), _chapter_titles(built_site, lang), [date, commit[:12]],
                              _code_lines(), min_pages=2 + len(SITE.nav_pages))
        found += pdf.size_problems(path)
    return found


def test_each_language_has_a_pdf_edition_with_outline_its_language_and_no_raw_tex(pdf_editions):
    assert not pdf_editions["outline"], "\n".join(pdf_editions["outline"])


def _book_problems(built_site: Path, folder: Path) -> list[str]:
    import html

    from hooks import citation
    from tools.site import pdf

    commit, date = citation.git_version(SITE.root)
    found = []
    for lang in SITE.languages:
        path = folder / pdf.pdf_name(SITE, lang)
        chapters = list(zip([pdf._slug(p) for p in SITE.nav_pages], _chapter_titles(built_site, lang)))
        found += pdf.book_problems(path, chapters, pdf.PRINT_LANG.get(lang, lang))
        page = pdf.print_page(built_site, lang, SITE, commit, date)
        lines = pdf.list_lines(page)
        if not (any(line[0].isdigit() for line in lines) and any(line[0] == "\u2022" for line in lines)):
            found.append(f"{path.name}: the print page has no numbered and no bulleted list item to look for: {lines}")
        found += pdf.missing(path, lines)
        found += pdf.icon_problems(path, pdf.box_titles(page))
        home = (built_site / SITE.url_of(lang, "index.md") / "index.html").read_text(encoding="utf-8")
        title = html.unescape(re.search(r"<title>(.*?)</title>", home, re.S).group(1)).rsplit(" - ", 1)[-1].strip()
        subtitle = html.unescape(re.search(r'<meta name="description" content="([^"]*)"', home).group(1))
        cover = re.sub(r"\s+", "", pdf._run("pdftotext", "-l", "1", str(path), "-"))
        found += [f"{path.name}: the title page lacks {s!r}" for s in (title, subtitle, SITE.text(lang, "pdf_licence"))
                  if re.sub(r"\s+", "", s) not in cover]
    return found


def test_each_pdf_edition_is_a_book(pdf_editions):
    """Each edition as a reader holds it: its language tag (zh-CN: the Simplified-Chinese glyphs), a
    Simplified-Chinese face embedded in the Chinese one, the contents giving each chapter's page, each
    chapter's pages headed by its name, every list item's marker (``1.``, ``•``) printed as text, each box
    title's icon beside it, and a title page with the title, subtitle and licence (the date and commit:
    the test above). Read in the job that prints them (``_book_problems``)."""
    assert not pdf_editions["book"], "\n".join(pdf_editions["book"])


class _Pages:
    """The site's facts with a shorter nav: a small edition to print."""

    def __init__(self, facts, pages):
        self._facts, self.nav_pages = facts, pages

    def __getattr__(self, name):
        return getattr(self._facts, name)


BOOK_PAGES = ["verification.md", "references.md"]  # short; ordered and unordered lists; a chapter of two pages


def test_a_bad_book_is_found(built_site, tmp_path):
    """Mutations of a small edition (two chapters): printed well, it passes; printed with wrong page numbers
    in the contents, no running headers, the bare language tag "zh", no ``dir`` on its body (Material's list
    indents and admonition icons need it: the markers fell off the page, the icons covered the titles)
    and bullets drawn as shapes, each is named; an edition whose Chinese face is not Simplified Chinese too."""
    from tools.site import pdf

    lang = SITE.default
    facts = _Pages(SITE, BOOK_PAGES)
    title = dict(zip(SITE.nav_pages, _chapter_titles(built_site, lang)))
    chapters = [(pdf._slug(p), title[p]) for p in BOOK_PAGES]
    good = tmp_path / "good.pdf"
    starts = pdf.print_edition(built_site, lang, facts, "0123456789ab", "2026-12-05", good)
    assert starts[chapters[1][0]] > starts[chapters[0][0]] + 1, starts  # the first chapter has two pages or more
    assert pdf.book_problems(good, chapters, "zh-CN") == []
    page = pdf.print_page(built_site, lang, facts, "0123456789ab", "2026-12-05")
    lines = pdf.list_lines(page)
    assert pdf.missing(good, lines) == [] and any(line.startswith("1.") for line in lines), lines

    bad = pdf.print_page(built_site, lang, facts, "0123456789ab", "2026-12-05", numbers={s: 99 for s, _ in chapters})
    bad = re.sub(r"@top-center \{[^}]*\}", "", bad).replace('lang="zh-CN"', 'lang="zh"').replace('<body dir="ltr">', "<body>")
    bad = re.sub(r"\.md-typeset ul \{ list-style-type: [^}]*\}", "", bad)
    out = tmp_path / "bad.pdf"
    pdf.print_pdf(bad, built_site, out)
    found = pdf.book_problems(out, chapters, "zh-CN")
    for expected in ("its language is 'zh', not 'zh-CN'", f"the contents give {chapters[0][1]!r} page 99",
                     f"the running header is"):
        assert any(p.startswith("bad.pdf") and expected in p for p in found), (expected, found)
    lost = pdf.missing(out, lines)
    assert any("'1." in p for p in lost) and any("'\u2022" in p for p in lost), lost

    # a box's title beside its icon, and (Material's [dir=ltr] rules lost) under it
    head = page[:page.index("<body")]
    box = ('<section class="rn-chapter md-typeset"><div class="admonition warning"><p class="admonition-title">'
           "原文二的说法：残差连接让梯度更稳定</p><p>正文。</p></div></section></body></html>")
    pdf.print_pdf(f'{head}<body dir="ltr">{box}', built_site, tmp_path / "box.pdf")
    titles = pdf.box_titles(box)
    assert titles == ["原文二的说法：残差连接让梯度更稳定"] and pdf.icon_problems(tmp_path / "box.pdf", titles) == []
    pdf.print_pdf(f"{head}<body>{box}", built_site, tmp_path / "icon.pdf")
    assert pdf.icon_problems(tmp_path / "icon.pdf", titles) == [
        "icon.pdf, page 1: no icon beside the box title '原文二的说法：残差连接让梯度更稳定' (it lies over the title)"]
    assert pdf.icon_problems(tmp_path / "icon.pdf", ["不在这里"]) == ["icon.pdf: none of 1 box titles found as a printed line"]

    import pikepdf

    with pikepdf.open(good) as doc:  # the same edition with its Chinese face renamed as WenQuanYi's
        for obj in doc.objects:
            if isinstance(obj, pikepdf.Dictionary):
                for key in ("/BaseFont", "/FontName"):
                    if key in obj and "CJKsc" in str(obj[key]):
                        obj[key] = pikepdf.Name(str(obj[key]).replace("NotoSansCJKsc", "WenQuanYiZenHei"))
        doc.save(tmp_path / "tc.pdf")
    assert any(p.startswith("tc.pdf: no Simplified-Chinese face embedded")
               for p in pdf.book_problems(tmp_path / "tc.pdf", chapters, "zh-CN"))


def test_a_plain_build_links_the_published_pdf_and_no_missing_file(built_site):
    """``mkdocs build`` writes no PDF: each home page links the published edition, a click away (an
    ``<a href>``, nothing loaded), and no link points at a file the site lacks."""
    from tools.site import pdf

    assert pdf.link_problems(built_site) == []
    for lang in SITE.languages:
        assert not (built_site / pdf.pdf_name(SITE, lang)).exists(), "a plain build holds a PDF: the test proves nothing"
        text = (built_site / SITE.url_of(lang, "index.md") / "index.html").read_text(encoding="utf-8")
        assert f'href="{SITE.site_url}{pdf.pdf_name(SITE, lang)}"' in text, lang
        assert "./run pdf" in text, f"{lang}: the home page does not say that ./run pdf prints a local edition"
    assert html_scan.external_assets(built_site) == []


def _home_pages(site: Path, dest: Path) -> Path:
    for lang in SITE.languages:
        rel = SITE.url_of(lang, "index.md")
        (dest / rel).mkdir(parents=True, exist_ok=True)
        shutil.copy(site / rel / "index.html", dest / rel / "index.html")
    return dest


def test_with_the_pdf_in_the_site_the_home_pages_link_the_local_file(built_site, tmp_path):
    """What ``tools/site/pdf.py`` does after printing into the site (:func:`tools.site.pdf.localize`), on a copy of the
    home pages with stand-in PDF files; and the mutations: a link to a file the site lacks, a published link
    where the site holds its own, a home page without the link."""
    from tools.site import pdf

    site = _home_pages(built_site, tmp_path / "site")
    homes = {lang: SITE.url_of(lang, "index.md") + "index.html" for lang in SITE.languages}
    with pytest.raises(SystemExit, match=re.escape(str(site / pdf.pdf_name(SITE, SITE.default)))):
        pdf.localize(site)  # no PDF yet: nothing is relinked
    found = [p for p in pdf.link_problems(site) if "does not hold" in p]
    assert found == [], found
    (site / pdf_link.FOLDER).mkdir()
    for lang in SITE.languages:
        (site / pdf.pdf_name(SITE, lang)).write_bytes(b"%PDF-1.7 stand-in")
    found = pdf.link_problems(site)  # the site holds its PDFs, the pages still link the published ones
    assert sorted(p.split(":")[0] for p in found if "links the published" in p) == sorted(homes.values()), found
    assert sorted(str(p.relative_to(site)) for p in pdf.localize(site)) == sorted(homes.values())
    assert pdf.link_problems(site) == []
    for lang, home in homes.items():
        text = (site / home).read_text(encoding="utf-8")
        assert SITE.site_url + pdf.pdf_name(SITE, lang) not in text and " download>" in text, lang
    assert pdf.localize(site) and pdf.link_problems(site) == []  # a second run changes nothing
    gone = pdf.pdf_name(SITE, SITE.default)
    (site / gone).unlink()
    found = pdf.link_problems(site)
    assert len(found) == 1 and found[0].startswith(f"{homes[SITE.default]}: links ") and "does not hold" in found[0], found
    (site / gone).write_bytes(b"%PDF-1.7 stand-in")
    page = site / homes[SITE.default]
    page.write_text(pdf_link.LINK.sub("", page.read_text(encoding="utf-8")), encoding="utf-8")
    assert any(p.startswith(f"{homes[SITE.default]}: no link to its edition") for p in pdf.link_problems(site))
    with pytest.raises(SystemExit, match=re.escape(str(page)) + ".*has no PDF link"):
        pdf.localize(site)


def test_the_pdf_link_marker_belongs_on_a_home_page():
    from mkdocs.exceptions import PluginError
    from types import SimpleNamespace

    config = SimpleNamespace(config_file_path=str(SITE.root / "mkdocs.yml"))
    page = SimpleNamespace(file=SimpleNamespace(src_uri=f"{SITE.default}/ffn-design.md"), url=SITE.url_of(SITE.default, "ffn-design.md"))
    with pytest.raises(PluginError, match="ffn-design.md has <!-- pdf-edition -->"):
        pdf_link.on_page_markdown("<!-- pdf-edition -->\n", page, config, None)


def test_a_bad_edition_is_found(built_site, tmp_path):
    """Mutation: an edition with raw TeX in its prose, the wrong language, too few pages, a missing
    chapter in the outline and no commit on its title page."""
    from tools.site import pdf

    bad = ('<!doctype html><html lang="zh"><body><h1>Title</h1><p>Some English prose, with '
           r"raw TeX $$\frac{a}{b}$$ left in it.</p></body></html>")
    out = tmp_path / "bad.pdf"
    pdf.print_pdf(bad, built_site, out)
    found = pdf.problems(out, "han", ["Title", "第二章"], ["0123456789ab"], set(), min_pages=3)
    for expected in ("pages, expected at least 3", "outline lacks the chapter '第二章'", "not what a han edition",
                     "raw TeX outside code", "title page lacks '0123456789ab'"):
        assert any(p.startswith("bad.pdf") and expected in p for p in found), (expected, found)
    assert not any("'Title'" in p for p in found), found
    assert pdf.size_problems(out) == []  # a small edition, compacted, its CJK font subset
    from tools import files

    assert out.stat().st_mode & 0o777 == 0o666 & ~files._umask(), oct(out.stat().st_mode)  # not mkstemp's 0600
    big = pdf.size_problems(out, budget=1000, font_budget=100)
    assert any(p.startswith("bad.pdf: ") and "over its budget of 0.0 MB" in p for p in big), big
    assert any(p.startswith("bad.pdf: the font ") and "is embedded in" in p for p in big), big
    import pikepdf

    with pikepdf.open(out) as doc:  # the same file saved as Chromium writes it: no object streams
        doc.save(tmp_path / "plain.pdf", object_stream_mode=pikepdf.ObjectStreamMode.disable)
    assert pdf.size_problems(tmp_path / "plain.pdf") == ["plain.pdf: no object streams (every object a plain dictionary of its own)"]
    # the same TeX line is allowed where it is a line of a snippet's code
    tex_line = next(p for p in found if "raw TeX" in p).split(": ", 1)[1].split(": ", 1)[1]
    assert not any("raw TeX" in p for p in pdf.problems(out, "han", [], [], {tex_line}, 1))


def test_the_print_page_carries_its_cjk_font_subset_to_its_characters(tmp_path):
    """Chromium embedded the whole font collection (wqy-zenhei.ttc, 9.2 MB) in the Chinese edition: the print
    page serves the regular and the bold face of Noto Sans CJK SC, reduced to its wide characters."""
    from fontTools.ttLib import TTFont

    from tools.site import pdf

    page = "<p>Residual 残差&#x7b14;记，<code>x</code></p>"
    chars = pdf.wide_chars(page)
    assert chars == "".join(sorted("残差笔记，")), chars
    for weight, style in ((400, "Regular"), (700, "Bold")):
        font = TTFont(pdf.subset_font(chars, tmp_path / "cjk.ttf", weight))
        assert {chr(c) for c in font.getBestCmap()} == set(chars)
        assert (tmp_path / "cjk.ttf").stat().st_size < 100_000
        # the Simplified-Chinese face, in TrueType outlines (Skia writes a CFF font as unsubset Type 3 fonts)
        assert font["name"].getDebugName(1) == "Noto Sans CJK SC" and font["name"].getDebugName(2) == style
        assert "glyf" in font and "CFF " not in font
    styled = pdf._with_font("<html><head></head><body></body></html>", {400: "cjk.ttf", 700: "cjk-bold.ttf"})
    assert styled.index('src: url("cjk.ttf")') < styled.index("</head>") and "unicode-range: U+2E80-10FFFF" in styled
    assert 'src: url("cjk-bold.ttf") format("truetype"); font-weight: 700' in styled
    with pytest.raises(SystemExit, match="apt-get install fonts-noto-cjk"):  # fontconfig would substitute another
        pdf.cjk_font(400, families=("No Such Sans CJK SC",))
    assert pdf.wide_chars("<p>only Latin, ✔ and “quotes”</p>") == ""


def test_printing_an_edition_writes_nothing_into_the_built_site(built_site, tmp_path):
    """The print page and its fonts were written into the built site while an edition printed, and another
    job, reading the site at that moment, found a page whose images did not resolve: they are served
    beside the site (``serve_published(beside=...)``); a reader watching the site while it prints sees
    no new file."""
    import threading
    import urllib.request

    from tools.site import browser, pdf

    before = sorted(p.name for p in built_site.iterdir())
    seen, done = set(), threading.Event()

    def watch():
        while not done.wait(0.005):
            seen.update(p.name for p in built_site.iterdir())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        pdf.print_pdf('<html lang="zh-CN"><head><meta charset="utf-8"></head><body><p>残差笔记</p></body></html>',
                      built_site, tmp_path / "small.pdf")
    finally:
        done.set()
        watcher.join()
    assert sorted(seen) == before and sorted(p.name for p in built_site.iterdir()) == before
    assert (tmp_path / "small.pdf").stat().st_size > 1000

    (tmp_path / "beside").mkdir()
    (tmp_path / "beside" / ".print.html").write_text("<p>残差</p>", encoding="utf-8")
    with browser.serve_published(built_site, beside=tmp_path / "beside") as base:
        assert "残差" in urllib.request.urlopen(base + ".print.html").read().decode()
        assert urllib.request.urlopen(base + "index.html").read() == (built_site / "index.html").read_bytes()
    (tmp_path / "beside" / "index.html").write_text("not the site's", encoding="utf-8")
    with pytest.raises(FileExistsError, match="index.html is already in the site"):
        with browser.serve_published(built_site, beside=tmp_path / "beside"):
            pass


def _solution_outputs(lang: str) -> list[str]:
    """The last line of each exercise solution's snippet output, on every chapter of ``lang``."""
    from tools import exercise_section, sources
    from tools.runner import selection
    
    found = []
    for slug in sources.chapters(lang):
        section = exercise_section.parse((SITE.docs / lang / f"{slug}.md").read_text(encoding="utf-8"))
        for ex in section.exercises if section else []:
            for name in sources.includes(ex.solution):
                found += [b.expected.strip().splitlines()[-1] for b in selection.extract(selection.SNIPPETS / name)
                          if b.expected and b.expected.strip()]
    return found


def _solution_problems(folder: Path) -> list[str]:
    from tools.site import pdf

    found = []
    for lang in SITE.languages:
        lines = _solution_outputs(lang)
        if not lines:
            found.append(f"no exercise solution in {lang} prints anything: nothing to look for")
        found += pdf.missing(folder / pdf.pdf_name(SITE, lang), lines)
    return found


def test_the_pdf_editions_print_the_exercise_solutions(pdf_editions):
    assert not pdf_editions["solutions"], "\n".join(pdf_editions["solutions"])


def test_a_solution_left_collapsed_is_missing_from_the_pdf(built_site, tmp_path):
    """Mutation: a closed <details> prints only its summary (tools/site/pdf.py opens them before printing)."""
    from tools.site import pdf

    row = " 256    -0.099   -0.098"  # a row of a printed table: its columns must stay one line
    page = ('<!doctype html><html lang="en"><body><h1>T</h1><details class="success"><summary>Solution</summary>'
            f"<pre><code>   n  mean log  -L/(2n)\n{row}\n</code></pre></details></body></html>")
    out = tmp_path / "closed.pdf"
    pdf.print_pdf(page, built_site, out)
    assert pdf.missing(out, ["Solution"]) == []
    assert pdf.missing(out, [row]) == [f"closed.pdf: lacks the line {row!r}"]
    pdf.print_pdf(page.replace("<details", "<details open"), built_site, out)
    assert pdf.missing(out, [row]) == []


# tests/conftest.py prints the PDF editions as soon as the strict build is done, in a background job
# after the browser's reader passes (tests/test_browser.py), when there is a browser to print with
AFTER_BUILD = {"pdf_editions": (_pdf_job, "notebook_figures_seen")} if browser_decision() == "run" else {}
