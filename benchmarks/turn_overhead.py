"""Benchmark the app's share of a chat turn, and many shoppers chatting at once.

    .venv/bin/python benchmarks/turn_overhead.py [--sizes 0,100,1000] [--turns 60]
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
Part 2, over loopback: daphne serving the app and the embedded memory server (the first of
--embedders), each in its own process, and --shoppers signed-in shoppers on websockets, each
opening the panel (a hello, answered by the greeting) and then
sending --rounds messages each at once, answered by the offline model: errors, turns
answered without memory, turns recalled only in part, how long opening the session took,
and turn p50/p95 (send -> done) and (send -> memory.added).
--profile N prints the N costliest functions (CPU time, cProfile) of the app's side of the
recalls of part 1.
Everything runs against 127.0.0.1 with temporary databases.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import cProfile
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TMP = Path(tempfile.mkdtemp(prefix="aisle-bench-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
os.environ["AISLE_VAR_DIR"] = str(TMP)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
os.environ["OPENAI_API_KEY"] = ""
# Measured as deployed: DEBUG keeps every SQL query in memory and wraps each cursor.
os.environ["DJANGO_DEBUG"] = "false"

QUERIES = [
    "show me jeans in size M",
    "any waterproof jackets for hiking?",
    "black boots for the office",
    "a dress for a summer wedding",
    "running shoes under 100 euros",
    "linen shirts",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def fmt(values: list[float]) -> str:
    return f"p50 {pct(values, 50):7.2f} ms  p95 {pct(values, 95):7.2f} ms  (n={len(values)})"


def start_memory_server(embedder: str, *, label: str = "overhead") -> tuple[str, object]:
    from tests.support.agentmemory_server import start_agentmemory_server

    return start_agentmemory_server(TMP / f"memory-{label}", AGENT_MEMORY_EMBEDDER=embedder)


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


def message(i: int, size: int, purpose: str) -> str:
    """A distinct shopper message: never seen by the server before, like a real one."""
    return f"{QUERIES[i % len(QUERIES)]} ({purpose} {i}, {size} blocks)"


def cpu_now(server_pid: int) -> tuple[float, float]:
    """CPU seconds used so far by this process (the app) and by the memory server."""
    with open(f"/proc/{server_pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    server = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return time.process_time(), server


def cpu_since(before: tuple[float, float], server_pid: int) -> tuple[float, float]:
    app, server = cpu_now(server_pid)
    return (app - before[0]) * 1000, (server - before[1]) * 1000


def server_pid_for(base_url: str) -> int:
    """The memory server's process, found by its port on the command line."""
    port = base_url.rsplit(":", 1)[1]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                args = cmdline.read()
        except OSError:
            continue
        if b"memoryserver" in args and b"--port\0" + port.encode() + b"\0" in args:
            return int(pid)
    raise RuntimeError(f"no memory server process on port {port}")


async def overhead(
    size: int, turns: int, server_pid: int, profiler: cProfile.Profile | None = None
) -> dict[str, list]:
    from asgiref.sync import sync_to_async

    from assistant.prompting import turn_messages
    from assistant.tools import tool_schemas, vocabulary_load
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


def shopper_cookies(count: int) -> list[str]:
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.sessions.backends.db import SessionStore\n"
        "from shop.services import shopper_get_or_create\n"
        "from django.contrib.auth import SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
        f"for i in range({count}):\n"
        "    user = shopper_get_or_create(username=f'load-{i:03d}')\n"
        "    s = SessionStore()\n"
        "    s[SESSION_KEY] = str(user.pk)\n"
        "    s[BACKEND_SESSION_KEY] = 'django.contrib.auth.backends.ModelBackend'\n"
        "    s[HASH_SESSION_KEY] = user.get_session_auth_hash()\n"
        "    s.save()\n"
        "    print('session-key', s.session_key)\n"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=os.environ,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # The shell may print its own lines (auto-imports); keep only ours.
    return [line.split()[1] for line in out.splitlines() if line.startswith("session-key ")]


