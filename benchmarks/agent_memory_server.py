"""Benchmark the embedded Agent Memory server over HTTP through the SDK.

    .venv/bin/python benchmarks/agent_memory_server.py [--sizes 1000,10000,100000]
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
import asyncio
import atexit
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
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


def load(users: list[tuple[str, int]], distinct: int) -> None:
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
    for user_id, size in users:
        now = clock.now()
        user = MemoryUser.objects.create(user_id=user_id, name="bench", created_at=now)
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
    print(f"loaded {users} ({distinct} distinct texts embedded in {embed_seconds:.1f}s)")


# --- the largest allowed add under the write lock (child process, server settings) ----------


class TimedLock:
    """Stands in for the write lock and notes how long each hold lasted."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.holds: list[float] = []

    def __enter__(self) -> None:
        self.inner.__enter__()
        self._since = time.perf_counter()

    def __exit__(self, *exc) -> None:
        self.holds.append((time.perf_counter() - self._since) * 1000)
        self.inner.__exit__(*exc)


def dialogue_in_process(size: int, timed: int) -> None:
    """Add `size` dialogue turns one call each, search their questions, weigh the index."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from benchmarks.recall.dialogues import dialogues_generate
    from memoryserver import selectors
    from memoryserver.blas import single_threaded_blas
    from memoryserver.index.registry import get_registry
    from memoryserver.services.blocks import NewBlock, blocks_add
    from memoryserver.services.sessions import session_create
    from memoryserver.services.users import user_create

    single_threaded_blas()
    user_create(user_id="dialogue", name="bench", metadata=None)
    # The first `timed` turns are added one call each and timed; the rest a session's turns
    # per call, to reach the size sooner (a batch embeds in one encoder call).
    adds: list[float] = []
    questions: list[str] = []
    stored = 0
    for dialogue in dialogues_generate(conversations=max(1, size // 350 + 1)):
        questions += [q.text for q in dialogue.questions]
        for chat in dialogue.chats:
            if stored >= size:
                break
            session_id = f"{dialogue.user_id}/{chat.session_id}"
            session_create(
                user_id="dialogue", session_id=session_id, annotations=None, metadata=None,
                blocks_ttl=None,
            )  # fmt: skip
            start = datetime(chat.day.year, chat.day.month, chat.day.day, 10, tzinfo=UTC)
            turns = list(enumerate(chat.turns))[: size - stored]
            batches = [turns[i : i + 1] for i in range(len(turns))] if stored < timed else [turns]
            for batch in batches:
                t = time.perf_counter()
                blocks_add(
                    user_id="dialogue", session_id=session_id,
                    items=[NewBlock(fact=turn.block) for _, turn in batch],
                    annotations={"type": "turn"}, block_ttl=None, context_required=False,
                    created_at=start + timedelta(minutes=2 * batch[0][0]), async_processing=True,
                    prompt_id=None, prompt_vid=None,
                )  # fmt: skip
                if len(batch) == 1:
                    adds.append((time.perf_counter() - t) * 1000)
                stored += len(batch)
    some_session = session_id
    print(f"dialogue: add one turn block, in process  {fmt(adds[10:])}")
    searches = []
    for n, question in enumerate(questions[:300]):
        t = time.perf_counter()
        selectors.blocks_search(
            user_id="dialogue", session_id=some_session, query=f"{question} ({n})",
            filters={"session_ids": "all", "relevant_k": 10},
        )  # fmt: skip
        searches.append((time.perf_counter() - t) * 1000)
    print(f"dialogue: search top-10 at {stored} blocks, in process  {fmt(searches[5:])}")
    get_registry().clear()
    measure_index_memory("dialogue", setup=False)


def index_in_process(blocks: int, searches: int) -> None:
    """Time `UserIndex.search` per mode over a synthetic user, and a write's embedding."""
    import numpy as np

    from benchmarks.recall.dialogues import dialogues_generate
    from memoryserver.blas import single_threaded_blas
    from memoryserver.embedders import get_embedder
    from memoryserver.index.rows import IndexRow, Query
    from memoryserver.index.slot import UserIndex
    from memoryserver.terms import query_terms

    single_threaded_blas()
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(blocks, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    words = "sofa teal velvet friday lisbon trip puppy pepper kitten boots size rain".split()
    index = UserIndex(dimensions=384)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for n in range(blocks):
        at = start + timedelta(hours=n)
        text = " ".join(rng.choice(words, 8))
        row = IndexRow(n, f"b{n}", f"s{n // 25}", vectors[n], at, at, None, "ready", None,
                       None, None, text)  # fmt: skip
        index.upsert(row)
    queries = rng.normal(size=(searches, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    dated: dict[str, object] = {}
    try:  # a query naming a month, where the index reads the times a query names
        from memoryserver.index.when import query_times

        dated["times"] = query_times("the teal sofa in May 2023", datetime.now(UTC))
    except ImportError:
        pass
    terms = query_terms("the teal sofa in May 2023")
    for mode in ("dense", "lexical", "hybrid"):
        timings = []
        for vector in queries:
            query = Query(now=time.time(), vector=vector if mode != "lexical" else None,
                          terms=terms if mode != "dense" else None, relevant_k=10, **dated)  # fmt: skip
            t = time.perf_counter()
            index.search(query)
            timings.append((time.perf_counter() - t) * 1000)
        print(f"index: {mode:7} search at {blocks} blocks, in process  {fmt(timings[10:])}")
    texts = [t.block for d in dialogues_generate(conversations=1) for c in d.chats for t in c.turns]
    texts = texts[:200] + [block_text(n) for n in range(100)]
    embedder = get_embedder()
    embedder.embed(texts[:8])  # warm up
    try:
        from memoryserver.index.sentences import blocks_embedded
    except ImportError:
        blocks_embedded = None
    alone, with_sentences = [], []
    for n, text in enumerate(texts):
        text = f"{text} ({n})"  # distinct, past the embedder's cache
        t = time.perf_counter()
        embedder.embed([text])
        alone.append((time.perf_counter() - t) * 1000)
        if blocks_embedded is not None:
            t = time.perf_counter()
            blocks_embedded(embedder, [f"{text}."])
            with_sentences.append((time.perf_counter() - t) * 1000)
    print(f"index: embed a block alone            {fmt(alone)}")
    if with_sentences:
        print(f"index: embed a block and its sentences {fmt(with_sentences)}")


def run_index(embedder: str, args: argparse.Namespace) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_EMBEDDER": embedder,
        "PYTHONPATH": str(ROOT),
    }
    print(f"\n== embedder {embedder}: index and embedding in process")
    command = [sys.executable, __file__, "--index-in-process", str(args.index_blocks)]
    subprocess.run([*command, "--searches", str(args.searches)], env=env, check=True)


def largest_add(repeats: int) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from memoryserver.blas import single_threaded_blas
    from memoryserver.limits import MAX_BLOCKS_PER_REQUEST
    from memoryserver.services import blocks
    from memoryserver.services.blocks import NewBlock, blocks_add
    from memoryserver.services.sessions import session_create
    from memoryserver.services.users import user_create

    single_threaded_blas()  # as the server runs
    lock = blocks.WRITE_LOCK = TimedLock(blocks.WRITE_LOCK)
    tokens = settings.AGENT_MEMORY_PER_REQUEST_TOKEN_LIMIT
    user_create(user_id="largest", name="bench", metadata=None)
    totals = []
    for n in range(repeats):
        session_create(
            user_id="largest", session_id=f"s{n}", annotations=None, metadata=None, blocks_ttl=None
        )
        # Every block at the per-block token limit (4 characters a token), as many as allowed.
        words = " ".join(f"{PRODUCTS[i % 6].split()[0].lower()}{n}{i}" for i in range(tokens))
        facts = [NewBlock(fact=f"{k} {words}"[: tokens * 4]) for k in range(MAX_BLOCKS_PER_REQUEST)]
        started = time.perf_counter()
        result = blocks_add(
            user_id="largest",
            session_id=f"s{n}",
            items=facts,
            annotations={"type": "fact"},
            block_ttl=None,
            context_required=None,
            created_at=None,
            async_processing=True,
            prompt_id=None,
            prompt_vid=None,
        )
        totals.append((time.perf_counter() - started) * 1000)
        assert len(result.block_ids) == MAX_BLOCKS_PER_REQUEST, result.rejected
    print(
        f"largest allowed add ({MAX_BLOCKS_PER_REQUEST} facts of {tokens} tokens, "
        f"{settings.AGENT_MEMORY_EMBEDDER}): whole request {fmt(totals)}; "
        f"write lock held {fmt(lock.holds)}"
    )


def run_dialogue(embedder: str, args: argparse.Namespace) -> None:
    tmp = scratch(f"ambench-dialogue-{embedder}-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "AGENT_MEMORY_EMBEDDER": embedder,
        "AGENT_MEMORY_EXTRACTOR": "extractive",
        "PYTHONPATH": str(ROOT),
    }
    print(f"\n== embedder {embedder}: dialogue turns in process")
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--dialogue-in-process",
            str(args.dialogue_blocks),
            "--adds",
            str(args.adds),
        ],
        env=env,
        check=True,
    )


