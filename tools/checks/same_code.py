"""A block the page calls "the same code with `X`" is the block above it with that one line changed.

When an experiment is split into blocks that differ in one setting (one depth or one placement per
block, so each fits the time budget of one block), the page shows the first block whole and each
other one collapsed under a title that names the changed line:

    --8<-- "warmup-and-depth/warmup-post-ln.md"

    ??? example "The same code with `PLACEMENT = 'Pre-LN'`"

        --8<-- "warmup-and-depth/warmup-pre-ln.md:code"

A reader takes the title at its word and skips the collapsed code. So this module checks the word:
the collapsed block's code equals the code of the page's last whole include before it, except for
exactly one line, and that line is the statement in the title's inline code (compared as Python
syntax trees, so quotes, spacing and a trailing comment do not matter). The title's wording is the
page's language; only its inline code is read.

    python -m tools.checks.same_code            # every page; exit 1 with the differing lines when a claim is wrong
"""

from __future__ import annotations

import ast
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from hooks import site_facts
from tools import sources
from tools.runner import selection

_COLLAPSED = re.compile(
    r'^\?\?\?\+? example "(?P<title>[^"\n]*`(?P<code>[^`\n]+)`[^"\n]*)"\n\n'
    r'[ ]{4}-{1,}8<-{1,}[ \t]+"(?P<file>[^"\n:]+):code"', re.M)
_WHOLE = re.compile(r'^-{1,}8<-{1,}[ \t]+"(?P<file>[^"\n:]+)"', re.M)


@dataclass(frozen=True)
class Claim:
    page: str  # docs/<lang>/<page>.md
    line: int  # of the collapsed block's title
    base: str  # snippet of the block above, relative to snippets/
    variant: str
    statement: str  # the title's inline code


def claims(text: str, page: str) -> list[Claim]:
    """The "same code with `X`" blocks of one page, each with the whole block above it."""
    found = []
    for m in _COLLAPSED.finditer(text):
        above = list(_WHOLE.finditer(text, 0, m.start()))
        line = text.count("\n", 0, m.start()) + 1
        base = above[-1].group("file") if above else ""
        found.append(Claim(page, line, base, m.group("file"), m.group("code")))
    return found


def _code(root: Path, rel: str) -> list[str]:
    blocks = selection.extract(root / rel)
    if len(blocks) != 1:
        raise ValueError(f"snippets/{rel}: {len(blocks)} python blocks, expected 1")
    return blocks[0].code.splitlines()


def _same_statement(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a.strip())) == ast.dump(ast.parse(b.strip()))
    except SyntaxError:
        return False


def problem(claim: Claim, root: Path = selection.SNIPPETS) -> str | None:
    """Why the claim is wrong (with the differing lines), or None when it holds."""
    where = f"{claim.page}:{claim.line}: \"the same code with `{claim.statement}`\""
    if not claim.base:
        return f"{where}: no whole block above it on the page to be the same code as"
    try:
        base, variant = _code(root, claim.base), _code(root, claim.variant)
    except (ValueError, selection.SnippetError, OSError) as err:
        return f"{where}: {err}"
    changed = [op for op in difflib.SequenceMatcher(a=base, b=variant, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    diff = "\n".join(difflib.unified_diff(base, variant, claim.base, claim.variant, n=1, lineterm=""))
    if len(changed) != 1 or changed[0][0] != "replace" or changed[0][2] - changed[0][1] != 1 \
            or changed[0][4] - changed[0][3] != 1:
        return f"{where}: {claim.variant} differs from {claim.base} in more than one line\n{diff}"
    new = variant[changed[0][3]]
    if not _same_statement(new, claim.statement):
        return f"{where}: the changed line is `{new.strip()}`, not the title's statement\n{diff}"
    return None


def all_claims(docs: Path | None = None) -> list[Claim]:
    facts = site_facts.load()
    docs = docs or facts.docs
    found = []
    for lang in facts.languages:
        for page in sorted(sources.pages(lang, docs)):
            if page.endswith(".md"):
                rel = f"docs/{lang}/{page}"
                found += claims(sources.read(lang, page, docs), rel)
    return found


def main(argv: list[str] | None = None) -> int:
    found = all_claims()
    bad = [p for p in map(problem, found) if p]
    for p in bad:
        print(p, end="\n\n")
    print(f"{len(found)} \"same code with\" blocks, {len(bad)} wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
