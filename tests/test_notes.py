"""Long-term-memory notes, uuid links and `_index.md`: what is read is written back unchanged."""
from __future__ import annotations

import difflib
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, strategies as st

from braniac.vault import folder_index, frontmatter_text, links, notes
from braniac.vault.pass_reads import PassReads
from braniac.infra.errors import NoteError
from braniac.vault.folder_index import Entry

# ------------------------------------------------------------------------------ strategies

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)          # any text but lone surrogates
WORD = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12)
# YAML 1.1 turns bare keys like `on` or `null` into booleans/None; braniac's keys are plain names
KEY = st.from_regex(r"x_[a-z0-9_]{1,10}", fullmatch=True)
MOMENT = st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1),
                      timezones=st.just(timezone.utc)).map(lambda d: d.replace(microsecond=0))
VALUE = st.one_of(TEXT, st.integers(-10**12, 10**12), st.booleans(), st.none(), st.lists(TEXT, max_size=4),
                  st.lists(WORD, max_size=4), st.floats(allow_nan=False, allow_infinity=False))
BODY = st.one_of(
    TEXT,
    st.lists(st.one_of(TEXT, st.sampled_from(["---", "...", "# Heading", "  ", "\t", "- [ ] x", "key: value"])),
             max_size=8).map("\n".join),
    st.text(max_size=30).map(lambda t: t + "\n  \t"),       # trailing whitespace, no final newline
)


def split_lines(text: str) -> list[str]:
    """Lines as YAML/Markdown see them for this test: only '\\n' ends one."""
    return text.split("\n")


@st.composite
def note_texts(draw):
    """(text, expected meta) for a note: required keys, unknown keys, comments, odd fences."""
    meta = {
        "uuid": str(draw(st.uuids())),
        "created_at": draw(MOMENT),
        "updated_at": draw(MOMENT),
        "tags": draw(st.lists(WORD, max_size=5)),
        "emotion": draw(WORD),
    }
    for key in draw(st.lists(KEY, max_size=5, unique=True)):
        meta[key] = draw(VALUE)
    order = draw(st.permutations(list(meta)))
    meta = {k: meta[k] for k in order}
    lines = []
    for key, value in meta.items():
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append("# " + draw(st.text(st.characters(exclude_categories=("Cs", "Zl", "Zp", "Cc")), max_size=20)))
        if draw(st.integers(0, 5)) == 0:
            lines.append("")
        lines.append(f"{key}: {notes.yaml_scalar(value)}")
    fm = "".join(line + "\n" for line in lines)
    body = draw(BODY)
    opening = draw(st.sampled_from(["---\n", "---  \n", "---\t\n"]))
    closers = ["---\n", "--- \n", "...\n"] + (["---"] if body == "" else [])
    return opening + fm + draw(st.sampled_from(closers)) + body, meta


def assert_meta_equal(parsed: dict, expected: dict) -> None:
    assert list(parsed) == list(expected)
    for key, value in expected.items():
        if isinstance(value, datetime):
            assert notes.as_datetime(parsed[key]) == value, key
        else:
            assert parsed[key] == value, (key, parsed[key], value)


# ------------------------------------------------------------------------------ round trips

@given(note_texts())
def test_generated_note_round_trips_byte_for_byte(case):
    text, meta = case
    note = notes.parse(text)
    assert note.render() == text
    assert_meta_equal(note.meta, meta)
    assert note.problems() == []


@given(note_texts(), st.data())
def test_set_changes_exactly_one_line_and_keeps_everything_else(case, data):
    text, meta = case
    note = notes.parse(text)
    key = data.draw(st.sampled_from(list(meta)), label="key")
    value = data.draw(VALUE, label="value")
    note.set(key, value)
    rendered = note.render()

    old, new = split_lines(text), split_lines(rendered)
    assert len(old) == len(new)
    changed = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    assert len(changed) <= 1
    index = next(i for i, line in enumerate(old) if line.startswith(f"{key}:"))
    assert new[index] == f"{key}: {notes.yaml_scalar(value)}"
    assert changed in ([index], [])
    # the same through difflib, the way `git diff` would show it
    diff = [d for d in difflib.ndiff(old, new) if d[:1] in "+-"]
    assert len(diff) == (2 if changed else 0)

    again = notes.parse(rendered)
    assert again.body == note.body
    expected = dict(meta)
    expected[key] = value
    assert_meta_equal(again.meta, expected)


