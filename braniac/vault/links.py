"""UUID links that are also ordinary relative links, in either of the vault's two styles.

A link is written `[Title](../relative/path.md "uuid:<uuid>")` (the default), or, in a vault
whose braniac.toml asks for Obsidian's own links (`[vault] links = "wikilink"`),
`[[../relative/path|Title]]<!--uuid:<uuid>-->`. Either way Obsidian follows the relative path
and braniac trusts the uuid (in the link title, or in the HTML comment Obsidian and git forges
do not show), and repairs the path from it when a note moves. A wikilink whose path starts with
`./` or `../` is read here whoever wrote it: its path means what a Markdown link's does. Every
other wikilink names a note the way Obsidian resolves names (`wikilinks.py`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from ..infra.config import LINK_STYLES
from ..infra.markdown_prose import code_and_comments
from .wikilinks import WIKILINK, WikiLink

MARKDOWN, WIKILINK_STYLE = LINK_STYLES

LINK = re.compile(
    r"\[(?P<text>(?:[^\[\]\\]|\\.)*)\]\((?P<target><[^>\n]*>|[^)\s]*)"
    # braniac's title is the uuid; a person's own title ("my boss") is kept as written
    r"(?:\s+(?:\"uuid:(?P<uuid>[^\"\s]+)\"|\"(?P<title>[^\"\n]*)\"|'(?P<stitle>[^'\n]*)'))?\)"
    r"|(?<!!)\[\[(?P<wtarget>\.\.?/[^\[\]|#^\n]*)(?P<wanchor>#[^\[\]|\n]*)?(?:\|(?P<walias>[^\[\]|\n]*))?\]\]"
    r"(?:<!--uuid:(?P<wuuid>[^\s>]+)-->)?"
)
# one link of either style, for patterns that look at the text around links
ANY_LINK = r"(?:\[[^\]]*\]\([^)]*\)|\[\[[^\[\]\n]*\]\](?:<!--uuid:[^\s>]+-->)?)"
_NOT_IN_WIKILINK = re.compile(r"[\[\]|#^\n]")   # what a wikilink's path or alias cannot hold


@dataclass(frozen=True)
class Link:
    text: str
    target: str          # as written (percent-encoded, relative to the linking file)
    uuid: str | None
    start: int = 0
    end: int = 0
    style: str = MARKDOWN
    aliased: bool = True  # a wikilink that shows a text of its own (`[[path|text]]`)
    title: str = ""       # a person's own link title, as written with its quotes (`"my boss"`)

    @property
    def is_external(self) -> bool:
        return bool(re.match(r"^[a-z][a-z0-9+.-]*:", self.target, re.I)) or self.target.startswith("#")

    def resolve(self, from_file: Path) -> Path:
        """The file this link points at (the '#section' part dropped)."""
        if self.style == WIKILINK_STYLE:   # Obsidian's rule: the path as written if it is a file, else a note
            path = Path(os.path.normpath(Path(from_file).parent / self.target.split("#", 1)[0]))
            return path if path.suffix.lower() == ".md" or path.is_file() else path.with_name(path.name + ".md")
        if self.target.startswith("<"):
            target = self.target[1:-1].split("#", 1)[0]
        else:  # drop the '#section' before decoding: a '%23' is part of the file name
            target = unquote(self.target.split("#", 1)[0])
        return Path(os.path.normpath(Path(from_file).parent / target))


def find_links(text: str) -> list[Link]:
    return [_link(m) for m in LINK.finditer(text)]


def prose_links(text: str) -> list[Link]:
    """The links of a note's prose: not those a person wrote in code or in a comment."""
    hidden = code_and_comments(text)
    return [link for link in find_links(text) if not any(a <= link.start < b for a, b in hidden)]


