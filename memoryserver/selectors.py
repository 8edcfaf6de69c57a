"""Reads of the embedded Agent Memory server, including search over the in-memory index."""

from __future__ import annotations

import json
import logging
import math
import pickle
import threading
import time
from concurrent.futures import Future
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connections
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, TextField, Value
from django.db.models.functions import Coalesce

from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.embedders import get_embedder
from memoryserver.errors import NotFound
from memoryserver.index import context
from memoryserver.index.apart import LoadApartFailed, loaded_apart
from memoryserver.index.lexical import search_text
from memoryserver.index.registry import get_registry
from memoryserver.index.rows import Hit, IndexRow, Query
from memoryserver.index.slot import UserIndex, capacity_for
from memoryserver.index.when import asks_when, query_times, tells_time
from memoryserver.models import MemoryBlock, MemorySession, MemoryUser, Prompt, PromptVersion
from memoryserver.payloads import BLOCK_PAYLOAD_COLUMNS, block_payload, block_payload_from_row
from memoryserver.terms import query_terms
from memoryserver.write_batch import get_write_batcher

logger = logging.getLogger(__name__)


def live_blocks(now: datetime) -> QuerySet[MemoryBlock]:
    """Blocks not yet expired; expired rows may linger until the sweeper runs."""
    return MemoryBlock.objects.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def user_get(*, user_id: str) -> MemoryUser:
    user = MemoryUser.objects.filter(user_id=user_id).first()
    if user is None:
        raise NotFound(
            f"user {user_id!r} not found", code="USER_NOT_FOUND", details={"user_id": user_id}
        )
    return user


def user_session_ids(user: MemoryUser) -> list[str]:
    return list(user.sessions.order_by("id").values_list("session_id", flat=True))


def user_detail(*, user_id: str) -> tuple[MemoryUser, list[str]]:
    """The user and their session ids, oldest first."""
    user = user_get(user_id=user_id)
    return user, user_session_ids(user)


def users_list(
    *, name: str | None, metadata: dict[str, str], limit: int, offset: int
) -> tuple[list[tuple[MemoryUser, list[str]]], int]:
    """A page of users, each with their session ids, and the total; sessions in one query."""
    users = MemoryUser.objects.order_by("id")
    if name is not None:
        users = users.filter(name=name)
    matched = [
        u
        for u in users
        if all(
            str((u.metadata or {}).get(k)) == v and k in (u.metadata or {})
            for k, v in metadata.items()
        )
    ]
    page = matched[offset : offset + limit]
    session_ids: dict[int, list[str]] = {u.pk: [] for u in page}
    if page:
        rows = MemorySession.objects.filter(user__in=page).order_by("id")
        for user_pk, session_id in rows.values_list("user_id", "session_id"):
            session_ids[user_pk].append(session_id)
    return [(u, session_ids[u.pk]) for u in page], len(matched)


def session_get(*, user_id: str, session_id: str) -> MemorySession:
    session = (
        MemorySession.objects.select_related("user")
        .filter(user__user_id=user_id, session_id=session_id)
        .first()
    )
    if session is None:
        user_get(user_id=user_id)
        raise NotFound(
            f"session {session_id!r} not found for user {user_id!r}",
            code="SESSION_NOT_FOUND",
            details={"user_id": user_id, "session_id": session_id},
        )
    return session


def sessions_list(*, user_id: str, limit: int, offset: int) -> tuple[list[MemorySession], int]:
    user = user_get(user_id=user_id)
    sessions = MemorySession.objects.filter(user=user).order_by("start_time", "id")
    return list(sessions[offset : offset + limit]), sessions.count()


def block_get(*, user_id: str, session_id: str, block_id: str) -> MemoryBlock:
    block = (
        live_blocks(clock.now())
        .filter(user_key=user_id, session_key=session_id, block_id=block_id)
        .first()
    )
    if block is None:
        raise NotFound(
            f"memory block {block_id!r} not found in session {session_id!r}",
            code="MEMORY_BLOCK_NOT_FOUND",
            details={"block_id": block_id},
        )
    return block


def _ordering(order_by: str) -> list:
    if order_by == "created_at":
        return [F("created_at").desc(nulls_last=True), "-id"]
    return ["-ingested_at", "-id"]


