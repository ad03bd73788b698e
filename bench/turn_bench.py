"""Turn benchmark: the memory-side work of one core-loop turn, reflection's append, and the time
`braniac chat` takes to show its first prompt.

    python bench/turn_bench.py                     # 1k and 10k notes (10k: a minute or two to index)
    python bench/turn_bench.py --sizes 1000
    python bench/turn_bench.py --workdir /tmp/tb --keep   # keep the vaults; a later run reuses them

The vaults are index_bench.py's synthetic corpus (pseudo-English words with Zipf weights; each
note 200-400 words, 1-4 tags, valid frontmatter from braniac.notes.Note.new, in nested folders
under memory/long_term/concrete/), plus a realistic short_term.md: 30 events written with
Vault.append_event (a question or statement, an answer of 15-45 words, thoughts), with a few
goals, facts and tasks.

Figures, per size:
- turn: `CoreLoop.prepare(prompt, sync=True)` with the offline engine and one SearchIndex kept
  open and warm, as the chat REPL runs it: the index synced for what the chat's file watcher
  (ChangeFeed) saw change, working-memory assembly (identity, whole STM parsed, conversation
  summary), query generation, search + passages, budget fit and the access.log append.
  100 prompts (10 warm-up), each naming 1-3 rarer corpus words in a sentence; p50/p95.
  Shown beside it: the turn with no sync at all (`prepare(sync=False)`); the same turn with
  no watcher, so each turn walks the vault (what a one-shot `braniac ask` does) and the walk
  alone (`index.sync()` with nothing changed); and the whole offline turn (`CoreLoop.run`,
  adding the offline answer).
- reflection append: `Vault.append_event` (lock, read, parse, insert, atomic write with fsync
  of the file and its folder) on an STM of 30+ events, 100 appends, p50/p95; the same with
  os.fsync made a no-op (the disk's share); `Reflector.reflect_now` (offline reflection + the
  append) for reference.
- time to first prompt of `braniac --vault V chat`, median of 5, measured two ways:
  (a) under a pseudo-terminal (pty.fork): from spawn until the prompt text "you> " is drawn
      by prompt_toolkit; (b) with piped stdin: from spawn until the banner line is printed.
Targets: turn p50 ≤ 25 ms at 10k notes; append p50 ≤ 5 ms; time to first prompt ≤ 0.5 s.
Prints a table per size and ends with one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import pty
import random
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from index_bench import Corpus, build_vault, pct  # noqa: E402

from braniac.vault import stm  # noqa: E402
from braniac.infra.config import Config, ModelConfig  # noqa: E402
from braniac.search.index import SearchIndex  # noqa: E402
from braniac.model.offline import OfflineModel  # noqa: E402
from braniac.processes.core_loop import CoreLoop  # noqa: E402
from braniac.processes.reflection import Reflector  # noqa: E402
from braniac import Vault  # noqa: E402

TARGETS = {"turn_p50_ms_10k": 25.0, "append_p50_ms": 5.0, "first_prompt_s": 0.5}
N_PROMPTS, N_WARMUP, N_APPENDS, N_STM_EVENTS, N_SPAWNS = 100, 10, 100, 30, 5

QUESTION_FORMS = ["What do I know about {}?", "Remind me what we said about {}.", "Tell me more about {} please.",
                  "Did we decide anything on {} last week?", "How does {} relate to my project?",
                  "Where did I read about {}?", "Summarize my notes on {}."]


# ---------------------------------------------------------------------- the vault

def stm_events(corpus: Corpus, rng: random.Random, n: int) -> list[dict[str, str]]:
    events = []
    for i in range(n):
        topic = " ".join(rng.choices(corpus.query_words, cum_weights=corpus.query_cum, k=rng.randint(1, 3)))
        if i % 3 == 0:
            user = f"Remember that {topic} " + " ".join(corpus.draw(rng.randint(8, 25))) + "."
        else:
            user = rng.choice(QUESTION_FORMS).format(topic)
        answer = " ".join(corpus.draw(rng.randint(15, 45))).capitalize() + "."
        events.append({"User": user, "AI": answer,
                       "Thoughts": f"Topics: {topic}. " + " ".join(corpus.draw(rng.randint(6, 15))) + "."})
    return events


def reset_stm(vault: Vault, corpus: Corpus) -> None:
    """short_term.md as after a morning of use: 30 events, a few goals, facts and tasks."""
    rng = random.Random(5)
    vault.stm_path.write_text(stm.render_new("Earlier work on " + " ".join(corpus.draw(30)) + "."), encoding="utf-8")
    for i, fields in enumerate(stm_events(corpus, rng, N_STM_EVENTS)):
        extra = {}
        if i % 6 == 0:
            extra["goals"] = ["finish " + " ".join(corpus.draw(4))]
        if i % 4 == 0:
            extra["facts"] = [" ".join(corpus.draw(8))]
        if i % 5 == 0:
            extra["tasks"] = ["look up " + " ".join(corpus.draw(3))]
        vault.append_event(fields, **extra)


def get_vault(workdir: Path, n: int, corpus: Corpus) -> Vault:
    root = workdir / f"vault-{n}"
    marker = root / ".braniac" / "bench-built"
    if marker.exists():
        log(f"[{n}] reusing {root}")
        vault = Vault(root)
    else:
        shutil.rmtree(root, ignore_errors=True)
        t0 = time.perf_counter()
        vault, _ = build_vault(root, n, corpus)
        log(f"[{n}] generated {n} notes in {time.perf_counter() - t0:.1f} s; indexing…")
        t0 = time.perf_counter()
        SearchIndex(vault).rebuild()
        log(f"[{n}] indexed in {time.perf_counter() - t0:.1f} s")
        marker.write_text("1")
    reset_stm(vault, corpus)
    vault.access_log_path.write_text("")
    return vault


# ---------------------------------------------------------------------- measurements

def prompts_for(corpus: Corpus, n: int) -> list[str]:
    rng = random.Random(9)
    out = []
    for _ in range(n):
        topic = " ".join(rng.choices(corpus.query_words, cum_weights=corpus.query_cum, k=rng.randint(1, 3)))
        out.append(rng.choice(QUESTION_FORMS).format(topic))
    return out


def measure_turns(vault: Vault, corpus: Corpus, config: Config) -> dict:
    from braniac.app.watch import ChangeFeed

    index = SearchIndex(vault)
    index.sync()
    index.searcher()
    loop = CoreLoop(vault, OfflineModel(), config, index=index)
    prompts = prompts_for(corpus, N_WARMUP + N_PROMPTS)
    filled = {}
    if loop.embedder:   # every prompt once first: the turns below find their passages' vectors kept
        t0 = time.perf_counter()
        for p in prompts:
            loop.prepare(p, sync=True)
        filled = {"embedding_fill_s": round(time.perf_counter() - t0, 1), "embedding_requests": loop.embedder.requests}
    for p in prompts[:N_WARMUP]:
        loop.prepare(p, sync=True)
    # The chat's way: a ChangeFeed (a background watcher) tells each turn which files changed,
    # so a turn syncs only those instead of walking the vault (a full walk every 30 s reconciles).
    loop.changes = ChangeFeed(vault)
    deadline = time.monotonic() + 5
    while not loop.changes._live.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    loop.changes.pending()  # the first call asks for the full walk; the chat does it at start-up
    chat_turn, excerpts, queries = [], 0, 0
    for p in prompts[N_WARMUP:]:
        t0 = time.perf_counter()
        turn, _wm = loop.prepare(p, sync=True)
        chat_turn.append(time.perf_counter() - t0)
        excerpts += len(turn.excerpts)
        queries += len(turn.queries)
        loop.conversation.add(p, "an answer of a few words")  # the REPL's conversation grows
    loop.changes.close()
    loop.changes = None
    # Without a watcher (a one-shot `braniac ask`), every turn walks the vault first.
    walked = []
    for p in prompts[N_WARMUP:]:
        t0 = time.perf_counter()
        loop.prepare(p, sync=True)
        walked.append(time.perf_counter() - t0)
    sync_only, nosync = [], []
    for p in prompts[N_WARMUP:N_WARMUP + 50]:
        t0 = time.perf_counter()
        index.sync()
        sync_only.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        loop.prepare(p, sync=False)
        nosync.append(time.perf_counter() - t0)
    whole = []
    for p in prompts[N_WARMUP:N_WARMUP + 30]:
        t0 = time.perf_counter()
        loop.run(p)
        whole.append(time.perf_counter() - t0)
    log_lines = sum(1 for line in vault.access_log_path.read_text().splitlines() if " | READ | " in line)
    index.close()
    return {"chat_turn_p50_ms": ms(pct(chat_turn, 50)), "chat_turn_p95_ms": ms(pct(chat_turn, 95)),
            "turn_p50_ms": ms(pct(walked, 50)), "turn_p95_ms": ms(pct(walked, 95)), "turn_max_ms": ms(max(walked)),
            "sync_only_p50_ms": ms(pct(sync_only, 50)), "prepare_nosync_p50_ms": ms(pct(nosync, 50)),
            "offline_run_p50_ms": ms(pct(whole, 50)), "mean_excerpts": round(excerpts / N_PROMPTS, 2),
            "mean_queries": round(queries / N_PROMPTS, 2), "access_log_lines": log_lines, **filled}


def measure_appends(vault: Vault, corpus: Corpus) -> dict:
    rng = random.Random(13)
    events = stm_events(corpus, rng, N_APPENDS * 2)
    times = []
    for fields in events[:N_APPENDS]:
        t0 = time.perf_counter()
        vault.append_event(fields)
        times.append(time.perf_counter() - t0)
    # the same appends with fsync made a no-op: how much of the time is the disk's
    real_fsync, nofsync = os.fsync, []
    os.fsync = lambda fd: None
    try:
        for fields in events[N_APPENDS + 30:N_APPENDS + 80]:
            t0 = time.perf_counter()
            vault.append_event(fields)
            nofsync.append(time.perf_counter() - t0)
    finally:
        os.fsync = real_fsync
    reflector = Reflector(vault, OfflineModel())
    reflect = []
    for fields in events[N_APPENDS:N_APPENDS + 30]:
        t0 = time.perf_counter()
        reflector.reflect_now(fields["User"], fields["AI"])
        reflect.append(time.perf_counter() - t0)
    return {"append_p50_ms": ms(pct(times, 50)), "append_p95_ms": ms(pct(times, 95)),
            "append_nofsync_p50_ms": ms(pct(nofsync, 50)), "reflect_now_p50_ms": ms(pct(reflect, 50)), "stm_events_after": len(vault.read_stm().events),
            "stm_kb_after": round(vault.stm_path.stat().st_size / 1024, 1)}


def first_prompt_pty(cmd: list[str], env: dict) -> float:
    """Spawn under a pseudo-terminal; seconds until prompt_toolkit has drawn the 'you> ' prompt."""
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, env)
    seen, took = b"", None
    deadline = t0 + 20
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            seen += data
            if b"\x1b[6n" in data:  # prompt_toolkit asks where the cursor is; answer like a terminal
                os.write(fd, b"\x1b[1;1R")
            if b"you>" in seen:  # drawn with cursor moves between "you>" and its space
                took = time.perf_counter() - t0
                break
    finally:
        try:
            os.write(fd, b"\x04")  # Ctrl-D: leave
            time.sleep(0.2)
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    if took is None:
        raise SystemExit(f"no prompt seen under the pty; output was {seen[-300:]!r}")
    return took


def first_banner_piped(cmd: list[str], env: dict) -> float:
    """Spawn with piped stdin; seconds until the banner line is printed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    line = proc.stdout.readline()
    took = time.perf_counter() - t0
    proc.stdin.close()
    proc.wait(30)
    if not line.startswith(b"braniac chat"):
        raise SystemExit(f"unexpected first line {line!r}")
    return took


