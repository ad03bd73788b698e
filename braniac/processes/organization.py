"""Organization (spec §4.5): the nightly "deep thought" that learns from use.

    read the access logs -> statistics (reads, last read, co-access, probes)
    -> a plan, proposed by the model (or by the offline engine from the statistics alone):
       link notes read together, move much-read deep notes up, split crowded folders, merge
       tiny ones, archive notes unread for long
    -> every operation validated against a schema and the vault's bounds (rejections logged)
    -> the retrieval gate: the plan is applied to a staging copy and the probes (past queries
       and the notes then read) are re-run; it lands only if recall and rank do not drop
    -> applied with braniac's own code (moves repair every link), one git commit
    -> the processed access-log lines rotate into logs/access-YYYY-MM.log

Each move is noted in the access log (`TS | MOVE | /old/path.md -> /new/path.md`, once it is
journaled), so the reads logged under a note's old path still count for it at its new place:
else the next run would see a much-read note that just moved up as never read (and archive
it), and the gate's probes would lose it.

Nothing is deleted: archiving moves a note under memory/long_term/archive/ (still searchable
with --archived) and a merged folder's _index.md goes there too.
"""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..infra import clock, git
from ..vault import notes
from ..infra.errors import BraniacError, LockBusy, NoteError
from ..infra.fsio import append_line, atomic_write, inside, locked, read_text
from ..vault.folder_index import Entry, INDEX_NAME, split_sections, _entries
from ..search.index import update_after_write
from .commits import commit_now
from ..model.offline import OfflineModel
from ..model.organization_types import OrganizationPlan, OrganizationRequest
from ..vault.co_access import CO_ACCESSED, description
from ..vault.layout import is_memory_name
from ..vault.moves import Move, apply_moves, finish, pending
from ..vault.usage import Usage, read_usage

if TYPE_CHECKING:
    from ..infra.config import Config
    from ..vault.store import VaultStore

ARCHIVE_AFTER_DAYS = 180
MAX_OPERATIONS = 500


@dataclass
class OrganizeReport:
    status: str = "done"           # done | skipped | dry-run | gated
    reason: str = ""
    operations: list[dict] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    gate: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    commit: str | None = None
    log_lines: int = 0
    malformed_log_lines: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def describe(self) -> str:
        if self.status == "skipped":
            return f"organize skipped: {self.reason}"
        counts = Counter(op["op"] for op in self.operations)
        summary = ", ".join(f"{n} {name}" for name, n in sorted(counts.items())) or "no changes"
        if self.status == "dry-run":
            return f"organize would apply: {summary}"
        if self.status == "gated":
            return f"organize plan discarded by the retrieval gate: {self.reason}"
        return f"organized: {summary}" + (f"; commit {self.commit}" if self.commit else "")


def organize(vault: "VaultStore", config: "Config", *, model=None, dry_run: bool = False,
             notice: Callable[[str], None] = lambda m: None, archive_after_days: float | None = None) -> OrganizeReport:
    report = OrganizeReport()
    try:
        with locked(vault.lock_path("ltm"), timeout=0, what="long-term memory"):
            return _organize(vault, config, OfflineModel() if model is None else model, report, dry_run, notice,
                             ARCHIVE_AFTER_DAYS if archive_after_days is None else archive_after_days)
    except LockBusy:
        report.status, report.reason = "skipped", "another organization or promotion is running"
        return report