def _link(m: re.Match) -> Link:
    if m["wtarget"] is None:
        title = f'"{m["title"]}"' if m["title"] is not None else f"'{m['stitle']}'" if m["stitle"] is not None else ""
        return Link(m["text"], m["target"], m["uuid"], m.start(), m.end(), title=title)
    target = m["wtarget"].strip() + (m["wanchor"] or "").strip()
    shown = m["walias"] if m["walias"] is not None else PurePosixPath(m["wtarget"].strip()).name
    return Link(shown, target, m["wuuid"], m.start(), m.end(), WIKILINK_STYLE, m["walias"] is not None)


def relative_target(from_file: Path, to_file: Path) -> str:
    """A percent-encoded relative path from one file to another, with forward slashes."""
    rel = os.path.relpath(to_file, Path(from_file).parent)
    return quote(PurePosixPath(Path(rel)).as_posix(), safe="/._-~")  # '#' in a name is encoded


def wikilink_target(from_file: Path, to_file: Path) -> str | None:
    """The relative path a braniac wikilink names `to_file` by (`./` or `../` first, no `.md`
    for a note, as Obsidian writes one), or None when the path holds a character a wikilink
    cannot carry."""
    rel = PurePosixPath(Path(os.path.relpath(to_file, Path(from_file).parent))).as_posix()
    if _NOT_IN_WIKILINK.search(rel):
        return None
    stem = rel[:-3] if rel.lower().endswith(".md") else rel
    if stem != rel and (Path(from_file).parent / stem).is_file():
        stem = rel   # a file of that name without `.md` exists too: the full name says which
    return stem if stem.startswith("../") else "./" + stem


def make_link(text: str, from_file: Path, to_file: Path, uuid: str | None, style: str = MARKDOWN) -> str:
    """A new link in the vault's style; a wikilink only where its path and text fit one (else the
    Markdown link, which every reader takes too)."""
    if style == WIKILINK_STYLE and not _NOT_IN_WIKILINK.search(text) and text.strip() == text and text:
        target = wikilink_target(from_file, to_file)
        if target is not None:
            return _wikilink(target, text, uuid)
    safe_text = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    title = f' "uuid:{uuid}"' if uuid else ""
    return f"[{safe_text}]({relative_target(from_file, to_file)}{title})"


def _wikilink(target: str, alias: str | None, uuid: str | None) -> str:
    return f"[[{target}{'|' + alias if alias is not None else ''}]]{f'<!--uuid:{uuid}-->' if uuid else ''}"


def relink(link: Link, from_file: Path, target: Path, uuid: str | None = None) -> str:
    """`link` written again in a file at `from_file`, aimed at `target`, in its own style (its
    '#section', text and uuid kept)."""
    raw = link.target[1:-1] if link.target.startswith("<") else link.target
    anchor = "#" + raw.split("#", 1)[1] if "#" in raw else ""
    uuid = uuid or link.uuid
    if link.style == WIKILINK_STYLE:
        path = wikilink_target(from_file, target)
        if path is not None:
            return _wikilink(path + anchor, link.text if link.aliased else None, uuid)
        link = Link(link.text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]"), link.target, uuid)
    title = f' "uuid:{uuid}"' if uuid else f" {link.title}" if link.title else ""
    aimed = relative_target(from_file, target) + anchor
    if link.target.startswith("<") and not re.search(r"[<>\n]", str(target)):
        # written in angle brackets: kept so, the path as it reads (spaces and all), as resolve() reads it
        aimed = "<" + PurePosixPath(Path(os.path.relpath(target, Path(from_file).parent))).as_posix() + anchor + ">"
    return f"[{link.text}]({aimed}{title})"


def replace_uuid(text: str, old: str, new: str) -> str:
    """Every link of `text` that names the uuid `old` names `new` instead, in either style."""
    return text.replace(f'"uuid:{old}"', f'"uuid:{new}"').replace(f"<!--uuid:{old}-->", f"<!--uuid:{new}-->")


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
    text = LINK.sub(lambda m: _link(m).text if m["wtarget"] is not None else unescape_text(m["text"]), text)
    return WIKILINK.sub(lambda m: WikiLink(m["target"].strip(), (m["anchor"] or "").strip(), m["alias"]).text, text)


def unescape_text(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