def blocks_list(
    *, user_id: str, session_ids: list[str] | None, order_by: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """A page of the user's live blocks as payloads, newest first, and how many there are.

    Read from the user's in-memory index (its filter columns order and count them; payloads
    come from its cache or one bare SELECT), like a filter-only search: listing the session in
    progress is part of every recall, and through the ORM it scanned all of the user's rows.
    """
    user_exists(user_id=user_id)
    criteria = Query(
        now=clock.now().timestamp(),
        session_ids=session_ids,
        order_by=order_by,
        include_not_ready=True,  # a listing shows every status
    )
    with get_registry().reading(user_id, lambda: load_user_index(user_id)) as index:
        if index.foreign_blocks:
            return _blocks_list_sql(user_id, session_ids, order_by, limit, offset)
        hits = index.search(criteria)
        return _payloads_for(index, hits[offset : offset + limit]), len(hits)


def _blocks_list_sql(
    user_id: str, session_ids: list[str] | None, order_by: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """The listing from SQLite, for a user with blocks the index cannot hold (see load)."""
    blocks = live_blocks(clock.now()).filter(user_key=user_id)
    if session_ids is not None:
        blocks = blocks.filter(session_key__in=session_ids)
    page = blocks.order_by(*_ordering(order_by)).defer("embedding", "sentence_embeddings")[
        offset : offset + limit
    ]
    return [block_payload(b) for b in page], blocks.count()


def searchable_text(
    block: MemoryBlock, *, summary: str | None = None, contexts: list[str] | None = None
) -> str:
    """What lexical search matches: the content, then the summary and contexts if extracted.

    `summary` and `contexts` stand in for the block's own when an extraction result is
    about to be stored.
    """
    summary = summary if summary is not None else block.summary
    contexts = contexts if contexts is not None else block.contexts
    return search_text(block.text, summary, contexts)


def index_row(
    block: MemoryBlock, vector: np.ndarray | None = None, sentences: np.ndarray | None = None
) -> IndexRow:
    """The block as the index holds it; `vector` and `sentences` fresh from the embedder,
    or (without `vector`) as stored."""
    if vector is None:
        vector = np.frombuffer(bytes(block.embedding), dtype=np.float32)
        if block.sentence_embeddings:
            stored = np.frombuffer(bytes(block.sentence_embeddings), dtype=np.float32)
            sentences = stored.reshape(-1, vector.shape[0])
    searched = searchable_text(block)
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
        text=searched,
        sentences=sentences,
        asks=context.asks(block.text),
        tells_time=tells_time(block.text),
        own_terms=context.own_terms(block.text, searched),
    )


def _epoch_us(column: str) -> str:
    """SQL for a datetime column (naive UTC text) as whole microseconds since the epoch.

    Computed by SQLite, exactly: divided by 1e6 it is the same float as datetime.timestamp().
    The whole seconds come from the text without its fraction: strftime('%%s') of a time
    with one rounds it to the millisecond first, so 12:30:15.9996 would count as :16 and
    the block would sort ahead of blocks written after it.
    """
    return (
        f"CAST(strftime('%%s', substr({column}, 1, 19)) AS INTEGER) * 1000000"
        f" + CAST(substr({column} || '.000000', 21, 6) AS INTEGER)"
    )


# What loading an index reads of each block, in one bare query: no models are built.
_LOAD_FIELDS = (
    "id",
    "block_id",
    "session_key",
    "embedding",
    _epoch_us("ingested_at"),
    _epoch_us("created_at"),
    _epoch_us("expires_at"),
    "status",
    "annotations",
    "prompt_id",
    "prompt_vid",
    "fact",
    "user_content",
    "assistant_content",
    "summary",
    "contexts",
    "sentence_embeddings",
)
_LOAD_CHUNK = 500  # rows between hand-overs of the GIL, about a millisecond of work


def load_user_index(user_id: str) -> UserIndex:
    """A user's index, read from SQLite on the user's first search.

    A user with AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS live blocks or more is loaded in the
    loader process (`memoryserver.index.apart`), so the load's CPU does not slow the other
    shoppers' searches; should that fail, or for a database only this process can open, it
    is read here.
    """
    connection = connections[db_alias()]
    now = clock.now()
    width = get_embedder().dimensions or 1
    threshold = settings.AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS
    if threshold and connection.vendor == "sqlite" and not connection.is_in_memory_db():
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT COUNT(*) FROM {MemoryBlock._meta.db_table} {_LIVE}",
                _live_params(connection, user_id, now),
            )
            (count,) = cursor.fetchone()
        if count >= threshold:
            try:
                return loaded_apart(
                    user_id, now=now, width=width, database=connection.settings_dict["NAME"]
                )
            except (OSError, ValueError, LoadApartFailed, pickle.PickleError) as exc:
                logger.warning("Loading %s apart failed (%s): loading it in process", user_id, exc)
    return user_index_read(user_id, now=now, width=width)


