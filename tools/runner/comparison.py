"""The figures and data files a block saves, compared with the committed ones by content: an SVG with a
tolerance of ``FIGURE_TOLERANCE`` on every number (no reader can see it) and identical structure and text; a
data file (``*.json``, an explorable figure's data) with identical structure, keys and strings and every number
within ``DATA_TOLERANCE`` relative; anything else byte for byte. A difference names the element or key path
and the largest delta."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

FIGURE_TOLERANCE = 1e-3  # px (SVG user units) on every number of every attribute
FIGURE_SUFFIXES = (".svg", ".png")
DATA_TOLERANCE = 1e-4  # relative, on every number of a data file (a hover shows 2-4 significant digits)
DATA_SUFFIX = ".json"

# --------------------------------------------------------------------------- figures

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_MPL_ID = re.compile(r"^[a-z][0-9a-f]{10}$")  # matplotlib's hashed ids (clip paths, markers): they hash coordinates
_MPL_REF = re.compile(r"#([a-z][0-9a-f]{10})\b")


@dataclass
class FigureDiff:
    where: str  # the first differing element
    what: str  # how it differs
    largest: float  # the largest delta of any number (0 if the structure differs)
    moved: bool  # beyond the tolerance, or structure or text differ

    def __str__(self) -> str:
        return f"first difference at {self.where}: {self.what}; largest delta of any number {self.largest:.3g}"


def _canonical(svg: bytes) -> list[tuple[str, ET.Element]]:
    root = ET.fromstring(svg)
    names: dict[str, str] = {}
    for el in root.iter():
        i = el.get("id")
        if i and _MPL_ID.match(i):
            names[i] = f"{i[0]}@{len(names)}"
    out = []

    def walk(el: ET.Element, where: str) -> None:
        for k, v in list(el.attrib.items()):
            v = names.get(v, v) if k == "id" else _MPL_REF.sub(lambda m: "#" + names.get(m.group(1), m.group(1)), v)
            el.set(k, v)
        tag = el.tag.rsplit("}", 1)[-1]
        label = f"<{tag}" + (f" id={el.get('id')!r}" if el.get("id") else "") + ">"
        here = f"{where} > {label}" if where else label
        out.append((here, el))
        for child in el:
            walk(child, here)

    walk(root, "")
    return out


_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b")


def _colour(token: str) -> str:
    """A hex colour by its meaning: lower case, ``#abc`` as ``#aabbcc`` (``#abcd`` as ``#aabbccdd``)."""
    h = token[1:].lower()
    return "#" + ("".join(c * 2 for c in h) if len(h) in (3, 4) else h)


def _numbers(text: str) -> tuple[list[str], list[float]]:
    """An attribute's text without its numbers, and the numbers. A hex colour is text, not digits: ``#000000``
    and ``#00e000`` read as the number 0 each (``00e000`` is a float), so a recoloured figure passed."""
    skeleton, numbers = [], []
    parts = _HEX_COLOUR.split(text)
    for i, part in enumerate(parts):
        skeleton += _NUMBER.split(part)
        numbers += [float(x) for x in _NUMBER.findall(part)]
        if i < len(parts) - 1:
            skeleton.append(_colour(_HEX_COLOUR.findall(text)[i]))
    return skeleton, numbers


def compare_svg(committed: bytes, drawn: bytes, tolerance: float = FIGURE_TOLERANCE) -> FigureDiff | None:
    """None if equal within ``tolerance`` on every number, with identical structure and text."""
    try:
        a, b = _canonical(committed), _canonical(drawn)
    except ET.ParseError as err:
        return FigureDiff("the document", f"not well-formed XML ({err})", 0.0, True)
    if len(a) != len(b):
        for (wa, ea), (wb, eb) in zip(a, b):
            if wa != wb:
                return FigureDiff(wb, f"element {wb.rsplit(' > ', 1)[-1]} where the committed file has "
                                      f"{wa.rsplit(' > ', 1)[-1]} ({len(a)} elements committed, {len(b)} now)", 0.0, True)
        return FigureDiff("the end", f"{len(a)} elements committed, {len(b)} now", 0.0, True)
    largest, first = 0.0, None
    for (wa, ea), (wb, eb) in zip(a, b):
        if wa != wb or ea.tag != eb.tag:
            return FigureDiff(wb, f"element {wb} where the committed file has {wa}", 0.0, True)
        if sorted(ea.attrib) != sorted(eb.attrib):
            return FigureDiff(wb, f"attributes {sorted(eb.attrib)}, committed {sorted(ea.attrib)}", 0.0, True)
        for part in ("text", "tail"):
            ta, tb = (getattr(ea, part) or "").strip(), (getattr(eb, part) or "").strip()
            if ta != tb:
                return FigureDiff(wb, f"{part} {tb!r}, committed {ta!r}", 0.0, True)
        for k in ea.attrib:
            va, vb = ea.get(k), eb.get(k)
            if va == vb:
                continue
            (sa, na), (sb, nb) = _numbers(va), _numbers(vb)
            if sa != sb or len(na) != len(nb):
                return FigureDiff(wb, f"attribute {k.rsplit('}', 1)[-1]}={_short(vb)!r}, committed {_short(va)!r}",
                                  0.0, True)
            for j, (x, y) in enumerate(zip(na, nb)):
                d = abs(x - y)
                if d > largest:
                    largest = d
                if d > tolerance and first is None:
                    first = (wb, f"attribute {k.rsplit('}', 1)[-1]}, number {j + 1}: {y!r} now, {x!r} committed")
                elif d > 0 and first is None and largest == d:
                    pass
    if first:
        return FigureDiff(first[0], first[1], largest, True)
    if largest:
        return FigureDiff("-", "all numbers within the tolerance", largest, False)
    return None


