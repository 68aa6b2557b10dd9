"""The documentation the repository tests check, and the fenced code blocks in it.

``DOCUMENTS``: README.md and every page of docs/ (test_docs_links.py checks their links and names).
``code_blocks(doc)``: the fenced blocks of a page with their language, their text and whether the
line before them asks for them to be run (``<!-- docs-test: run -->``, invisible once rendered).
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = {ROOT / "docs" / "op_support.md"}  # `executorch-nnapi ops > docs/op_support.md`

RUN_MARKER = "<!-- docs-test: run -->"
# A fence opens at any indentation (inside a list item) and closes at the same one.
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M)


@dataclasses.dataclass(frozen=True)
class CodeBlock:
    """One fenced block of a page."""

    doc: pathlib.Path
    line: int
    """The line of its opening fence, counting from 1."""
    language: str
    """The fence's first word ("python", "bash", "text", ...); "" when it names none."""
    text: str
    run: bool
    """The line before the fence is ``RUN_MARKER``."""

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT) if self.doc.is_relative_to(ROOT) else self.doc.name}:{self.line}"


def code_blocks(doc: pathlib.Path) -> list[CodeBlock]:
    """The fenced blocks of ``doc`` in order."""
    source = doc.read_text()
    blocks = []
    for m in FENCE.finditer(source):
        before = source[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        info = m.group("info").strip()
        blocks.append(CodeBlock(doc, source.count("\n", 0, m.start()) + 1, info.split()[0] if info else "",
                                textwrap.dedent(m.group("body")), before == RUN_MARKER))
    return blocks


def text_without_code(doc: pathlib.Path) -> str:
    """``doc`` without its fenced blocks (examples in them name files of their own)."""
    return FENCE.sub("", doc.read_text())
