"""MCP benchmark: `recall` through `braniac mcp` and the official `mcp` client, beside the same
recall through the Python API, in the same run, on the same vault.

    python bench/mcp_bench.py                          # 10k notes (a minute or two to build and index)
    python bench/mcp_bench.py --notes 1000 --queries 100
    python bench/mcp_bench.py --workdir /tmp/mb --keep  # keep the vault; a later run reuses it

The vault is index_bench.py's synthetic corpus. Figures, p50/p95 over the queries (after a
warm-up): the MCP round trip (client call -> JSON-RPC over the server's stdin/stdout -> the
tool -> `Recaller.recall` -> the answer parsed by the client) and `Vault.recaller().recall`
in this process, warm, with a file watcher, as the server runs it. Both log their QUERY/READ lines to the access
log. The ratio is the protocol's overhead; the load average says how busy the machine was.
Ends with one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from index_bench import Corpus, build_vault, pct  # noqa: E402

from braniac import Vault  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="braniac-mcp-bench-"))
    root = workdir / f"vault-{args.notes}"
    corpus = Corpus()
    if not (root / "memory").is_dir():
        print(f"building {args.notes} notes in {root} ...", file=sys.stderr)
        vault, _docs = build_vault(root, args.notes, corpus)
        vault.reindex()
    else:
        vault = Vault(root)
    queries = [f"what do I know about {q}?" for q in corpus.queries(args.queries + args.warmup)]

    from mcp_client import Connected, stdio   # tests/mcp_client.py: the official client in a thread
    from braniac.app.watch import ChangeFeed   # as the server: a watcher says what changed

    started = time.perf_counter()
    with vault.recaller(changes=ChangeFeed(vault)) as recaller, \
            Connected(stdio(vault.root, env=dict(os.environ)), timeout=600) as mcp:
        connect = time.perf_counter() - started
        time.sleep(1.0)   # the watchers live
        for q in queries[: args.warmup]:
            recaller.recall(q)
            mcp.call_json("recall", {"query": q})
        api, over_mcp = [], []
        # interleaved, each first in turn: both see the same load and the same warm caches
        for n, q in enumerate(queries[args.warmup:]):
            for which in ((0, 1) if n % 2 else (1, 0)):
                t = time.perf_counter()
                if which == 0:
                    recaller.recall(q)
                    api.append(time.perf_counter() - t)
                else:
                    mcp.call_json("recall", {"query": q})
                    over_mcp.append(time.perf_counter() - t)
    load = os.getloadavg()
    result = {
        "notes": args.notes, "queries": len(api), "cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in load],
        "api_recall_ms": {"p50": round(pct(api, 50) * 1000, 2), "p95": round(pct(api, 95) * 1000, 2)},
        "mcp_recall_ms": {"p50": round(pct(over_mcp, 50) * 1000, 2), "p95": round(pct(over_mcp, 95) * 1000, 2)},
        "server_start_and_connect_s": round(connect, 2),
    }
    result["ratio_p50"] = round(result["mcp_recall_ms"]["p50"] / result["api_recall_ms"]["p50"], 2)
    result["ratio_p95"] = round(result["mcp_recall_ms"]["p95"] / result["api_recall_ms"]["p95"], 2)
    print(f"recall at {args.notes} notes, {len(api)} queries (load average {load[0]:.2f} on {os.cpu_count()} CPUs)")
    print(f"  Python API (warm Recaller)   p50 {result['api_recall_ms']['p50']:8.2f} ms   p95 {result['api_recall_ms']['p95']:8.2f} ms")
    print(f"  MCP client over stdio        p50 {result['mcp_recall_ms']['p50']:8.2f} ms   p95 {result['mcp_recall_ms']['p95']:8.2f} ms")
    print(f"  ratio MCP / API              p50 {result['ratio_p50']:8.2f}x     p95 {result['ratio_p95']:8.2f}x")
    print(f"  server start + connect       {connect:.2f} s")
    print(json.dumps(result))
    if not args.keep and args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
