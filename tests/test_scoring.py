"""Search scoring read straight from Whoosh's postings (braniac/scoring.py).

- BM25F summed from posting blocks equals Whoosh's own score for every matching document, over
  an index of several segments with deleted documents;
- the top-k with emergent importance is exact: the same as ranking every matching note by
  BM25F × importance, with a skewed read history and links;
- `--kind` and the archive mask hold on that path; phrases, AND and NOT still go through Whoosh.
"""
from __future__ import annotations

import random

import pytest

from braniac.vault import notes
from braniac.search import ranking, scoring
from braniac.vault.reads import read_counts
from braniac.search.index import SearchIndex, parse_query
from braniac.vault.links import make_link
from braniac import Vault

WORDS = ("otter heron lantern quartz meadow cobalt saffron glacier violin copper ember willow harbor "
         "falcon maple thistle orbit canyon pebble juniper walnut tundra comet basil").split()


def _note(vault: Vault, rel: str, rng: random.Random) -> None:
    path = vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    title = " ".join(rng.choices(WORDS, k=rng.randint(1, 3))).capitalize()
    body = " ".join(rng.choices(WORDS, k=rng.randint(5, 80))) + "."
    note = notes.Note.new(title=title, body=body, tags=rng.sample(WORDS, rng.randint(0, 2)))
    path.write_text(note.render(), encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A vault of 240 notes indexed in three commits: several segments, some deleted documents."""
    rng = random.Random(5)
    vault, _ = Vault.init(tmp_path_factory.mktemp("scoring") / "vault")
    rels = [f"memory/long_term/{'concrete' if i % 4 else 'events'}/t{i % 6}/{'d/' * (i % 3)}n{i}.md"
            for i in range(240)]
    for rel in rels[:200]:
        _note(vault, rel, rng)
    index = SearchIndex(vault)
    index.sync()
    for rel in rels[200:]:
        _note(vault, rel, rng)
    for rel in rng.sample(rels[:200], 25):     # edited in place: the old documents are deleted
        _note(vault, rel, rng)
    index.sync()
    for rel in rng.sample(rels[:200], 10):
        (vault.root / rel).unlink()
    index.sync()
    # a skewed read history and a few links, so importance reorders BM25F
    with open(vault.root / "logs/access.log", "a", encoding="utf-8") as log:
        for rel in rng.sample(rels[200:], 8):
            log.write(f"2026-01-01T00:00:00Z | READ | {vault.root / rel}\n" * rng.randint(1, 60))
    hub = vault.root / "memory/long_term/concrete/hub.md"
    links = [make_link("n", hub, vault.root / rel, notes.read(vault.root / rel).uuid)
             for rel in rels[200:215] if (vault.root / rel).exists()]
    hub.write_text(notes.Note.new(title="Hub", body=" ".join(links)).render(), encoding="utf-8")
    index.sync()
    searcher = index.searcher()
    leaves = searcher.reader().leaf_readers()
    assert len(leaves) >= 2 and any(leaf.has_deletions() for leaf, _ in leaves)
    yield vault, index
    index.close()


def _queries(n: int) -> list[str]:
    rng = random.Random(9)
    return [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(n)]


def test_bm25f_from_postings_equals_whoosh_scores(built):
    _vault, index = built
    searcher = index.searcher()
    for text in _queries(60):
        q = parse_query(text)
        terms = scoring.plain_terms(q, searcher.schema)
        assert terms is not None, text
        ours = scoring.bm25f(searcher, terms)
        theirs = {hit.docnum: hit.score for hit in searcher.search(q, limit=None)}
        assert ours.keys() == theirs.keys(), text
        for doc, score in theirs.items():
            assert ours[doc] == pytest.approx(score, rel=1e-9), (text, doc)


def test_top_k_is_exact_under_importance(built):
    vault, index = built
    searcher = index.searcher()
    inbound = index.inbound_counts()
    reads = read_counts(vault.root / "logs", vault.state_dir / "reads.json")
    assert max(reads.values()) > 1 and max(inbound.values()) > 0
    reordered = 0
    for text in _queries(60):
        expected = []
        for hit in searcher.search(parse_query(text), limit=None):
            fields = hit.fields()
            if fields["kind"] == "archive":
                continue
            signals = ranking.Signals(depth=fields["depth"], inbound=inbound.get(fields["path"], 0),
                                      reads=reads.get(fields["path"], 0))
            expected.append((hit.score * ranking.importance(signals), fields["path"]))
        expected.sort(key=lambda item: -item[0])
        hits = index.search(text, limit=5, sync=False, excerpts=False)
        assert [h.score for h in hits] == pytest.approx([s for s, _ in expected[:5]], rel=1e-9), text
        assert [h.path for h in hits] == [p for _, p in expected[:5]], text
        bm25_order = [h["path"] for h in searcher.search(parse_query(text), limit=5)]
        reordered += [h.path for h in hits] != bm25_order
    assert reordered > 0, "importance never changed an order: the test would not see a wrong pool"


def test_kind_filter_and_archive_mask_hold(built):
    vault, index = built
    archived = vault.root / "memory/long_term/archive/old.md"
    archived.parent.mkdir(parents=True, exist_ok=True)
    archived.write_text(notes.Note.new(title="Otter otter", body="otter " * 20).render(), encoding="utf-8")
    try:
        index.sync()
        assert "memory/long_term/archive/old.md" not in [h.path for h in index.search("otter", limit=50)]
        assert index.search("otter", limit=50, exclude_kinds=())[0].path == "memory/long_term/archive/old.md"
        events = index.search("otter heron", limit=50, kind="events")
        assert events and all(h.kind == "events" for h in events)
    finally:
        archived.unlink()
        index.sync()


@pytest.mark.parametrize("text", ['"otter heron"', "otter AND heron", "otter NOT heron", "otter heron"])
def test_only_plain_word_queries_take_the_postings_path(built, text):
    _vault, index = built
    searcher = index.searcher()
    q = parse_query(text)
    assert (scoring.plain_terms(q, searcher.schema) is not None) == (text == "otter heron")
    hits = index.search(text, limit=5, sync=False)
    assert hits and all("otter" in (h.excerpt + h.title).lower() for h in hits)


def test_without_the_codec_internals_the_scores_are_the_same(built, monkeypatch):
    """scoring.py reads the whoosh3 codec's blocks and length column directly (whoosh-reloaded
    is pinned); should they change, the public per-posting API gives the same scores."""
    _vault, index = built
    searcher = index.searcher()
    texts = _queries(15)
    direct = [scoring.bm25f(searcher, scoring.plain_terms(parse_query(t), searcher.schema)) for t in texts]
    monkeypatch.setattr(scoring, "_codec_matcher", lambda: type("Elsewhere", (), {}))

    def no_column(_leaf, _field):
        raise AttributeError("no length column here")
    monkeypatch.setattr(scoring, "_length_column", no_column)
    scoring._doc_norm_memo.clear()
    for text, expected in zip(texts, direct):
        got = scoring.bm25f(searcher, scoring.plain_terms(parse_query(text), searcher.schema))
        assert got.keys() == expected.keys()
        assert all(got[doc] == pytest.approx(score, rel=1e-9) for doc, score in expected.items()), text
    scoring._doc_norm_memo.clear()
