"""Short-term memory after a promotion: the new Summary, and Structured Data without what the
digest now records (open goals and tasks carry over)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...infra.errors import BraniacError
from ...infra.notices import notice
from ...model.offline import OfflineModel
from ...model.types import EventRecord
from ...vault import stm
from .safe_text import plain_paragraphs

if TYPE_CHECKING:
    from ...model import MemoryModel


def structured_items(doc: stm.ShortTermMemory) -> tuple[list[str], list[str]]:
    """(open goals and tasks, completed ones with the key facts and decisions) of Structured Data."""
    open_items = [f"goal: {i.text}" for i in doc.items(stm.GOALS) if i.done is False] + \
                 [f"task: {i.text}" for i in doc.items(stm.TASKS) if i.done is False]
    done = [f"goal reached: {i.text}" for i in doc.items(stm.GOALS) if i.done] + \
           [f"task done: {i.text}" for i in doc.items(stm.TASKS) if i.done] + \
           [f"fact or decision: {i.text}" for i in doc.items(stm.FACTS)]
    return open_items, done


def new_summary(model: "MemoryModel", promoted: list[EventRecord], remaining: list[EventRecord],
                open_items: list[str]) -> str:
    """The model's summary of what short-term memory now holds, else the offline engine's."""
    try:
        summary = plain_paragraphs(model.summarize(promoted, remaining, open_items))
        if summary:
            return summary
        notice("the model's summary was empty; using the offline summary")
    except BraniacError as exc:
        notice(f"the model could not summarize ({exc}); using the offline summary")
    return OfflineModel().summarize(promoted, remaining, open_items)


def recorded_items(doc: stm.ShortTermMemory) -> set[tuple[str, str]]:
    """(list, text) of the Structured Data lines a promotion of `doc` records in its digest: the
    key facts and the completed goals and tasks."""
    return {(stm.FACTS, i.text) for i in doc.items(stm.FACTS)} | \
           {(name, i.text) for name in (stm.GOALS, stm.TASKS) for i in doc.items(name) if i.done}


def reset_structured(doc: stm.ShortTermMemory, recorded: set[tuple[str, str]]) -> None:
    """Open goals and tasks carry over (vault-format.md §5.2); the completed ones and the key facts
    the digest recorded (`recorded_items` of the snapshot the promotion read) leave the lists.
    Lines added or ticked since that snapshot stay for the next promotion."""
    block = doc.block(stm.STRUCTURED)
    if block is None:
        return
    lines = block.raw.split("\n")
    kept, section = [], None
    for line in lines:
        if line.startswith("### "):
            section = line[4:].strip()
        item = stm._ITEM.match(line)
        if item and not item["indent"] and item["text"] and (section, stm._unescaped(item["text"])) in recorded:
            if section == stm.FACTS or (section in (stm.GOALS, stm.TASKS) and item["mark"] and item["mark"].lower() == "x"):
                continue
        kept.append(line)
    block.raw = "\n".join(kept)


def set_summary(doc: stm.ShortTermMemory, summary: str) -> None:
    block = doc.block(stm.SUMMARY)
    if block is None:
        doc.blocks.insert(1 if doc.blocks and doc.blocks[0].name is None else 0,
                          stm.Block(stm.SUMMARY, f"## {stm.SUMMARY}\n{summary.strip()}\n\n---\n"))
        return
    rule = "\n---\n" if re.search(r"\n-{3,}\s*$", block.raw.rstrip() + "\n") else "\n"
    block.raw = f"## {stm.SUMMARY}\n{summary.strip()}\n{rule}"
