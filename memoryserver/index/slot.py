"""One user's slot of the in-memory vector index: the search hot path never reads SQLite.

Each loaded user has a matrix of normalised vectors plus the columns search filters on
(session, times, expiry, status, prompt, annotations). Writes update it in place under that
user's write lock (`memoryserver.index.registry`), so a block is searchable the moment its
write returns.

It also caches each block's response payload once a search has returned it, so a repeated
hit costs no SQL. Every change to a block goes through upsert/set_fields/remove (or
`forget_payloads`), which drop the cached payload; the next search reads it again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from memoryserver.index import common, context, feedback, fusion, rerank, spread
from memoryserver.index.common import CommonDirection
from memoryserver.index.lexical import LexicalIndex
from memoryserver.index.rows import Hit, IndexRow, Query
from memoryserver.index.sentences import SentenceVectors
from memoryserver.index.when import tells_time as text_tells_time
from memoryserver.index.windows import TimeWindows

STATUS_CODES = {"processing": 0, "ready": 1, "extraction_failed": 2}
_INF = math.inf
_MAX_TERMS = np.iinfo(np.uint16).max


def epoch(value: datetime | None, default: float = math.nan) -> float:
    return value.timestamp() if value is not None else default


# The columns of a block's own, kept in step when the index is compacted.
_ROW_COLUMNS = (
    "sessions",
    "ingested",
    "created",
    "expires",
    "status",
    "prompts",
    "prompt_vids",
    "asks",
    "tells_time",
    "own_terms",
)
# The numpy columns of a user's index, copied over when it grows.
_COLUMNS = ("vectors", "alive", "pks", *_ROW_COLUMNS)


def capacity_for(blocks: int) -> int:
    """Rows to allocate for this many blocks: a power of two, at least 64."""
    return max(64, 1 << max(blocks - 1, 1).bit_length())


@dataclass
class UserIndex:
    dimensions: int
    capacity: int = 64
    size: int = 0
    positions: dict[str, int] = field(default_factory=dict)
    session_codes: dict[str, int] = field(default_factory=dict)
    prompt_codes: dict[str, int] = field(default_factory=dict)
    # Live blocks of this user left out because another embedder wrote them (other width).
    foreign_blocks: int = 0

    def __post_init__(self) -> None:
        self._allocate(self.capacity)
        self._annotation_masks: dict[tuple[str, str], np.ndarray] = {}
        self.lexical = LexicalIndex()
        self.sentences = SentenceVectors(self.dimensions)
        self.common = CommonDirection(self.dimensions)
        self._links: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_columns(
        cls,
        *,
        vectors: np.ndarray,
        pks: list[int],
        block_ids: list[str],
        session_ids: list[str],
        ingested: np.ndarray,
        created: np.ndarray,
        expires: np.ndarray,
        statuses: list[str],
        annotations: list[dict[str, str] | None],
        prompt_ids: list[str | None],
        prompt_vids: list[int | None],
        texts: list[str],
        sentences: list[bytes | None] | None = None,
        asks: list[bool] | None = None,
        own_terms: list[int | None] | None = None,
        tells_time: list[bool] | None = None,
    ) -> UserIndex:
        """An index holding these blocks, as the same upserts one by one would build it.

        `vectors` becomes the index's matrix as it is: its rows are the capacity (see
        `capacity_for`), the first len(block_ids) hold the blocks. Epochs are floats, created
        NaN and expires inf when absent. Whole columns at once: loading a 100k-block user is
        one pass, not 100k upserts.
        """
        n = len(block_ids)
        index = cls(dimensions=vectors.shape[1], capacity=vectors.shape[0])
        index.vectors = vectors
        index.size = n
        index.positions = {block_id: pos for pos, block_id in enumerate(block_ids)}
        index.ids[:n] = block_ids
        index.alive[:n] = True
        index.common = CommonDirection.of(vectors, index.alive[:n])
        index.pks[:n] = pks
        index.sessions[:n] = [index._code(index.session_codes, s) for s in session_ids]
        index.ingested[:n] = ingested
        index.created[:n] = created
        index.expires[:n] = expires
        index.status[:n] = [STATUS_CODES[s] for s in statuses]
        index.prompts[:n] = [index._code(index.prompt_codes, p) if p else -1 for p in prompt_ids]
        index.prompt_vids[:n] = [v if v is not None else -1 for v in prompt_vids]
        index.annotations[:n] = [a or None for a in annotations]
        index.asks[:n] = asks if asks is not None else [context.asks(text) for text in texts]
        index.tells_time[:n] = (
            tells_time if tells_time is not None else [text_tells_time(t) for t in texts]
        )
        # A second of Python at 100k blocks: hand the GIL to waiting requests every
        # millisecond or so instead of every switch interval (5 ms).
        index.lexical = LexicalIndex.from_texts(texts, pause_every=100)
        lengths = index.lexical.lengths(n)
        if own_terms is not None:
            given = np.array([-1 if t is None else t for t in own_terms], dtype=np.int64)
            lengths = np.where(given >= 0, given, lengths)
        index.own_terms[:n] = np.minimum(lengths, _MAX_TERMS)
        if sentences is not None:
            index.sentences = SentenceVectors.from_blobs(index.dimensions, sentences)
        return index

    # Block ids and annotations per part of a transfer (see `parts`).
    PART_SIZE = 2000

    def parts(self) -> Iterator[tuple[str, Any]]:
        """This index but its vectors as (name, value) parts, each quick to unpickle.

        A large user's index is built in another process (`memoryserver.index.apart`) and
        handed over part by part, so the process serving searches never holds the GIL for
        long while it takes one in: `from_parts` rebuilds the same index.
        """
        n = self.size
        yield (
            "columns",
            {
                "dimensions": self.dimensions,
                "capacity": self.capacity,
                "size": n,
                "session_codes": self.session_codes,
                "prompt_codes": self.prompt_codes,
                "foreign_blocks": self.foreign_blocks,
                **{name: getattr(self, name) for name in _COLUMNS if name != "vectors"},
            },
        )
        for start in range(0, n, self.PART_SIZE):
            yield "ids", self.ids[start : min(n, start + self.PART_SIZE)]
            yield "annotations", self.annotations[start : min(n, start + self.PART_SIZE)]
        for name, value in self.lexical.parts():
            yield f"lexical.{name}", value
        yield "sentences", self.sentences.part()

    @classmethod
    def from_parts(cls, vectors: np.ndarray, parts: Iterable[tuple[str, Any]]) -> UserIndex:
        """The index `parts` came from, with these vectors (the parts in their order)."""
        index = cls.__new__(cls)
        index.vectors = vectors
        index.ids, index.annotations, index.positions = [], [], {}
        index._annotation_masks = {}
        index.lexical = LexicalIndex()
        index._links = None
        sentences = None
        for name, value in parts:
            if name == "columns":
                for key, column in value.items():
                    setattr(index, key, column)
            elif name == "ids":
                # Each block's position is where its id stands.
                first = len(index.ids)
                index.ids.extend(value)
                # The holes removed blocks left (None) have no position.
                index.positions.update(
                    (block_id, pos)
                    for pos, block_id in enumerate(value, start=first)
                    if block_id is not None
                )
            elif name == "annotations":
                index.annotations.extend(value)
            elif name.startswith("lexical."):
                index.lexical.take_part(name.removeprefix("lexical."), value)
            elif name == "sentences":
                sentences = value
            else:
                raise ValueError(f"not a part of a user's index: {name!r}")
        if vectors.shape != (index.capacity, index.dimensions):
            raise ValueError(f"vectors of shape {vectors.shape} for {index.capacity} rows")
        index.ids.extend([None] * (index.capacity - len(index.ids)))
        index.annotations.extend([None] * (index.capacity - len(index.annotations)))
        index.payloads = [None] * index.capacity
        index.common = CommonDirection.of(vectors, index.alive[: index.size])
        index.sentences = SentenceVectors(index.dimensions)
        if sentences is not None:
            index.sentences = SentenceVectors.from_part(index.dimensions, sentences)
        return index

    def _allocate(self, capacity: int) -> None:
        self._links = None
        self.capacity = capacity
        self.vectors = np.zeros((capacity, self.dimensions), dtype=np.float32)
        self.alive = np.zeros(capacity, dtype=bool)
        self.pks = np.zeros(capacity, dtype=np.int64)
        self.sessions = np.full(capacity, -1, dtype=np.int32)
        self.ingested = np.zeros(capacity, dtype=np.float64)
        self.created = np.full(capacity, np.nan, dtype=np.float64)
        self.expires = np.full(capacity, np.inf, dtype=np.float64)
        self.status = np.zeros(capacity, dtype=np.int8)
        self.prompts = np.full(capacity, -1, dtype=np.int32)
        self.prompt_vids = np.full(capacity, -1, dtype=np.int64)
        self.asks = np.zeros(capacity, dtype=bool)  # the block's own text asks (context.asks)
        self.tells_time = np.zeros(capacity, dtype=bool)  # it says when (when.tells_time)
        # The terms of the block's own text, its summary and contexts left out: how much it
        # means without the block before it (`context.dense_with_context`).
        self.own_terms = np.zeros(capacity, dtype=np.uint16)
        self.ids: list[str | None] = [None] * capacity
        self.annotations: list[dict[str, str] | None] = [None] * capacity
        self.payloads: list[dict[str, Any] | None] = [None] * capacity

    def _grow(self) -> None:
        old = tuple(getattr(self, name) for name in _COLUMNS)
        ids, anns, payloads, n = self.ids, self.annotations, self.payloads, self.size
        masks = self._annotation_masks
        self._allocate(self.capacity * 2)
        new = tuple(getattr(self, name) for name in _COLUMNS)
        for src, dst in zip(old, new, strict=True):
            dst[:n] = src[:n]
        self.ids[:n] = ids[:n]
        self.annotations[:n] = anns[:n]
        self.payloads[:n] = payloads[:n]
        self._annotation_masks = {}
        for key, mask in masks.items():
            grown = np.zeros(self.capacity, dtype=bool)
            grown[:n] = mask[:n]
            self._annotation_masks[key] = grown

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table)
        return code

    def upsert(self, row: IndexRow) -> None:
        pos = self.positions.get(row.block_id)
        if pos is None:
            if self.size == self.capacity:
                self._grow()
            pos = self.size
            self.size += 1
            self.positions[row.block_id] = pos
        if self.alive[pos]:  # an update: its old vector leaves the sum
            self.common.drop(self.vectors[pos])
        self.ids[pos] = row.block_id
        self.alive[pos] = True
        self.pks[pos] = row.pk
        self.vectors[pos] = row.vector
        self.common.add(self.vectors[pos])
        self.sessions[pos] = self._code(self.session_codes, row.session_id)
        self.ingested[pos] = epoch(row.ingested_at)
        self.created[pos] = epoch(row.created_at)
        self.expires[pos] = epoch(row.expires_at, _INF)
        self.status[pos] = STATUS_CODES[row.status]
        self.prompts[pos] = self._code(self.prompt_codes, row.prompt_id) if row.prompt_id else -1
        self.prompt_vids[pos] = row.prompt_vid if row.prompt_vid is not None else -1
        self.annotations[pos] = row.annotations or None
        self.payloads[pos] = None
        self.lexical.set(pos, row.text)
        self.asks[pos] = row.asks if row.asks is not None else context.asks(row.text)
        self.tells_time[pos] = (
            row.tells_time if row.tells_time is not None else text_tells_time(row.text)
        )
        own = row.own_terms if row.own_terms is not None else self.lexical.length_at(pos)
        self.own_terms[pos] = min(own, _MAX_TERMS)
        self.sentences.set(pos, row.sentences)
        for (key, value), mask in self._annotation_masks.items():
            mask[pos] = bool(row.annotations and row.annotations.get(key) == value)

    def set_fields(
        self,
        block_id: str,
        *,
        status: str | None = None,
        expires_at: datetime | bool | None = False,
        text: str | None = None,
    ) -> None:
        """Change status, expiry and/or searchable text; `expires_at=False` means "leave it"."""
        pos = self.positions.get(block_id)
        if pos is None:
            return
        self.payloads[pos] = None
        if text is not None:
            self.lexical.set(pos, text)
        if status is not None:
            self.status[pos] = STATUS_CODES[status]
        if expires_at is not False:
            self.expires[pos] = epoch(expires_at, _INF)  # type: ignore[arg-type]

    def remove(self, block_ids: Iterable[str]) -> None:
        for block_id in block_ids:
            pos = self.positions.pop(block_id, None)
            if pos is not None:
                self._links = None
                self.lexical.drop(pos)
                self.sentences.drop(pos)
                self.common.drop(self.vectors[pos])
                self.alive[pos] = False
                self.ids[pos] = None
                self.annotations[pos] = None
                self.payloads[pos] = None
        # Compact when most slots are dead so scans stay proportional to live blocks.
        if self.size > 256 and len(self.positions) < self.size // 2:
            self._compact()

    def remove_session(self, session_id: str) -> None:
        code = self.session_codes.get(session_id)
        if code is None:
            return
        doomed = np.nonzero(self.alive[: self.size] & (self.sessions[: self.size] == code))[0]
        self.remove([self.ids[p] for p in doomed if self.ids[p] is not None])  # type: ignore[misc]

    def _compact(self) -> None:
        keep = np.nonzero(self.alive[: self.size])[0]
        rows = [
            IndexRow(
                pk=int(self.pks[p]),
                block_id=self.ids[p],  # type: ignore[arg-type]
                session_id="",
                vector=self.vectors[p].copy(),
                ingested_at=None,  # type: ignore[arg-type]
                created_at=None,
                expires_at=None,
                status="ready",
                annotations=self.annotations[p],
                prompt_id=None,
                prompt_vid=None,
            )
            for p in keep
        ]
        payloads = [self.payloads[p] for p in keep]
        columns = [getattr(self, name)[keep].copy() for name in _ROW_COLUMNS]
        n = len(keep)
        self._allocate(capacity_for(n))
        self._annotation_masks = {}
        self.positions = {}
        self.size = n
        moved = {int(old): new for new, old in enumerate(keep)}
        self.lexical.move(moved)
        self.sentences.move(moved)
        for pos, row in enumerate(rows):
            self.positions[row.block_id] = pos
            self.ids[pos] = row.block_id
            self.alive[pos] = True
            self.pks[pos] = row.pk
            self.vectors[pos] = row.vector
            self.annotations[pos] = row.annotations
            self.payloads[pos] = payloads[pos]
        for name, src in zip(_ROW_COLUMNS, columns, strict=True):
            getattr(self, name)[:n] = src

    def forget_payloads(self, block_ids: Iterable[str]) -> None:
        """Drop cached payloads of blocks changed outside upsert/set_fields/remove."""
        for block_id in block_ids:
            pos = self.positions.get(block_id)
            if pos is not None:
                self.payloads[pos] = None

    def payload(self, block_id: str) -> dict[str, Any] | None:
        pos = self.positions.get(block_id)
        return self.payloads[pos] if pos is not None else None

    def keep_payload(self, block_id: str, payload: dict[str, Any]) -> None:
        """Cache a payload read from SQLite; call under the same read lock as the search.

        Writers commit first and then change the index under the write lock, so a payload
        read and kept within one read-lock hold is either current or dropped afterwards.
        """
        pos = self.positions.get(block_id)
        if pos is not None:
            self.payloads[pos] = payload

    def __len__(self) -> int:
        return len(self.positions)

    def _annotation_mask(self, key: str, value: str) -> np.ndarray:
        mask = self._annotation_masks.get((key, value))
        if mask is None:
            mask = np.zeros(self.capacity, dtype=bool)
            for pos in range(self.size):
                ann = self.annotations[pos]
                if ann and ann.get(key) == value:
                    mask[pos] = True
            self._annotation_masks[(key, value)] = mask
        return mask

    def _base_mask(self, q: Query) -> np.ndarray:
        n = self.size
        mask = self.alive[:n] & (self.expires[:n] > q.now)
        if q.session_ids is not None:
            codes = [self.session_codes[s] for s in q.session_ids if s in self.session_codes]
            mask &= np.isin(self.sessions[:n], np.array(codes, dtype=np.int32))
        if q.block_ids is not None:
            wanted = np.zeros(n, dtype=bool)
            for block_id in q.block_ids:
                pos = self.positions.get(block_id)
                if pos is not None:
                    wanted[pos] = True
            mask &= wanted
        lo, hi = q.ingested_range
        if lo > -_INF or hi < _INF:
            mask &= (self.ingested[:n] >= lo) & (self.ingested[:n] <= hi)
        if q.created_range is not None:
            lo, hi = q.created_range
            # NaN (no created_at) compares False, so undated blocks fall outside any range.
            mask &= (self.created[:n] >= lo) & (self.created[:n] <= hi)
        if q.prompt_id is not None:
            code = self.prompt_codes.get(q.prompt_id, -2)
            mask &= self.prompts[:n] == code
            if q.prompt_vid is not None:
                mask &= self.prompt_vids[:n] == q.prompt_vid
        if not q.include_not_ready:
            mask &= self.status[:n] == STATUS_CODES["ready"]
        return mask

    def _annotations_mask(self, q: Query) -> np.ndarray:
        n = self.size
        mask = np.ones(n, dtype=bool)
        for key, value in (q.annotations or {}).items():
            mask &= self._annotation_mask(key, value)[:n]
        return mask

    def search(self, q: Query) -> list[Hit]:
        # What the query alone decides (both sides' scores with their context), worked out
        # once: feedback's second pass adds its terms to them.
        sides: dict[str, Any] = {}
        hits = self._ranked(q, sides)
        top = [self.positions[h.block_id] for h in hits]
        extra = feedback.terms_expanded(self.lexical, q.terms, top) if q.terms else None
        return self._ranked(replace(q, extra_terms=extra), sides) if extra else hits

    def _ranked(self, q: Query, sides: dict[str, Any]) -> list[Hit]:
        mask = self._base_mask(q)
        if q.vector is None and q.terms is None:
            if q.annotations:
                mask &= self._annotations_mask(q)
            return self._newest_first(np.nonzero(mask)[0], q.order_by)
        if q.annotations and q.annotation_mode == "pre":
            mask &= self._annotations_mask(q)
        available = int(np.count_nonzero(mask))
        if available == 0:
            return []
        k = min(q.relevant_k, available)
        n, pks = self.size, self.pks[: self.size]
        # The blocks that may lend their text or score to their neighbours: live ones,
        # whatever the filters (a reply is found by its question even in another session's
        # search window), but never an expired or deleted block.
        lenders = self.alive[:n] & (self.expires[:n] > q.now)
        if np.array_equal(lenders, self.alive[:n]):
            previous, following = self._neighbours()
        else:  # expired blocks the sweeper has not removed yet: skipped, as it will
            previous, following = self._links_over(lenders)
        # One matmul over the contiguous matrix, masked afterwards: gathering the candidate
        # rows first would copy the whole matrix on every query (150 MB at 100k blocks).
        cosine = sides.get("dense")
        if cosine is None and q.vector is not None:
            # A block's cosine is its best sentence's, its whole-block vector one of them.
            # In a fused search, what all of the user's blocks share is taken out of the
            # query first (`index.common`).
            vector = q.vector
            if q.terms is not None:
                weight = q.common_weight
                weight = common.weight_default() if weight is None else weight
                vector = self.common.query(q.vector, weight)
            own = self.sentences.best(self.vectors[:n] @ vector, vector)
            cosine = context.dense_with_context(own, previous, self.own_terms[:n])
            sides["dense"], sides["own"] = cosine, own
        dated = self._dated(q.times, q.session_id, lenders) if q.times else None
        if q.terms is None:
            assert cosine is not None
            scores = cosine
        else:
            if "lexical" not in sides:
                own_bm25, total_idf = self.lexical.scores(q.terms, n)
                sides["lexical"] = context.lexical_with_context(own_bm25, previous), total_idf
            bm25, total_idf = sides["lexical"]
            bm25 = feedback.lexical_with_feedback(
                self.lexical, bm25, q.extra_terms, n, alone=q.vector is None
            )
            if dated is not None:  # the block's date as a word it holds
                weight = context.date_term(dated, lenders)
                bm25, total_idf = bm25 + weight * dated, total_idf + weight
            if cosine is None:
                scores = fusion.coverage(bm25, total_idf)
            else:
                if "dense_top" not in sides:
                    sides["dense_top"] = fusion.fused_dense_top(cosine, mask, k, pks)
                dense_top = sides["dense_top"]
                scores = fusion.hybrid_scores(cosine, bm25, total_idf, mask, k, pks, dense_top)
        scores = np.asarray(scores, dtype=np.float64)
        if dated is not None:
            scores = context.date_boosted(scores, dated)
        scores = context.replies_credited(scores, following, self.asks[:n])
        if q.asks_when:
            scores = context.when_answered(scores, self.tells_time[:n] & lenders)
        if q.neighbour_credit > 0:
            scores = context.neighbour_credited(
                scores, previous, following, lenders, q.neighbour_credit
            )
        # Near-copies of a higher hit give way, among the first ranking's top (spread.DEPTH).
        spreads = cosine is not None and (
            q.spread if q.spread is not None else spread.spread_default()
        )
        # A second stage ranks the fused top again by its sentences (`index.rerank`).
        reranks = (
            cosine is not None
            and q.terms is not None
            and (q.rerank if q.rerank is not None else rerank.rerank_default())
        )
        depth = max(k, spread.DEPTH if spreads else 0, rerank.DEPTH if reranks else 0)
        if q.terms is None:
            chosen, rel = fusion.dense_rank(scores, mask, depth, pks)
        else:  # blocks matching nothing (and no neighbour that does) are left out
            chosen, rel = fusion.scored_rank(scores, cosine, mask, depth, pks)
        if reranks:
            chosen, rel = rerank.reranked(chosen, rel, sides["own"])
        if spreads:
            chosen, rel = spread.spread(chosen, rel, self.vectors, k)
        chosen, rel = chosen[:k], rel[:k]
        if q.annotations and q.annotation_mode == "post":
            keep = self._annotations_mask(q)[chosen]
            chosen, rel = chosen[keep], rel[keep]
        return [
            Hit(self.ids[p], float(s))  # type: ignore[arg-type]
            for p, s in zip(chosen, rel, strict=True)
        ]

    def _dated(self, times: TimeWindows, session_id: str | None, live: np.ndarray) -> np.ndarray:
        """The live blocks dated when the query says: in its windows, or of the latest
        session before the searching one ("last time"), as of the latest block in each."""
        n = self.size
        dates = self._dates()
        dated = times.matches(dates) & live
        if times.previous_visit:
            searching = self.session_codes.get(session_id, -1) if session_id is not None else -1
            earlier = live & (self.sessions[:n] != searching)
            if earlier.any():
                latest = self.sessions[:n][earlier][np.argmax(dates[earlier])]
                dated |= earlier & (self.sessions[:n] == latest)
        return dated

    def _dates(self) -> np.ndarray:
        """Each position's date: created_at, else ingested_at (epochs)."""
        n = self.size
        created = self.created[:n]
        return np.where(np.isnan(created), self.ingested[:n], created)

    def _neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """Each position's previous and next live block in its session (-1: none).

        In order of the blocks' dates, then of writing. Cached until the next write that
        adds, moves or removes a block.
        """
        if self._links is None or self._links[0].shape[0] != self.size:
            self._links = self._links_over(self.alive[: self.size])
        return self._links

    def _links_over(self, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = self.size
        return context.session_neighbours(live, self.sessions[:n], self._dates(), self.pks[:n])

    def _newest_first(self, positions: np.ndarray, order_by: str) -> list[Hit]:
        if positions.size == 0:
            return []
        pks = self.pks[positions]
        if order_by == "created_at":
            created = self.created[positions]
            undated = np.isnan(created)
            # lexsort: last key is primary. Dated first, then newest created, then newest pk.
            order = np.lexsort((-pks, -np.nan_to_num(created, nan=0.0), undated))
        else:
            order = np.lexsort((-pks, -self.ingested[positions]))
        return [Hit(self.ids[p], None) for p in positions[order]]  # type: ignore[misc]