def _organize(vault, config, model, report, dry_run, notice, archive_days) -> OrganizeReport:
    written: set[Path] = set()
    leftovers = pending(vault)
    if leftovers and not dry_run:
        notice(f"finishing {len(leftovers)} moves of an interrupted organize run")
        _note_moves(vault, leftovers)   # (perhaps again: noting a move twice changes nothing)
        finish(vault, leftovers, written)
    _finish_rotation(vault)
    history = read_usage(vault.root / "logs")
    recent = read_usage(vault.root / "logs", only_current=True)
    report.log_lines, report.malformed_log_lines = recent.lines, len(recent.malformed)
    proposed = _propose(model, OrganizationRequest(vault, history, recent, archive_days), notice)
    plan = proposed.operations
    # the limit bounds what a model may ask for; braniac's own plan is bounded by the vault (cut,
    # its tail would land over the next runs: a second run without new use would still move)
    limit = len(plan) if proposed.from_statistics_alone else MAX_OPERATIONS
    operations = [op for op in (validate(vault, op, report) for op in plan[:limit]) if op]
    if len(plan) > limit:
        _reject(vault, report, f"{len(plan) - limit} operations beyond the limit of {limit} ignored")
    operations = _without_conflicts(operations)
    report.operations = operations
    if dry_run:
        report.status = "dry-run"
        return report
    if any(op["op"] in ("move", "archive") for op in operations):
        operations = _gate(vault, history, operations, report)
        report.operations = operations
    if operations:
        _apply(vault, operations, written)
    if _rotate(vault):
        written |= {vault.access_log_path, *vault.access_log_path.parent.glob("access-*.log")}
    vault.record_run("organization")
    report.files = sorted(vault.relative(p) for p in written if p.exists())
    if written:
        update_after_write(vault, written, notice)
        if config.git_autocommit and git.is_repo(vault.root):
            report.commit = _commit(vault, written, report)
    if report.status != "gated":
        report.status = "done"
    return report



# ---------------------------------------------------------------------- proposing

def _propose(model, request: OrganizationRequest, notice) -> OrganizationPlan:
    try:
        return model.propose_organization(request)
    except BraniacError as exc:
        notice(f"the model could not propose a plan ({exc}); using the statistics alone")
    return OfflineModel().propose_organization(request)


# ---------------------------------------------------------------------- validating a plan

def validate(vault: "VaultStore", op: Any, report: OrganizeReport) -> dict | None:
    """Schema and bounds: only known operations, only inside memory/long_term/, never system/,
    never an overwrite, never a delete. What fails is logged, not repaired."""
    if not isinstance(op, dict) or op.get("op") not in ("link", "unlink", "move", "archive"):
        _reject(vault, report, f"unknown operation {str(op)[:120]!r}")
        return None
    kind = op["op"]
    fields = ("a", "b") if kind in ("link", "unlink") else ("path",)
    for name in fields + (("to",) if kind == "move" else ()):
        value = op.get(name)
        if not isinstance(value, str) or not _inside_ltm(vault, value, folder=(name == "to")):
            _reject(vault, report, f"{kind}: {name}={value!r} is not a path inside memory/long_term/")
            return None
    for name in fields:
        path = vault.root / op[name]
        if not path.is_file() or path.name == INDEX_NAME or path.suffix != ".md":
            _reject(vault, report, f"{kind}: {op[name]!r} is not an existing note")
            return None
    if kind == "link":
        weight = op.get("weight", 0.5)
        if not isinstance(weight, (int, float)) or not 0 <= weight <= 1 or op["a"] == op["b"]:
            _reject(vault, report, f"link: bad weight or self-link {op!r}")
            return None
        return {"op": "link", "a": op["a"], "b": op["b"], "weight": float(weight)}
    if kind == "unlink":
        return {"op": "unlink", "a": op["a"], "b": op["b"]}
    source = vault.root / op["path"]
    if "/events/" in f"/{op['path']}" or (kind == "archive" and "/archive/" in f"/{op['path']}"):
        _reject(vault, report, f"{kind}: {op['path']} is episodic or already archived; left in place")
        return None
    if kind == "archive":
        target = vault.ltm_root / "archive" / source.relative_to(vault.ltm_root)
    else:
        target = vault.root / op["to"] / source.name
        if op["to"].startswith("memory/long_term/events") or target.parent == source.parent:
            _reject(vault, report, f"move: {op['path']} -> {op['to']} goes nowhere useful")
            return None
    if target.exists():
        _reject(vault, report, f"{kind}: {vault.relative(target)} exists already; braniac never overwrites")
        return None
    clean = {"op": kind, "path": op["path"], "to": str(target.relative_to(vault.root))}
    if op.get("merge") and isinstance(op["merge"], str) and _inside_ltm(vault, op["merge"], folder=True):
        clean["merge"] = op["merge"]
    return clean


