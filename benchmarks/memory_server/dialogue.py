"""Part "dialogue": the recall benchmark's dialogue turns added and searched in process."""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta

from benchmarks.memory_server.common import (
    child_run,
    fmt,
    scratch,
)
from benchmarks.memory_server.loading import measure_index_memory


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


def run_dialogue(embedder: str, args: argparse.Namespace) -> None:
    tmp = scratch(f"ambench-dialogue-{embedder}-")
    print(f"\n== embedder {embedder}: dialogue turns in process")
    child_run(
        ["--dialogue-in-process", str(args.dialogue_blocks), "--adds", str(args.adds)],
        AGENT_MEMORY_SERVER_DB=str(tmp / "agentmemory.sqlite3"),
        AGENT_MEMORY_EMBEDDER=embedder,
        AGENT_MEMORY_EXTRACTOR="extractive",
    )
