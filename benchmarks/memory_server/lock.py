"""Part "lock": the largest add the server allows, and how long it holds the write lock."""

from __future__ import annotations

import argparse
import time

from benchmarks.memory_server.common import (
    PRODUCTS,
    child_run,
    fmt,
    scratch,
)


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


def run_largest_add(embedder: str, args: argparse.Namespace) -> None:
    tmp = scratch(f"ambench-largest-{embedder}-")
    child_run(
        ["--largest-add", str(args.largest_repeats)],
        AGENT_MEMORY_SERVER_DB=str(tmp / "agentmemory.sqlite3"),
        AGENT_MEMORY_EMBEDDER=embedder,
    )
