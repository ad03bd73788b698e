"""Short-term memory: any text round-trips, API edits decode back, a person's edits survive."""
from __future__ import annotations

import difflib
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given, strategies as st

from braniac.infra import clock
from braniac.vault import stm
from braniac.infra.errors import STMError
from braniac.vault.stm import FACTS, GOALS, TASKS, Item

from helpers import run_cli

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
LINE = st.one_of(
    TEXT,
    st.sampled_from([
        "# Short-Term Memory Scratchpad", "## Summary", "## Structured Data", "## Event Log", "## My notes",
        "### Goals", "### Tasks", "### Key Facts & Decisions", "### 2025-09-16T15:30:00Z", "---", "```", "~~~",
        "   ```python", "- [ ] a task", "- [x] done", "* fact", "**User:** \"hi\"", "**Thoughts:**", "> quoted",
        "", " ", "\t", "##", "###", "## ", "##Event Log", "\r", "\u2028", "\x0c",
    ]),
)
STM_TEXT = st.one_of(TEXT, st.lists(LINE, max_size=30).map("\n".join),
                     st.lists(LINE, max_size=30).map("\r\n".join), st.lists(LINE, max_size=20).map(lambda ls: "\n".join(ls) + "\n"))


def normalized(value: str) -> str:
    """The documented normalization of an event field: CRLF/CR -> LF, then strip()."""
    return value.replace("\r\n", "\n").replace("\r", "\n").strip()


# ------------------------------------------------------------------------------ any text

@given(STM_TEXT)
def test_any_text_round_trips(text):
    doc = stm.parse(text)
    assert doc.render() == text
    # reading never crashes on odd input
    doc.summary, doc.events, doc.missing_sections()
    for name in (GOALS, FACTS, TASKS):
        doc.items(name)
    for event in doc.events:
        event.fields, event.text


@given(STM_TEXT, st.dictionaries(st.sampled_from(["User", "AI", "Thoughts"]), TEXT, min_size=1))
def test_adding_an_event_to_any_text_only_inserts(text, fields):
    doc = stm.parse(text)
    before = doc.render()
    event_ids = {e.id for e in doc.events}
    new_id = "2099-01-01T00:00:00Z"
    if new_id in event_ids:
        return
    if stm.unclosed_fence(text) is not None:
        # a fence a person left open hides what follows it: either the event still lands
        # visibly before the fence, or the change is refused and nothing is touched
        try:
            doc.add_event(new_id, fields)
        except STMError as exc:
            assert f"line {stm.unclosed_fence(text)} is never closed" in str(exc)
            assert doc.render() == before
            return
    else:
        doc.add_event(new_id, fields)
    event = doc.events[0]
    after = doc.render()
    assert after.count(event.raw) >= 1
    # the old text is all still there, in order: the new text minus the event block (and at most
    # the blank line or section that had to be added to hold it) gives the old text back
    assert stm.parse(after).render() == after
    assert stm.parse(after).events[0].id == new_id
    i = after.index(event.raw)
    rest = after[:i] + after[i + len(event.raw):]
    assert _is_subsequence(before, rest)


def _is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


# ------------------------------------------------------------------------------ API-built files

FIELD_NAMES = st.sampled_from(["User", "AI", "Thoughts", "Outcome", "Tool result"])
FIELD_TEXT = st.one_of(
    TEXT,
    st.lists(st.one_of(TEXT, st.sampled_from(["", " ", "> already quoted", "**User:** fake", "### 2025-01-01T00:00:00Z",
                                              "## Summary", "```", "- [ ] x", "\"", "\"quoted\"", "  indented", "\t"])),
             max_size=6).map(lambda parts: "\n".join(parts)),
    st.lists(TEXT, max_size=4).map("\r\n".join),
    st.lists(TEXT, max_size=4).map("\r".join),
)
ITEM_TEXT = st.one_of(TEXT, st.tuples(st.sampled_from(["[x] ", "[ ] ", "- ", "* ", "# ", "**B:** ", "`"]), TEXT)
                      .map("".join))