@given(note_texts(), KEY.map(lambda k: k.replace("x_", "new_", 1)), VALUE)
def test_set_new_key_adds_one_line_at_the_end_of_the_frontmatter(case, key, value):
    text, meta = case
    note = notes.parse(text)
    note.set(key, value)
    rendered = note.render()
    old, new = split_lines(text), split_lines(rendered)
    assert len(new) == len(old) + 1
    added = [d for d in difflib.ndiff(old, new) if d[:1] in "+-?"]
    assert added == [f"+ {key}: {notes.yaml_scalar(value)}"]
    reparsed = notes.parse(rendered)
    assert_meta_equal(reparsed.meta, {**meta, key: value})
    assert reparsed.body == note.body


@given(TEXT)
def test_text_without_frontmatter_round_trips(body):
    assume(not body.startswith("---"))
    note = notes.parse(body)
    assert note.meta == {} and note.render() == body


@given(st.one_of(TEXT, st.lists(TEXT, max_size=3), st.integers(), st.booleans()))
def test_yaml_scalar_is_one_line_and_loads_back(value):
    shown = notes.yaml_scalar(value)
    assert not any(ch in shown for ch in "\n\r\x85\u2028\u2029")
    assert yaml.safe_load(f"k: {shown}\n")["k"] == value


@pytest.mark.parametrize("dumper", ["default (libyaml when built with it)", "pure-python"])
@pytest.mark.parametrize("value", ["wait...", "a ...", "...", "multi\nline", "sep\u2028arated", "x" * 5000,
                                   "\xa0", "nbsp\xa0", "\u3000ideographic space", "\ufeffbom"])
def test_yaml_scalar_with_either_yaml_emitter(monkeypatch, dumper, value):
    if dumper == "pure-python":
        monkeypatch.setattr(frontmatter_text, "_Dumper", yaml.SafeDumper)
    shown = notes.yaml_scalar(value)
    assert "\n" not in shown
    assert yaml.safe_load(f"title: {shown}\n")["title"] == value


def test_crlf_note_round_trips_and_set_touches_one_line():
    text = "---\r\nuuid: abc\r\ncreated_at: 2025-01-01T00:00:00Z\r\nupdated_at: 2025-01-01T00:00:00Z\r\n" \
           "tags: [a]\r\nemotion: calm\r\n---\r\nBody line\r\nsecond\r\n"
    note = notes.parse(text)
    assert note.render() == text
    assert note.meta["emotion"] == "calm" and note.body == "Body line\r\nsecond\r\n"
    note.set("emotion", "joy")
    # the changed line ends as every line of the file does (no mixed line endings)
    assert note.render() == text.replace("emotion: calm\r\n", "emotion: joy\r\n")


def test_a_line_braniac_adds_to_a_crlf_note_ends_in_crlf_and_a_mixed_file_stays_as_it_was():
    crlf = "---\r\nuuid: abc\r\n---\r\n## Facts\r\n- mine\r\n"
    note = notes.parse(crlf)
    note.set("updated_at", "2025-01-01T00:00:00Z")
    note.body += "- braniac's\n"
    assert note.render() == "---\r\nuuid: abc\r\nupdated_at: 2025-01-01T00:00:00Z\r\n---\r\n## Facts\r\n- mine\r\n- braniac's\r\n"
    mixed = "---\r\nuuid: abc\n---\nBody\r\n"
    note = notes.parse(mixed)
    note.body += "more\n"
    assert note.render() == mixed + "more\n"


def test_a_note_saved_with_a_byte_order_mark_keeps_it_first_and_its_frontmatter_read():
    text = "\ufeff---\nuuid: abc\naliases: [Aninha]\n---\n# Ana\n"
    note = notes.parse(text)
    assert note.meta["uuid"] == "abc" and note.render() == text
    note.set("updated_at", "2025-01-01T00:00:00Z")
    assert note.render() == "\ufeff---\nuuid: abc\naliases: [Aninha]\nupdated_at: 2025-01-01T00:00:00Z\n---\n# Ana\n"
    bare = notes.parse("\ufeff# Ana\n")   # no frontmatter yet (adoption gives it one)
    bare.set("uuid", "abc")
    assert bare.render() == "\ufeff---\nuuid: abc\n---\n# Ana\n"


