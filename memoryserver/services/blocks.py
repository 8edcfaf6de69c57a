"""Memory blocks: add (embedded before the write lock), update, delete."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.errors import InvalidRequest, QueueFull
from memoryserver.index.sentences import blocks_embedded
from memoryserver.index.slot import UserIndex
from memoryserver.models import BlockStatus, MemoryBlock
from memoryserver.queue import get_queue
from memoryserver.services.common import WRITE_LOCK, chunks, session_get_writable, with_index
from memoryserver.services.extraction import extract_now, extraction_wanted
from memoryserver.services.prompts import prompt_resolve
from memoryserver.services.ttl import effective_ttl, expiry
from memoryserver.write_batch import get_write_batcher


@dataclass(frozen=True)
class NewBlock:
    fact: str | None = None
    user_content: str | None = None
    assistant_content: str | None = None

    @property
    def text(self) -> str:
        if self.fact is not None:
            return self.fact
        return "\n".join(p for p in (self.user_content, self.assistant_content) if p)


@dataclass
class AddResult:
    block_ids: list[str]
    rejected: list[dict[str, Any]]


def _rows_bytes(rows: np.ndarray | None) -> bytes | None:
    return rows.astype(np.float32).tobytes() if rows is not None else None


def token_count(text: str) -> int:
    # Roughly a BPE token per 4 characters, never less than the word count.
    return max(len(text.split()), (len(text) + 3) // 4)


def _check_prompt_allowed(prompt_id: str | None, wanted: bool) -> None:
    if prompt_id is not None and prompt_id != "default" and not wanted:
        raise InvalidRequest(
            "a prompt_id needs semantic extraction, which is off for this call",
            code="PROMPT_EXTRACTION_DISABLED",
        )


def blocks_add(
    *,
    user_id: str,
    session_id: str,
    items: list[NewBlock],
    annotations: dict[str, str] | None,
    block_ttl: int | None,
    context_required: bool | None,
    created_at: datetime | None,
    async_processing: bool,
    prompt_id: str | None,
    prompt_vid: int | None,
) -> AddResult:
    session = session_get_writable(user_id=user_id, session_id=session_id)
    wanted = extraction_wanted(context_required)
    _check_prompt_allowed(prompt_id, wanted)
    prompt_ref = prompt_resolve(prompt_id, prompt_vid) if prompt_id else (None, None)

    limit = settings.AGENT_MEMORY_PER_REQUEST_TOKEN_LIMIT
    accepted: list[NewBlock] = []
    rejected: list[dict[str, Any]] = []
    for position, item in enumerate(items):
        tokens = token_count(item.text)
        if tokens > limit:
            rejected.append(
                {
                    "input_index": position,
                    "reason": "exceeds per-request token limit",
                    "actual_tokens": tokens,
                    "per_request_token_limit": limit,
                }
            )
        else:
            accepted.append(item)

    queue = get_queue()
    if wanted and async_processing and not queue.has_room(len(accepted)):
        raise QueueFull(
            "the extraction queue is full; retry shortly",
            details={"retry_after_seconds": 1},
            headers={"Retry-After": "1"},
        )

    # Embedding happens before the write lock: it is the slow part of a write. The blocks and
    # their sentences go to the encoder together, with those of the writes waiting beside
    # this one (write_batch).
    embedded = blocks_embedded(get_write_batcher(), [item.text for item in accepted])
    now = clock.now()
    expires_at = expiry(now, effective_ttl(block_ttl, session))
    rows = [
        MemoryBlock(
            block_id=str(uuid.uuid4()),
            session=session,
            user_key=user_id,
            session_key=session_id,
            fact=item.fact,
            user_content=item.user_content,
            assistant_content=item.assistant_content,
            annotations=annotations or None,
            ingested_at=now,
            created_at=created_at,
            expires_at=expires_at,
            last_queued_at=now if wanted else None,
            status=BlockStatus.PROCESSING if wanted else BlockStatus.READY,
            context_required=wanted,
            prompt_id=prompt_ref[0],
            prompt_vid=prompt_ref[1],
            embedding=embedded[i][0].tobytes(),
            sentence_embeddings=_rows_bytes(embedded[i][1]),
        )
        for i, item in enumerate(accepted)
    ]
    with WRITE_LOCK:
        with transaction.atomic(using=db_alias()):
            MemoryBlock.objects.bulk_create(rows)

        def rows_upsert(index: UserIndex) -> None:
            for i, row in enumerate(rows):
                index.upsert(selectors.index_row(row, *embedded[i]))

        with_index(user_id, rows_upsert)
    if wanted:
        if async_processing:
            queue.enqueue([r.pk for r in rows])
        else:
            for row in rows:
                extract_now(row.pk)
    return AddResult(block_ids=[r.block_id for r in rows], rejected=rejected)


def block_update(
    *,
    user_id: str,
    session_id: str,
    block_id: str,
    content: NewBlock | None,
    annotations: dict[str, str] | None,
    block_ttl: int | None,
    async_processing: bool,
    context_required: bool | None,
    prompt_id: str | None,
    prompt_vid: int | None,
) -> MemoryBlock:
    session_get_writable(user_id=user_id, session_id=session_id)
    block = selectors.block_get(user_id=user_id, session_id=session_id, block_id=block_id)
    if content is not None and (content.fact is not None) != block.is_fact:
        raise InvalidRequest(
            "a block cannot switch between fact and message; delete it and add a new one",
            code="BLOCK_TYPE_MISMATCH",
            details={"block_id": block_id},
        )
    wanted = extraction_wanted(
        context_required if context_required is not None else block.context_required
    )
    _check_prompt_allowed(prompt_id, wanted)
    vector, sentences = (
        blocks_embedded(get_write_batcher(), [content.text])[0]
        if content is not None
        else (None, None)
    )
    now = clock.now()
    with WRITE_LOCK:
        block.refresh_from_db()
        reextract = content is not None or prompt_id is not None
        if content is not None:
            block.fact, block.user_content = content.fact, content.user_content
            block.assistant_content = content.assistant_content
            block.embedding = vector.tobytes()  # type: ignore[union-attr]
            block.sentence_embeddings = _rows_bytes(sentences)
        if annotations is not None:
            block.annotations = annotations or None
        if block_ttl is not None:
            block.expires_at = expiry(now, block_ttl)
        if prompt_id == "default":
            block.prompt_id, block.prompt_vid = None, None
        elif prompt_id is not None:
            block.prompt_id, block.prompt_vid = prompt_resolve(prompt_id, prompt_vid)
        if context_required is not None:
            block.context_required = wanted
        # A failed block is retried by any update that allows extraction (spec section 4.3).
        if block.status == BlockStatus.EXTRACTION_FAILED and async_processing and wanted:
            reextract = True
        if reextract:
            block.revision += 1
            block.summary, block.contexts, block.fail_count = None, None, 0
            block.status = BlockStatus.PROCESSING if wanted else BlockStatus.READY
            block.last_queued_at = now if wanted else block.last_queued_at
        block.save()
        with_index(
            user_id, lambda index: index.upsert(selectors.index_row(block, vector, sentences))
        )
    if reextract and wanted:
        if async_processing:
            get_queue().enqueue([block.pk])
        else:
            extract_now(block.pk)
            block.refresh_from_db()
    return block


def blocks_delete(*, user_id: str, session_id: str, block_ids: list[str] | None) -> int:
    """Delete blocks of this session (None = all); absent ids count as deleted."""
    selectors.session_get(user_id=user_id, session_id=session_id)
    scope = MemoryBlock.objects.filter(user_key=user_id, session_key=session_id)
    with WRITE_LOCK:
        if block_ids is None:
            doomed = list(scope.values_list("block_id", flat=True))
        else:
            doomed = list(dict.fromkeys(block_ids))
        for chunk in chunks(doomed):
            scope.filter(block_id__in=chunk).delete()
        with_index(user_id, lambda index: index.remove(doomed))
    return len(doomed)