OPERATION = st.one_of(
    st.tuples(st.just("event"), st.dictionaries(FIELD_NAMES, st.one_of(FIELD_TEXT, st.none()), min_size=1, max_size=4)),
    st.tuples(st.just("item"), st.sampled_from([GOALS, FACTS, TASKS]), ITEM_TEXT, st.sampled_from([None, True, False])),
)
START_ITEMS = st.lists(st.builds(Item, st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,15}[A-Za-z0-9]", fullmatch=True),
                                 st.booleans()), max_size=3, unique_by=lambda i: i.text)


@given(TEXT, START_ITEMS, START_ITEMS, START_ITEMS, st.lists(OPERATION, max_size=12))
@example("", [], [], [], [("item", FACTS, "[x] is how we mark done", None), ("item", FACTS, "\\[ ] escaped", None),
                          ("event", {"User": "a\r\nb", "AI": None}), ("item", TASKS, "[x] nested", False)])
def test_api_built_files_round_trip_and_decode(summary, goals, facts, tasks, operations):
    text = stm.render_new(summary, goals=goals, facts=[Item(i.text, None) for i in facts], tasks=tasks)
    doc = stm.parse(text)
    assert doc.render() == text and doc.missing_sections() == []
    assert doc.summary == (summary.strip() or "Nothing has been consolidated yet.")

    expected_events: list[tuple[str, dict[str, str]]] = []
    expected_items = {GOALS: [(i.text, i.done) for i in goals], FACTS: [(i.text, None) for i in facts],
                      TASKS: [(i.text, i.done) for i in tasks]}
    base = datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)
    for n, op in enumerate(operations):
        if op[0] == "event":
            event_id = clock.iso(base + timedelta(seconds=n))
            doc.add_event(event_id, op[1])
            expected_events.insert(0, (event_id, {k: normalized(v) for k, v in op[1].items() if v is not None}))
        else:
            _, name, item_text, done = op
            doc.add_item(name, item_text, done=done)
            clean = " ".join(item_text.split())
            if clean and clean not in [t for t, _ in expected_items[name]]:
                mark = done if done is not None or name == FACTS else False
                expected_items[name].append((clean, mark))
        text = doc.render()
        doc = stm.parse(text)                   # continue from the file, as the next process would
        assert doc.render() == text

    assert [(e.id, e.fields) for e in doc.events] == expected_events
    for name, items in expected_items.items():
        assert [(i.text, i.done) for i in doc.items(name)] == items, name
    assert doc.missing_sections() == []
    assert doc.summary == (summary.strip() or "Nothing has been consolidated yet.")


@given(st.dictionaries(FIELD_NAMES, FIELD_TEXT, min_size=1, max_size=4))
def test_event_fields_decode_to_normalized_input(fields):
    raw = stm.render_event("2025-01-01T00:00:00Z", fields)
    assert stm.Event("2025-01-01T00:00:00Z", raw).fields == {k: normalized(v) for k, v in fields.items()}


def test_event_encoding_matches_the_spec_example():
    raw = stm.render_event("2025-09-16T15:30:00Z", {
        "User": "How do I time it?", "AI": "To time a Python function, you can use...",
        "Thoughts": "The user is asking about performance.\nFocus on `timeit`."})
    assert raw == ('### 2025-09-16T15:30:00Z\n**User:** "How do I time it?"\n'
                   '**AI:** "To time a Python function, you can use..."\n'
                   "**Thoughts:**\n> The user is asking about performance.\n> Focus on `timeit`.\n\n\n")


# ------------------------------------------------------------------------------ a person's edits