def _inside_ltm(vault: "VaultStore", rel: str, *, folder: bool = False) -> bool:
    if not rel or rel.startswith(("/", "~")) or "\\" in rel or "\x00" in rel:
        return False
    path = Path(os.path.normpath(vault.root / rel))
    try:
        inside_ltm = path.relative_to(vault.ltm_root)
    except ValueError:
        return False
    # a hidden or ignored folder would hide what moves there from every walk (doctor, search,
    # the next organize); an over-long name fails half-way through a move
    if any(not is_memory_name(part) or len(part.encode("utf-8")) > 200
           for part in inside_ltm.parts):
        return False
    # a symlink on the way (a folder a person linked elsewhere) must not lead out of the vault:
    # the deepest part that exists is checked with every symlink resolved
    existing = path
    while not os.path.lexists(existing) and existing != vault.ltm_root:
        existing = existing.parent
    if not inside(vault.ltm_root, existing):
        return False
    if folder and os.path.lexists(path) and not path.is_dir():
        return False   # a file named as the folder to move into
    return bool(inside_ltm.parts) or folder


def _reject(vault: "VaultStore", report: OrganizeReport, reason: str) -> None:
    report.rejected.append(reason)
    log = vault.root / "logs" / "organize.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    append_line(log, f"{clock.iso(clock.now())} | REJECTED | {reason}")


def _without_conflicts(operations: list[dict]) -> list[dict]:
    """One structural operation per note, one link per pair, no two notes moved onto one path."""
    seen_paths, seen_targets, seen_pairs, out = set(), set(), set(), []
    for op in operations:
        if op["op"] in ("link", "unlink"):
            pair = tuple(sorted((op["a"], op["b"])))
            if pair in seen_pairs:
                continue
            seen_pairs.add(pair)
        else:
            if op["path"] in seen_paths or op["to"] in seen_targets:
                continue
            seen_paths.add(op["path"])
            seen_targets.add(op["to"])
        out.append(op)
    return out


# ---------------------------------------------------------------------- the retrieval gate

def _gate(vault: "VaultStore", history: Usage, operations: list[dict], report: OrganizeReport) -> list[dict]:
    """Apply the plan to a staging copy and re-run the probes; keep only what does not hurt."""
    probes = history.probes[-200:]
    if not probes:
        report.gate = {"probes": 0, "note": "no past queries in the access log; structure changes wait for use"}
        kept = [op for op in operations if op["op"] in ("link", "unlink")]
        if len(kept) < len(operations):
            report.reason = "no probes to check moves and archives against; they wait for a run with usage data"
        return kept
    before = _measure(vault, probes, vault)
    staging = _staging(vault)
    try:
        _apply(staging, operations, set())
        after = _measure(staging, probes, vault)
        if after["recall"] + 1e-9 >= before["recall"] and after["mrr"] + 1e-9 >= before["mrr"]:
            report.gate = {"probes": len(probes), "before": before, "after": after, "landed": True}
            return operations
        # drop the structural operations that touch notes people used, and check again
        used = {rel for probe in probes for rel in probe.read}
        safer = [op for op in operations if op["op"] in ("link", "unlink") or op["path"] not in used]
        shutil.rmtree(staging.root, ignore_errors=True)
        staging = _staging(vault)
        _apply(staging, safer, set())
        retry = _measure(staging, probes, vault)
        landed = retry["recall"] + 1e-9 >= before["recall"] and retry["mrr"] + 1e-9 >= before["mrr"]
        report.gate = {"probes": len(probes), "before": before, "after": after, "after_without_used_notes": retry,
                       "landed": landed}
        report.status = "gated"
        report.reason = (f"recall {before['recall']:.3f} -> {after['recall']:.3f}, MRR {before['mrr']:.3f} -> "
                         f"{after['mrr']:.3f} on {len(probes)} past queries; "
                         + ("kept only the operations on notes no probe used" if landed else "nothing structural landed"))
        return safer if landed else [op for op in operations if op["op"] in ("link", "unlink")]
    finally:
        shutil.rmtree(staging.root, ignore_errors=True)


