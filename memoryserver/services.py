"""Writes of the embedded Agent Memory server: users, sessions, blocks, TTLs, prompts.

Every database write runs under WRITE_LOCK (SQLite has one writer anyway, and it keeps the
in-memory index in step with the rows), then updates the loaded user index under its
write lock, so a block is searchable the moment its request returns.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Q

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.embedders import get_embedder
from memoryserver.errors import Conflict, InvalidRequest, QueueFull, SessionEnded
from memoryserver.extractors import ExtractionError, get_extractor
from memoryserver.index.registry import get_registry
from memoryserver.index.slot import IndexRow, UserIndex
from memoryserver.models import (
    BlockStatus,
    MemoryBlock,
    MemorySession,
    MemoryUser,
    Prompt,
    PromptVersion,
)
from memoryserver.queue import get_queue

WRITE_LOCK = threading.RLock()


# --- helpers ---------------------------------------------------------------------------


def expiry(now: datetime, ttl: int | None) -> datetime | None:
    """Return the expiry for `ttl` seconds from `now`; 0 or None means never."""
    return now + timedelta(seconds=ttl) if ttl else None


def effective_ttl(block_ttl: int | None, session: MemorySession) -> int:
    if block_ttl is not None:
        return block_ttl
    if session.blocks_ttl is not None:
        return session.blocks_ttl
    return settings.AGENT_MEMORY_DEFAULT_BLOCK_TTL


def extraction_wanted(context_required: bool | None) -> bool:
    if context_required is None:
        return settings.AGENT_MEMORY_EXTRACT_SEMANTIC
    return context_required


def token_count(text: str) -> int:
    # Roughly a BPE token per 4 characters, never less than the word count.
    return max(len(text.split()), (len(text) + 3) // 4)


def index_row(block: MemoryBlock, vector: np.ndarray | None = None) -> IndexRow:
    if vector is None:
        vector = np.frombuffer(bytes(block.embedding), dtype=np.float32)
    return IndexRow(
        pk=block.pk,
        block_id=block.block_id,
        session_id=block.session_key,
        vector=vector,
        ingested_at=block.ingested_at,
        created_at=block.created_at,
        expires_at=block.expires_at,
        status=block.status,
        annotations=block.annotations,
        prompt_id=block.prompt_id,
        prompt_vid=block.prompt_vid,
    )


def _with_index(user_id: str, apply: Any) -> None:
    """Apply `apply(index)` to the user's index when it is loaded; absent ones load fresh."""
    registry = get_registry()
    with registry.lock.write():
        index = registry.loaded(user_id)
        if index is not None:
            apply(index)


def _open_session(user_id: str, session_id: str) -> MemorySession:
    session = selectors.session_get(user_id=user_id, session_id=session_id)
    if session.end_time is not None:
        raise SessionEnded(
            f"session {session_id!r} has ended and accepts no more writes",
            details={"user_id": user_id, "session_id": session_id},
        )
    return session


# --- users -----------------------------------------------------------------------------


def user_create(*, user_id: str, name: str, metadata: dict[str, Any] | None) -> MemoryUser:
    with WRITE_LOCK:
        if MemoryUser.objects.filter(user_id=user_id).exists():
            raise Conflict(
                f"user {user_id!r} already exists",
                code="USER_ALREADY_EXISTS",
                details={"user_id": user_id},
            )
        return MemoryUser.objects.create(
            user_id=user_id, name=name, metadata=metadata, created_at=clock.now()
        )


def user_update(
    *, user_id: str, name: str | None, metadata: dict[str, Any] | None, set_metadata: bool
) -> MemoryUser:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        if name is not None:
            user.name = name
        if set_metadata:
            user.metadata = metadata  # replaced, not merged (spec C13)
        user.save()
        return user


def user_delete(*, user_id: str) -> None:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        with transaction.atomic(using=db_alias()):
            MemoryBlock.objects.filter(user_key=user_id).delete()
            user.delete()
        get_registry().drop(user_id)


def ttl_modify(
    *, user_id: str, new_ttl: int, session_id: str | None, block_ids: list[str] | None
) -> int:
    """Restart expiry at now + new_ttl for the chosen scope; return how many blocks changed."""
    selectors.user_get(user_id=user_id)
    now = clock.now()
    blocks = selectors.live_blocks(now).filter(user_key=user_id)
    if session_id is not None:
        selectors.session_get(user_id=user_id, session_id=session_id)
        blocks = blocks.filter(session_key=session_id)
    if block_ids is not None:
        blocks = blocks.filter(block_id__in=block_ids)
    expires_at = expiry(now, new_ttl)
    with WRITE_LOCK:
        ids = list(blocks.values_list("block_id", flat=True))
        for chunk in _chunks(ids):
            MemoryBlock.objects.filter(block_id__in=chunk).update(expires_at=expires_at)

        def apply(index: UserIndex) -> None:
            for block_id in ids:
                index.set_fields(block_id, expires_at=expires_at)

        _with_index(user_id, apply)
    return len(ids)