_LIVE = "WHERE user_key = %s AND (expires_at IS NULL OR expires_at > %s)"


def _live_params(connection: Any, user_id: str, now: datetime) -> list[Any]:
    return [user_id, connection.ops.adapt_datetimefield_value(now)]


def user_index_read(user_id: str, *, now: datetime, width: int) -> UserIndex:
    """Read a user's live vectors and filter columns from SQLite, in this process.

    Column-wise and in chunks, vectors straight into the index's matrix, with the GIL handed
    on between chunks: a 100k-block user takes a while to read, and other users' requests in
    this process keep being served meanwhile (the registry holds only this user's lock while
    it runs). The first block's width wins; blocks another embedder wrote with another width
    are counted, not held.
    """
    connection = connections[db_alias()]
    table = MemoryBlock._meta.db_table
    params = _live_params(connection, user_id, now)
    vectors = np.zeros((0, width), dtype=np.float32)
    foreign = kept_count = 0
    columns: list[list[Any]] = [[] for _ in _LOAD_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table} {_LIVE}", params)
        (count,) = cursor.fetchone()
        # In the order of the user's index in SQLite: sorting 100k rows of vectors by id cost
        # as much as reading them, and nothing in the index depends on the order of its rows.
        cursor.execute(f"SELECT {', '.join(_LOAD_FIELDS)} FROM {table} {_LIVE}", params)
        while rows := cursor.fetchmany(_LOAD_CHUNK):
            if not kept_count and not foreign:
                width = len(rows[0][3]) // 4
                vectors = np.zeros((capacity_for(count), width), dtype=np.float32)
            kept = [row for row in rows if len(row[3]) == width * 4]
            foreign += len(rows) - len(kept)
            while kept_count + len(kept) > len(vectors):  # writes landed since the count
                vectors = np.concatenate([vectors, np.zeros_like(vectors)])
            if kept:
                chunk = np.frombuffer(b"".join(row[3] for row in kept), dtype=np.float32)
                vectors[kept_count : kept_count + len(kept)] = chunk.reshape(len(kept), width)
                kept_count += len(kept)
                for column, values in zip(columns, zip(*kept, strict=True), strict=True):
                    column.extend(values)
            time.sleep(0)  # hand the GIL to other requests between chunks
    pks, block_ids, sessions, _, ingested, created, expires, statuses, annotations = columns[:9]
    facts, asked, answered, summaries, contexts, sentences = columns[11:]
    own = [
        fact if fact is not None else "\n".join(p for p in (user, assistant) if p)
        for fact, user, assistant in zip(facts, asked, answered, strict=True)
    ]
    texts = [
        search_text(text, summary, found)
        for text, summary, found in zip(own, summaries, _json_values(contexts), strict=True)
    ]
    index = UserIndex.from_columns(
        vectors=vectors if len(vectors) else np.zeros((64, width), dtype=np.float32),
        pks=pks,
        block_ids=block_ids,
        session_ids=sessions,
        ingested=np.array(ingested, dtype=np.float64) / 1e6,
        created=np.array(created, dtype=np.float64) / 1e6,  # None becomes NaN
        expires=np.nan_to_num(np.array(expires, dtype=np.float64) / 1e6, nan=math.inf),
        statuses=statuses,
        annotations=_json_values(annotations),
        prompt_ids=columns[9],
        prompt_vids=columns[10],
        texts=texts,
        sentences=sentences,
        asks=[context.asks(text) for text in own],
        tells_time=[tells_time(text) for text in own],
        own_terms=[context.own_terms(o, t) for o, t in zip(own, texts, strict=True)],
    )
    index.foreign_blocks = foreign
    return index


def _json_values(values: list[Any]) -> list[Any]:
    """Decode JSON text once per distinct value; most blocks share a handful of annotations."""
    decoded: dict[str, Any] = {}
    out = []
    for value in values:
        if isinstance(value, str):
            if value not in decoded:
                decoded[value] = json.loads(value)
            value = decoded[value]
        out.append(value)
    return out


