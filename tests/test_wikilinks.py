"""Obsidian's own links (vault-format.md §8.2): `[[Note]]`, `[[Note|alias]]`,
`[[folder/Note#Heading]]` and `![[embeds]]` resolved as Obsidian does, counted by search's
inbound-link ranking and by a folder's Related Memories, checked by doctor, and kept working
when organization moves the note they open."""
from __future__ import annotations

from pathlib import Path

import pytest

from braniac import Vault
from braniac.vault import folder_index, moves, notes
from braniac.vault.folders import refresh_indexes
from braniac.vault.links import find_links
from braniac.vault.wikilinks import Resolver, find_wikilinks

from helpers import check_healthy, write_note

FILES = ["memory/long_term/concrete/recipes/Pancakes.md", "memory/long_term/concrete/people/Notes.md",
         "memory/long_term/skills/Notes.md", "memory/long_term/concrete/recipes/img/batter.png"]


def test_links_are_resolved_the_way_obsidian_resolves_them() -> None:
    r = Resolver(FILES)
    src = "memory/long_term/events/x.md"
    assert r.resolve("Pancakes", src) == FILES[0]
    assert r.resolve("pancakes.MD", src) == FILES[0]                 # case-insensitive, .md optional
    assert r.resolve("recipes/Pancakes", src) == FILES[0]            # the end of the path
    assert r.resolve("concrete/people/Notes", src) == FILES[1]
    assert r.resolve("Notes", "memory/long_term/concrete/people/x.md") == FILES[1]   # own folder first
    assert r.resolve("Notes", src) == FILES[2]                       # else the shortest path
    assert r.resolve("batter.png", src) == FILES[3]                  # an embed's file
    assert r.resolve("../recipes/Pancakes", "memory/long_term/concrete/people/x.md") == FILES[0]
    assert r.resolve("cipes/Pancakes", src) is None and r.resolve("Waffles", src) is None
    assert r.shortest_target(FILES[1], src) == "people/Notes" and r.shortest_target(FILES[0], src) == "Pancakes"


def test_every_form_is_read_and_code_is_not_a_link() -> None:
    text = ("[[Pancakes]], [[Pancakes|my pancakes]], [[recipes/Pancakes#Batter]], ![[batter.png]]\n"
            "`[[not a link]]`\n```\n[[nor this]]\n```\n")
    found = find_wikilinks(text)
    assert [(w.target, w.anchor, w.alias, w.embed) for w in found] == [
        ("Pancakes", "", None, False), ("Pancakes", "", "my pancakes", False),
        ("recipes/Pancakes", "#Batter", None, False), ("batter.png", "", None, True)]


def test_doctor_checks_wikilinks_by_obsidians_rules(vault: Vault) -> None:
    write_note(vault, "memory/long_term/concrete/recipes/pancakes.md", "Pancakes", "# Pancakes\n")
    path = write_note(vault, "memory/long_term/concrete/breakfast.md", "Breakfast",
                      "# Breakfast\n\n[[Pancakes]] and [[recipes/PANCAKES#Batter|batter]], then [[Waffles]].\n")
    findings = [f for f in vault.doctor() if f.path == vault.relative(path)]
    assert [(f.severity, "[[Waffles]]" in f.reason) for f in findings] == [("warning", True)]


@pytest.mark.parametrize("linked", ["starter-a", "starter-b"])
def test_a_persons_wikilinks_raise_the_target_in_search(vault: Vault, linked: str) -> None:
    for name in ("starter-a", "starter-b"):
        write_note(vault, f"memory/long_term/concrete/bread/{name}.md", name,
                   "# Starter\n\nFeed the sourdough starter twice a day.\n")
    forms = [f"[[{linked}]]", f"[[bread/{linked}|my starter]]", f"![[{linked.upper()}#Feeding]]"]
    for n, form in enumerate(forms):
        write_note(vault, f"memory/long_term/skills/baking-{n}.md", f"Baking {n}", f"# Baking {n}\n\nSee {form}.\n")
    hits = vault.search("sourdough")
    assert hits[0].path == f"memory/long_term/concrete/bread/{linked}.md", [h.path for h in hits]


