"""Part "cold": a cold user's index loads while other shoppers search their own memory."""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from benchmarks.memory_server.common import (
    QUERIES,
    fmt,
    pct,
    scratch,
)
from benchmarks.memory_server.loading import bulk_load


async def shoppers_searching(
    base_url: str,
    shoppers: int,
    until: asyncio.Future | None,
    rounds: int,
    tag: str,
    think_ms: float,
) -> list[float]:
    """Each shopper searches its own memory, pausing 0..2x think_ms between searches as a
    shopper between messages would, with distinct queries; latencies in ms.

    With `until`, the shoppers keep going until it completes (at least one round each).
    """
    from agentmemory import AsyncAgentMemoryClient

    timings: list[float] = []
    async with AsyncAgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
        sessions = [
            await (await client.get_user(f"shopper-{i:02d}")).get_session("s")
            for i in range(shoppers)
        ]

        async def shopper(i: int) -> None:
            pauses = random.Random(f"{tag} {i}")
            n = 0
            while n < rounds if until is None else (n == 0 or not until.done()):
                await asyncio.sleep(pauses.uniform(0, 2 * think_ms) / 1000)
                query = f"{QUERIES[n % len(QUERIES)]} shopper {i} {tag} {n}"
                t = time.perf_counter()
                await sessions[i].search_memory(query)
                timings.append((time.perf_counter() - t) * 1000)
                n += 1

        await asyncio.gather(*(shopper(i) for i in range(shoppers)))
    return timings


async def cold_load_while_searching(
    base_url: str, cold_user: str, shoppers: int, think_ms: float
) -> tuple[list[float], float]:
    from agentmemory import AsyncAgentMemoryClient

    async with AsyncAgentMemoryClient(base_url=base_url, max_retries=0, timeout=300) as client:
        session = await (await client.get_user(cold_user)).get_session("s")
        started = time.perf_counter()
        cold = asyncio.ensure_future(session.search_memory(f"first search of {cold_user}"))
        during = await shoppers_searching(
            base_url, shoppers, cold, 0, f"during {cold_user}", think_ms
        )
        await cold
        return during, (time.perf_counter() - started) * 1000


def run_cold_load(embedder: str, args: argparse.Namespace) -> None:
    """A cold 100k-block user loads while 20 other shoppers search: their p95, with and without."""
    from harness.memoryserver import start_agentmemory_server

    tmp = scratch(f"ambench-cold-{embedder}-")
    cold_users = [f"cold-{n}" for n in range(args.cold_repeats)]
    shoppers = [(f"shopper-{i:02d}", 1000) for i in range(args.shoppers)]
    bulk_load(tmp, embedder, [*shoppers, *((u, args.cold_size) for u in cold_users)])
    base_url, stop = start_agentmemory_server(
        tmp, AGENT_MEMORY_EMBEDDER=embedder, AGENT_MEMORY_EXTRACTOR="extractive"
    )
    think = args.think_ms
    try:
        asyncio.run(shoppers_searching(base_url, args.shoppers, None, 2, "warm-up", think))
        for cold_user in cold_users:
            during, load_ms = asyncio.run(
                cold_load_while_searching(base_url, cold_user, args.shoppers, think)
            )
            # As many searches again with no load going on, to compare like with like.
            rounds = max(5, len(during) // args.shoppers)
            quiet = asyncio.run(
                shoppers_searching(base_url, args.shoppers, None, rounds, cold_user, think)
            )
            print(
                f"{args.shoppers} shoppers searching (1k blocks each, pauses 0-{2 * think:.0f} ms), "
                f"{embedder}:\n"
                f"  alone                          {fmt(quiet)}\n"
                f"  while {cold_user} ({args.cold_size} blocks) loads {fmt(during)}"
                f"  first search {load_ms:.0f} ms\n"
                f"  p95 during / p95 alone = {pct(during, 95) / pct(quiet, 95):.2f}"
            )
    finally:
        stop()