async def one_shopper(port: int, cookie: str, rounds: int, results: dict) -> None:
    import websockets

    session_id = None
    remembering = True
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/assistant/",
            additional_headers={
                "Cookie": f"sessionid={cookie}",
                "Origin": f"http://127.0.0.1:{port}",
            },
            open_timeout=30,
        ) as socket:
            # As the panel does when it opens: a hello first, answered by the greeting.
            await socket.send(json.dumps({"type": "hello", "page": {"kind": "other"}}))
            while json.loads(await asyncio.wait_for(socket.recv(), 60))["type"] != "welcome":
                pass
            for turn in range(rounds):
                frame = {
                    "type": "message",
                    "text": message(turn, 0, f"shopper {cookie[:8]} turn"),
                    "session_id": session_id,
                    "turn_count": turn,
                    "session_date": None,
                    "retention": None,
                }
                started = time.perf_counter()
                await socket.send(json.dumps(frame))
                while True:
                    event = json.loads(await asyncio.wait_for(socket.recv(), 60))
                    if os.environ.get("BENCH_DEBUG"):
                        print(event["type"], str(event)[:150])
                    if event["type"] == "session":
                        session_id = event["session_id"]
                        remembering = event["mode"] == "remembering"
                        if not remembering:
                            results["degraded"].append((turn, event["mode"]))
                    elif event["type"] == "memory.searched" and event["failed"]:
                        results["recall_failed"].append(event["failed"])
                    elif event["type"] == "done":
                        results["done"].append((time.perf_counter() - started) * 1000)
                        # How long opening the session took, against its bound.
                        for span in event.get("spans", []):
                            if span["name"] == "memory.session":
                                results["session_open"][turn > 0].append(span["duration_ms"])
                        if not remembering:
                            break  # no memory.added follows
                    elif event["type"] == "memory.added":
                        results["added"].append((time.perf_counter() - started) * 1000)
                        break
                    elif event["type"] == "error":
                        results["errors"].append(event["message"])
                        break
    except Exception as exc:  # a benchmark counts failures instead of stopping at the first
        results["errors"].append(repr(exc))


def part_two(args: argparse.Namespace) -> None:
    from tests.support.daphne import daphne_start

    embedder = args.embedders[0]
    base_url, stop_memory = start_memory_server(embedder, label="load")
    env = {**os.environ, "AGENT_MEMORY_URL": base_url}
    cookies = shopper_cookies(args.shoppers)
    log_dir = Path(tempfile.mkdtemp(prefix="aisle-bench-daphne-"))
    shop = daphne_start("config.asgi:application", env=env, log_dir=log_dir)
    port = shop.port
    try:
        results: dict = {
            "done": [],
            "added": [],
            "errors": [],
            "degraded": [],
            "recall_failed": [],
            "session_open": {False: [], True: []},
        }

        async def everyone() -> float:
            started = time.perf_counter()
            await asyncio.gather(*(one_shopper(port, c, args.rounds, results) for c in cookies))
            return time.perf_counter() - started

        wall = asyncio.run(everyone())
        turns = args.shoppers * args.rounds
        print(
            f"Part 2: {args.shoppers} concurrent shoppers x {args.rounds} turns on the offline model "
            f"(daphne + embedded memory server, {embedder} embedder)"
        )
        print(
            f"  errors (no answer): {len(results['errors'])} of {turns} turns  {results['errors'][:3]}"
        )
        first_degraded = sum(1 for turn, _ in results["degraded"] if turn == 0)
        print(
            f"  answered without memory (the session bound ran out under load): "
            f"{len(results['degraded'])} of {turns} turns ({first_degraded} of them first turns)"
        )
        failed_calls = sorted({name for failed in results["recall_failed"] for name in failed})
        print(
            f"  recalled only in part (a search past its bound): "
            f"{len(results['recall_failed'])} of {turns} turns {failed_calls}"
        )
        from memoryapp.sessions import SESSION_OPEN_CAP, SESSION_TRIP_SLACK

        timeout = float(os.environ.get("AGENT_MEMORY_TIMEOUT_SECONDS", "1")) * 1000
        print(
            f"  session open bound: {timeout * SESSION_TRIP_SLACK:.0f} ms + {timeout:.0f} ms per "
            f"round trip, at most {timeout * SESSION_OPEN_CAP:.0f} ms"
        )
        for later, label in ((False, "first turns (mint)"), (True, "later turns (resume)")):
            opened = results["session_open"][later]
            if opened:
                print(f"  session open, {label:<20} {fmt(opened)}  max {max(opened):.0f} ms")
        print(f"  send -> done          {fmt(results['done'])}")
        print(f"  send -> memory.added  {fmt(results['added'])}")
        print(f"  wall time {wall:.1f} s, {turns / wall:.1f} turns/s")
    finally:
        shop.stop()
        stop_memory()
        shutil.rmtree(log_dir, ignore_errors=True)


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