def measure_first_prompt(vault: Vault) -> dict:
    exe = Path(sys.executable).with_name("braniac")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "braniac"]
    cmd += ["--vault", str(vault.root), "chat"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRANIAC_")}
    env["TERM"] = env.get("TERM", "xterm") if env.get("TERM") not in (None, "", "dumb") else "xterm"
    first_banner_piped(cmd, env)  # warm the page cache
    piped = [first_banner_piped(cmd, env) for _ in range(N_SPAWNS)]
    tty = [first_prompt_pty(cmd, env) for _ in range(N_SPAWNS)]
    return {"first_prompt_pty_s": round(statistics.median(tty), 3),
            "first_banner_piped_s": round(statistics.median(piped), 3)}


# ---------------------------------------------------------------------- report

def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def table(r: dict) -> str:
    n = r["notes"]
    rows = [
        ("turn, as `braniac chat` runs it, p50/p95 ms", f"{r['chat_turn_p50_ms']} / {r['chat_turn_p95_ms']}",
         f"prepare() syncing what the chat's watcher saw; {r['mean_queries']} queries, "
         f"{r['mean_excerpts']} excerpts per turn",
         "≤ 25 ms at 10k" if n == 10_000 else "",
         verdict(r["chat_turn_p50_ms"] <= TARGETS["turn_p50_ms_10k"]) if n == 10_000 else ""),
        ("  the same without any sync p50 ms", f"{r['prepare_nosync_p50_ms']}", "prepare(sync=False)", "", ""),
        ("turn with a full walk p50/p95 ms", f"{r['turn_p50_ms']} / {r['turn_p95_ms']}",
         f"prepare(sync=True), no watcher (one-shot `braniac ask`); max {r['turn_max_ms']}", "", ""),
        ("  of which: the walk alone p50 ms", f"{r['sync_only_p50_ms']}", "index.sync(), nothing changed", "", ""),
        ("whole offline turn (run) p50 ms", f"{r['offline_run_p50_ms']}", "prepare + offline answer", "", ""),
        ("reflection append p50/p95 ms", f"{r['append_p50_ms']} / {r['append_p95_ms']}",
         f"STM {r['stm_events_after']} events, {r['stm_kb_after']} KB at the end; reflect_now p50 {r['reflect_now_p50_ms']} ms",
         "≤ 5 ms", verdict(r["append_p50_ms"] <= TARGETS["append_p50_ms"])),
        ("  the same without fsync p50 ms", f"{r['append_nofsync_p50_ms']}", "os.fsync made a no-op (2 per append)", "", ""),
        ("chat first prompt s (pty, median of 5)", f"{r['first_prompt_pty_s']}", "until 'you> ' is drawn", "≤ 0.5 s",
         verdict(r["first_prompt_pty_s"] <= TARGETS["first_prompt_s"])),
        ("chat banner s (piped stdin, median of 5)", f"{r['first_banner_piped_s']}", "until the banner line", "", ""),
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(5)]
    lines = [f"== {n:,} notes (load average {r['load_average']})"]
    for row in rows:
        lines.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1_000, 10_000])
    parser.add_argument("--workdir", type=Path, help="where to build the vaults (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the vaults (a later run with --workdir reuses them)")
    parser.add_argument("--embedding-model", help="measure turns with this [embedding] model (e.g. openai/minilm "
                        "and --embedding-api-base of bench/embedding_server.py); the turns are timed after "
                        "every prompt has run once, with the passages' vectors kept")
    parser.add_argument("--embedding-api-base")
    args = parser.parse_args()
    config = Config(embedding=ModelConfig(name=args.embedding_model, api_base=args.embedding_api_base,
                                          timeout=60.0, retries=0)) if args.embedding_model else Config()
    made = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="braniac-turn-bench-")) if made else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for n in args.sizes:
            corpus = Corpus()
            vault = get_vault(workdir, n, corpus)
            before = os.getloadavg()[0]
            r = {"notes": n}
            log(f"[{n}] turns…")
            r.update(measure_turns(vault, corpus, config))
            log(f"[{n}] appends…")
            r.update(measure_appends(vault, corpus))
            log(f"[{n}] chat start…")
            r.update(measure_first_prompt(vault))
            r["load_average"] = f"{before:.2f}→{os.getloadavg()[0]:.2f}"
            results.append(r)
            print(table(r), flush=True)
    finally:
        if not args.keep:
            if made:
                shutil.rmtree(workdir, ignore_errors=True)
            else:
                for n in args.sizes:
                    shutil.rmtree(workdir / f"vault-{n}", ignore_errors=True)
    print(json.dumps({"bench": "turn", "python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "targets": TARGETS, "results": results}))


if __name__ == "__main__":
    main()
