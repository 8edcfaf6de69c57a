"""Part "search": adds and searches over HTTP through the SDK, at each size, and three
concurrent searches against one."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from benchmarks.memory_server.common import (
    PRODUCTS,
    QUERIES,
    block_text,
    fmt,
    scratch,
)
from benchmarks.memory_server.loading import bulk_load, index_memory


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
    from harness.memoryserver import start_agentmemory_server

    tmp = scratch(f"ambench-{embedder}-")
    bulk_load(tmp, embedder, [(f"bench-{size}", size) for size in sizes])
    # One mode for every embedder, hybrid unless told: the one that does both rankings' work.
    base_url, stop = start_agentmemory_server(
        tmp,
        AGENT_MEMORY_EMBEDDER=embedder,
        AGENT_MEMORY_EXTRACTOR="extractive",
        AGENT_MEMORY_SEARCH_MODE=args.mode,
    )
    print(f"search mode {args.mode}")
    try:
        if args.adds:
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
    for size in sizes:
        index_memory(tmp, embedder, f"bench-{size}")