# --- sessions --------------------------------------------------------------------------


def session_create(
    *,
    user_id: str,
    session_id: str,
    annotations: dict[str, str] | None,
    metadata: dict[str, Any] | None,
    blocks_ttl: int | None,
) -> MemorySession:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        if MemorySession.objects.filter(user=user, session_id=session_id).exists():
            raise Conflict(
                f"session {session_id!r} already exists for user {user_id!r}",
                code="SESSION_ALREADY_EXISTS",
                details={"user_id": user_id, "session_id": session_id},
            )
        return MemorySession.objects.create(
            user=user,
            session_id=session_id,
            start_time=clock.now(),
            annotations=annotations or None,
            metadata=metadata or None,
            blocks_ttl=blocks_ttl,
        )


def session_update(
    *,
    user_id: str,
    session_id: str,
    annotations: dict[str, str] | None,
    metadata: dict[str, Any] | None,
) -> MemorySession:
    # Allowed on ended sessions: it changes labels, not memory (spec section 4.2 is silent).
    with WRITE_LOCK:
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        if annotations is not None:
            session.annotations = annotations
        if metadata is not None:
            session.metadata = metadata
        session.save()
        return session


def session_delete(*, user_id: str, session_id: str) -> None:
    with WRITE_LOCK:
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        session.delete()
        _with_index(user_id, lambda index: index.remove_session(session_id))


def session_end(*, user_id: str, session_id: str) -> MemorySession:
    with WRITE_LOCK:
        session = _open_session(user_id, session_id)
        session.end_time = clock.now()
        session.save(update_fields=["end_time"])
        return session


# --- prompts used by blocks ------------------------------------------------------------


def _resolve_prompt(prompt_id: str, prompt_vid: int | None) -> tuple[str, int]:
    prompt = selectors.prompt_get(prompt_id=prompt_id)
    if prompt.archived:
        raise Conflict(f"prompt {prompt_id!r} is archived", code="PROMPT_ARCHIVED")
    vid = prompt.current_vid if prompt_vid is None else prompt_vid
    version = selectors.prompt_version_get(prompt=prompt, vid=vid)
    if version.archived:
        raise Conflict(f"prompt {prompt_id!r} version {vid} is archived", code="PROMPT_ARCHIVED")
    return prompt_id, vid


def _check_prompt_allowed(prompt_id: str | None, wanted: bool) -> None:
    if prompt_id is not None and prompt_id != "default" and not wanted:
        raise InvalidRequest(
            "a prompt_id needs semantic extraction, which is off for this call",
            code="PROMPT_EXTRACTION_DISABLED",
        )


# --- blocks ----------------------------------------------------------------------------


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
    session = _open_session(user_id, session_id)
    wanted = extraction_wanted(context_required)
    _check_prompt_allowed(prompt_id, wanted)
    prompt_ref = _resolve_prompt(prompt_id, prompt_vid) if prompt_id else (None, None)

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

    # Embedding happens before the write lock: it is the slow part of a write.
    vectors = get_embedder().embed([item.text for item in accepted]) if accepted else None
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
            embedding=vectors[i].tobytes(),  # type: ignore[index]
        )
        for i, item in enumerate(accepted)
    ]
    with WRITE_LOCK:
        with transaction.atomic(using=db_alias()):
            MemoryBlock.objects.bulk_create(rows)
        _with_index(
            user_id,
            lambda index: [index.upsert(index_row(r, vectors[i])) for i, r in enumerate(rows)],  # type: ignore[index]
        )
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
    _open_session(user_id, session_id)
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
    vector = get_embedder().embed([content.text])[0] if content is not None else None
    now = clock.now()
    with WRITE_LOCK:
        block.refresh_from_db()
        reextract = content is not None or prompt_id is not None
        if content is not None:
            block.fact, block.user_content = content.fact, content.user_content
            block.assistant_content = content.assistant_content
            block.embedding = vector.tobytes()  # type: ignore[union-attr]
        if annotations is not None:
            block.annotations = annotations or None
        if block_ttl is not None:
            block.expires_at = expiry(now, block_ttl)
        if prompt_id == "default":
            block.prompt_id, block.prompt_vid = None, None
        elif prompt_id is not None:
            block.prompt_id, block.prompt_vid = _resolve_prompt(prompt_id, prompt_vid)
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
        _with_index(user_id, lambda index: index.upsert(index_row(block, vector)))
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
        for chunk in _chunks(doomed):
            scope.filter(block_id__in=chunk).delete()
        _with_index(user_id, lambda index: index.remove(doomed))
    return len(doomed)


