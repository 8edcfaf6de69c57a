"""Benchmark the embedded Agent Memory server over HTTP through the SDK.

    .venv/bin/python benchmarks/agent_memory_server.py [--sizes 1000,10000,100000]
        [--embedders hashing,minilm] [--searches 200] [--adds 300]

Starts its own server process on 127.0.0.1 with a temporary database per embedder. Blocks
for the search figures are bulk-loaded straight into that database before the server starts
(adding 100k blocks through HTTP with MiniLM would take far too long); the loader embeds a
pool of distinct texts with the real embedder and reuses their vectors, which costs search
exactly what distinct vectors would. Every query is distinct (across sizes too), so the
query-vector cache never hits and each search pays for embedding its query.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRODUCTS = [
    "Trail Runner 2",
    "Storm Shell",
    "Alpine Fleece",
    "Canyon Pack",
    "Summit Boot",
    "City Tote",
]
COLOURS = ["red", "blue", "black", "green", "grey", "brown", "white"]
QUERIES = [
    "waterproof jacket for hiking",
    "running shoes size 42",
    "warm fleece for winter",
    "backpack for a day trip",
    "brown leather boots",
    "something for rainy city commutes",
]


def block_text(n: int) -> str:
    product, colour = PRODUCTS[n % len(PRODUCTS)], COLOURS[(n // 7) % len(COLOURS)]
    return (
        f"Shopper asked about the {colour} {product} (note {n}); size {36 + n % 12} was discussed."
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def fmt(values: list[float]) -> str:
    return f"p50 {pct(values, 50):6.2f} ms  p95 {pct(values, 95):6.2f} ms  (n={len(values)})"


# --- loader (runs in a child process with the server's settings) -------------------------


def load(sizes: list[int], distinct: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from memoryserver.clock import clock
    from memoryserver.embedders import get_embedder
    from memoryserver.models import BlockStatus, MemoryBlock, MemorySession, MemoryUser

    started = time.monotonic()
    vectors = get_embedder().embed([block_text(n) for n in range(distinct)])
    embed_seconds = time.monotonic() - started
    for size in sizes:
        now = clock.now()
        user = MemoryUser.objects.create(user_id=f"bench-{size}", name="bench", created_at=now)
        session = MemorySession.objects.create(user=user, session_id="s", start_time=now)
        batch: list[MemoryBlock] = []
        for n in range(size):
            batch.append(
                MemoryBlock(
                    block_id=str(uuid.uuid4()),
                    session=session,
                    user_key=user.user_id,
                    session_key="s",
                    fact=block_text(n),
                    ingested_at=now,
                    status=BlockStatus.READY,
                    context_required=False,
                    embedding=vectors[n % distinct].tobytes(),
                )
            )
            if len(batch) == 5000:
                MemoryBlock.objects.bulk_create(batch)
                batch = []
        MemoryBlock.objects.bulk_create(batch)
    print(f"loaded {sizes} blocks ({distinct} distinct texts embedded in {embed_seconds:.1f}s)")


# --- measurements --------------------------------------------------------------------------


def measure_adds(base_url: str, count: int) -> list[float]:
    from agentmemory import AgentMemoryClient

    with AgentMemoryClient(base_url=base_url, max_retries=0) as client:
        session = client.create_user("bench-adds", name="bench").create_session("s")
        timings = []
        for n in range(count):
            turn = {
                "user_content": f"Do you have the {PRODUCTS[n % 6]}?",
                "assistant_content": block_text(n),
            }
            t = time.perf_counter()
            session.add_memory(messages=[turn])
            timings.append((time.perf_counter() - t) * 1000)
    return timings[5:]


def measure_searches(base_url: str, size: int, count: int) -> tuple[float, list[float]]:
    from agentmemory import AgentMemoryClient

    with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
        session = client.get_user(f"bench-{size}").get_session("s")
        t = time.perf_counter()
        session.search_memory("warm-up query loads the index")
        first = (time.perf_counter() - t) * 1000
        timings = []
        for n in range(count):
            # The size is in the text: otherwise the next size would reuse these queries and
            # the server's query-vector cache would hide the embedding cost.
            query = f"{QUERIES[n % len(QUERIES)]} {size} {n}"
            t = time.perf_counter()
            result = session.search_memory(query)
            timings.append((time.perf_counter() - t) * 1000)
            assert result.count == 10
    return first, timings


async def measure_concurrency(
    base_url: str, size: int, rounds: int
) -> tuple[list[float], list[float]]:
    from agentmemory import AsyncAgentMemoryClient

    async with AsyncAgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
        user = await client.get_user(f"bench-{size}")
        session = await user.get_session("s")
        one, three = [], []
        for n in range(rounds):
            t = time.perf_counter()
            await session.search_memory(f"{QUERIES[n % 6]} single {n}")
            one.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            await asyncio.gather(
                *(session.search_memory(f"{QUERIES[(n + k) % 6]} triple {n} {k}") for k in range(3))
            )
            three.append((time.perf_counter() - t) * 1000)
    return one, three


def run_embedder(embedder: str, sizes: list[int], args: argparse.Namespace) -> None:
    from tests.support.agentmemory_server import start_agentmemory_server

    tmp = Path(tempfile.mkdtemp(prefix=f"ambench-{embedder}-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "AGENT_MEMORY_EMBEDDER": embedder,
        "PYTHONPATH": str(ROOT),
    }
    distinct = 2000 if embedder == "minilm" else 5000
    print(f"\n== embedder {embedder}: bulk-loading {sizes} blocks straight into SQLite")
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--load",
            ",".join(map(str, sizes)),
            "--distinct",
            str(distinct),
        ],
        env=env,
        check=True,
    )
    base_url, stop = start_agentmemory_server(
        tmp, AGENT_MEMORY_EMBEDDER=embedder, AGENT_MEMORY_EXTRACTOR="extractive"
    )
    try:
        if embedder == "hashing" and args.adds:
            print(
                f"add (one turn block, async extraction)   {fmt(measure_adds(base_url, args.adds))}"
            )
        for size in sizes:
            first, timings = measure_searches(base_url, size, args.searches)
            print(
                f"search top-10 at {size:>7} blocks          {fmt(timings)}  first (index load) {first:.0f} ms"
            )
        ratio_size = 10_000 if 10_000 in sizes else sizes[0]
        one, three = asyncio.run(
            measure_concurrency(base_url, ratio_size, max(20, args.searches // 4))
        )
        ratio = statistics.median(three) / statistics.median(one)
        print(
            f"3 concurrent searches vs 1 at {ratio_size} blocks: median {statistics.median(three):.2f} ms "
            f"vs {statistics.median(one):.2f} ms, ratio {ratio:.2f}"
        )
    finally:
        stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--adds", type=int, default=300)
    parser.add_argument("--load", help=argparse.SUPPRESS)
    parser.add_argument("--distinct", type=int, default=5000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        load([int(s) for s in args.load.split(",")], args.distinct)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"Embedded Agent Memory server benchmark; {os.cpu_count()} CPUs; SDK over HTTP on 127.0.0.1"
    )
    for embedder in args.embedders.split(","):
        run_embedder(embedder, sizes, args)


if __name__ == "__main__":
    main()