def test_set_on_block_values_keeps_neighbours():
    text = ("---\nuuid: u1\n# who wrote this: a person\ntags:\n  - a\n  - b\nsummary: |\n  one\n\n  two\n\n"
            "emotion: calm  # why: it was a calm day\nx_unknown: {nested: [1, 2]}\n---\nbody\n")
    note = notes.parse(text)
    assert note.meta["summary"] == "one\n\ntwo\n"
    note.set("tags", ["python", "web dev"])
    note.set("summary", "short")
    rendered = note.render()
    assert rendered == ("---\nuuid: u1\n# who wrote this: a person\ntags: [python, web dev]\nsummary: short\n\n"
                        "emotion: calm  # why: it was a calm day\nx_unknown: {nested: [1, 2]}\n---\nbody\n")
    assert notes.parse(rendered).meta == {"uuid": "u1", "tags": ["python", "web dev"], "summary": "short",
                                          "emotion": "calm", "x_unknown": {"nested": [1, 2]}}


def test_set_does_not_match_a_key_inside_another_value():
    text = '---\ntitle: "a\\u2028tags: no"\nx_tags: 1\ntags: [a]\n---\n'
    note = notes.parse(text)
    assert note.render() == text
    note.set("tags", ["b"])
    assert note.render() == text.replace("tags: [a]", "tags: [b]")
    assert note.meta["title"] == "a\u2028tags: no"


def test_touch_rewrites_only_updated_at():
    from braniac.infra import clock
    note = notes.parse("---\nuuid: u\nupdated_at: 2020-01-01T00:00:00Z\nemotion: calm\n---\nhi\n")
    with clock.frozen(datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)):
        note.touch()
    assert note.render() == "---\nuuid: u\nupdated_at: 2025-09-16T15:30:00Z\nemotion: calm\n---\nhi\n"
    assert notes.parse(note.render()).time("updated_at") == datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)


def test_note_new_is_valid_and_round_trips(tmp_path):
    note = notes.Note.new(title="Deploy: keys… & \"quotes\"", body="The key is in 1Password.\n",
                          tags=["ops", "déploiement"], emotion="relief", extra={"sources": ["chat"], "x_odd": "wait..."})
    assert note.problems() == []
    text = note.render()
    assert list(notes.parse(text).meta) == ["uuid", "title", "created_at", "updated_at", "tags", "emotion",
                                            "sources", "x_odd"]
    path = notes.write(note, tmp_path / "a folder" / "déploiement notes.md")
    read = notes.read(path)
    assert read.render() == text and read.path == path
    assert read.title == 'Deploy: keys… & "quotes"' and read.tags == ["ops", "déploiement"]
    assert read.meta["x_odd"] == "wait..."


def test_problems_name_each_missing_or_bad_key():
    note = notes.parse("---\nuuid: 12\ncreated_at: yesterday\ntags: python\n---\nbody\n")
    problems = note.problems()
    assert "missing required frontmatter key 'updated_at'" in problems
    assert "missing required frontmatter key 'emotion'" in problems
    assert "'uuid' must be a string" in problems
    assert any("created_at" in p and "ISO 8601" in p for p in problems)
    assert "'tags' must be a list of words" in problems


@pytest.mark.parametrize("text, line, words", [
    ("---\nuuid: a\ntags: [a, b\nemotion: x\n---\nbody\n", 4, "broken YAML"),
    ("---\nuuid: a\n\tbad: x\n---\n", 3, "broken YAML"),
    ("---\nuuid: a\nno close\n", 1, "never closed"),
    ("---\n- a list\n---\n", 2, "mapping"),
])
def test_broken_frontmatter_names_the_line(text, line, words):
    with pytest.raises(NoteError) as info:
        notes.parse(text, path=Path("/v/x.md"))
    message = str(info.value)
    assert message.startswith(f"/v/x.md:{line}: ") and words in message


@pytest.mark.parametrize("value", ["2025-02-30", "2025-13-01T00:00:00Z", "2025-01-01T00:00:00+99:00"])
def test_impossible_dates_are_a_note_error_not_a_crash(value):
    with pytest.raises(NoteError, match=r"^x\.md:3: broken YAML frontmatter: "):
        notes.parse(f"---\nuuid: a\ncreated_at: {value}\n---\n", path=Path("x.md"))


def test_deeply_nested_yaml_is_a_note_error():
    with pytest.raises(NoteError):
        notes.parse("---\na: " + "[" * 5000 + "\n---\n")