def _json_path(path: str, key) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))


def _no_constant(name: str):
    raise ValueError(f"{name} is no JSON number (json.dump writes it unless allow_nan=False); the browser's "
                     "JSON.parse refuses the file")


def json_problem(data: bytes) -> str | None:
    """Why ``data`` is no file a browser's ``JSON.parse`` reads (not UTF-8, not JSON, or a ``NaN`` /
    ``Infinity`` / ``-Infinity``, which Python's json reads and writes but JSON has not), or None."""
    try:
        json.loads(data, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as err:
        return f"not valid JSON ({err})"
    return None


def compare_json(committed: bytes, drawn: bytes, tolerance: float = DATA_TOLERANCE) -> FigureDiff | None:
    """None if equal: same structure (keys, lengths, types), same strings, every number within ``tolerance``
    relative to the larger of the two (``FigureDiff.largest`` is the largest relative delta, ``where`` a key path
    such as ``frames[2].series.plain[17]``)."""
    for which, text in (("the committed file", committed), ("the file written now", drawn)):
        bad = json_problem(text)
        if bad:
            return FigureDiff("the document", f"{which}: {bad}", 0.0, True)
    a, b = json.loads(committed), json.loads(drawn)
    largest, first, stack = 0.0, None, [("", a, b)]
    while stack:
        where, x, y = stack.pop(0)
        number = (int, float)
        if isinstance(x, number) and isinstance(y, number) and not isinstance(x, bool) and not isinstance(y, bool):
            scale = max(abs(x), abs(y))
            d = abs(x - y) / scale if scale else 0.0
            if d > largest:
                largest = d
            if d > tolerance and first is None:
                first = (where or "-", f"{y!r} now, {x!r} committed")
        elif type(x) is not type(y):
            return FigureDiff(where or "-", f"{type(y).__name__} now, committed {type(x).__name__}", 0.0, True)
        elif isinstance(x, dict):
            if list(x) != list(y):
                return FigureDiff(where or "-", f"keys {list(y)}, committed {list(x)}", 0.0, True)
            stack += [(_json_path(where, k), x[k], y[k]) for k in x]
        elif isinstance(x, list):
            if len(x) != len(y):
                return FigureDiff(where or "-", f"{len(y)} items now, {len(x)} committed", 0.0, True)
            stack += [(_json_path(where, i), u, v) for i, (u, v) in enumerate(zip(x, y))]
        elif x != y:
            return FigureDiff(where or "-", f"{y!r} now, committed {x!r}", 0.0, True)
    if first:
        return FigureDiff(first[0], first[1], largest, True)
    if largest:
        return FigureDiff("-", "all numbers within the tolerance", largest, False)
    return None


def compare_file(name: str, committed: bytes, drawn: bytes) -> tuple[FigureDiff | None, str]:
    """The comparison a saved file gets, by its kind, and the tolerance it was compared with (for the message)."""
    if name.endswith(".svg"):
        return compare_svg(committed, drawn), f"tolerance {FIGURE_TOLERANCE:g}"
    if name.endswith(DATA_SUFFIX):
        return compare_json(committed, drawn), f"relative tolerance {DATA_TOLERANCE:g}"
    if committed == drawn:
        return None, "byte for byte"
    return FigureDiff("-", "the bytes differ", 0.0, True), "byte for byte"


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "…"