def _staging(vault: "VaultStore"):
    """A copy of the vault (files hard-linked: braniac only ever replaces files, never edits in place)."""
    from ..vault.store import VaultStore
    root = vault.state_dir / "organize" / "staging"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)

    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    for name in ("system", "memory"):
        if (vault.root / name).is_dir():
            shutil.copytree(vault.root / name, root / name, copy_function=link_or_copy, symlinks=True)
    if (vault.root / "logs").is_dir():
        # copied, never hard-linked: logs are appended to in place (the staged moves are noted
        # in the staging's access.log), which must not reach the vault's own log
        shutil.copytree(vault.root / "logs", root / "logs", symlinks=True)
    if (vault.state_dir / "index").is_dir():
        shutil.copytree(vault.state_dir / "index", root / ".braniac" / "index")
    return VaultStore(root)


def _measure(vault: "VaultStore", probes, live: "VaultStore") -> dict:
    """Recall and mean reciprocal rank of the notes each probe's turn actually read (by uuid), in
    the top max(10, notes read) results: a turn that read 50 notes (a large search_limit) is
    measured on its top 50, else recall@10 hardly sees a change at all."""
    from ..search.index import SearchIndex
    index = SearchIndex(vault, notice=lambda m: None)
    index.sync()
    live_index = SearchIndex(live, notice=lambda m: None)
    files = live_index._load_files()
    recall = mrr = 0.0
    counted = 0
    for probe in probes:
        wanted = {files[rel]["u"] for rel in probe.read if rel in files and files[rel].get("u")}
        if not wanted:
            continue
        hits = [h.uuid for h in index.search(probe.query, limit=max(10, len(wanted)), sync=False)]
        found = [hits.index(u) for u in wanted if u in hits]
        recall += len(found) / len(wanted)
        mrr += sum(1 / (r + 1) for r in found) / len(wanted)
        counted += 1
    index.close()
    return {"recall": round(recall / max(counted, 1), 4), "mrr": round(mrr / max(counted, 1), 4), "probes": counted}


# ---------------------------------------------------------------------- applying

def _apply(vault: "VaultStore", operations: list[dict], written: set[Path]) -> None:
    links = [op for op in operations if op["op"] in ("link", "unlink")]
    for op in links:
        _set_link(vault, op["a"], op["b"], op.get("weight"), written)
        _set_link(vault, op["b"], op["a"], op.get("weight"), written)
    moves = [Move(vault.root / op["path"], vault.root / op["to"], "archived" if op["op"] == "archive" else None)
             for op in operations if op["op"] in ("move", "archive")]
    apply_moves(vault, moves, written, on_journaled=lambda done: _note_moves(vault, done))
    leftover = []
    emptied = {m.old.parent for m in moves}
    for folder in sorted(emptied, key=lambda p: -len(p.parts)):
        if folder == vault.ltm_root or folder.parent == vault.ltm_root:
            continue  # the tiers themselves stay
        index = folder / INDEX_NAME
        if folder.is_dir() and index.exists() and [p.name for p in folder.iterdir()] == [INDEX_NAME]:
            target = vault.ltm_root / "archive" / "merged-folders" / folder.relative_to(vault.ltm_root)
            n = 2
            while target.exists():
                target = target.with_name(f"{folder.name}-{n}")
                n += 1
            # an _index.md braniac made has its folder's stable uuid: the archived one takes the
            # uuid of its new place, else a folder made again here would share it (a duplicate)
            from ..vault.claims import stable_uuid
            rederived = None
            try:
                if notes.read(index).uuid == stable_uuid("index", vault.relative(folder)):
                    rederived = stable_uuid("index", vault.relative(target))
            except NoteError:
                pass
            leftover.append(Move(index, target / INDEX_NAME, uuid=rederived))
    if leftover:
        apply_moves(vault, leftover, written, on_journaled=lambda done: _note_moves(vault, done))
        for move in leftover:
            with_suppressed_rmdir(move.old.parent)
        from ..vault.claims import refresh_indexes
        refresh_indexes(vault, {m.old.parent.parent for m in leftover}, written)


