"""A model's output is data: the text it (or a pasted sentence) gives is made plain before
braniac writes it, so it cannot forge structure or links in memory."""
from __future__ import annotations

import re

from ...infra.untrusted import without_controls


def plain_line(text: str) -> str:
    """A model's one-line text (a title) without control characters, its spaces collapsed."""
    return " ".join(without_controls(text).split())


def defuse(text: str) -> str:
    """One line of a claim or summary, with Markdown link brackets escaped: a model (or a pasted
    sentence) must not add links, e.g. a forged citation or one that leaves the vault."""
    text = re.sub(r"\\+(?=[\[\]])", "", plain_line(text))  # so that escaping twice stays escaped
    return text.replace("[", "\\[").replace("]", "\\]")


def plain_paragraphs(text: str) -> str:
    """A model's summary as plain paragraphs: a line that would read as a heading, a rule or a
    code fence could forge short-term-memory sections ("## Event Log", "### <id>") or hide the
    real ones, so those markers are taken off."""
    lines = []
    for line in without_controls(str(text).replace("\r", "\n")).split("\n"):
        line = re.sub(r"^(?:[#>`~]+|[-=*_]{3,})\s*", "", line.strip())
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip()
