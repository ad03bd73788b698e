"""Prompt sizes: the largest prompt each model task sends, against a 4k-token context.

    python bench/prompt_sizes.py                    # defaults (model.context_tokens = 4096)
    python bench/prompt_sizes.py --events 200       # with a 200-event short-term memory
    python bench/prompt_sizes.py --context 8192

A temp vault gets `--events` exchanges through the real reflection path (offline engine), then
every task runs through braniac's real LLMModel, whose one HTTP call (`_request`) is replaced by
a recorder that answers each task with a small valid reply: a turn (search queries, answer),
a reflection, a promotion (analyze, synthesize per note, summarize) and an organization. For
each task it prints the calls, the largest prompt in characters and in estimated tokens
(budget.tokens: UTF-8 bytes / 3, which errs high), that prompt plus the reply's max_tokens, and
whether that fits the context. Reference, in the same run: the same tasks' prompts without any
budget (the whole short-term memory, every event in one analysis), so the cut shows.
No network, no model: the replies are canned.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from braniac import Vault  # noqa: E402
from braniac.infra.config import load as load_config  # noqa: E402
from braniac.model import budget  # noqa: E402
from braniac.model.llm import LLMModel, Reply  # noqa: E402
from braniac.model.offline import OfflineModel  # noqa: E402
from braniac.processes.core_loop import CoreLoop  # noqa: E402
from braniac.processes.organization import organize  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.processes.reflection import Reflector  # noqa: E402

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
TOPICS = ["Ana moved to Lisbon and takes the tram to work every morning.",
          "The braniac project ships its vault as plain Markdown files kept in git.",
          "Maria works as a nurse at the hospital in Porto and does night shifts.",
          "The staging database runs PostgreSQL 16 on port 5433.",
          "How do I feed a sourdough starter? Twice a day, equal parts rye flour and water.",
          "The team meets on Tuesdays at 10:00 to plan the sprint."]


class Recorder(LLMModel):
    """braniac's LLMModel with its HTTP call replaced: records each prompt, answers validly."""

    def __init__(self, config, vault_root):
        super().__init__(config, vault_root=vault_root)
        self.prompts: list[tuple[str, str]] = []

    def _request(self, messages, task, *, mode="prompt", schema=None):
        self.prompts.append((task, "\n".join(str(m["content"]) for m in messages)))
        return Reply(CANNED[task](messages), "stop")

    def stream(self, messages, *, task):
        self.prompts.append((task, "\n".join(str(m["content"]) for m in messages)))
        yield "An answer."


def _analysis(messages) -> str:
    ids = [line[4:].strip() for line in messages[0]["content"].splitlines() if line.startswith("### 20")]
    return '{"candidates": [{"title": "Ana", "kind": "concrete", "folder": ["people"], "event_ids": %s}]}' % (
        str(ids).replace("'", '"'))


def _draft(messages) -> str:
    ids = [line[4:].strip() for line in messages[0]["content"].splitlines() if line.startswith("### 20")]
    return '{"summary": "Ana.", "claims": [{"text": "Ana moved to Lisbon.", "sources": ["%s"]}]}' % ids[0]


CANNED = {"search_queries": lambda m: '{"queries": ["Ana Lisbon"]}',
          "reflect": lambda m: '{"thoughts": "Noted."}',
          "promote_analyze": _analysis, "promote_synthesize": _draft,
          "promote_summary": lambda m: '{"summary": "Consolidated."}',
          "organize": lambda m: '{"operations": []}'}


def measure(events: int, context: int, unbounded: bool) -> dict[str, tuple[int, int, int]]:
    """task -> (calls, largest prompt in chars, in estimated tokens)."""
    with tempfile.TemporaryDirectory(prefix="braniac-prompts-") as tmp:
        vault, _ = Vault.init(Path(tmp) / "vault")
        reflector = Reflector(vault, OfflineModel())
        for n in range(events):
            fact = TOPICS[n % len(TOPICS)]
            reflector.reflect_now(f"{fact} (note {n})", f"Understood: {fact.lower()} I will remember it.",
                                  at=T0 + timedelta(minutes=7 * n))
        config = load_config(vault.root)
        big = 10**7 if unbounded else context
        config = replace(config, model=replace(config.model, name="openai/recorder", context_tokens=big))
        model = Recorder(config.model, vault.root)
        loop = CoreLoop(vault, model, config)
        turn, wm = loop.prepare("Where does Ana live now, and what port does staging use?")
        list(model.answer(wm))
        model.reflect("Where does Ana live now?", "In Lisbon, since March.", vault.read_stm().render())
        promote(vault, model, config, force=True)
        organize(vault, config, model=model)
        found: dict[str, tuple[int, int, int]] = {}
        for task, prompt in model.prompts:
            calls, chars, tokens = found.get(task, (0, 0, 0))
            found[task] = (calls + 1, max(chars, len(prompt)), max(tokens, budget.tokens(prompt)))
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=30, help="events in short-term memory (default 30)")
    parser.add_argument("--context", type=int, default=4096, help="model.context_tokens (default 4096)")
    args = parser.parse_args()
    sized = measure(args.events, args.context, unbounded=False)
    whole = measure(args.events, args.context, unbounded=True)
    print(f"{args.events} events in short-term memory, model.context_tokens = {args.context}")
    print(f"{'task':<20} {'calls':>5} {'chars':>7} {'~tokens':>8} {'+reply':>7} {'fits':>5} | "
          f"{'no budget: calls':>16} {'~tokens':>8}")
    for task in ("search_queries", "answer", "reflect", "promote_analyze", "promote_synthesize",
                 "promote_summary", "organize"):
        calls, chars, tokens = sized.get(task, (0, 0, 0))
        total = tokens + budget.reply_tokens(task, args.context)
        ref_calls, _, ref_tokens = whole.get(task, (0, 0, 0))
        print(f"{task:<20} {calls:>5} {chars:>7} {tokens:>8} {total:>7} {'yes' if total <= args.context else 'NO':>5} | "
              f"{ref_calls:>16} {ref_tokens:>8}")


if __name__ == "__main__":
    main()
