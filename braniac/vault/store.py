"""The vault on disk: finding it, creating it, and the few operations everything else builds on."""
from __future__ import annotations

import os
import re
import stat
import uuid as uuidlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable, Iterator

from ..infra import clock, git
from . import notes, stm
from .layout import (ACCESS_LOG, IDENTITY, LOCKS_DIR, LOGS, LONG_TERM, RUN_MARKERS_DIR, SHORT_TERM, STATE_DIR, TIERS,
                     is_memory_name)
from ..infra import config
from ..infra.config import CONFIG_NAME
from ..infra.errors import InputError, NoteError, STMError, VaultExists, VaultNotFound
from ..infra.fsio import (ConcurrentEdit, atomic_write, confine, create_file, ensure_inside, inside, is_regular_file, locked,
                          read_settled, read_text, real_path, update_text, uuid_homes)
from ..infra.resources import data_dir

STM_MAX_BYTES = 20 * 1024 * 1024
MAX_EVENT_CHARS = 200_000
HOW_TO_CREATE = "create one with `braniac init PATH`, or point to one with --vault PATH or BRANIAC_VAULT"


# How long an event's write waits for another braniac process (a promotion archiving, organize)
# to let go of short-term memory, in seconds.
STM_LOCK_WAIT = 30.0


@dataclass(frozen=True)
class StoredEvent:
    id: str
    fields: dict[str, str]