def run_largest_add(embedder: str, args: argparse.Namespace) -> None:
    tmp = scratch(f"ambench-largest-{embedder}-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "AGENT_MEMORY_EMBEDDER": embedder,
        "PYTHONPATH": str(ROOT),
    }
    subprocess.run(
        [sys.executable, __file__, "--largest-add", str(args.largest_repeats)], env=env, check=True
    )


def scratch(prefix: str) -> Path:
    """A temporary directory for one part's databases, removed when the benchmark exits: a
    cold part leaves over a gigabyte of SQLite behind."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return Path(path)


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


def bulk_load(tmp: Path, embedder: str, users: list[tuple[str, int]]) -> None:
    """Write the users' blocks straight into the server's SQLite file, in a child process."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "AGENT_MEMORY_EMBEDDER": embedder,
        "PYTHONPATH": str(ROOT),
    }
    distinct = 2000 if embedder == "minilm" else 5000
    print(f"\n== embedder {embedder}: bulk-loading {users} straight into SQLite")
    spec = ",".join(f"{user_id}={size}" for user_id, size in users)
    subprocess.run(
        [sys.executable, __file__, "--load", spec, "--distinct", str(distinct)], env=env, check=True
    )


def run_embedder(embedder: str, sizes: list[int], args: argparse.Namespace) -> None:
    from tests.support.agentmemory_server import start_agentmemory_server

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


