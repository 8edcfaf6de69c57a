"""Fill a server's database straight in SQLite, and weigh the index of one user it holds.

Both run in a child process with the server's settings (`common.child_run`)."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from benchmarks.memory_server.common import block_text, child_run


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


def bulk_load(tmp: Path, embedder: str, users: list[tuple[str, int]]) -> None:
    """Write the users' blocks straight into the server's SQLite file, in a child process."""
    distinct = 2000 if embedder == "minilm" else 5000
    print(f"\n== embedder {embedder}: bulk-loading {users} straight into SQLite")
    spec = ",".join(f"{user_id}={size}" for user_id, size in users)
    child_run(
        ["--load", spec, "--distinct", str(distinct)],
        AGENT_MEMORY_SERVER_DB=str(tmp / "agentmemory.sqlite3"),
        AGENT_MEMORY_EMBEDDER=embedder,
    )


def index_memory(tmp: Path, embedder: str, user_id: str) -> None:
    """Print the memory one user's loaded index holds, measured in a child process."""
    child_run(
        ["--index-memory", user_id],
        AGENT_MEMORY_SERVER_DB=str(tmp / "agentmemory.sqlite3"),
        AGENT_MEMORY_EMBEDDER=embedder,
    )


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
