"""`_index.md`: the summary, manifest and Related Memories of one long-term-memory folder,
and the `## ` sections and link entries it shares with braniac's notes.

Only the three braniac sections are re-rendered; any other text a person wrote in the file
(extra sections, a preamble) is kept as it was.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from . import notes
from ..infra.markdown_prose import fenced_spans
from .layout import FOLDER_INDEX
from .links import MARKDOWN, WIKILINK_STYLE, Link, find_links, make_link, unescape_text
from .notes import Note

SUMMARY, MANIFEST, RELATED = "Summary", "Manifest", "Related Memories"
NO_RELATED = "_(none yet)_"
NO_MANIFEST = "_(empty)_"
_SECTION = re.compile(r"^## +(.+?)[ \t]*\r?$", re.MULTILINE)
# (heading or None for the preamble, raw text of the section including its heading line)
Sections = list[tuple[str | None, str]]


@dataclass
class Entry:
    """One line of a manifest or of Related Memories."""
    text: str
    path: Path            # absolute path of the target file
    uuid: str | None
    description: str = ""
    style: str = MARKDOWN   # how the line links: as it was written, or the vault's `links` setting

    def render(self, index_path: Path) -> str:
        line = "- " + make_link(self.text, index_path, self.path, self.uuid, self.style)
        return f"{line} — {self.description}" if self.description else line


@dataclass
class IndexFile:
    note: Note
    path: Path
    sections: Sections = field(default_factory=list)

    # --------------------------------------------------------------- reading parts
    def section(self, name: str) -> str | None:
        return section_content(self.sections, name)

    @property
    def summary(self) -> str:
        return (self.section(SUMMARY) or "").strip()

    @property
    def manifest(self) -> list[Entry]:
        return _entries(self.section(MANIFEST) or "", self.path, self.path.parent)

    @property
    def related(self) -> list[Entry]:
        return related_entries(self.sections, self.path)

    # --------------------------------------------------------------- changing parts
    def set_section(self, name: str, content: str) -> None:
        set_section(self.sections, name, content)

    def set_summary(self, text: str) -> None:
        self.set_section(SUMMARY, text)

    def set_manifest(self, entries: list[Entry]) -> None:
        set_entries(self.sections, MANIFEST, self.path, entries, NO_MANIFEST, own_folder=self.path.parent)

    def set_related(self, entries: list[Entry]) -> None:
        set_related(self.sections, self.path, entries)

    def render(self) -> str:
        self.note.body = join_sections(self.sections)
        return self.note.render()


def parse(text: str, path: Path) -> IndexFile:
    note = notes.parse(text, path=path)
    return IndexFile(note=note, path=Path(path), sections=split_sections(note.body))


def read(path: Path) -> IndexFile:
    note = notes.read(path)
    return IndexFile(note=note, path=Path(path), sections=split_sections(note.body))


def manifest_of(text: str, path: Path) -> list[Entry]:
    """The manifest entries of an `_index.md`'s text, its YAML left unparsed (a check of every
    folder's manifest at once reads many)."""
    return _entries(section_content(split_sections(notes.body_of(text)), MANIFEST) or "", Path(path), Path(path).parent)


def new(folder: Path, title: str, summary: str) -> IndexFile:
    path = Path(folder) / FOLDER_INDEX
    note = Note.new(title=title, body="", tags=["index"], emotion="neutral")
    index = IndexFile(note=note, path=path, sections=[(None, f"# {title}\n\n")])
    index.set_summary(summary)
    index.set_manifest([])
    index.set_related([])
    return index


def set_section(sections: Sections, name: str, content: str) -> None:
    """Replace the `## name` section's content (or add the section at the end), in place."""
    raw = f"## {name}\n" + content.strip("\n") + "\n\n"
    for i, (heading, old) in enumerate(sections):
        if heading == name:
            if old.partition("\n")[2].strip():
                # the line breaks after the section's last line stay as they were: two blank
                # lines a person left before their next heading, none at the end of the file
                raw = raw[:-2] + old[len(old.rstrip("\r\n")):]
            sections[i] = (heading, raw)
            return
    if sections and not sections[-1][1].endswith("\n\n"):
        heading, old = sections[-1]
        sections[-1] = (heading, old.rstrip("\n") + "\n\n")
    sections.append((name, raw))


def section_content(sections: Sections, name: str) -> str | None:
    """What follows the `## name` heading line (None when there is no such section)."""
    for heading, raw in sections:
        if heading == name:
            return raw.split("\n", 1)[1] if "\n" in raw else ""
    return None


def join_sections(sections: Sections) -> str:
    return "".join(raw for _, raw in sections)


def related_entries(sections: Sections, path: Path) -> list[Entry]:
    """The links of the Related Memories section of the file at `path` (a note or an `_index.md`)."""
    return _entries(section_content(sections, RELATED) or "", path)


def set_related(sections: Sections, path: Path, entries: list[Entry]) -> None:
    """Replace the Related Memories entries (the section is added at the end if missing)."""
    set_entries(sections, RELATED, path, entries, NO_RELATED)


