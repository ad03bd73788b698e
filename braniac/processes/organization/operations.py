"""The operations of a plan, typed: parsed from a model's JSON and checked against the vault's
bounds in one place. Only known operations, only inside memory/long_term/, never system/,
never an overwrite, never a delete; what fails is rejected (and logged), never repaired.
"""
from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterator

from ...infra.errors import UnsafePath
from ...vault.layout import ARCHIVE, FOLDER_INDEX, LONG_TERM, is_memory_name

if TYPE_CHECKING:
    from ...vault.store import VaultStore


class Rejected(ValueError):
    """An operation outside the schema or the vault's bounds; its message says why."""


@dataclass(frozen=True, eq=False)
class Operation(Mapping):
    """One checked operation. It reads as the JSON object the report prints (`op["op"]`,
    `op.get("path")`, and equal to that dict), as the report's operations always have."""
    kind: ClassVar[str]

    @abstractmethod
    def as_dict(self) -> dict[str, Any]:
        """The JSON object of the report and `braniac organize --json`."""

    @abstractmethod
    def summary(self) -> str:
        """One line of organization's commit message."""

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())


@dataclass(frozen=True, eq=False)
class LinkChange(Operation):
    """A change to the co-access link between two notes (both notes' Related Memories)."""
    a: str
    b: str

    @property
    def pair(self) -> tuple[str, str]:
        return tuple(sorted((self.a, self.b)))


@dataclass(frozen=True, eq=False)
class LinkNotes(LinkChange):
    kind: ClassVar[str] = "link"
    weight: float

    def as_dict(self) -> dict[str, Any]:
        return {"op": self.kind, "a": self.a, "b": self.b, "weight": self.weight}

    def summary(self) -> str:
        return f"link {self.a} <-> {self.b} ({self.weight:.2f})"


@dataclass(frozen=True, eq=False)
class UnlinkNotes(LinkChange):
    kind: ClassVar[str] = "unlink"

    def as_dict(self) -> dict[str, Any]:
        return {"op": self.kind, "a": self.a, "b": self.b}

    def summary(self) -> str:
        return f"unlink {self.a} <-> {self.b}"


@dataclass(frozen=True, eq=False)
class Relocation(Operation):
    """A note that changes place; `to` is its new vault-relative path."""
    path: str
    to: str
    merge: str | None = None     # the folder this move merges into its parent (informative)

    def as_dict(self) -> dict[str, Any]:
        fields = {"op": self.kind, "path": self.path, "to": self.to}
        return fields if self.merge is None else {**fields, "merge": self.merge}


@dataclass(frozen=True, eq=False)
class MoveNote(Relocation):
    kind: ClassVar[str] = "move"

    def summary(self) -> str:
        return f"move {self.path} -> {self.to}"


@dataclass(frozen=True, eq=False)
class ArchiveNote(Relocation):
    kind: ClassVar[str] = "archive"

    def summary(self) -> str:
        return f"archive {self.path}"


KINDS = {kind.kind: kind for kind in (LinkNotes, UnlinkNotes, MoveNote, ArchiveNote)}


def parse(vault: "VaultStore", raw: Any) -> Operation:
    """The typed operation a JSON object asks for, or Rejected."""
    if not isinstance(raw, dict) or raw.get("op") not in KINDS:
        raise Rejected(f"unknown operation {str(raw)[:120]!r}")
    kind = KINDS[raw["op"]]
    note_fields = ("a", "b") if issubclass(kind, LinkChange) else ("path",)
    for name in note_fields + (("to",) if kind is MoveNote else ()):
        value = raw.get(name)
        if not isinstance(value, str) or not _inside_ltm(vault, value, folder=(name == "to")):
            raise Rejected(f"{kind.kind}: {name}={value!r} is not a path inside memory/long_term/")
    for name in note_fields:
        path = vault.root / raw[name]
        if not path.is_file() or path.name == FOLDER_INDEX or path.suffix != ".md":
            raise Rejected(f"{kind.kind}: {raw[name]!r} is not an existing note")
    if kind is LinkNotes:
        weight = raw.get("weight", 0.5)
        if not isinstance(weight, (int, float)) or not 0 <= weight <= 1 or raw["a"] == raw["b"]:
            raise Rejected(f"link: bad weight or self-link {raw!r}")
        return LinkNotes(raw["a"], raw["b"], float(weight))
    if kind is UnlinkNotes:
        return UnlinkNotes(raw["a"], raw["b"])
    return _relocation(vault, kind, raw)


