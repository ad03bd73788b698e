"""`braniac doctor --fix`: repair what can be repaired without guessing, say what was done, and
leave the rest to the person with advice (vault-format.md §10.8).

Repaired: notes and folders made by hand (adoption), manifests out of date, link paths whose
target moved (found again by the uuid the link carries), citations of a note moved by hand
(found again by the event id they name), temp files a killed write left.
Never guessed: broken YAML, two files with one uuid, a link whose uuid is nowhere: those are
reported with what to do. Runs under the LTM lock, like every worker that writes long-term
memory; `dry_run` only plans.
"""
from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra import git
from ..infra.errors import LockBusy, NoteError
from ..infra.fsio import (discard_stale_temp, holds_a_save, kept_beside, locked, read_text, stale_temp_files,
                          update_text)
from ..infra.fsio_folders import remove_stale_temps
from ..search.index import update_after_write
from ..vault import doctor, notes
from ..vault.folders import refresh_indexes
from ..vault.layout import FOLDER_INDEX, event_rel, is_event_id
from ..vault.links import Link, find_links, prose_links, relink
from ..vault.moves import repair_links
from .adoption import QUIET_SECONDS, adopt
from .commits import WorkerCommits

if TYPE_CHECKING:
    from ..infra.config import Config
    from ..vault.store import VaultStore

WORKER = "repair"
TEMP_AGE_SECONDS = 60.0

# what a finding the fixes cannot repair asks of the person
ADVICE = (
    ("broken YAML", "fix the YAML by hand (the line is named); braniac never rewrites a note it cannot parse"),
    ("duplicate uuid", "keep one of the two files, or give the copy a new uuid (any unique string)"),
    ("does not resolve", "the target is gone: find it with `grep -r \"uuid: <uuid>\" memory/`, or remove the link"),
    ("missing required frontmatter key", "add the key by hand, or let braniac adopt the note "
                                         "(`adopt_notes = true` under [vault] in braniac.toml)"),
    ("frontmatter", "fix the key by hand (vault-format.md §3)"),
)


@dataclass
class RepairReport:
    dry_run: bool = False
    done: list[str] = field(default_factory=list)       # what was (or would be) repaired, one line each
    waiting: list[str] = field(default_factory=list)    # notes saved (folders made) too recently to adopt now
    remaining: list[doctor.Finding] = field(default_factory=list)
    commit: str | None = None

    def advice(self, finding: doctor.Finding) -> str:
        if any(w == finding.path or w.startswith(finding.path + "/") for w in self.waiting):
            return "saved moments ago: run `braniac doctor --fix` again once it has been quiet for a few seconds"
        return next((a for key, a in ADVICE if key in finding.reason), "")

    def as_dict(self) -> dict:
        return {"dry_run": self.dry_run, "done": self.done, "waiting": self.waiting, "commit": self.commit,
                "remaining": [{**f.as_dict(), "advice": self.advice(f)} for f in self.remaining]}


def repair(vault: "VaultStore", config: "Config", *, dry_run: bool = False,
           quiet_seconds: float = QUIET_SECONDS) -> RepairReport:
    report = RepairReport(dry_run=dry_run)
    guard = contextlib.nullcontext() if dry_run else locked(vault.lock_path("ltm"), timeout=0, what="long-term memory")
    try:
        with guard:
            _repair(vault, config, report, dry_run, quiet_seconds)
    except LockBusy:
        raise LockBusy("another braniac worker (promotion or organization) holds long-term memory; "
                       "run `braniac doctor --fix` again when it is done") from None
    report.remaining = [f for f in doctor.check(vault) if not (dry_run and _planned(vault, f, report))]
    return report


def _planned(vault: "VaultStore", finding: doctor.Finding, report: RepairReport) -> bool:
    """Whether a dry run's plan repairs this finding (it is then listed as planned, not left)."""
    planned = " ".join(report.done)
    if finding.reason.startswith("missing required frontmatter key"):
        return f"adopt {finding.path} " in planned
    if "has no _index.md" in finding.reason:
        return f"create {finding.path}/_index.md" in planned
    if _manifest_finding(finding):
        return f"manifest of {finding.path} " in planned + " "
    # (only the links it repairs: not every finding of a file some of whose links it repairs)
    return "temp file" in finding.reason or "does not resolve" in finding.reason and (
        ("(uuid " in finding.reason or finding.reason.startswith(("related memory", "manifest entry")))
        and f"links in {finding.path} from their uuid" in planned
        or _cites_an_event(finding.reason) and f"citations in {finding.path} " in planned + " ")


