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


def test_the_same_change_on_both_sides_with_lines_added_by_one_is_merged():
    # a moved note's link re-aimed in its copy and in its old place, where a person then added
    # a section after it: merge3 calls the region a conflict, yet neither side undoes the other
    base, copy = "# T\nSee [x](old.md).\n", "# T\nSee [x](new.md).\n"
    old_place = "# T\nSee [x](new.md).\n\n## By hand\nA line.\n"
    assert merge_texts(copy, base, old_place) == old_place
    assert merge_texts(old_place, base, copy) == old_place


def test_lines_added_next_to_a_line_the_other_side_changed_are_kept_with_the_change():
    assert merge_texts("a\nB\n", "a\nb\n", "a\nb\nc\n") == "a\nB\nc\n"
    assert merge_texts("a\nb\nc\n", "a\nb\n", "a\nB\n") == "a\nB\nc\n"
    assert merge_texts("x\nb\n", "b\n", "B\n") == "x\nB\n"


def test_a_line_deleted_on_one_side_and_changed_on_the_other_is_no_merge():
    assert merge_texts("a\n", "a\nb\n", "a\nB\n") is None
    assert merge_texts("a\nB\n", "a\nb\n", "a\n") is None
