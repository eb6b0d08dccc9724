r"""Render TeX to MathML at build time, so math needs no JavaScript and no network.

pymdownx.arithmatex (generic mode) wraps each formula in
``<span class="arithmatex">\(...\)</span>`` or ``<div class="arithmatex">\[...\]</div>``.
This hook replaces each wrapper with MathML from math-core. A formula that math-core cannot
convert fails the build, naming the page and the formula.

After the build it writes a woff2 subset of STIX Two Math (the font ziamath's wheel carries)
holding every character the site's formulas use; ``assets/css/site.css`` loads it for ``math``
(``font-display: swap``) and every page with math preloads it, so formulas are readable at first
paint and drawn in the math font as soon as it arrives.

What a reader sees, beyond math-core's output:

* Each formula keeps its TeX in a ``data-tex`` attribute; ``assets/js/reader.js`` copies that TeX
  when a formula is copied. (MathML's ``<semantics>`` + ``<annotation>`` would say the same but cost
  ~90 more bytes per formula: 17 KB on the longest chapter.)
* A sized delimiter with a script (``\Bigr\rVert_F``, ``\bigr\rVert^2``) is the base of an
  ``msub``/``msup``; Chromium lays out such an embellished operator without stretching it, so the
  closing bar stayed text size while the opening one grew. The delimiter is wrapped in an
  ``<mrow>`` with an empty ``<mi>``, which makes it an ordinary stretched operator again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import html
import os
import re
import sys
import tempfile
from pathlib import Path

import math_core
from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

FONT_URL = "assets/fonts/STIXTwoMath.woff2"
_SUBSET_FORM = "2"  # part of the cache key: a subset cached by an older form of on_post_build is not reused
_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "fonts"

_converter = math_core.LatexToMathML(pretty_print="never")
_WRAPPER = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>', re.S
)
_MATH_TEXT = re.compile(r">([^<>]+)<")
_used_chars: set[str] = set()
# Glyphs MathML draws without writing them as text (the radical of <msqrt>, stretched fences,
# big operators); always keep them and their size variants in the font subset.
_ALWAYS = set("√∑∏∫‖|()[]{}⟨⟩⌊⌋⌈⌉−+×·⋅∂∇∞≤≥≈≠→←⇒⇔↦∈∉⊆⊂∪∩∀∃ℝ𝟙^~¯ˆ˙")


# a sized delimiter (\bigr, \Bigr …: math-core gives it minsize/maxsize) as the base of a script
_SCRIPTED_FENCE = re.compile(r"<(msub|msup|msubsup)>(<mo [^>]*minsize=[^>]*>[^<]*</mo>)")
_MATH = re.compile(r"^<math(?P<attrs>[^>]*)>(?P<body>.*)</math>$", re.S)


def _with_tex(mathml: str, tex: str, where: str) -> str:
    match = _MATH.match(mathml)
    if not match:
        raise PluginError(f"{where}: math-core output is not one <math> element: {mathml[:60]!r}")
    source = html.escape(" ".join(tex.split()), quote=True)
    return f'<math{match["attrs"]} data-tex="{source}">{match["body"]}</math>'


def _to_mathml(tex: str, display: bool, where: str) -> str:
    try:
        mathml = _converter.convert_with_local_state(tex, displaystyle=display)
    except math_core.LatexError as err:
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(err))
        raise PluginError(f"{where}: cannot render formula {tex!r}\n{message}") from None
    _used_chars.update("".join(_MATH_TEXT.findall(mathml)))
    mathml = _SCRIPTED_FENCE.sub(r"<\1><mrow>\2<mi></mi></mrow>", mathml)
    return _with_tex(mathml, tex, where)


# inline formulas longer than this (in characters drawn, roughly) can be wider than a phone's
# line; they are marked so that site.css gives them their own scrolling line there
WIDE_INLINE = 24
_TEX_COMMAND = re.compile(r"\\[a-zA-Z]+|[{}_^\\\s]")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[a-zA-Z*]+\}")


def drawn_width(tex: str) -> int:
    """Roughly how many characters wide an inline formula is drawn: commands and braces count
    nothing, and a matrix's rows are stacked, so it is as wide as its widest row."""
    rows = _ENVIRONMENT.sub("", tex).split("\\\\")
    return max(len(_TEX_COMMAND.sub("", row).replace("&", "")) for row in rows)


def _replace(match: re.Match, where: str) -> str:
    return _render(html.unescape(match.group("body")).strip(), where)


def render(tex: str, display: bool, where: str) -> str:
    """One formula as the pages show it, for math that reaches a page without arithmatex (the
    markdown cells of a notebook page, ``hooks/notebooks.py``)."""
    return _render(f"\\[{tex}\\]" if display else f"\\({tex}\\)", where)


def _render(body: str, where: str) -> str:
    if body.startswith("\\(") and body.endswith("\\)"):
        mathml = _to_mathml(body[2:-2], False, where)
        if drawn_width(body[2:-2]) > WIDE_INLINE:
            return f'<span class="rn-math-wide">{mathml}</span>'
        return mathml
    if body.startswith("\\[") and body.endswith("\\]"):
        return '<div class="math-display" tabindex="0">' + _to_mathml(body[2:-2], True, where) + "</div>"
    raise PluginError(f"{where}: unexpected arithmatex output {body[:60]!r}")


def on_page_content(html_text: str, page, **kwargs) -> str:
    where = page.file.src_uri
    return _WRAPPER.sub(lambda m: _replace(m, where), html_text)


def on_post_page(output: str, page, config, **kwargs) -> str:
    """Preload the math font on pages that show math (it is needed for the first paint)."""
    if "<math" not in output:
        return output
    from mkdocs.utils import get_relative_url

    href = get_relative_url(FONT_URL, page.url or ".")
    link = f'<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin>'
    if "</title>" not in output:
        raise PluginError(f"{page.file.src_uri}: no </title> to put the math font preload after")
    return output.replace("</title>", "</title>" + link, 1)


def on_post_build(config, **kwargs) -> None:
    """Write the math font subset (cached by character set; subsetting costs ~0.4 s)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    chars = "".join(sorted(_used_chars | _ALWAYS | {chr(c) for c in range(32, 127)}))
    key = hashlib.sha256(f"{_SUBSET_FORM}\n{chars}".encode()).hexdigest()[:16]
    cached = _CACHE / f"STIXTwoMath-{key}.woff2"
    if not cached.exists():
        # find ziamath's font without importing ziamath (its import warns)
        package = importlib.util.find_spec("ziamath").submodule_search_locations[0]
        source = Path(package) / "fonts" / "STIXTwoMath-Regular.ttf"
        # head.modified stays the source font's: fontTools would stamp the save time, and every build
        # would publish a different file
        font = TTFont(source, recalcTimestamp=False)
        options = subset.Options()
        options.layout_features = ["*"]
        options.flavor = "woff2"
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=chars)
        subsetter.subset(font)
        cached.parent.mkdir(parents=True, exist_ok=True)
        font.flavor = "woff2"
        # whole or not at all: two builds at once (the tests) may fill the cache side by side
        with tempfile.NamedTemporaryFile(dir=cached.parent, prefix=f".{cached.name}.", delete=False) as tmp:
            font.save(tmp)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp.name, cached)
    target = Path(config.site_dir) / FONT_URL
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(cached.read_bytes())