class VaultStore:
    """A braniac vault on disk: its paths, short-term memory and files. Cheap to construct;
    every method reads the files afresh. The public facade (`braniac.Vault`) builds on it."""

    def __init__(self, root: Path | str):
        root = Path(root).expanduser()
        if not root.exists():
            raise VaultNotFound(f"{root}: no such folder; {HOW_TO_CREATE}")
        if not is_vault(root):
            raise VaultNotFound(f"{root}: not a braniac vault (no system/ and memory/ folders); {HOW_TO_CREATE}")
        self.root = root.resolve()
        self._link_style: tuple[int, str] | None = None

    @property
    def link_style(self) -> str:
        """How braniac writes a new link here (`[vault] links` in braniac.toml), read again when
        the file changes: every writer of links needs it, whichever entry point made this store."""
        try:
            stamp = (self.root / CONFIG_NAME).stat().st_mtime_ns
        except OSError:
            stamp = 0
        if self._link_style is None or self._link_style[0] != stamp:
            self._link_style = (stamp, config.load(self.root, env={}).links)
        return self._link_style[1]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    # ------------------------------------------------------------------ paths
    @property
    def stm_path(self) -> Path:
        return self.root / SHORT_TERM

    @property
    def ltm_root(self) -> Path:
        return self.root / LONG_TERM

    @property
    def identity_path(self) -> Path:
        return self.root / IDENTITY

    @property
    def access_log_path(self) -> Path:
        return self.root / ACCESS_LOG

    @property
    def logs_dir(self) -> Path:
        return self.root / LOGS

    @property
    def state_dir(self) -> Path:
        """Derived state only (index, locks, worker journals): deleting it loses nothing."""
        return self.root / STATE_DIR

    def lock_path(self, name: str) -> Path:
        return self.state_dir / LOCKS_DIR / f"{name}.lock"

    def relative(self, path: Path) -> str:
        return real_path(path).relative_to(self.root).as_posix()

    def confined(self, path: str | Path, *, within: Path | None = None) -> Path:
        """The vault path `path` (relative to the vault, or absolute) names, if it stays inside
        the vault (or `within`, a folder of it) as written and with its symlinks resolved; else
        UnsafePath. Every path built from file content or a model's reply goes through here."""
        return confine(self.root, path, within=within)

    # ------------------------------------------------------------------ finding and creating
    @classmethod
    def find(cls, explicit: str | Path | None = None, *, env: dict[str, str] | None = None,
             cwd: Path | None = None) -> "VaultStore":
        """--vault, then BRANIAC_VAULT, then the nearest enclosing vault of the working directory."""
        env = os.environ if env is None else env
        if explicit:
            return cls(explicit)
        if env.get("BRANIAC_VAULT"):
            return cls(env["BRANIAC_VAULT"])
        start = Path(cwd or os.getcwd()).resolve()
        for folder in (start, *start.parents):
            if is_vault(folder):
                return cls(folder)
        raise VaultNotFound(f"no braniac vault in {start} or any folder above it; {HOW_TO_CREATE}")

    @classmethod
    def init(cls, path: Path | str, *, force: bool = False, use_git: bool = False,
             remote: str | None = None) -> tuple["VaultStore", list[Path]]:
        """Copy the vault template into `path`. Never overwrites; returns the files it created.
        `remote` (with `use_git`) becomes the repository's `origin`, which `braniac sync` uses."""
        root = Path(path).expanduser()
        if root.exists() and not root.is_dir():
            raise VaultExists(f"{root}: exists and is not a folder")
        if root.exists() and any(root.iterdir()) and not force:
            if is_vault(root) and not use_git and not remote:
                return cls(root), []  # already a vault: nothing to do (so a set-up line can be re-run)
            raise VaultExists(f"{root}: folder is not empty; use --force to add only the missing vault files")
        root.mkdir(parents=True, exist_ok=True)
        template = data_dir("vault_template")
        stamp = clock.iso(clock.now())
        shared_ids: dict[str, str] = {}

        def fill(match: re.Match) -> str:
            name = match.group(1)
            if name is None:
                return str(uuidlib.uuid4())
            return shared_ids.setdefault(name, str(uuidlib.uuid4()))

        created = []
        for source in sorted(template.rglob("*")):
            target = root / source.relative_to(template)
            if source.is_dir():
                target.mkdir(exist_ok=True)
                continue
            data = source.read_bytes()
            emptied = force and bool(data) and _empty_file(target)
            if (target.exists() or target.is_symlink()) and not emptied:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.suffix == ".md":
                text = data.decode("utf-8").replace("__NOW__", stamp)
                data = re.sub(r"__UUID(?:_([A-Z]+))?__", fill, text).encode("utf-8")
            if emptied:
                # an empty file where the template has content: what an init that failed half
                # way (a full disk) left behind; nothing in it to lose
                try:
                    atomic_write(target, data, expect_unchanged=emptied)
                    created.append(target)
                except ConcurrentEdit:
                    pass   # written meanwhile: theirs stands
            elif create_file(target, data):
                created.append(target)
        vault = cls(root)
        if use_git or remote:
            _enable_autocommit(root / CONFIG_NAME)
            git.init(vault.root, "braniac: new vault")
        if remote:
            known = git.remote_url(vault.root, "origin")
            git.run(vault.root, "remote", "set-url" if known else "add", "origin", remote)
        return vault, created

    # ------------------------------------------------------------------ identity
    def read_identity(self) -> str:
        """The constitution, read whole into every prompt ('' when there is none). One that is a
        symlink leaving the vault, a FIFO or not text is a NoteError naming it: never sent to a
        model, never silently left out."""
        if not os.path.lexists(self.identity_path):
            return ""
        return read_text(self.identity_path, root=self.root)

    # ------------------------------------------------------------------ short-term memory
    def read_stm(self) -> stm.ShortTermMemory:
        try:   # read_text refuses a symlink that leaves the vault, a FIFO, a binary file; and a
            # save in place under way is read once done, not half (promotion archives what it reads)
            return stm.parse(read_settled(self.stm_path, limit=STM_MAX_BYTES, root=self.root)[0])
        except NoteError as exc:
            raise STMError(f"short-term memory unreadable: {exc}") from None

    def append_event(self, fields: dict[str, str], *, at: datetime | None = None,
                     goals: Iterable[str] = (), facts: Iterable[str] = (), tasks: Iterable[str] = (),
                     done_tasks: Iterable[str] = (), changed_facts: Iterable[tuple[str, str]] = ()) -> StoredEvent:
        """Reflection's write (vault-format.md §10.2): a new event on top of the Event Log, and any
        Structured Data updates, in one atomic write under the STM lock. Never the Summary.
        `changed_facts`: (key fact, what it now reads), see key_facts.py."""
        clean = {k: v for k, v in fields.items() if v is not None}
        if not any(v.strip() for v in clean.values()):
            raise InputError("nothing to remember: the event is empty")
        for value in clean.values():
            # a NUL would make short_term.md a "binary file" every later read refuses; a lone
            # surrogate (undecodable bytes in argv) cannot be written as UTF-8 at all
            if "\x00" in value:
                raise InputError("text contains a NUL byte; braniac stores text only")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError("text is not valid UTF-8 (check the terminal's encoding)") from None
        if sum(len(v) for v in clean.values()) > MAX_EVENT_CHARS:
            raise InputError(f"event too large ({sum(len(v) for v in clean.values())} characters; "
                             f"the limit is {MAX_EVENT_CHARS}); save long documents as notes instead")
        path = ensure_inside(self.root, self.stm_path)
        if not path.exists():
            raise STMError(f"{path}: short-term memory is missing; `braniac init --force {self.root}` restores it")
        result: dict[str, str] = {}

        def change(text: str) -> str:
            doc = stm.parse(text)
            if any(e.id == result.get("id") for e in doc.events):
                # an earlier attempt's write was given back, but not before a person's editor
                # loaded it and saved on it (perhaps editing the event): it is in already, and
                # must not be twice. The id is ours: chosen free, under the lock we still hold
                return text
            event_id = self._unique_event_id(doc, at)
            doc.add_event(event_id, clean)
            for name, items in ((stm.GOALS, goals), (stm.FACTS, facts), (stm.TASKS, tasks)):
                for item in items:
                    doc.add_item(name, item)
            for task in done_tasks:
                doc.set_item_done(stm.TASKS, task)
            for item, now_reads in changed_facts:   # (gone meanwhile, edited by the person: left as it is)
                doc.replace_item(stm.FACTS, item, now_reads)
            result["id"] = event_id
            return doc.render()

        with locked(self.lock_path("stm"), timeout=STM_LOCK_WAIT, what="short-term memory"):
            current = read_text(path, limit=STM_MAX_BYTES)  # clear error for binary / huge / non-UTF-8 files
            if git.marked_conflict(current):
                raise STMError(f"{path}: short-term memory holds a git conflict from `braniac sync`; edit it "
                               "(remove the <<<<<<< ======= >>>>>>> lines), then run `braniac sync`")
            update_text(path, change)
        return StoredEvent(result["id"], clean)

    def _unique_event_id(self, doc: stm.ShortTermMemory, at: datetime | None = None) -> str:
        moment = at or clock.now()
        taken = {e.id for e in doc.events} | self.archived_event_ids(moment)
        candidate = clock.iso(moment)
        step = 0
        while candidate in taken:
            step += 1
            candidate = clock.iso(moment.replace(microsecond=0) + timedelta(milliseconds=step))
        return candidate

    def archived_event_ids(self, day: datetime) -> set[str]:
        """Ids of events already archived under events/YYYY/MM/DD/ for that day."""
        folder = self.ltm_root / "events" / f"{day:%Y}" / f"{day:%m}" / f"{day:%d}"
        ids: set[str] = set()
        if folder.is_dir():
            for path in folder.glob("*.md"):
                try:
                    ids.update(re.findall(r"^### (\S+)[ \t]*$", read_text(path), re.MULTILINE))
                except NoteError:
                    continue
        return ids

    # ------------------------------------------------------------------ long-term memory
    def iter_markdown(self) -> Iterator[Path]:
        """Every Markdown file of the vault's memory, skipping tool folders; symlinks not followed."""
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if is_memory_name(d))
            for name in sorted(files):
                path = Path(folder) / name
                if not name.endswith(".md") or name.startswith("."):
                    continue
                if (not path.is_symlink() or inside(self.root, path)) and is_regular_file(path):
                    yield path  # a symlink leaving the vault, a FIFO or a loop is never read (doctor reports it)

    def iter_ltm_files(self) -> Iterator[Path]:
        for path in self.iter_markdown():
            if path.is_relative_to(self.ltm_root):
                yield path

    def uuid_map(self) -> dict[str, Path]:
        """uuid -> path for every readable memory file (the resolver behind uuid links)."""
        return uuid_homes((uuid, path) for path in self.iter_markdown() if (uuid := _uuid_or_none(path)))

    def tier_of(self, path: Path) -> str | None:
        try:
            rel = real_path(path).relative_to(self.ltm_root)
        except ValueError:
            return None
        return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in TIERS else None

    # ------------------------------------------------------------------ worker runs
    def record_run(self, worker: str) -> None:
        """Note when a worker (promotion, organization) last finished, for stats and idle timers."""
        marker = self.state_dir / RUN_MARKERS_DIR / f"last_{worker}"
        marker.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(marker, clock.iso(clock.now()) + "\n")

    def last_run(self, worker: str) -> str | None:
        marker = self.state_dir / RUN_MARKERS_DIR / f"last_{worker}"
        try:
            return marker.read_text(encoding="utf-8").strip() or None
        except FileNotFoundError:
            return None


def _uuid_or_none(path: Path) -> str | None:
    """A memory file's uuid; None for one without, or one that cannot be read."""
    try:
        return notes.read(path).uuid or None
    except NoteError:
        return None


def _empty_file(path: Path) -> "os.stat_result | None":
    """The stat of an empty regular file at `path` (never through a symlink), else None."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    return found if stat.S_ISREG(found.st_mode) and found.st_size == 0 else None


def is_vault(folder: Path) -> bool:
    folder = Path(folder)
    return (folder / "system").is_dir() and (folder / "memory").is_dir()


def _enable_autocommit(config_path: Path) -> None:
    """`init --git` turns git.autocommit on (unless the person set it already)."""
    def turn_on(text: str) -> str:
        if re.search(r"^\s*autocommit\s*=", text, re.MULTILINE):
            return text
        if "# autocommit = false" in text:
            return text.replace("# autocommit = false", "autocommit = true", 1)
        return text + "\n[git]\nautocommit = true\n"

    if not create_file(config_path, turn_on("")):
        update_text(config_path, turn_on)