def index_memory(tmp: Path, embedder: str, user_id: str) -> None:
    """Print the memory one user's loaded index holds, measured in a child process."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryserver.settings",
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "AGENT_MEMORY_EMBEDDER": embedder,
        "PYTHONPATH": str(ROOT),
    }
    subprocess.run([sys.executable, __file__, "--index-memory", user_id], env=env, check=True)


def measure_index_memory(user_id: str, *, setup: bool = True) -> None:
    """The bytes Python and numpy allocate to load a user's index and search it once (the
    search fills what the index caches for later searches; the payloads it caches are left
    out, as any index holds them)."""
    import tracemalloc

    import django

    if setup:
        django.setup()
    from memoryserver.clock import clock
    from memoryserver.embedders import get_embedder
    from memoryserver.index.rows import Query
    from memoryserver.selectors import user_index_read
    from memoryserver.terms import query_terms

    embedder = get_embedder()
    vector = embedder.embed_query("waterproof jacket for hiking")
    tracemalloc.start()
    index = user_index_read(user_id, now=clock.now(), width=embedder.dimensions)
    query = Query(now=clock.now().timestamp(), vector=vector, relevant_k=10)
    query.terms = query_terms("waterproof jacket for hiking")
    index.search(query)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"index memory of {user_id}: {held / 2**20:.1f} MiB for {len(index)} blocks "
        f"({held / max(1, len(index)):.0f} bytes a block)"
    )


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
    from tests.support.agentmemory_server import start_agentmemory_server

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
