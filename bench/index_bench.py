"""Search index benchmark: braniac's Whoosh index against SQLite FTS5 over the same notes.

    python bench/index_bench.py                 # 1k and 10k notes (10k takes a few minutes)
    python bench/index_bench.py --sizes 1000    # just 1k
    python bench/index_bench.py --large         # also 50k
    python bench/index_bench.py --workdir /tmp/b --keep

The synthetic corpus follows the dependency probe (docs: /work/shared/notes/dependencies-probe.md
section 4): 20,000 pseudo-English words built from syllables, drawn with Zipf weights
(∝ 1/rank^1.07, seed 42); each note has a title of 3-7 words, 1-4 tags out of 200, a body of
200-400 words in paragraphs of 60, valid frontmatter (braniac.notes.Note.new), and sits in
nested folders under memory/long_term/concrete/.

FTS5 (stdlib sqlite3, `porter unicode61`) is measured in the same run as the reference, over
the same notes: a `notes` table plus an FTS5 table (title, tags, body), WAL, synchronous=NORMAL.
Its queries are the same words OR-ed over title, tags and body, ranked by bm25 with braniac's
field weights, limit 10, fetching path, title, uuid and a snippet (braniac returns excerpts).

Figures, per size:
- reindex: notes/s of `SearchIndex.rebuild()` (reads, parses, indexes and commits every file),
  FTS5 bulk load from the same files (read + parse + insert) and FTS5 load alone (insert only);
- warm search p50/p95 over 200 queries of 2-4 words (ranks 51-20,000; 20 warm-up queries):
  braniac with one SearchIndex kept open, `search(q, sync=False)` and `search(q)` (with the
  sync pass a one-shot command pays); FTS5 on one open connection; the ratio braniac/FTS5.
  The engines take turns query by query (fair on a busy machine), and CPU time is shown too;
- edit visible: write one note with a new word, then in the long-lived process
  `index.sync([path])` + `search(word, sync=False)` until it is found (20 edits), and the same
  with the full `index.sync()` walk; FTS5's UPDATE + query for reference;
- cold `braniac search`: a whole `braniac --vault V search WORDS` process, median of 5.

It prints a table per size with the targets beside the figures and ends with one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import accumulate
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from braniac.vault import notes  # noqa: E402
from braniac.search.index import SearchIndex  # noqa: E402
from braniac import Vault  # noqa: E402

TARGETS = {
    "warm_ratio_10k": 1.5,        # braniac warm search p50 ≤ 1.5 × FTS5 at 10k
    "edit_visible_ms": {10_000: 50.0, 50_000: 100.0},
    "cold_search_s_10k": 0.6,
    "reindex_notes_per_s": 300.0,
}
N_WORDS, N_TAGS, N_QUERIES, N_WARMUP, N_EDITS, N_COLD = 20_000, 200, 200, 20, 20, 5
FIELD_WEIGHTS = (3.0, 2.0, 1.0)   # braniac.ranking.FIELD_BOOSTS: title, tags, body


# ---------------------------------------------------------------------- the corpus

class Corpus:
    """Deterministic pseudo-English vocabulary with Zipf weights (the probe's recipe)."""

    def __init__(self, seed: int = 42):
        self.rng = random.Random(seed)
        onsets = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
                  "z", "br", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "ch", "sl"]
        vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "ee", "oo"]
        codas = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng"]
        words: list[str] = []
        seen: set[str] = set()
        while len(words) < N_WORDS:
            n = self.rng.choice((1, 2, 2, 2, 3, 3, 4))
            word = "".join(self.rng.choice(onsets) + self.rng.choice(vowels) + self.rng.choice(codas)
                           for _ in range(n))
            if len(word) >= 3 and word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        self.cum = list(accumulate(1.0 / (rank ** 1.07) for rank in range(1, N_WORDS + 1)))
        tail = [1.0 / (rank ** 1.07) for rank in range(51, N_WORDS + 1)]
        self.query_words, self.query_cum = words[50:], list(accumulate(tail))
        self.tags = [f"{words[100 + i]}-{words[300 + i]}" for i in range(N_TAGS)]

    def draw(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cum, k=k)

    def note(self) -> tuple[str, list[str], str]:
        rng = self.rng
        title = " ".join(self.draw(rng.randint(3, 7))).capitalize()
        tags = rng.sample(self.tags, rng.randint(1, 4))
        words = self.draw(rng.randint(200, 400))
        paragraphs = [" ".join(words[i:i + 60]).capitalize() + "." for i in range(0, len(words), 60)]
        return title, tags, f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"

    def queries(self, n: int) -> list[str]:
        rng = random.Random(7)
        return [" ".join(rng.choices(self.query_words, cum_weights=self.query_cum, k=rng.randint(2, 4)))
                for _ in range(n)]