def _repair(vault: "VaultStore", config: "Config", report: RepairReport, dry_run: bool, quiet: float) -> None:
    temps = stale_temp_files(vault.root)
    report.done += [f"keep {vault.relative(t)} beside its note as a conflict copy (a save braniac was holding)"
                    if holds_a_save(t) else f"remove leftover temp file {vault.relative(t)}" for t in temps]
    if temps and not dry_run:
        remove_stale_temps(vault.ltm_root)   # (no writer works there: we hold the LTM lock)
        for temp in stale_temp_files(vault.root):   # elsewhere a live write's is seconds old at most
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                # its age under that name (ctime: a rename sets it), not its content's: the file an
                # exchange just displaced there keeps a person's old mtime
                if not temp.is_dir() and time.time() - temp.lstat().st_ctime > TEMP_AGE_SECONDS:
                    discard_stale_temp(temp)

    adoption = adopt(vault, config, quiet_seconds=quiet, dry_run=dry_run, holding_ltm=True)
    if adoption.status == "off":
        report.done.append("adoption is off in braniac.toml: notes written by hand left as they are")
    report.done += [f"adopt {p} (missing frontmatter keys added)" for p in adoption.adopted]
    report.done += [f"create {f}/_index.md" for f in adoption.folders]
    report.waiting = adoption.waiting

    findings = doctor.check(vault)
    stale = sorted({_folder_of(vault, f) for f in findings if _manifest_finding(f)} - {None})
    report.done += [f"refresh the manifest of {vault.relative(p)}/_index.md" for p in stale]
    by_uuid = _unique_uuids(vault)
    broken = [vault.root / f.path for f in findings if "does not resolve" in f.reason and "(uuid " in f.reason]
    fixable = sorted({p for p in broken if p.is_file() and _has_movable_link(p, by_uuid)})
    report.done += [f"repair links in {vault.relative(p)} from their uuid" for p in fixable]
    cited = sorted({vault.root / f.path for f in findings if "does not resolve" in f.reason
                    and _cites_an_event(f.reason) and (vault.root / f.path).is_file()})
    citing = [p for p in cited if _found_citations(vault, p)]
    report.done += [f"repair citations in {vault.relative(p)} from their event ids" for p in citing]
    if dry_run:
        return
    autocommit = config.git_autocommit and git.is_repo(vault.root)
    commits = WorkerCommits(vault, WORKER)
    written: set[Path] = set(vault.root / f for f in adoption.files)
    with commits.recording() if autocommit else contextlib.nullcontext():
        if fixable:
            repair_links(vault, {}, by_uuid, written, files=fixable)
        for path in citing:
            update_text(path, lambda text, path=path: _with_citations_found(vault, path, text))
            written.add(path)
        if stale:
            refresh_indexes(vault, stale, written)
    if written - {vault.root / f for f in adoption.files}:
        update_after_write(vault, written)
        if autocommit:
            report.commit = commits.commit(written, "braniac: doctor --fix\n\n" + "\n".join(report.done[:200]) + "\n")
    report.commit = report.commit or adoption.commit


def _manifest_finding(finding: doctor.Finding) -> bool:
    return finding.path.endswith(FOLDER_INDEX) and any(
        key in finding.reason for key in ("is not in the manifest", "manifest entry"))


def _folder_of(vault: "VaultStore", finding: doctor.Finding) -> Path | None:
    folder = (vault.root / finding.path).parent
    return folder if folder.is_dir() and folder.is_relative_to(vault.ltm_root) else None


def _unique_uuids(vault: "VaultStore") -> dict[str, Path]:
    """uuid -> path for every uuid exactly one file holds (a link to a uuid two files share
    would be a guess: doctor reports the pair instead)."""
    found: dict[str, list[Path]] = {}
    for path in vault.iter_markdown():
        try:
            uuid = notes.read(path).uuid
        except NoteError:
            continue
        if uuid:
            found.setdefault(uuid, []).append(path)
    unique = {}
    for uuid, paths in found.items():
        # a conflict copy kept beside its note shares its uuid, and is no second owner; two
        # copies of a note the person deleted are two owners, as two notes are
        owners = [p for p in paths if kept_beside(p) is None] or paths
        if len(owners) == 1:
            unique[uuid] = owners[0]
    return unique


def _has_movable_link(path: Path, by_uuid: dict[str, Path]) -> bool:
    """Whether `path` has a link that leads nowhere but names a uuid braniac can find."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(link.uuid in by_uuid and not link.resolve(path).exists()
               for link in find_links(text) if link.uuid and not link.is_external)


def _cites_an_event(reason: str) -> bool:
    """Is the broken link of a doctor finding a citation (a link to an archived event's file)?"""
    return bool(re.search(r"link '[^']*\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?Z\.md'", reason))


def _found_citations(vault: "VaultStore", path: Path) -> list[tuple[Link, Path]]:
    try:
        return _found_citations_in(vault, path, read_text(path))
    except NoteError:
        return []


def _found_citations_in(vault: "VaultStore", path: Path, text: str) -> list[tuple[Link, Path]]:
    """The citations in `text` (of the note at `path`) that lead nowhere, each with the archived
    event its id names (the note was moved by hand; the event was not)."""
    found = []
    for link in prose_links(text):
        if is_event_id(link.text) and not link.is_external and not link.resolve(path).exists():
            event = vault.root / event_rel(link.text)
            if event.is_file():
                found.append((link, event))
    return found


def _with_citations_found(vault: "VaultStore", path: Path, text: str) -> str:
    out, last = [], 0
    for link, event in _found_citations_in(vault, path, text):
        out += [text[last:link.start], relink(link, path, event)]
        last = link.end
    return "".join(out) + text[last:]