EDITED = """\
# Short-Term Memory Scratchpad
Some words a person put under the title.

## Summary
Nothing has been consolidated yet.

---
## Structured Data
This section contains discrete, machine-readable data for immediate use.
My own free text in Structured Data, with a * star and a [link](x.md).

### Tasks
- [x] finished first
- [ ] reorder me

### Goals
- [ ] learn Rust
  - an indented sub-point

### Key Facts & Decisions
- The server is `prod-1`.

---
## My notes
Free text of mine.
### a sub-heading of mine
```
## not a section
### not an event
```

## Event Log
A reverse-chronological log of recent interactions. New events are appended to the top.

### 2025-09-16T15:30:00Z
**User:** "How do I time it?"
**AI:** "Use timeit."

### written by hand
I talked to Bob about the deploy.	Trailing tab, no final newline"""


def test_remember_keeps_every_byte_of_a_persons_edits(vault):
    vault.stm_path.write_text(EDITED, encoding="utf-8")
    old = vault.stm_path.read_bytes()
    result = run_cli("--vault", vault.root, "remember", "The deploy key is in 1Password")
    assert result.returncode == 0, result.stderr
    event_id = result.stdout.split("remembered as event ")[1].split()[0]
    new = vault.stm_path.read_bytes()
    event = vault.read_stm().events[0]
    assert event.id == event_id and event.fields["User"] == "The deploy key is in 1Password"
    block = event.raw.encode()
    assert block.startswith(f'### {event_id}\n**User:** "The deploy key is in 1Password"\n'.encode())
    assert new.count(block) == 1
    assert new.replace(block, b"", 1) == old
    # on top of the log, right after its introduction
    assert new.index(block) == old.index(b"### 2025-09-16T15:30:00Z")
    doc = vault.read_stm()
    assert [e.id for e in doc.events] == [event_id, "2025-09-16T15:30:00Z", "written by hand"]
    assert [i.text for i in doc.items(TASKS)] == ["finished first", "reorder me"]

    # a second remember, with a multi-line text from stdin, again only inserts
    result = run_cli("--vault", vault.root, "remember", "-", input="line one\r\n\r\n> line three\n")
    assert result.returncode == 0, result.stderr
    second_id = result.stdout.split("remembered as event ")[1].split()[0]
    newer = vault.stm_path.read_bytes()
    event = vault.read_stm().events[0]
    assert event.id == second_id and event.fields["User"] == "line one\n\n> line three"
    assert newer.replace(event.raw.encode(), b"", 1) == new


@pytest.mark.parametrize("text", ["I want to learn Go this year", "TODO: renew the TLS certificate",
                                  "We decided to use Postgres"])
def test_remember_that_updates_structured_data_only_inserts_lines(vault, text):
    vault.stm_path.write_text(EDITED, encoding="utf-8")
    old = EDITED.split("\n")
    result = run_cli("--vault", vault.root, "remember", text)
    assert result.returncode == 0, result.stderr
    new = vault.stm_path.read_text(encoding="utf-8").split("\n")
    ops = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    assert all(tag in ("equal", "insert") for tag, *_ in ops), ops
    assert vault.read_stm().events[0].fields["User"] == text


def test_library_remember_keeps_every_byte(vault):
    vault.stm_path.write_text(EDITED, encoding="utf-8")
    event = vault.remember("note: the VPN is flaky on Mondays")
    new = vault.stm_path.read_text(encoding="utf-8")
    raw = vault.read_stm().events[0].raw
    assert vault.read_stm().events[0].id == event.id
    assert new.replace(raw, "", 1) == EDITED


def test_a_fence_left_open_refuses_remember_and_changes_nothing(vault):
    text = stm.render_new().replace("## Structured Data", "## My notes\n```python\nprint(1)\n\n## Structured Data")
    vault.stm_path.write_text(text, encoding="utf-8")
    before = vault.stm_path.read_bytes()
    result = run_cli("--vault", vault.root, "remember", "something")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "never closed" in result.stderr and "line 8" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert vault.stm_path.read_bytes() == before


def test_event_log_without_blank_line_after_intro_gets_one():
    text = "## Event Log\nintro\n### old\nx\n"
    doc = stm.parse(text)
    doc.add_event("new", {"User": "hi"})
    assert doc.render() == '## Event Log\nintro\n\n### new\n**User:** "hi"\n\n### old\nx\n'


