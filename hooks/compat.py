"""The compatibility table on the verification pages (``docs/<lang>/verification.md``), computed at build time from what was measured and what the
snippets are today.

``<!-- compat-table -->`` on a line of its own is replaced by :func:`table`: one row per environment
``./run compat`` (tools/generators/compat.py) measured, from ``compat/results.json``. Each measured block carries the
fingerprint of its snippet file as it was run; a snippet file whose fingerprint today is another one (a
block added or changed since) is not counted as measured: the row says how many of today's blocks that
environment has not measured yet, and a note names them. So the table stays true when a snippet changes,
and nothing is run to build it. A marker without ``compat/results.json`` fails the build, naming the file.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

from mkdocs.exceptions import PluginError

if __package__ != "hooks":  # MkDocs runs a hook from its path, with only hooks/ on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hooks import one_module  # noqa: E402

one_module(__name__, __file__)

from hooks import site_facts, snippet_files  # noqa: E402

MARKER = re.compile(r"^[ \t]*<!--[ \t]*compat-table[ \t]*-->[ \t]*$", re.M)
# distribution name -> import name, in the order they are installed and shown
PACKAGES = {"torch": "torch", "numpy": "numpy", "matplotlib": "matplotlib", "scikit-learn": "sklearn"}
NAMED = 10  # blocks named in one note; more are counted


def fingerprint(data: bytes | str) -> str:
    """A snippet file's fingerprint: it changes when anything in the file does (its code or its shown output),
    but for its fold markers (comment lines that change nothing that runs: ``snippet_files.reader_code``)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return hashlib.sha256(data).hexdigest()[:16]
    raw = snippet_files.reader_code(data).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:16]


def snippet_of(name: str) -> str:
    """``snippets/a/b.md`` of a block named ``snippets/a/b.md:1`` (one block per snippet file)."""
    return name.rsplit(":", 1)[0]


def today(root: Path) -> dict[str, str]:
    """Every snippet file of ``root`` as it is now: ``snippets/...md`` -> its fingerprint."""
    return {p.relative_to(root).as_posix(): fingerprint(p.read_bytes()) for p in sorted((root / "snippets").rglob("*.md"))}


def current(env: dict, now: dict[str, str]) -> list[dict]:
    """The outcomes of ``env`` measured on a snippet file as it is today."""
    return [o for o in env["outcomes"] if now.get(snippet_of(o["name"])) == o.get("source")]


def unmeasured(env: dict, now: dict[str, str]) -> list[str]:
    """Today's snippet files ``env`` has no measurement of as they are now (added or changed since)."""
    done = {snippet_of(o["name"]) for o in current(env, now)}
    return sorted(set(now) - done)


# --------------------------------------------------------------------------- the table

def _labels(lang: str, facts=None) -> dict:
    """This language's table strings (mkdocs.yml: the i18n language's ``extra.strings.compat``)."""
    return (facts or site_facts.load()).text(lang, "compat")


def _torch_cell(lab: dict, version: str, build: str | None) -> str:
    if not build:
        return version
    kind = "CUDA" if build.startswith("CUDA") else "CPU"
    return lab["build_cell"].format(version=version.split("+")[0], label=lab["torch_build"][kind])


def _dates(days: set[str], lab: dict | None = None) -> str:
    """The days measured: one day, or a range written the language's way (``extra.strings.compat.range``:
    "2026-12-02 至 2026-12-04" in Chinese, where "–" is no range mark)."""
    days = sorted(days)
    return days[0] if len(days) == 1 else (lab or {}).get("range", "{first}–{last}").format(first=days[0], last=days[-1])


def _runs(env: dict, outcomes: list[dict]) -> list[tuple[tuple[str, str], int]]:
    """(date, commit) of each measurement the outcomes come from, with its number of blocks; most blocks first."""
    runs = Counter((o.get("date") or env["date"], o.get("commit") or env.get("commit", "")) for o in outcomes)
    return sorted(runs.items(), key=lambda kv: (-kv[1], kv[0]))


def _when(lab: dict, env: dict, outcomes: list[dict]) -> str:
    runs = _runs(env, outcomes) or [((env["date"], env.get("commit", "")), 0)]
    shown = [lab["at_commit" if commit else "at_date"].format(date=date, commit=commit[:7]) for (date, commit), _ in runs]
    return shown[0] + "".join(lab["also"].format(n=n, blocks=lab["blocks"][min(n, 2) - 1], when=w)
                              for (_, n), w in zip(runs[1:], shown[1:]))


