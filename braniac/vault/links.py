"""UUID links that are also ordinary relative Markdown links.

A link is written `[Title](../relative/path.md "uuid:<uuid>")`: Obsidian and git forges follow
the relative path, braniac trusts the uuid in the link title and repairs the path from it
when a note moves.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from .wikilinks import WIKILINK, WikiLink

LINK = re.compile(
    r"\[(?P<text>(?:[^\[\]\\]|\\.)*)\]\((?P<target><[^>\n]*>|[^)\s]*)(?:\s+\"uuid:(?P<uuid>[^\"\s]+)\")?\)"
)


@dataclass(frozen=True)
class Link:
    text: str
    target: str          # as written (percent-encoded, relative to the linking file)
    uuid: str | None
    start: int = 0
    end: int = 0

    @property
    def is_external(self) -> bool:
        return bool(re.match(r"^[a-z][a-z0-9+.-]*:", self.target, re.I)) or self.target.startswith("#")

    def resolve(self, from_file: Path) -> Path:
        """The file this link points at (the '#section' part dropped)."""
        if self.target.startswith("<"):
            target = self.target[1:-1].split("#", 1)[0]
        else:  # drop the '#section' before decoding: a '%23' is part of the file name
            target = unquote(self.target.split("#", 1)[0])
        return Path(os.path.normpath(Path(from_file).parent / target))


def find_links(text: str) -> list[Link]:
    return [Link(m["text"], m["target"], m["uuid"], m.start(), m.end()) for m in LINK.finditer(text)]


def relative_target(from_file: Path, to_file: Path) -> str:
    """A percent-encoded relative path from one file to another, with forward slashes."""
    rel = os.path.relpath(to_file, Path(from_file).parent)
    return quote(PurePosixPath(Path(rel)).as_posix(), safe="/._-~")  # '#' in a name is encoded


def make_link(text: str, from_file: Path, to_file: Path, uuid: str | None) -> str:
    safe_text = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    title = f' "uuid:{uuid}"' if uuid else ""
    return f"[{safe_text}]({relative_target(from_file, to_file)}{title})"


def relink(link: Link, from_file: Path, target: Path, uuid: str | None = None) -> str:
    """`link` written again in a file at `from_file`, aimed at `target` (its '#section' and uuid kept)."""
    raw = link.target[1:-1] if link.target.startswith("<") else link.target
    anchor = "#" + raw.split("#", 1)[1] if "#" in raw else ""
    uuid = uuid or link.uuid
    title = f' "uuid:{uuid}"' if uuid else ""
    return f"[{link.text}]({relative_target(from_file, target)}{anchor}{title})"


def rebase(text: str, sources: list[Path], to_file: Path) -> str:
    """Text moving into the file `to_file` from `sources` (the file it was in; for an answer, the
    notes it quoted): each relative link that reaches a file from one of them is re-aimed from
    its new place, so it keeps working. A link that reaches nothing is left as written."""
    out, last = [], 0
    for link in find_links(text):
        if link.is_external or not link.target:
            continue
        target = next((t for t in (link.resolve(s) for s in sources) if t.exists()), None)
        if target is None or target == link.resolve(to_file):
            continue
        out.append(text[last:link.start])
        out.append(relink(link, to_file, target))
        last = link.end
    out.append(text[last:])
    return "".join(out)


def plain(text: str) -> str:
    """Text with its links, Markdown and Obsidian wikilinks, flattened to their words (a one-line
    description, a title): a link copied elsewhere would open another file, or none."""
    text = LINK.sub(lambda m: unescape_text(m["text"]), text)
    return WIKILINK.sub(lambda m: WikiLink(m["target"].strip(), (m["anchor"] or "").strip(), m["alias"]).text, text)


def unescape_text(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