def user_exists(*, user_id: str) -> None:
    """Raise like `user_get` when the user is missing; one bare indexed SELECT."""
    sql = f"SELECT 1 FROM {MemoryUser._meta.db_table} WHERE user_id = %s LIMIT 1"
    with connections[db_alias()].cursor() as cursor:
        cursor.execute(sql, [user_id])
        found = cursor.fetchone() is not None
    if not found:
        user_get(user_id=user_id)  # raises the precise error


def session_exists(*, user_id: str, session_id: str) -> None:
    """Raise like `session_get` when the session is missing, without building a model.

    One indexed SELECT through a bare cursor: the ORM's query building alone cost more than
    the rest of a search at 10k blocks.
    """
    sql = (
        f"SELECT 1 FROM {MemorySession._meta.db_table} s "
        f"JOIN {MemoryUser._meta.db_table} u ON u.id = s.user_id "
        "WHERE u.user_id = %s AND s.session_id = %s LIMIT 1"
    )
    with connections[db_alias()].cursor() as cursor:
        cursor.execute(sql, [user_id, session_id])
        found = cursor.fetchone() is not None
    if not found:
        session_get(user_id=user_id, session_id=session_id)  # raises the precise error


def search_criteria(*, session_id: str, filters: dict[str, Any]) -> Query:
    """The index query for a search's validated filters (the search's own session by default)."""
    sessions = filters.get("session_ids")
    created = None
    if filters.get("created_start_time") or filters.get("created_end_time"):
        created = (
            _ts(filters.get("created_start_time"), -1),
            _ts(filters.get("created_end_time"), 1),
        )
    return Query(
        now=0.0,
        session_ids=None if sessions == "all" else (sessions or [session_id]),
        session_id=session_id,
        block_ids=filters.get("block_ids"),
        annotations=filters.get("annotations") or None,
        annotation_mode=filters.get("annotation_filter_mode") or "pre",
        ingested_range=(_ts(filters.get("start_time"), -1), _ts(filters.get("end_time"), 1)),
        created_range=created,
        prompt_id=filters.get("prompt_id"),
        prompt_vid=filters.get("prompt_vid"),
        relevant_k=filters.get("relevant_k") or 10,
        order_by=filters.get("order_by") or "ingested_at",
        include_not_ready=settings.AGENT_MEMORY_SEARCH_INCLUDE_NOT_READY,
    )


def _ts(value: Any, side: int) -> float:
    return value.timestamp() if value is not None else side * float("inf")


_embedding: dict[str, Future[np.ndarray]] = {}
_embedding_lock = threading.Lock()


def query_vector(text: str) -> np.ndarray:
    """The query's vector, computed once for concurrent searches of the same text.

    A recall sends its fact and turn searches with one query at the same moment; both would
    miss the embedder's cache and embed it twice (17 ms each with MiniLM in numpy). The
    second waits for the first instead.
    """
    with _embedding_lock:
        pending = _embedding.get(text)
        if pending is None:
            pending = _embedding[text] = Future()
            mine = True
        else:
            mine = False
    if not mine:
        return pending.result()
    try:
        embedder = get_embedder()
        vector = embedder.embed_query(text)
        get_write_batcher().vector_known(embedder, text, vector)
        pending.set_result(vector)
        return vector
    except BaseException as exc:
        pending.set_exception(exc)
        raise
    finally:
        with _embedding_lock:
            del _embedding[text]


def blocks_search(
    *, user_id: str, session_id: str, query: str | None, filters: dict[str, Any]
) -> list[dict[str, Any]]:
    """Return the response payloads of the matching blocks, rel_score filled in."""
    criteria = search_criteria(session_id=session_id, filters=filters)
    session_exists(user_id=user_id, session_id=session_id)
    if query is not None:
        mode = settings.AGENT_MEMORY_SEARCH_MODE
        if mode != "lexical":
            criteria.vector = query_vector(query)
        if mode != "dense":
            criteria.terms = query_terms(query)
        criteria.times = query_times(query, clock.now())
        criteria.asks_when = asks_when(query)
        criteria.neighbour_credit = settings.AGENT_MEMORY_SEARCH_NEIGHBOUR_CREDIT
    criteria.now = clock.now().timestamp()
    with get_registry().reading(user_id, lambda: load_user_index(user_id)) as index:
        if criteria.vector is not None and criteria.vector.shape[0] != index.dimensions:
            return []
        hits = index.search(criteria)
        # Payloads are read and cached under this same read-lock hold (see keep_payload).
        return _payloads_for(index, hits)


