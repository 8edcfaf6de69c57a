"""Extraction of summary and contexts: one attempt, marking blocks queued, restart recovery.

The worker (`memoryserver.worker`) calls these for the blocks it takes off the queue; a
request with async_processing=false calls `extract_now` itself.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.db.models import Q

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.extractors import ExtractionError, get_extractor
from memoryserver.index.slot import UserIndex
from memoryserver.models import BlockStatus, MemoryBlock
from memoryserver.queue import get_queue
from memoryserver.services.common import WRITE_LOCK, chunks, with_index


def extraction_wanted(context_required: bool | None) -> bool:
    if context_required is None:
        return settings.AGENT_MEMORY_EXTRACT_SEMANTIC
    return context_required


def extraction_attempt(block_pk: int) -> str | None:
    """Run one extraction attempt; return the new status, or None when nothing was due."""
    block = (
        MemoryBlock.objects.filter(pk=block_pk, status=BlockStatus.PROCESSING)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=clock.now()))
        .first()
    )
    if block is None:
        return None
    prompt_text = selectors.prompt_text(block.prompt_id, block.prompt_vid)
    try:
        result = get_extractor().extract(block.text, prompt=prompt_text)
        fields: dict[str, Any] = {
            "summary": result.summary,
            "contexts": result.contexts,
            "status": BlockStatus.READY,
        }
        # The summary and contexts become searchable words once they are stored.
        text = selectors.searchable_text(block, summary=result.summary, contexts=result.contexts)
    except ExtractionError:
        text = None
        failures = block.fail_count + 1
        failed = failures >= settings.AGENT_MEMORY_MAX_FAIL_COUNT
        fields = {
            "fail_count": failures,
            "status": BlockStatus.EXTRACTION_FAILED if failed else BlockStatus.PROCESSING,
        }
    with WRITE_LOCK:
        # Only the revision that was extracted may receive the result.
        changed = MemoryBlock.objects.filter(
            pk=block_pk, revision=block.revision, status=BlockStatus.PROCESSING
        ).update(**fields)
        if not changed:
            return None
        status = str(fields["status"])
        with_index(
            block.user_key,
            lambda index: index.set_fields(block.block_id, status=status, text=text),
        )
    return status


def extract_now(block_pk: int) -> str | None:
    """Extract inside the request (async_processing=false), retrying up to the fail limit."""
    status: str | None = BlockStatus.PROCESSING
    while status == BlockStatus.PROCESSING:
        status = extraction_attempt(block_pk)
    return status


def block_mark_queued(block_pks: list[int]) -> None:
    with WRITE_LOCK:
        MemoryBlock.objects.filter(pk__in=block_pks).update(last_queued_at=clock.now())
        # last_queued_at is part of a block's payload: drop the cached copies.
        by_user: dict[str, list[str]] = {}
        for chunk in chunks(block_pks):
            rows = MemoryBlock.objects.filter(pk__in=chunk)
            for block_id, user_id in rows.values_list("block_id", "user_key"):
                by_user.setdefault(user_id, []).append(block_id)
        for user_id, ids in by_user.items():
            with_index(user_id, partial(UserIndex.forget_payloads, block_ids=ids))


def extraction_recover() -> int:
    """Queue again every block left `processing` by an earlier run (restart recovery)."""
    pks = list(
        MemoryBlock.objects.filter(
            status=BlockStatus.PROCESSING, fail_count__lt=settings.AGENT_MEMORY_MAX_FAIL_COUNT
        )
        .order_by("id")
        .values_list("pk", flat=True)
    )
    if pks:
        block_mark_queued(pks)
        get_queue().enqueue(pks, recovered=True)
    return len(pks)