def set_entries(sections: Sections, name: str, path: Path, entries: list[Entry], empty: str,
                own_folder: Path | None = None) -> None:
    """Replace the link entries of the `## name` section (Manifest, Related Memories) of the file
    at `path`; every other section stays byte for byte, and so do the lines of this one that are
    no entry: a person's words, a comment, `[[Unbabel]]`, a web address, an embed, a code block,
    first, as written; an indented line under an entry (a sub-bullet, a task) stays under it.
    `own_folder` (a manifest's): a link to a note outside it is the person's line too."""
    kept: list[str] = []
    under: dict[Path, list[str]] = {}
    last: Path | None = None
    for line, _link, target in _classified(section_content(sections, name) or "", path, own_folder):
        if target is not None:
            last = target
        elif indented(line) and last is not None:
            under.setdefault(last, []).append(line)
        elif line.strip() and line.strip() != empty:
            kept.append(line)
            last = None
    listed = {e.path for e in entries}
    kept += [line for target, lines in under.items() if target not in listed for line in lines]   # its entry is gone
    lines = [*kept, *(line for e in entries for line in (e.render(path), *under.get(e.path, ())))]
    set_section(sections, name, "\n".join(lines) or empty)


def _listed_in(target: Path, folder: Path) -> bool:
    """Is `target` what a manifest of `folder` lists: one of its notes (not its own index, a
    photo or a PDF), or a subfolder's index?"""
    if target.name == FOLDER_INDEX:
        return target.parent.parent == folder
    return target.parent == folder and target.suffix.lower() == ".md"


def split_sections(body: str) -> Sections:
    sections: Sections = []
    fenced = fenced_spans(body)   # a "## Facts" in a person's code block heads no section
    matches = [m for m in _SECTION.finditer(body) if not any(a <= m.start() < b for a, b in fenced)]
    first = matches[0].start() if matches else len(body)
    if first:
        sections.append((None, body[:first]))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        sections.append((match.group(1), body[match.start():end]))
    return sections


def indented(line: str) -> bool:
    """Is this a line a person indented under the one before it (a sub-bullet, a task, a quote
    about that claim or entry)?"""
    return line[:1] in (" ", "\t") and bool(line.strip())


_SCHEME = re.compile(r"^<?[A-Za-z][A-Za-z0-9+.-]*:")   # a web address, "mailto:", "obsidian:"


def _entry_link(line: str) -> Link | None:
    """The link of a line braniac reads as an entry (and may rewrite): a bullet whose first link
    is a file of the vault, not a web address nor an embed (`![](photo.png)`)."""
    stripped = line.strip()
    if not stripped.startswith(("- ", "* ")):
        return None
    found = find_links(stripped)
    if not found or _SCHEME.match(found[0].target) or stripped[found[0].start - 1:found[0].start] == "!" \
            or found[0].title:   # a title of the person's own: the line is theirs, kept as written
        return None
    return found[0]


def _classified(content: str, path: Path, own_folder: Path | None) -> Iterator[tuple[str, Link | None, Path | None]]:
    """Each line of a Manifest or Related Memories section, with its link and the file it leads
    to when it is one of braniac's entries; None, None for a person's line: their words, a line in a code block, a link
    to a part of a note (`[Ana, the wedding part](ana.md#wedding)`), a link without a uuid to
    nothing there (a note to write, or one renamed since), a second line for a note listed
    already and, in a manifest (`own_folder`), a link to anything but a note of the folder."""
    fenced, at, found = _closed_blocks(content), 0, []
    for raw in content.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw   # (a CRLF file's: the offsets count the '\r')
        start, at = at, at + len(raw) + 1
        link = None if any(a <= start < b for a, b in fenced) else _entry_link(line)
        target = link.resolve(path) if link is not None else None
        if target is not None and ("#" in link.target or not link.uuid and not target.exists()
                                   or own_folder is not None and not _listed_in(target, own_folder)):
            link = target = None
        found.append((line, link, target))
    # of several lines for one note, braniac's is the last with the uuid (braniac writes its
    # entries after a person's lines), else the last
    chosen: dict[Path, int] = {}
    for i, (_line, link, target) in enumerate(found):
        if target is not None and (target not in chosen or link.uuid or not found[chosen[target]][1].uuid):
            chosen[target] = i
    for i, (line, link, target) in enumerate(found):
        yield (line, link, target) if target is not None and chosen[target] == i else (line, None, None)


def _closed_blocks(content: str) -> list[tuple[int, int]]:
    """The code blocks of a section that a fence closes (one never closed is no block here: it
    would take braniac's own entries for the person's)."""
    closed = []
    for a, b in fenced_spans(content):
        lines = [line.strip() for line in content[a:b].splitlines() if line.strip()]
        if len(lines) >= 2 and lines[-1][:3] in ("```", "~~~") and set(lines[-1]) <= set("`~"):
            closed.append((a, b))
    return closed


def _entries(content: str, index_path: Path, own_folder: Path | None = None) -> list[Entry]:
    entries = []
    for line, link, target in _classified(content, index_path, own_folder):
        if link is None:
            continue
        stripped = line.strip()
        rest = stripped[link.end:].strip()
        description = re.sub(r"^[—–:-]+\s*", "", rest)
        text = link.text if link.style == WIKILINK_STYLE else unescape_text(link.text)
        entries.append(Entry(text, target, link.uuid, description, link.style))
    return entries