def build_vault(root: Path, n: int, corpus: Corpus) -> tuple[Vault, list[dict]]:
    """A fresh vault with n notes in nested folders under memory/long_term/concrete/."""
    vault, _ = Vault.init(root)
    concrete = vault.ltm_root / "concrete"
    docs = []
    for i in range(n):
        title, tags, body = corpus.note()
        # 20 topics × 8 subtopics, every third note one level deeper: depths 1-3 under concrete/
        folder = concrete / f"topic-{i % 20:02d}" / f"sub-{(i // 20) % 8}"
        if i % 3 == 0:
            folder = folder / f"deep-{(i // 160) % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{notes.slugify(title, max_length=40)}-{i}.md"
        note = notes.Note.new(title=title, body=body, tags=tags)
        path.write_text(note.render(), encoding="utf-8")
        docs.append({"path": path.relative_to(vault.root).as_posix(), "uuid": note.uuid})
    return vault, docs


# ---------------------------------------------------------------------- helpers

def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def read_docs(vault: Vault, docs: list[dict]) -> list[tuple]:
    """(path, uuid, title, tags, body) read and parsed from the files, as an indexer must."""
    rows = []
    for d in docs:
        note = notes.parse((vault.root / d["path"]).read_text(encoding="utf-8"))
        rows.append((d["path"], note.uuid, note.title, ",".join(note.tags), note.body))
    return rows


# ---------------------------------------------------------------------- FTS5, the reference

class Fts5:
    def __init__(self, path: Path):
        path.unlink(missing_ok=True)
        self.db = sqlite3.connect(str(path))
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE notes(rowid INTEGER PRIMARY KEY, path TEXT UNIQUE, uuid TEXT, title TEXT)")
        self.db.execute("CREATE VIRTUAL TABLE notes_fts USING fts5(title, tags, body, tokenize='porter unicode61')")
        self.path = path

    def load(self, rows: list[tuple]) -> None:
        with self.db:
            self.db.executemany("INSERT INTO notes(rowid, path, uuid, title) VALUES (?, ?, ?, ?)",
                                [(i, r[0], r[1], r[2]) for i, r in enumerate(rows, 1)])
            self.db.executemany("INSERT INTO notes_fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)",
                                [(i, r[2], r[3], r[4]) for i, r in enumerate(rows, 1)])

    def search(self, text: str) -> list[tuple]:
        words = " OR ".join(f'"{w}"' for w in text.split())
        return self.db.execute(
            "SELECT n.path, n.title, n.uuid, snippet(notes_fts, 2, '**', '**', ' … ', 24) "
            "FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid "
            f"WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts, {', '.join(map(str, FIELD_WEIGHTS))}) LIMIT 10",
            (f"{{title tags body}} : ({words})",)).fetchall()

    def update(self, path: str, row: tuple) -> None:
        with self.db:
            rowid = self.db.execute("SELECT rowid FROM notes WHERE path = ?", (path,)).fetchone()[0]
            self.db.execute("UPDATE notes SET title = ? WHERE rowid = ?", (row[2], rowid))
            self.db.execute("DELETE FROM notes_fts WHERE rowid = ?", (rowid,))
            self.db.execute("INSERT INTO notes_fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)",
                            (rowid, row[2], row[3], row[4]))


# ---------------------------------------------------------------------- one size

def time_queries(runs: dict, warmup: list[str], queries: list[str]) -> dict:
    """Wall and CPU seconds per query for each engine. The engines take turns query by query,
    so a busy machine slows them alike and the ratios stay fair."""
    for run in runs.values():
        for q in warmup:
            run(q)
    out = {name: {"wall": [], "cpu": [], "hits": 0} for name in runs}
    for q in queries:
        for name, run in runs.items():
            c0, t0 = time.process_time(), time.perf_counter()
            found = run(q)
            out[name]["wall"].append(time.perf_counter() - t0)
            out[name]["cpu"].append(time.process_time() - c0)
            out[name]["hits"] += len(found)
    return out


def edit_note(vault: Vault, rel: str, word: str) -> None:
    """An editor's in-place save: the same file rewritten with one new paragraph."""
    path = vault.root / rel
    text = path.read_text(encoding="utf-8")
    path.write_text(text + f"\nEdited: {word} appears now.\n", encoding="utf-8")


