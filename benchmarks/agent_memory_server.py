"""Benchmark the embedded Agent Memory server over HTTP through the SDK.

    .venv/bin/python -m benchmarks.agent_memory_server [--sizes 1000,10000,100000]
        [--embedders hashing,minilm] [--searches 200] [--adds 300] [--parts search,cold]
        [--shoppers 20] [--cold-size 100000] [--cold-repeats 2] [--think-ms 100]
        [--parts search,cold,lock,dialogue,index] [--largest-repeats 5] [--dialogue-blocks 10000]
        [--index-blocks 10000] [--mode hybrid]

Part "cold": --shoppers shoppers with 1k blocks each search their memory (pausing 0 to
2x --think-ms between searches, as between messages), first while a cold --cold-size-block
user's first search loads that user's index, then as many times again with nothing loading;
it prints both p50/p95 and the ratio of the p95s (the target is within 20%).
Part "dialogue": in process, through the server's own services and a temporary database,
--dialogue-blocks turns of the recall benchmark's dialogues (benchmarks/recall/dialogues.py,
one block per turn, as the SDK would add them) are added one call each, then their questions
searched (every query distinct); it prints add and search p50/p95 and the index memory of
that user (as the "search" part does for its one-sentence bulk-loaded blocks). Blocks of
several sentences, replies and dates are what the ranking's context, dates and sentence
vectors cost on.
Part "index": in process, no HTTP or SQLite: one user's index of --index-blocks blocks (25 a
session, an hour apart; random unit vectors, texts of eight words from a small vocabulary)
searched --searches times per mode, and the embedder's cost for a write's block alone
against the block with its sentences (the dialogue turns, alternately). Run it in a
checkout of an earlier commit for the figures before a change; the machine's load moves
less between these runs than between HTTP runs.
Part "lock": the largest add the server allows (as many facts as one request may carry, each
at the per-block token limit), in process: the whole call and how long it held the write lock.

Starts its own server process on 127.0.0.1 with a temporary database per embedder. Blocks
for the search figures are bulk-loaded straight into that database before the server starts
(adding 100k blocks through HTTP with MiniLM would take far too long); the loader embeds a
pool of distinct texts with the real embedder and reuses their vectors, which costs search
exactly what distinct vectors would. Every query is distinct (across sizes too), so the
query-vector cache never hits and each search pays for embedding its query.
"""

from __future__ import annotations

import argparse
import os

from benchmarks.memory_server.cold import run_cold_load
from benchmarks.memory_server.dialogue import dialogue_in_process, run_dialogue
from benchmarks.memory_server.index import index_in_process, run_index
from benchmarks.memory_server.loading import load, measure_index_memory
from benchmarks.memory_server.lock import largest_add, run_largest_add
from benchmarks.memory_server.search import run_embedder


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--adds", type=int, default=300)
    parser.add_argument(
        "--parts",
        default="search,cold,lock",
        help="search (sizes, adds, ratio), cold (a cold load under searches), lock (largest add), "
        "dialogue (dialogue turns in process), index (the index and the embedder in process)",
    )
    parser.add_argument("--shoppers", type=int, default=20, help="cold part: searching shoppers")
    parser.add_argument("--cold-size", type=int, default=100_000, help="cold part: its blocks")
    parser.add_argument("--cold-repeats", type=int, default=2, help="cold part: cold users")
    parser.add_argument(
        "--think-ms", type=float, default=100.0, help="cold part: mean pause between searches"
    )
    parser.add_argument(
        "--largest-repeats", type=int, default=5, help="lock part: largest adds to time"
    )
    parser.add_argument("--load", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="hybrid", help="search part: AGENT_MEMORY_SEARCH_MODE")
    parser.add_argument("--index-memory", help=argparse.SUPPRESS)
    parser.add_argument("--dialogue-in-process", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index-in-process", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index-blocks", type=int, default=10_000, help="index part: blocks")
    parser.add_argument(
        "--dialogue-blocks", type=int, default=10_000, help="dialogue part: turns to add"
    )
    parser.add_argument("--largest-add", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--distinct", type=int, default=5000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.largest_add:
        largest_add(args.largest_add)
        return
    if args.index_in_process:
        import django

        django.setup()
        index_in_process(args.index_in_process, args.searches)
        return
    if args.dialogue_in_process:
        dialogue_in_process(args.dialogue_in_process, args.adds)
        return
    if args.index_memory:
        measure_index_memory(args.index_memory)
        return
    if args.load:
        users = [item.split("=") for item in args.load.split(",")]
        load([(user_id, int(size)) for user_id, size in users], args.distinct)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    parts = set(args.parts.split(","))
    print(
        f"Embedded Agent Memory server benchmark; {os.cpu_count()} CPUs; SDK over HTTP on 127.0.0.1"
    )
    for embedder in args.embedders.split(","):
        if "search" in parts:
            run_embedder(embedder, sizes, args)
        if "cold" in parts:
            run_cold_load(embedder, args)
        if "index" in parts:
            run_index(embedder, args)
        if "dialogue" in parts:
            run_dialogue(embedder, args)
        if "lock" in parts:
            run_largest_add(embedder, args)


if __name__ == "__main__":
    main()