def test_event_log_without_intro_inserts_on_top():
    doc = stm.parse("## Event Log\n### old\nx")
    doc.add_event("new", {"Thoughts": "t"})
    assert doc.render() == "## Event Log\n### new\n**Thoughts:** t\n\n### old\nx"


def test_missing_event_log_is_added_at_the_end():
    doc = stm.parse("# Short-Term Memory Scratchpad\n\n## Summary\nS")
    doc.add_event("e1", {"User": "u"})
    text = doc.render()
    assert text.startswith("# Short-Term Memory Scratchpad\n\n## Summary\nS\n\n## Event Log\n")
    assert [e.id for e in stm.parse(text).events] == ["e1"]
    assert stm.parse(text).missing_sections() == ["Structured Data"]


def test_duplicate_event_id_is_refused():
    doc = stm.parse(stm.render_new())
    doc.add_event("e1", {"User": "a"})
    with pytest.raises(STMError, match="already"):
        doc.add_event("e1", {"User": "b"})


def test_events_inside_code_fences_are_not_events():
    doc = stm.parse("## Event Log\n### real\n```\n### fake\n```\n~~~\n### fake2\n~~~\n")
    assert [e.id for e in doc.events] == ["real"]


def test_remove_events_returns_them_and_keeps_the_rest():
    doc = stm.parse(stm.render_new("Old summary."))
    for n in range(4):
        doc.add_event(f"e{n}", {"User": f"said {n}"})
    before = doc.render()
    removed = doc.remove_events({"e1", "e2"})
    assert [e.id for e in removed] == ["e2", "e1"]
    assert [e.id for e in doc.events] == ["e3", "e0"]
    assert doc.summary == "Old summary."
    after = doc.render()
    for event in removed:
        before = before.replace(event.raw, "", 1)
    assert after == before


def test_items_and_checkboxes():
    doc = stm.parse(stm.render_new())
    doc.add_item(TASKS, "  write   the tests ")
    doc.add_item(TASKS, "write the tests")            # duplicate after normalization: ignored
    doc.add_item(GOALS, "ship 1.0", done=True)
    doc.add_item(FACTS, "Python 3.11 is required")
    doc.add_item(FACTS, "")                           # empty: ignored
    doc.add_item(FACTS, "[x] marks a done task in our tracker")   # a fact, not a checkbox
    assert [(i.text, i.done) for i in doc.items(TASKS)] == [("write the tests", False)]
    assert [(i.text, i.done) for i in doc.items(GOALS)] == [("ship 1.0", True)]
    assert [(i.text, i.done) for i in doc.items(FACTS)] == [("Python 3.11 is required", None),
                                                            ("[x] marks a done task in our tracker", None)]
    assert "- \\[x] marks a done task in our tracker\n" in doc.render()
    assert doc.set_item_done(TASKS, "write the tests") is True
    assert doc.set_item_done(TASKS, "no such task") is False
    assert [(i.text, i.done) for i in doc.items(TASKS)] == [("write the tests", True)]
    with pytest.raises(STMError, match="unknown list"):
        doc.add_item("Shopping", "milk")
    text = doc.render()
    assert "### Tasks\n- [x] write the tests\n\n---\n## Event Log" in text
    assert stm.parse(text).render() == text


def test_add_item_to_a_missing_list_keeps_the_section_rule():
    text = stm.render_new().replace("### Tasks\n\n", "")
    doc = stm.parse(text)
    assert doc.missing_sections() == ["Structured Data / Tasks"]
    doc.add_item(TASKS, "new task")
    rendered = doc.render()
    assert doc.missing_sections() == []
    assert "### Key Facts & Decisions\n\n### Tasks\n- [ ] new task\n\n---\n## Event Log" in rendered


def test_render_new_matches_the_vault_template(vault):
    template = vault.stm_path.read_text(encoding="utf-8")
    assert template == stm.render_new()