def test_slug_and_unique_path(tmp_path):
    assert notes.slugify("Café au lait: how-to!") == "café-au-lait-how-to"
    assert notes.slugify("---") == "note"
    assert notes.slugify("_index") == "index"
    (tmp_path / "café.md").write_text("x")
    assert notes.unique_path(tmp_path, "Café").name == "café-2.md"
    assert notes.unique_path(tmp_path, "").name == "note.md"


# ------------------------------------------------------------------------------ links

SEGMENT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="/\x00"), min_size=1, max_size=12),
    st.sampled_from(["C# notes", "100% sure", "a (b) [c]", "café ü", " ", "-dash", "%41", "x#y#z", "<a>", "q?x=1"]),
).filter(lambda s: s not in (".", ".."))


@given(st.lists(SEGMENT, min_size=0, max_size=3), st.lists(SEGMENT, min_size=0, max_size=3), SEGMENT, SEGMENT,
       TEXT, st.one_of(st.none(), st.uuids().map(str)), TEXT, TEXT)
def test_make_find_resolve_round_trip(from_dirs, to_dirs, from_name, to_name, text, uuid, before, after):
    root = Path("/vault/memory/long_term")
    source = root.joinpath(*from_dirs, from_name + ".md")
    target = root.joinpath(*to_dirs, to_name + ".md")
    link = links.make_link(text, source, target, uuid)
    assume("[" not in before[-1:] and "\\" not in before[-1:])
    document = f"{before} {link} {after}"
    found = [f for f in links.find_links(document) if f.uuid == uuid and document[f.start:f.end] == link]
    assert len(found) == 1, (link, links.find_links(document))
    assert links.unescape_text(found[0].text) == text
    assert found[0].resolve(source) == target
    assert not found[0].is_external


def test_links_with_spaces_unicode_anchors_and_angle_brackets():
    source = Path("/v/memory/long_term/concrete/_index.md")
    target = Path("/v/memory/long_term/skills/C# & café/my note (v2).md")
    link = links.make_link("My [note]", source, target, "1234")
    assert link == '[My \\[note\\]](../skills/C%23%20%26%20caf%C3%A9/my%20note%20%28v2%29.md "uuid:1234")'
    (found,) = links.find_links(f"see {link}.")
    assert found.uuid == "1234" and found.resolve(source) == target
    (anchored,) = links.find_links("[x](../skills/a%20b.md#part-2)")
    assert anchored.resolve(source) == Path("/v/memory/long_term/skills/a b.md")
    (angled,) = links.find_links('[y](<../my note.md> "uuid:u-1")')
    assert angled.uuid == "u-1" and angled.resolve(source) == Path("/v/memory/long_term/my note.md")
    assert links.find_links("[ext](https://example.com/x)")[0].is_external


# ------------------------------------------------------------------------------ _index.md

def test_index_new_parse_render_keeps_a_persons_sections(tmp_path):
    folder = tmp_path / "concrete" / "python stuff"
    folder.mkdir(parents=True)
    a = notes.Note.new(title="Decorators", body="x\n")
    b = notes.Note.new(title="Ünïcode", body="y\n")
    a_path = notes.write(a, folder / "déco rators.md")
    b_path = notes.write(b, tmp_path / "skills" / "ü #1.md")
    index = folder_index.new(folder, "Python stuff", "Everything about Python.")
    index.set_manifest([Entry("Decorators", a_path, a.uuid, "what @ does")])
    index.set_related([Entry("Ünïcode [b]", b_path, b.uuid)])
    text = index.render()
    (folder / "_index.md").write_text(text, encoding="utf-8")

    # a person adds a preamble line and their own section in the middle, without a final newline
    edited = text.replace("## Manifest", "## My thoughts\nI like these.\n\n* not a link\n\n## Manifest", 1)
    edited = edited.replace("# Python stuff\n", "# Python stuff\nA line of my own.\n", 1).rstrip("\n")
    parsed = folder_index.parse(edited, folder / "_index.md")
    assert parsed.render() == edited
    assert parsed.summary == "Everything about Python."
    assert [(e.text, e.path, e.uuid, e.description) for e in parsed.manifest] == [
        ("Decorators", a_path, a.uuid, "what @ does")]
    assert [(e.text, e.path, e.uuid) for e in parsed.related] == [("Ünïcode [b]", b_path, b.uuid)]

    parsed.set_summary("New summary.")
    rendered = parsed.render()
    assert "## My thoughts\nI like these.\n\n* not a link\n\n" in rendered
    assert "# Python stuff\nA line of my own.\n" in rendered
    assert rendered == edited.replace("Everything about Python.", "New summary.")
    assert folder_index.parse(rendered, folder / "_index.md").note.uuid == index.note.uuid


