"""infra/textmerge: the three-way merge behind a moved note's two places and undo."""
from braniac.infra.textmerge import merge_texts


def test_changes_at_different_places_are_both_applied():
    assert merge_texts("# T\nnew top\nbody\nend\n", "# T\nbody\nend\n", "# T\nbody\nend\nnew end\n") == \
        "# T\nnew top\nbody\nend\nnew end\n"


def test_lines_both_added_at_the_same_place_are_both_kept():
    assert merge_texts("a\nb\nmine\n", "a\nb\n", "a\nb\ntheirs\n") == "a\nb\nmine\ntheirs\n"


def test_the_same_line_changed_two_ways_is_no_merge():
    assert merge_texts("a\nmine\nc\n", "a\nb\nc\n", "a\ntheirs\nc\n") is None


def test_one_side_unchanged_gives_the_other():
    assert merge_texts("a\nb\n", "a\nb\n", "a\nb\nc\n") == "a\nb\nc\n"
