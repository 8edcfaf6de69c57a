"""Benchmark the app's share of a chat turn, and many shoppers chatting at once.

    .venv/bin/python -m benchmarks.turn_overhead [--sizes 0,100,1000] [--turns 60]
        [--shoppers 50] [--rounds 3] [--embedders hashing,minilm] [--parts 1,2] [--profile N]

Part 1, in process, once per embedder (each with its own memory server): the time before
the first token that the app spends (look the session up with the recall's searches issued
beside it, as the pipeline does, render the notes, build the prompt and the tool schemas),
p50/p95 over --turns turns for a shopper with 0, 100 and 1,000 stored blocks; a recall on
its own (its three-plus-one searches issued together) against one search alone (target
<= 2.0); and, with both embedders, a MiniLM recall against a hashing recall
(target <= 2.0). Every message is distinct, as every real one is: the server caches query
vectors, so a repeated text would hide the embedding. The embedding of one query is also
timed on its own, in this process with the same embedder, so the figures can be read
against it (and re-run when the embedder changes).
Part 2, over loopback: `benchmarks/shoppers_load.py` on its default profile (daphne on
SQLite and the embedded memory server with the first of --embedders, each in its own
process; --shoppers signed-in shoppers x --rounds turns at once, answered by the offline
model); that script says what it prints, and runs the PostgreSQL profile too.
--profile N prints the N costliest functions (CPU time, cProfile) of the app's side of the
recalls of part 1.
Everything runs against 127.0.0.1 with temporary databases.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import time

from benchmarks.overhead.common import (
    QUERIES,
    ROOT,
    fmt,
    message,
    server_pid_for,
    start_memory_server,
)


async def populate(username: str, user_id: str, size: int) -> str:
    """Spread `size` blocks over ten earlier visits; return a current session with 5 turns.

    Written in bulk beneath the turn's handle: the store is the benchmark's setting, not a
    turn it times (a turn's `remember` judges each exchange, which 1,000 blocks would wait
    on); what is timed below goes through `TurnMemory` as the pipeline does.
    """
    from memoryapp.blocks import TURN
    from memoryapp.recording import facts_record
    from memoryapp.sessions import session_open

    per_session = size // 10
    for visit in range(10 if size else 0):
        memory = await session_open(user_id=user_id, display_name=username, session_id=None)
        facts = [f"The shopper likes style {visit}-{i}." for i in range(per_session // 5)]
        messages = [
            {
                "user_content": f"{QUERIES[i % len(QUERIES)]} (visit {visit}, {i})",
                "assistant_content": f"Here are {i} options.",
            }
            for i in range(per_session - len(facts))
        ]
        for start in range(0, len(messages), 50):
            await memory.resource.add_memory(
                messages=messages[start : start + 50],
                annotations=TURN,
                context_required=False,
            )
        if facts:
            await facts_record(memory=memory, facts=facts)
    current = await session_open(user_id=user_id, display_name=username, session_id=None)
    for i in range(5):
        await current.resource.add_memory(
            messages=[{"user_content": QUERIES[i], "assistant_content": "Here are some."}],
            annotations=TURN,
            context_required=False,
        )
    return current.session_id


def cpu_now(server_pid: int) -> tuple[float, float]:
    """CPU seconds used so far by this process (the app) and by the memory server."""
    with open(f"/proc/{server_pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    server = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return time.process_time(), server


def cpu_since(before: tuple[float, float], server_pid: int) -> tuple[float, float]:
    app, server = cpu_now(server_pid)
    return (app - before[0]) * 1000, (server - before[1]) * 1000


async def overhead(
    size: int, turns: int, server_pid: int, profiler: cProfile.Profile | None = None
) -> dict[str, list]:
    from asgiref.sync import sync_to_async

    from assistant.turn.prompting import turn_messages
    from assistant.turn.tools import tool_schemas, vocabulary_load
    from memoryapp.accounts import account_memory_user_id
    from memoryapp.blocks import TURN
    from memoryapp.clients import memory_session_async
    from memoryapp.turn import TurnMemory
    from shop.services import shopper_get_or_create

    username = f"bench-{size}"
    account = await sync_to_async(shopper_get_or_create)(username=username)
    user_id = await sync_to_async(account_memory_user_id)(account=account)
    session_id = await populate(username, user_id, size)
    figures: dict[str, list[float]] = {
        "overhead": [],
        "recall": [],
        "one_search": [],
        "recall_cpu": [],
        "one_search_cpu": [],
    }
    for i in range(turns):
        text = message(i, size, "turn")
        started = time.perf_counter()
        # The pipeline's own handle: the recall goes out with the session's lookup.
        memory = await TurnMemory.open(
            account=account,
            display_name=username,
            session_id=session_id,
            message=text,
            turn_count=5,
        )
        vocabulary = await vocabulary_load()  # before the recall is awaited, as in the pipeline
        recall = await memory.recall()
        memory.close()
        turn_messages(signed_in=True, notes=recall.notes, text=text)
        tool_schemas(vocabulary=vocabulary, with_memory=True)
        figures["overhead"].append((time.perf_counter() - started) * 1000)
        alone_memory = await TurnMemory.open(
            account=account,
            display_name=username,
            session_id=session_id,
            message=message(i, size, "recall"),
            turn_count=5,
            recall_early=False,
        )
        # The recall on its own (its four calls, no lookup beside them) and one search on
        # its own, each with a message of its own.
        cpu = cpu_now(server_pid)
        if profiler is not None:
            profiler.enable()
        alone = await alone_memory.recall()
        if profiler is not None:
            profiler.disable()
        figures["recall_cpu"].append(cpu_since(cpu, server_pid))
        figures["recall"].append(alone.duration_ms)
        started = time.perf_counter()
        cpu = cpu_now(server_pid)
        await memory_session_async(user_id, session_id).search_memory(
            query=message(i, size, "alone"),
            filters={"session_ids": "all", "annotations": TURN, "relevant_k": 10},
        )
        figures["one_search"].append((time.perf_counter() - started) * 1000)
        figures["one_search_cpu"].append(cpu_since(cpu, server_pid))
    return figures


def embedding_alone(embedder: str, count: int = 40) -> list[float]:
    """One query's embedding, timed in this process with the server's embedder code and,
    as in the server, numpy's OpenBLAS on one thread."""
    from memoryserver.blas import single_threaded_blas
    from memoryserver.embedders import build_embedder

    single_threaded_blas()
    model = build_embedder(embedder)
    model.embed(["warm-up"])
    timings = []
    for i in range(count):
        started = time.perf_counter()
        model.embed([message(i, 0, "embedding alone")])
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def part_one(args: argparse.Namespace) -> None:
    import django
    from django.conf import settings

    django.setup()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True, env=os.environ
    )
    subprocess.run(
        [sys.executable, "manage.py", "seed_catalog", "-v0"], cwd=ROOT, check=True, env=os.environ
    )
    recalls: dict[tuple[str, int], float] = {}
    for embedder in args.embedders:
        print(
            f"Part 1: app overhead before the first token ({embedder} embedder, {args.turns} turns)"
        )
        print(f"  one query's embedding alone   {fmt(embedding_alone(embedder))}")
        base_url, stop = start_memory_server(embedder, label=f"overhead-{embedder}")
        settings.AGENT_MEMORY_URL = base_url
        try:
            for size in args.sizes:
                # CPU time, not wall time: a send that lets the server run is not the app's cost.
                profiler = cProfile.Profile(time.process_time) if args.profile else None
                figures = asyncio.run(
                    overhead(size, args.turns, server_pid_for(base_url), profiler)
                )
                if profiler is not None:
                    print(f"  the app's recall, {size} blocks, by own time (cProfile):")
                    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(
                        args.profile
                    )
                recall = statistics.median(figures["recall"])
                recalls[embedder, size] = recall
                ratio = recall / statistics.median(figures["one_search"])
                print(f"  {size:>5} blocks  overhead {fmt(figures['overhead'])}")
                print(f"               recall   {fmt(figures['recall'])}")
                print(
                    f"               1 search {fmt(figures['one_search'])}  "
                    f"recall/one-search (medians) {ratio:.2f}"
                )
                for name in ("recall", "one_search"):
                    app, server = zip(*figures[f"{name}_cpu"], strict=True)
                    print(
                        f"               CPU per {name.replace('_', ' ')}: app "
                        f"{statistics.mean(app):.1f} ms, memory server "
                        f"{statistics.mean(server):.1f} ms (means)"
                    )
        finally:
            stop()
    if {"hashing", "minilm"} <= set(args.embedders):
        for size in args.sizes:
            ratio = recalls["minilm", size] / recalls["hashing", size]
            print(f"  recall MiniLM / recall hashing (medians), {size} blocks: {ratio:.2f}")


def part_two(args: argparse.Namespace) -> None:
    from benchmarks.shoppers_load import loads_run

    args.embedder, args.profiles, args.time_limit = args.embedders[0], ["sqlite"], 600.0
    loads_run(args)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="0,100,1000", type=lambda s: [int(x) for x in s.split(",")]
    )
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--shoppers", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--embedders",
        default="hashing,minilm",
        type=lambda s: s.split(","),
        help="part 1 runs once per embedder; part 2 uses the first",
    )
    parser.add_argument("--parts", default="1,2", help="which parts to run, e.g. 2")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="part 1: profile the app's side of each recall and print its N costliest functions",
    )
    args = parser.parse_args()
    print(f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    parts = set(args.parts.split(","))
    for command in (["migrate"], ["seed_catalog"]):
        subprocess.run(
            [sys.executable, "manage.py", *command, "-v0"], cwd=ROOT, check=True, env=os.environ
        )
    if "1" in parts:
        part_one(args)
    if "2" in parts:
        part_two(args)


if __name__ == "__main__":
    main()