def test_index_sections_are_added_when_missing(tmp_path):
    text = "---\nuuid: i1\n---\n# Topic\n\n## Notes by me\nkeep me"
    index = folder_index.parse(text, tmp_path / "_index.md")
    index.set_related([])
    rendered = index.render()
    assert rendered.startswith(text)
    assert rendered == text + "\n\n## Related Memories\n_(none yet)_\n\n"


YAMLISH = st.lists(st.one_of(TEXT, st.sampled_from([
    "key: value", "- item", "  nested: [1, {a: b}]", "? complex", ": x", "&a anchor", "*a", "!!python/object:os.system",
    "!!binary abc", "date: 2025-02-30", "t: 2025-01-01T00:00:00+99:00", "{", "[", "'", '"', "|", ">-", "%YAML 1.1",
    "--- ", "...", "\t", "x: !!timestamp nope", "<<: *a", "n: 1e999", "k: ~"])), max_size=8).map("\n".join)


@given(YAMLISH, TEXT)
def test_parsing_any_frontmatter_raises_only_note_error(frontmatter, body):
    text = f"---\n{frontmatter}\n---\n{body}"
    try:
        note = notes.parse(text, path=Path("x.md"))
    except NoteError as exc:
        assert str(exc).startswith("x.md:") and "\n" not in str(exc)
        return
    assert note.render() == text
    note.problems()


def test_a_pass_over_many_folders_reads_a_note_once_and_again_once_it_changed(tmp_path):
    path = tmp_path / "note.md"
    notes.write(notes.Note.new(title="Kayak", body="We went kayaking.\n"), path)
    reads = PassReads()
    first = reads.read(path)
    assert reads.read(path) is first   # unchanged: parsed once
    notes.write(notes.Note.new(title="Kayak trip", body="We went kayaking on the Dordogne.\n"), path)
    again = reads.read(path)
    assert again is not first and again.title == "Kayak trip" and "Dordogne" in again.body
    assert reads.is_file_inside(tmp_path, path) and not reads.is_file_inside(tmp_path, tmp_path / "gone.md")


@pytest.mark.parametrize("written", ['"updated_at": 2020-01-01T00:00:00Z', "'updated_at': 2020-01-01T00:00:00Z"])
def test_a_key_a_person_quoted_is_rewritten_in_place_not_written_twice(written):
    note = notes.parse(f"---\ntitle: Ana\n{written}\nemotion: calm\n---\nBody\n")
    note.set("updated_at", "2025-02-02T00:00:00Z")
    assert note.render() == "---\ntitle: Ana\nupdated_at: 2025-02-02T00:00:00Z\nemotion: calm\n---\nBody\n"


@pytest.mark.parametrize("frontmatter", ['{"title": "Ana"}', '# mine\n{title: Ana, kind: friend,}', "{}",
                                         '{\r\n  "title": "Ana"\r\n}', "{summary: &s [a], also: *s}",
                                         "{common: &s [a, b], summary: *s}", "{summary: , tags: [a]}",
                                         "{summary, tags: [a]}", "!!map {a: 1}"])
@given(value=st.one_of(TEXT, st.lists(TEXT, max_size=3), st.integers(), st.booleans()))
def test_a_key_set_in_a_frontmatter_that_is_one_json_object_reads_back_and_keeps_the_persons_keys(frontmatter, value):
    note = notes.parse(f"---\n{frontmatter}\n---\nBody\n")
    before = dict(note.meta)
    note.set("summary", value)
    note.set("summary", value)   # rewritten in place the second time
    again = notes.parse(note.render())
    expected = {**before, "summary": value}
    if "also" in before:
        expected["also"] = value   # an alias of the value set reads as it (its anchor is kept)
    assert again.meta == expected and again.body == "Body\n"
    root = yaml.compose(note.frontmatter_text, Loader=yaml.SafeLoader)   # the key once, not written twice
    assert [k.value for k, _v in root.value].count("summary") == 1