def blocks_expired_sweep() -> int:
    """Delete expired blocks and drop them from loaded indexes; return how many went."""
    now = clock.now()
    expired = MemoryBlock.objects.filter(expires_at__lte=now)
    with WRITE_LOCK:
        doomed = list(expired.values_list("block_id", "user_key"))
        for chunk in _chunks([b for b, _ in doomed]):
            MemoryBlock.objects.filter(block_id__in=chunk).delete()
        by_user: dict[str, list[str]] = {}
        for block_id, user_id in doomed:
            by_user.setdefault(user_id, []).append(block_id)
        for user_id, ids in by_user.items():
            _with_index(user_id, lambda index, ids=ids: index.remove(ids))
    return len(doomed)


def _chunks(values: list[Any], size: int = 500) -> list[list[Any]]:
    return [values[i : i + size] for i in range(0, len(values), size)]


# --- extraction ------------------------------------------------------------------------


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
    except ExtractionError:
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
        _with_index(block.user_key, lambda index: index.set_fields(block.block_id, status=status))
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
        for chunk in _chunks(block_pks):
            rows = MemoryBlock.objects.filter(pk__in=chunk)
            for block_id, user_id in rows.values_list("block_id", "user_key"):
                by_user.setdefault(user_id, []).append(block_id)
        for user_id, ids in by_user.items():
            _with_index(user_id, lambda index, ids=ids: index.forget_payloads(ids))


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


# --- prompts ---------------------------------------------------------------------------


def prompt_create(
    *, prompt_id: str, text: str, description: str, annotations: dict[str, str] | None
) -> Prompt:
    with WRITE_LOCK:
        if Prompt.objects.filter(prompt_id=prompt_id).exists():
            raise Conflict(
                f"prompt {prompt_id!r} already exists (archived ids stay reserved)",
                code="PROMPT_ALREADY_EXISTS",
            )
        now = clock.now()
        with transaction.atomic(using=db_alias()):
            prompt = Prompt.objects.create(
                prompt_id=prompt_id,
                description=description,
                annotations=annotations or None,
                current_vid=0,
                last_updated_at=now,
            )
            PromptVersion.objects.create(prompt=prompt, vid=0, text=text, updated_at=now)
        return prompt


def prompt_update(
    *,
    prompt_id: str,
    text: str | None,
    description: str | None,
    annotations: dict[str, str] | None,
) -> Prompt:
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if prompt.archived:
            raise Conflict(f"prompt {prompt_id!r} is archived", code="PROMPT_ARCHIVED")
        now = clock.now()
        with transaction.atomic(using=db_alias()):
            if text is not None:
                last = prompt.versions.order_by("-vid").first()
                vid = (last.vid + 1) if last else 0
                PromptVersion.objects.create(prompt=prompt, vid=vid, text=text, updated_at=now)
                prompt.current_vid = vid
            if description is not None:
                prompt.description = description
            if annotations is not None:
                prompt.annotations = annotations or None
            prompt.last_updated_at = now
            prompt.save()
        return prompt


def prompt_archive(*, prompt_id: str, vid: int | None) -> None:
    """Archive the whole prompt (vid None) or one version."""
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if vid is None:
            if prompt.archived:
                raise Conflict(f"prompt {prompt_id!r} is already archived", code="PROMPT_ARCHIVED")
            prompt.archived = True
            prompt.save(update_fields=["archived"])
            prompt.versions.update(archived=True)
            return
        version = selectors.prompt_version_get(prompt=prompt, vid=vid)
        if version.archived:
            raise Conflict(
                f"prompt {prompt_id!r} version {vid} is already archived", code="PROMPT_ARCHIVED"
            )
        version.archived = True
        version.save(update_fields=["archived"])


def prompt_purge(*, prompt_id: str, vid: int | None) -> None:
    """Delete the prompt and free its id (vid None), or one non-current version."""
    with WRITE_LOCK:
        prompt = selectors.prompt_get(prompt_id=prompt_id)
        if vid is None:
            prompt.delete()
            return
        version = selectors.prompt_version_get(prompt=prompt, vid=vid)
        if vid == prompt.current_vid:
            raise Conflict(
                f"version {vid} is the current version of {prompt_id!r}",
                code="PROMPT_VERSION_CURRENT",
            )
        version.delete()
