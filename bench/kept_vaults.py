"""Replay a conversation once, ask questions many times: `--vaults DIR` for the quality harnesses.

Replaying LoCoMo dev or BEAM dev through reflection and promotion takes minutes; asking the
questions takes seconds. With a folder to keep them in, each conversation is replayed once into
DIR/<name> (its provenance beside it, DIR/<name>.json), and every run asks its questions of a
fresh copy, since asking writes access logs that move later ranks. The figures are those of a
full run, as long as reflection and promotion are unchanged: delete DIR after changing them (a
kept vault of other data, another file or size, is replayed again by itself).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from datetime import datetime
from pathlib import Path
from typing import Callable

from braniac import Vault
from braniac.infra import clock
from braniac.session import Session

Replayed = tuple[Session, dict, datetime]


def in_utc() -> None:
    """Run this process in UTC. The conversations' times are the speakers' clock times, read as
    UTC, and a relative day ("yesterday") counts from the machine's time zone
    (clock.local_day): without this the figures would depend on where they are measured."""
    os.environ["TZ"] = "UTC"
    time.tzset()


def replayed(name: str, scratch: Path, kept: Path | None, replay: Callable[[Path], Replayed],
             source: str = "") -> Replayed:
    """The session, provenance and last moment of a conversation replayed into scratch/name,
    or into kept/name once and copied to scratch/name. `source` names the conversation's data
    (its file and size): a kept vault of other data is replayed again."""
    if kept is None:
        return replay(scratch / name)
    meta = kept / f"{name}.json"
    saved = json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
    if saved.get("source") != source:
        shutil.rmtree(kept / name, ignore_errors=True)
        session, provenance, last = replay(kept / name)
        session.close()
        clock.set_clock(None)
        saved = {"source": source, "provenance": provenance, "last": last.isoformat()}
        meta.write_text(json.dumps(saved), encoding="utf-8")
    shutil.copytree(kept / name, scratch / name, symlinks=True)
    vault, _ = Vault.init(scratch / name)
    return Session(vault, model="offline"), saved["provenance"], datetime.fromisoformat(saved["last"])