def run_size(n: int, workdir: Path, braniac_cmd: list[str], keep: bool = False) -> dict:
    corpus = Corpus()
    queries = corpus.queries(N_QUERIES + N_WARMUP)
    warm_q, timed_q = queries[:N_WARMUP], queries[N_WARMUP:]
    root = workdir / f"vault-{n}"
    shutil.rmtree(root, ignore_errors=True)
    out: dict = {"notes": n}

    t0 = time.perf_counter()
    vault, docs = build_vault(root, n, corpus)
    out["generate_s"] = round(time.perf_counter() - t0, 1)
    log(f"[{n}] generated {n} notes in {out['generate_s']} s; reindexing…")

    # --- full reindex
    index = SearchIndex(vault)
    c0, t0 = time.process_time(), time.perf_counter()
    report = index.rebuild()
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    out["files_indexed"] = report.added
    out["reindex_s"] = round(took, 2)
    out["reindex_notes_per_s"] = round(report.added / took, 1)
    out["reindex_cpu_notes_per_s"] = round(report.added / cpu, 1)  # what an idle machine would give
    out["index_mb"] = round(dir_size(index.dir) / 1e6, 1)
    log(f"[{n}] rebuild {took:.1f} s; FTS5 load…")

    t0 = time.perf_counter()
    rows = read_docs(vault, docs)
    t_read = time.perf_counter() - t0
    fts = Fts5(workdir / f"fts-{n}.db")
    t0 = time.perf_counter()
    fts.load(rows)
    t_load = time.perf_counter() - t0
    out["fts5_reindex_notes_per_s"] = round(n / (t_read + t_load), 1)
    out["fts5_load_notes_per_s"] = round(n / t_load, 1)
    out["fts5_mb"] = round(sum(p.stat().st_size for p in workdir.glob(f"fts-{n}.db*")) / 1e6, 1)

    # --- warm search
    index = SearchIndex(vault)
    timed = time_queries({"braniac_nosync": lambda q: index.search(q, sync=False),
                          "braniac_sync": lambda q: index.search(q), "fts5": fts.search}, warm_q, timed_q)
    for key, t in timed.items():
        out[f"search_{key}_p50_ms"] = ms(pct(t["wall"], 50))
        out[f"search_{key}_p95_ms"] = ms(pct(t["wall"], 95))
        out[f"search_{key}_cpu_p50_ms"] = ms(pct(t["cpu"], 50))
    out["search_mean_hits"] = {"braniac": round(timed["braniac_nosync"]["hits"] / len(timed_q), 2),
                               "fts5": round(timed["fts5"]["hits"] / len(timed_q), 2)}
    for key in ("nosync", "sync"):
        out[f"search_ratio_{key}_p50"] = round(out[f"search_braniac_{key}_p50_ms"] / out["search_fts5_p50_ms"], 2)
        out[f"search_ratio_{key}_p95"] = round(out[f"search_braniac_{key}_p95_ms"] / out["search_fts5_p95_ms"], 2)
    out["search_ratio_nosync_cpu_p50"] = round(out["search_braniac_nosync_cpu_p50_ms"] / out["search_fts5_cpu_p50_ms"], 2)
    log(f"[{n}] search done; edits…")

    # --- one edited note visible to search, in a long-lived process
    rng = random.Random(11)
    for variant in ("paths", "walk"):
        times = []
        for k in range(N_EDITS):
            rel = rng.choice(docs)["path"]
            word = f"zqx{variant}{k}edit"
            edit_note(vault, rel, word)
            t0 = time.perf_counter()
            index.sync([vault.root / rel] if variant == "paths" else None)
            found = index.search(word, sync=False, limit=3)
            times.append(time.perf_counter() - t0)
            assert found and found[0].path == rel, (variant, word, found)
        out[f"edit_visible_{variant}_p50_ms"] = ms(pct(times, 50))
        out[f"edit_visible_{variant}_max_ms"] = ms(max(times))
    times = []
    for k in range(N_EDITS):
        rel = rng.choice(docs)["path"]
        word = f"zqxfts{k}edit"
        edit_note(vault, rel, word)
        t0 = time.perf_counter()
        note = notes.parse((vault.root / rel).read_text(encoding="utf-8"))
        fts.update(rel, (rel, note.uuid, note.title, ",".join(note.tags), note.body))
        found = fts.search(word)
        times.append(time.perf_counter() - t0)
        assert found and found[0][0] == rel
    out["fts5_edit_visible_p50_ms"] = ms(pct(times, 50))
    out["fts5_edit_visible_max_ms"] = ms(max(times))
    index.fold_small_segments()  # what `braniac watch` does when the vault is quiet
    index.close()
    fts.db.close()

    # --- cold one-shot `braniac search`
    times = []
    for q in timed_q[:N_COLD + 1]:
        t0 = time.perf_counter()
        proc = subprocess.run([*braniac_cmd, "--vault", str(vault.root), "search", *q.split()],
                              capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"braniac search failed: {proc.stderr}")
    out["cold_search_median_s"] = round(statistics.median(times[1:]), 3)  # the first warms the page cache
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
        for p in workdir.glob(f"fts-{n}.db*"):
            p.unlink()
    return out