def _relocation(vault: "VaultStore", kind: type[Relocation], raw: dict) -> Relocation:
    """A move or an archive, with its target worked out: never episodic memory, never an
    overwrite, never a move within its own folder."""
    rel = raw["path"]
    source = vault.root / rel
    if "/events/" in f"/{rel}" or (kind is ArchiveNote and f"/{ARCHIVE}/" in f"/{rel}"):
        raise Rejected(f"{kind.kind}: {rel} is episodic or already archived; left in place")
    try:   # where it goes, inside long-term memory with every symlink on the way resolved
        target = vault.confined(Path(LONG_TERM, ARCHIVE, source.relative_to(vault.ltm_root)) if kind is ArchiveNote
                                else Path(raw["to"], source.name), within=vault.ltm_root)
    except UnsafePath as exc:
        raise Rejected(f"{kind.kind}: {exc}") from None
    if kind is MoveNote:
        if raw["to"].startswith(f"{LONG_TERM}/events") or target.parent == source.parent:
            raise Rejected(f"move: {rel} -> {raw['to']} goes nowhere useful")
    if target.exists() or _differs_only_in_case(target):
        # (a name that differs only in case is the same file on macOS and Windows, where a
        # clone of the vault would lose one of the two)
        raise Rejected(f"{kind.kind}: {vault.relative(target)} exists already; braniac never overwrites")
    merge = raw.get("merge")
    keep_merge = bool(merge) and isinstance(merge, str) and _inside_ltm(vault, merge, folder=True)
    return kind(rel, str(target.relative_to(vault.root)), merge if keep_merge else None)


def _differs_only_in_case(target: Path) -> bool:
    """Does the target's folder hold a file whose name is the target's in another case?"""
    try:
        return any(p.name.casefold() == target.name.casefold() for p in target.parent.iterdir())
    except OSError:
        return False


def _inside_ltm(vault: "VaultStore", rel: str, *, folder: bool = False) -> bool:
    """Whether a vault-relative path names a place in long-term memory that organization may
    touch: a note (or, with `folder`, a folder to move into)."""
    if not rel or rel.startswith(("/", "~")) or "\\" in rel:
        return False
    try:
        # as written and with every symlink on the way resolved (a folder a person linked
        # elsewhere must not lead out of the vault)
        path = vault.confined(rel, within=vault.ltm_root)
    except UnsafePath:
        return False
    inside_ltm = path.relative_to(vault.ltm_root)
    # a hidden or ignored folder would hide what moves there from every walk (doctor, search,
    # the next organize); an over-long name fails half-way through a move
    if any(not is_memory_name(part) or len(part.encode("utf-8")) > 200
           for part in inside_ltm.parts):
        return False
    if folder and os.path.lexists(path) and not path.is_dir():
        return False   # a file named as the folder to move into
    return bool(inside_ltm.parts) or folder


def without_conflicts(operations: list[Operation]) -> list[Operation]:
    """One structural operation per note, one link per pair, no two notes moved onto one path."""
    seen_paths, seen_targets, seen_pairs, out = set(), set(), set(), []
    for op in operations:
        if isinstance(op, LinkChange):
            if op.pair in seen_pairs:
                continue
            seen_pairs.add(op.pair)
        elif isinstance(op, Relocation):
            if op.path in seen_paths or op.to in seen_targets:
                continue
            seen_paths.add(op.path)
            seen_targets.add(op.to)
        out.append(op)
    return out