def _names(lab: dict, names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:NAMED])
    return shown + (lab["more"].format(n=len(names) - NAMED) if len(names) > NAMED else "")


def table(lang: str, result: dict, now: dict[str, str], facts=None) -> str:
    """The markdown the home page of ``lang`` shows: the pages' environment, then one row per measured
    environment (what it measured of today's blocks, when and at which commit, and how many of today's
    blocks it has not measured), then what differs, what is not measured yet and what could not be installed."""
    lab = _labels(lang, facts)
    rows = [lab["head"], "|---|---|" + "---|" * len(PACKAGES) + "---|"]
    pages = result["pages"]
    cells = [_torch_cell(lab, pages[d], pages["torch_build"]) if d == "torch" else pages[d] for d in PACKAGES]
    rows.append(f"| {pages['python']} | {lab['set']['pages']} | " + " | ".join(cells)
                + f" | {lab['pages_same']} |")
    errors, differ, missing, days = [], {}, {}, set()  # (set, blocks) -> the Pythons of that set they are of
    for row in result["environments"]:
        name = lab["env_name"].format(python=row["python"], set=lab["set"][row["set"]])
        if row["error"]:
            cells = [row["asked"].get(d, "") for d in PACKAGES]
            rows.append(f"| {row['python']} | {lab['set'][row['set']]} | " + " | ".join(cells)
                        + f" | {lab['not_measured']}<br>{_when(lab, row, [])} |")
            errors.append(lab["error"].format(env=name, error=row["error"]))
            continue
        v = row["versions"]
        cells = [_torch_cell(lab, v[d], v["torch_build"]) if d == "torch" else v[d] for d in PACKAGES]
        measured = current(row, now)
        differing = [o["name"] for o in measured if not o["same"]]
        count = lab["count"].format(same=len(measured) - len(differing), total=len(measured))
        left = unmeasured(row, now)
        if left:
            count += lab["unmeasured_cell"].format(n=len(left), blocks=lab["blocks"][min(len(left), 2) - 1])
            missing.setdefault((row["set"], tuple(left)), []).append(row["python"])
        rows.append(f"| {v['python']} | {lab['set'][row['set']]} | " + " | ".join(cells)
                    + f" | {count}<br>{_when(lab, row, measured)} |")
        days |= {date for (date, _), _ in _runs(row, measured)} or {row["date"]}
        if differing:
            differ.setdefault((row["set"], tuple(differing)), []).append(row["python"])
    notes, explained = [], False
    for (kind, differing), pythons in differ.items():  # one note per set of blocks, in the rows' order
        env = lab["env_name"].format(python=lab["pythons_join"].join(pythons), set=lab["set"][kind])
        note = lab["differs"].format(env=env, names=_names(lab, list(differing)))
        if not explained and any(n.startswith("snippets/home/versions.md") for n in differing):
            note += lab["versions_note"]  # once: it says the same of every environment
            explained = True
        notes.append(note)
    if not notes and not errors:
        notes.append(lab["none_differs"])
    for (kind, left), pythons in missing.items():
        env = lab["env_name"].format(python=lab["pythons_join"].join(pythons), set=lab["set"][kind])
        notes.append(lab["unmeasured_note"].format(env=env, n=len(left), blocks=lab["blocks"][min(len(left), 2) - 1],
                                                   names=_names(lab, list(left))))
    summary = lab["summary"].format(when=_dates(days or {r["date"] for r in result["environments"]}, lab),
                                    machine=result["machine"])
    return "\n".join(rows) + "\n\n" + lab["join"].join([summary, *notes, *errors]) + "\n"


def results_path(root: Path) -> Path:
    return root / "compat" / "results.json"


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    lang = (config.theme.get("language") or "").split("-")[0]
    root = Path(config["config_file_path"]).resolve().parent
    path = results_path(root)
    if not path.exists():
        raise PluginError(f"hooks/compat.py: {page.file.src_path} shows the compatibility table, but {path} "
                          "does not exist: run `./run compat`")
    try:
        text = table(lang, json.loads(path.read_text(encoding="utf-8")), today(root), site_facts.from_config(config))
    except (ValueError, KeyError, TypeError) as err:  # a hand-edited or truncated file
        raise PluginError(f"hooks/compat.py: {path} is not what `./run compat` writes "
                          f"({type(err).__name__}: {err}): restore it from git or run `./run compat`") from None
    return MARKER.sub(lambda m: text.strip(), markdown)