# ---------------------------------------------------------------------- report

def verdict(ok: bool | None) -> str:
    return "" if ok is None else ("met" if ok else "MISSED")


def table(r: dict) -> str:
    n = r["notes"]
    edit_target = TARGETS["edit_visible_ms"].get(n)
    rows = [
        ("reindex notes/s (rebuild)", f"{r['reindex_notes_per_s']:.0f}  ({r['reindex_s']} s; CPU {r['reindex_cpu_notes_per_s']:.0f}/s)",
         f"FTS5 {r['fts5_reindex_notes_per_s']:.0f} from files, {r['fts5_load_notes_per_s']:.0f} load only",
         f"≥ {TARGETS['reindex_notes_per_s']:.0f}", verdict(r["reindex_notes_per_s"] >= TARGETS["reindex_notes_per_s"])),
        ("index size MB", f"{r['index_mb']}", f"FTS5 {r['fts5_mb']}", "", ""),
        ("warm search p50/p95 ms, sync=False", f"{r['search_braniac_nosync_p50_ms']} / {r['search_braniac_nosync_p95_ms']}",
         f"FTS5 {r['search_fts5_p50_ms']} / {r['search_fts5_p95_ms']}  → {r['search_ratio_nosync_p50']}× / {r['search_ratio_nosync_p95']}×",
         "≤ 1.5× at 10k" if n == 10_000 else "",
         verdict(r["search_ratio_nosync_p50"] <= TARGETS["warm_ratio_10k"]) if n == 10_000 else ""),
        ("warm search CPU p50 ms, sync=False", f"{r['search_braniac_nosync_cpu_p50_ms']}",
         f"FTS5 {r['search_fts5_cpu_p50_ms']}  → {r['search_ratio_nosync_cpu_p50']}×", "", ""),
        ("warm search p50/p95 ms, with sync", f"{r['search_braniac_sync_p50_ms']} / {r['search_braniac_sync_p95_ms']}",
         f"→ {r['search_ratio_sync_p50']}× / {r['search_ratio_sync_p95']}× FTS5", "", ""),
        ("edit visible p50/max ms, sync([path])", f"{r['edit_visible_paths_p50_ms']} / {r['edit_visible_paths_max_ms']}",
         f"FTS5 {r['fts5_edit_visible_p50_ms']} / {r['fts5_edit_visible_max_ms']}",
         f"≤ {edit_target:.0f} ms" if edit_target else "",
         verdict(r["edit_visible_paths_p50_ms"] <= edit_target) if edit_target else ""),
        ("edit visible p50/max ms, full sync()", f"{r['edit_visible_walk_p50_ms']} / {r['edit_visible_walk_max_ms']}", "", "", ""),
        ("cold `braniac search` s (median of 5)", f"{r['cold_search_median_s']}", "",
         "≤ 0.6 s at 10k" if n == 10_000 else "",
         verdict(r["cold_search_median_s"] <= TARGETS["cold_search_s_10k"]) if n == 10_000 else ""),
    ]
    widths = [max(len(str(row[i])) for row in rows + [("", "", "", "", "")]) for i in range(5)]
    head = f"== {n:,} notes  (mean hits/query braniac {r['search_mean_hits']['braniac']}, FTS5 {r['search_mean_hits']['fts5']};" \
           f" load average {r['load_average']})"
    lines = [head]
    for row in rows:
        lines.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1_000, 10_000],
                        help="comma-separated note counts (default 1000,10000)")
    parser.add_argument("--large", action="store_true", help="also run 50,000 notes")
    parser.add_argument("--workdir", type=Path, help="where to build the vaults (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the workdir")
    args = parser.parse_args()
    sizes = args.sizes + ([50_000] if args.large and 50_000 not in args.sizes else [])
    exe = Path(sys.executable).with_name("braniac")
    braniac_cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "braniac"]

    made = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="braniac-bench-")) if made else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for n in sizes:
            before = os.getloadavg()[0]
            r = run_size(n, workdir, braniac_cmd, keep=args.keep)
            r["load_average"] = f"{before:.2f}→{os.getloadavg()[0]:.2f}"
            results.append(r)
            print(table(r), flush=True)
    finally:
        if made and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        elif not args.keep:
            for n in sizes:
                shutil.rmtree(workdir / f"vault-{n}", ignore_errors=True)
    print(json.dumps({"bench": "index", "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
                      "cpus": os.cpu_count(), "targets": {**TARGETS, "edit_visible_ms": {str(k): v for k, v in TARGETS["edit_visible_ms"].items()}},
                      "results": results}))


if __name__ == "__main__":
    main()