def test_wikilinks_survive_an_organization_move(vault: Vault) -> None:
    deep = write_note(vault, "memory/long_term/concrete/food/bread/Sourdough.md", "Sourdough", "# Sourdough\n")
    write_note(vault, "memory/long_term/skills/Sourdough.md", "Sourdough (skill)", "# How\n")
    body = ("Bake with [[bread/Sourdough#Feeding|the starter]] and [[food/bread/Sourdough]];"
            " ![[Sourdough.md]] from here, [[skills/Sourdough]] elsewhere, [[Unwritten]] not yet.\n")
    linking = write_note(vault, "memory/long_term/concrete/food/bread/Bakery.md", "Bakery", "# Bakery\n\n" + body)
    relative = write_note(vault, "memory/long_term/concrete/food/Meals.md", "Meals", "# Meals\n\n[[./bread/Sourdough]]\n")
    new = vault.ltm_root / "concrete" / "food" / "Sourdough.md"
    mapping = {vault.relative(deep): vault.relative(new)}

    def opened(path: Path) -> list[str | None]:
        resolver = Resolver.of_vault(vault.root)
        body = notes.read(path).body
        found = [resolver.resolve(w.target, vault.relative(path)) for w in find_wikilinks(body)]
        found += [vault.relative(link.resolve(path)) for link in find_links(body)]   # `[[./…]]`: a path link
        return [mapping.get(rel, rel) for rel in found]

    expected = {path: opened(path) for path in (linking, relative)}
    assert expected[linking][2] == vault.relative(new)   # ![[Sourdough.md]]: the note beside it
    moves.apply_moves(vault, [moves.Move(deep, new)], set())   # what organization's moves do
    assert {path: opened(path) for path in (linking, relative)} == expected   # each opens what it opened
    text = linking.read_text(encoding="utf-8")
    assert "[[food/Sourdough#Feeding|the starter]]" in text   # alias and heading kept
    assert "[[skills/Sourdough]]" in text and "[[Unwritten]]" in text   # what needs no rewrite keeps its bytes
    check_healthy(vault)


def test_a_plain_name_link_is_not_rewritten_when_the_note_moves(vault: Vault) -> None:
    note = write_note(vault, "memory/long_term/concrete/food/bread/Sourdough.md", "Sourdough", "# Sourdough\n")
    linking = write_note(vault, "memory/long_term/skills/baking.md", "Baking", "# Baking\n\nSee [[Sourdough|it]].\n")
    before = linking.read_bytes()
    moves.apply_moves(vault, [moves.Move(note, vault.ltm_root / "concrete" / "food" / "Sourdough.md")], set())
    assert linking.read_bytes() == before


def test_folder_related_memories_count_wikilinks(vault: Vault) -> None:
    target = write_note(vault, "memory/long_term/concrete/recipes/pancakes.md", "Pancakes", "# Pancakes\n")
    note = write_note(vault, "memory/long_term/concrete/people/ana.md", "Ana", "# Ana\n\nLoves [[Pancakes]].\n")
    refresh_indexes(vault, [target.parent, note.parent], set())
    related = folder_index.read(note.parent / "_index.md").related
    assert [e.path.parent.name for e in related] == ["recipes"]


def test_a_manifest_line_never_copies_a_wikilink(vault: Vault) -> None:
    write_note(vault, "memory/long_term/skills/Lake trip.md", "Lake trip", "# Lake trip\n")
    knots = write_note(vault, "memory/long_term/skills/Knots.md", "Knots", "Bowline first, then [[./Lake trip|the trip]].\n")
    refresh_indexes(vault, [knots.parent], set())
    index = (knots.parent / "_index.md").read_text(encoding="utf-8")
    assert "[[" not in index and "Bowline first, then the trip." in index