def with_suppressed_rmdir(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _set_link(vault: "VaultStore", source_rel: str, target_rel: str, weight: float | None, written: set[Path]) -> None:
    """Add, reweigh or remove one co-access link in a note's Related Memories."""
    source, target = vault.root / source_rel, vault.root / target_rel
    try:
        note = notes.read(source)
        other = notes.read(target)
    except NoteError:
        return
    sections = split_sections(note.body)
    related_index = next((i for i, (h, _) in enumerate(sections) if h == "Related Memories"), None)
    raw = sections[related_index][1] if related_index is not None else "## Related Memories\n"
    entries = _entries(raw.split("\n", 1)[1] if "\n" in raw else "", source)

    def points_at_target(entry: Entry) -> bool:
        return entry.path == target or bool(other.uuid and entry.uuid == other.uuid)
    if weight is None:  # prune: only the links organization made; a person's links stay
        entries = [e for e in entries if not (points_at_target(e) and CO_ACCESSED in e.description)]
    existing = next((e for e in entries if points_at_target(e)), None)
    if weight is not None:
        renewed = description(weight, clock.now())
        if existing is None:
            entries.append(Entry(other.title, target, other.uuid or None, renewed))
        elif CO_ACCESSED in existing.description or not existing.description:
            existing.description = renewed
    lines = [e.render(source) for e in entries] or ["_(none yet)_"]
    new_raw = "## Related Memories\n" + "\n".join(lines) + "\n\n"
    if related_index is None:
        body = note.body if note.body.endswith("\n\n") else note.body.rstrip("\n") + "\n\n"
        note.body = body + new_raw
    else:
        sections[related_index] = ("Related Memories", new_raw)
        note.body = "".join(r for _, r in sections)
    text = note.render()
    if text != read_text(source):
        atomic_write(source, text)
        written.add(source)


# ---------------------------------------------------------------------- the access log

def _note_moves(vault: "VaultStore", moves: list[Move]) -> None:
    """`TS | MOVE | /old -> /new` lines (one append), read by usage.py: reads follow the note."""
    lines = [f"{clock.iso(clock.now())} | MOVE | {m.old} -> {m.new}" for m in moves]
    if lines:
        vault.access_log_path.parent.mkdir(parents=True, exist_ok=True)
        append_line(vault.access_log_path, "\n".join(lines))


def _rotate(vault: "VaultStore") -> bool:
    """Processed lines move to logs/access-YYYY-MM.log (the spec's "clear", without losing them)."""
    log = vault.access_log_path
    if not log.exists() or log.stat().st_size == 0:
        return False
    rotating = log.with_name("access.log.rotating")
    os.replace(log, rotating)           # new reads start a fresh access.log at once
    log.touch()
    _finish_rotation(vault)
    return True


def _finish_rotation(vault: "VaultStore") -> None:
    rotating = vault.access_log_path.with_name("access.log.rotating")
    if not rotating.exists():
        return
    archive = vault.access_log_path.with_name(f"access-{clock.now():%Y-%m}.log")
    data = rotating.read_bytes()
    if data:
        marker = vault.state_dir / "organize" / "rotation.json"
        done = json.loads(marker.read_text()) if marker.exists() else {}
        chunk = data if data.endswith(b"\n") else data + b"\n"
        # a run killed between the append and the marker appended already: not twice
        if (done.get("size") != len(data) or done.get("archive") != archive.name) and not _ends_with(archive, chunk):
            with open(archive, "ab") as handle:  # one append of whole lines
                handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            marker.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(marker, json.dumps({"size": len(data), "archive": archive.name}))
    rotating.unlink()
    (vault.state_dir / "organize" / "rotation.json").unlink(missing_ok=True)


def _ends_with(path: Path, chunk: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size < len(chunk):
                return False
            handle.seek(size - len(chunk))
            return handle.read() == chunk
    except FileNotFoundError:
        return False


def _commit(vault: "VaultStore", written: set[Path], report: OrganizeReport) -> str | None:
    lines = []
    for op in report.operations:
        if op["op"] == "move":
            lines.append(f"move {op['path']} -> {op['to']}")
        elif op["op"] == "archive":
            lines.append(f"archive {op['path']}")
        elif op["op"] == "link":
            lines.append(f"link {op['a']} <-> {op['b']} ({op['weight']:.2f})")
        else:
            lines.append(f"unlink {op['a']} <-> {op['b']}")
    message = "braniac: organize long-term memory\n\n" + "\n".join(lines[:200]) + "\n"
    return commit_now(vault, written, message)