def _payloads_for(index: UserIndex, hits: list[Hit]) -> list[dict[str, Any]]:
    payloads = {h.block_id: index.payload(h.block_id) for h in hits}
    missing = [block_id for block_id, payload in payloads.items() if payload is None]
    if missing:
        with connections[db_alias()].cursor() as cursor:
            for start in range(0, len(missing), 500):
                chunk = missing[start : start + 500]
                cursor.execute(
                    f"SELECT {BLOCK_PAYLOAD_COLUMNS} FROM {MemoryBlock._meta.db_table} "
                    f"WHERE block_id IN ({', '.join(['%s'] * len(chunk))})",
                    chunk,
                )
                for row in cursor.fetchall():
                    fetched = block_payload_from_row(row)
                    payloads[fetched["block_id"]] = fetched
                    index.keep_payload(fetched["block_id"], fetched)
    found = []
    for hit in hits:
        payload = payloads.get(hit.block_id)
        if payload is None:
            continue  # deleted between the index read and this fetch: left out
        # A shallow copy keeps the cached dict intact and the payload's key order.
        row = payload.copy()
        row["rel_score"] = hit.score
        found.append(row)
    return found


def prompt_get(*, prompt_id: str) -> Prompt:
    prompt = Prompt.objects.filter(prompt_id=prompt_id).first()
    if prompt is None:
        raise NotFound(f"prompt {prompt_id!r} not found", code="PROMPT_NOT_FOUND")
    return prompt


def prompt_version_get(*, prompt: Prompt, vid: int) -> PromptVersion:
    version = prompt.versions.filter(vid=vid).first()
    if version is None:
        raise NotFound(
            f"prompt {prompt.prompt_id!r} has no version {vid}", code="PROMPT_VERSION_NOT_FOUND"
        )
    return version


def prompt_version_detail(*, prompt_id: str, vid: int) -> tuple[Prompt, PromptVersion]:
    prompt = prompt_get(prompt_id=prompt_id)
    return prompt, prompt_version_get(prompt=prompt, vid=vid)


def prompt_text(prompt_id: str | None, prompt_vid: int | None) -> str | None:
    """The custom prompt a block asks for; a purged prompt falls back to the default (None)."""
    if not prompt_id:
        return None
    versions = PromptVersion.objects.filter(prompt__prompt_id=prompt_id)
    version = versions.filter(vid=prompt_vid).first() if prompt_vid is not None else None
    if version is None:
        version = versions.filter(vid=F("prompt__current_vid")).first()
    return version.text if version else None


def _prompts_with_text() -> QuerySet[Prompt]:
    """Prompts annotated with `version_count` and `current_text`, in the same query."""
    current = PromptVersion.objects.filter(prompt=OuterRef("pk"), vid=OuterRef("current_vid"))
    return Prompt.objects.annotate(
        version_count=Count("versions"),
        current_text=Coalesce(
            Subquery(current.values("text")[:1]), Value(""), output_field=TextField()
        ),
    )


def prompt_detail(*, prompt_id: str) -> Prompt:
    """The prompt with `version_count` and `current_text` annotated."""
    prompt = _prompts_with_text().filter(prompt_id=prompt_id).first()
    if prompt is None:
        raise NotFound(f"prompt {prompt_id!r} not found", code="PROMPT_NOT_FOUND")
    return prompt


def prompts_list(*, limit: int, offset: int) -> tuple[list[Prompt], int]:
    """A page of prompts as `prompt_detail` returns them, and the total."""
    prompts = Prompt.objects.order_by("id")
    page = _prompts_with_text().order_by("id")[offset : offset + limit]
    return list(page), prompts.count()


def prompt_versions_list(
    *, prompt_id: str, limit: int, offset: int
) -> tuple[Prompt, list[PromptVersion], int]:
    prompt = prompt_get(prompt_id=prompt_id)
    versions = prompt.versions.order_by("vid")
    return prompt, list(versions[offset : offset + limit]), versions.count()