def test_links_a_person_wrote_in_code_or_a_comment_stay_as_written_when_the_note_moves(vault: Vault) -> None:
    """A link in a code example, `inline code`, an HTML comment or an Obsidian %%comment%% is text
    as written: a move does not re-aim it, and doctor does not call it broken. The same link in
    prose is re-aimed (in angle brackets still, when written so)."""
    note = write_note(vault, "memory/long_term/concrete/places/porto.md", "Porto", "# Porto\n")
    uuid = notes.read(note).uuid
    link = f'[P](../places/porto.md "uuid:{uuid}")'
    kept = (f"```\nexample {link} and [[places/porto]]\n```\n`{link}` and `[[places/porto]]`\n"
            f"<!-- {link} -->\n%% [[places/porto]] %%\n")
    linking = write_note(vault, "memory/long_term/concrete/people/ana.md", "Ana",
                         f"# Ana\n\nLives in {link}, or [P](<../places/porto.md>).\n\n{kept}")
    new = vault.ltm_root / "concrete" / "cities" / "porto.md"
    moves.apply_moves(vault, [moves.Move(note, new)], set())
    text = linking.read_text(encoding="utf-8")
    assert kept in text
    assert f'Lives in [P](../cities/porto.md "uuid:{uuid}"), or [P](<../cities/porto.md>).' in text
    assert [f for f in vault.doctor() if "link" in f.reason or "resolve" in f.reason] == []


def test_a_link_in_angle_brackets_to_a_name_with_spaces_is_re_aimed_as_it_reads(vault: Vault) -> None:
    note = write_note(vault, "memory/long_term/concrete/people/Zoë Smith.md", "Zoë Smith", "# Zoë\n")
    linking = write_note(vault, "memory/long_term/concrete/people/j.md", "J", "# J\n\n[z](<Zoë Smith.md#Facts>)\n")
    new = vault.ltm_root / "concrete" / "friends" / "Zoë Smith.md"
    moves.apply_moves(vault, [moves.Move(note, new)], set())
    assert "[z](<../friends/Zoë Smith.md#Facts>)" in linking.read_text(encoding="utf-8")
    assert [f for f in vault.doctor() if "link" in f.reason or "resolve" in f.reason] == []


def test_a_link_with_a_title_of_the_persons_own_is_re_aimed_and_keeps_the_title(vault: Vault) -> None:
    note = write_note(vault, "memory/long_term/concrete/people/priya.md", "Priya", "# Priya\n")
    linking = write_note(vault, "memory/long_term/concrete/people/j.md", "J",
                         "# J\n\n[boss](priya.md \"my boss\") and [b](priya.md 'her')\n")
    moves.apply_moves(vault, [moves.Move(note, vault.ltm_root / "concrete" / "priya.md")], set())
    assert "[boss](../priya.md \"my boss\") and [b](../priya.md 'her')" in linking.read_text(encoding="utf-8")


def test_an_aliased_wikilink_in_a_table_is_read_past_its_escaped_pipe_and_keeps_it_when_re_aimed(vault: Vault) -> None:
    """In a Markdown table Obsidian's `[[porto\\|sis]]` escapes the pipe that would end the cell:
    its target is `porto` (doctor warned "[[porto\\]] opens no file"), and a move keeps the `\\|`."""
    note = write_note(vault, "memory/long_term/concrete/places/porto.md", "Porto", "# Porto\n")
    table = write_note(vault, "memory/long_term/concrete/people/trips.md", "Trips",
                       "# Trips\n\n| who | where |\n|---|---|\n| Ana | [[porto\\|sis]] and [[places/porto#Facts\\|facts]] |\n")
    assert [f for f in vault.doctor() if "wikilink" in f.reason and f.path.endswith("trips.md")] == []
    moves.apply_moves(vault, [moves.Move(note, vault.ltm_root / "concrete" / "cities" / "porto.md")], set())
    text = table.read_text(encoding="utf-8")
    assert "[[porto\\|sis]] and [[porto#Facts\\|facts]]" in text, text   # (the shortest name that opens it)
