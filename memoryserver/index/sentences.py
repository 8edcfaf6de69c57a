"""A block's sentences, each with a vector of its own, so a long block is found by one of them.

A long block that mixes topics ("Sure, the Storm Shell comes in M. We also have the fleece
in green. By the way, delivery to Vienna takes three days.") has one vector for all of
them, closer to none: a question about any one of its sentences ranks it below a short
block about that alone. So a block of three sentences or more also gets a vector per
sentence, and its cosine to a query is the best of its whole-block vector's and its
sentences'. A shorter block keeps only its own vector.

The vectors are made in the same batch as the block's own (one encoder call per write) and
stored beside it (`MemoryBlock.sentence_embeddings`, the rows of a float32 matrix), so
loading a user's index reads them rather than embedding again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

# Sentences end at . ! ? (or …) before a space, and at a line break (a turn's two messages).
_BOUNDARY = re.compile(r"(?<=[.!?\u2026])\s+|\n+")
# A piece shorter than this joins the next ("Oh wow! The kitten came home"): a vector of
# "Oh wow!" alone would be close to every exclamation.
MIN_WORDS = 4
# A block gets sentence vectors from this many sentences up: a question and its answer in
# one turn block (two) is about one thing, and a vector for each of every such block's
# sentences would more than double a user's index (measured on the shoppers' set: 2.6x).
MIN_SENTENCES = 3
# At most this many sentence vectors a block; the rest of a longer one shares the last.
MAX_SENTENCES = 4


def sentences_of(text: str) -> list[str]:
    """The sentences of `text` that get vectors of their own: none below MIN_SENTENCES."""
    merged: list[str] = []
    carry = ""
    for piece in _BOUNDARY.split(text):
        piece = f"{carry} {piece.strip()}".strip() if carry else piece.strip()
        if not piece:
            continue
        if len(piece.split()) < MIN_WORDS:
            carry = piece
            continue
        merged.append(piece)
        carry = ""
    if carry:
        if merged:
            merged[-1] = f"{merged[-1]} {carry}"
        else:
            merged.append(carry)
    if len(merged) < MIN_SENTENCES:
        return []
    if len(merged) > MAX_SENTENCES:
        merged = [*merged[: MAX_SENTENCES - 1], " ".join(merged[MAX_SENTENCES - 1 :])]
    return merged


def blocks_embedded(embedder: Any, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Each text's vector and its sentences' (None for one sentence), in one encoder call.

    A text with sentence vectors gets, as its own vector, their mean weighted by each
    sentence's words, not a pass of its own: the sentences hold every word of it, and the
    whole text in one pass (up to the encoder's 256 tokens, the longest pass of a write) was
    half of what a turn write embedded. The encoder pools a text as the mean of its tokens,
    so the weighted mean of its parts' is that pooling without the attention across
    sentence boundaries; recall with it is in docs/benchmarks.md ("Retrieval").
    """
    if not texts:
        return []
    split = [sentences_of(text) for text in texts]
    whole = [text for text, sentences in zip(texts, split, strict=True) if not sentences]
    flat = [*whole, *(s for sentences in split for s in sentences)]
    vectors = embedder.embed(flat)
    out: list[tuple[np.ndarray, np.ndarray | None]] = []
    next_whole, next_row = 0, len(whole)
    for sentences in split:
        if not sentences:
            out.append((vectors[next_whole], None))
            next_whole += 1
            continue
        rows = vectors[next_row : next_row + len(sentences)]
        next_row += len(sentences)
        out.append((_words_weighted_mean(rows, sentences), rows))
    return out


def _words_weighted_mean(rows: np.ndarray, sentences: list[str]) -> np.ndarray:
    weights = np.array([len(s.split()) for s in sentences], dtype=rows.dtype)
    mean = weights @ rows
    norm = math.sqrt(float(mean @ mean))
    return (mean / norm).astype(rows.dtype) if norm > 0 else rows[0].copy()


class SentenceVectors:
    """The sentence vectors of one user's blocks, each block's rows side by side.

    Addressed by the block's slot position, like the slot's other columns. A block's new
    sentences retire its old rows; retired rows are dropped once they outnumber live ones.
    """

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.vectors = np.zeros((0, dimensions), dtype=np.float32)
        self.owners = np.zeros(0, dtype=np.int64)  # slot position of each row, -1 retired
        self.size = 0
        self.rows_of: dict[int, tuple[int, int]] = {}
        self.retired = 0

    @classmethod
    def from_blobs(cls, dimensions: int, blobs: Iterable[bytes | None]) -> SentenceVectors:
        """Rows for the blocks at positions 0, 1, ... from their stored matrices (or None)."""
        index = cls(dimensions)
        width = dimensions * 4
        kept, owners = [], []
        for position, blob in enumerate(blobs):
            if blob and len(blob) % width == 0:
                kept.append(bytes(blob))
                owners.append((position, len(blob) // width))
        if not kept:
            return index
        index.vectors = np.frombuffer(b"".join(kept), dtype=np.float32).reshape(-1, dimensions)
        counts = np.array([count for _, count in owners], dtype=np.int64)
        index.owners = np.repeat(np.array([p for p, _ in owners], dtype=np.int64), counts)
        index.size = len(index.owners)
        stops = np.cumsum(counts)
        index.rows_of = {
            p: (int(stop - count), int(stop))
            for (p, count), stop in zip(owners, stops, strict=True)
        }
        return index

    def set(self, position: int, rows: np.ndarray | None) -> None:
        self.drop(position)
        if rows is None or len(rows) == 0:
            return
        count = len(rows)
        if self.size + count > len(self.vectors):
            # Grown by half, not doubled: sentence rows are most of a long block's memory.
            capacity = max(64, (self.size + count) * 3 // 2)
            grown = np.zeros((capacity, self.dimensions), dtype=np.float32)
            grown[: self.size] = self.vectors[: self.size]
            owners = np.full(capacity, -1, dtype=np.int64)
            owners[: self.size] = self.owners[: self.size]
            self.vectors, self.owners = grown, owners
        self.vectors[self.size : self.size + count] = rows
        self.owners[self.size : self.size + count] = position
        self.rows_of[position] = (self.size, self.size + count)
        self.size += count

    def drop(self, position: int) -> None:
        span = self.rows_of.pop(position, None)
        if span is None:
            return
        start, stop = span
        self.owners[start:stop] = -1
        self.retired += stop - start
        if self.retired > 1024 and self.retired > self.size - self.retired:
            self._rebuild()

    def move(self, moved: dict[int, int]) -> None:
        """Follow the slot's compaction: `moved` maps old positions to new ones."""
        self._rebuild()
        if self.size:
            self.owners[: self.size] = [moved[int(p)] for p in self.owners[: self.size]]
        self.rows_of = {moved[p]: span for p, span in self.rows_of.items()}

    def _rebuild(self) -> None:
        live = np.nonzero(self.owners[: self.size] >= 0)[0]
        self.vectors = self.vectors[live].copy()
        self.owners = self.owners[live].copy()
        self.size, self.retired = len(live), 0
        self.rows_of = {}
        for row, position in enumerate(self.owners.tolist()):
            start, _ = self.rows_of.get(position, (row, row))
            self.rows_of[position] = (start, row + 1)

    def best(self, cosine: np.ndarray, query: np.ndarray) -> np.ndarray:
        """`cosine` (per slot position) raised to each block's best sentence's cosine."""
        if self.size == self.retired:
            return cosine
        owners = self.owners[: self.size]
        live = owners >= 0
        scores = self.vectors[: self.size] @ query
        out = cosine.copy()
        np.maximum.at(out, owners[live], scores[live])
        return out

    def part(self) -> dict[str, Any]:
        live = np.nonzero(self.owners[: self.size] >= 0)[0]
        return {"vectors": self.vectors[live], "owners": self.owners[live]}

    @classmethod
    def from_part(cls, dimensions: int, value: dict[str, Any]) -> SentenceVectors:
        index = cls(dimensions)
        index.vectors, index.owners = value["vectors"], value["owners"]
        index.size = len(index.owners)
        index._rebuild()
        return index

    @property
    def nbytes(self) -> int:
        return self.vectors.nbytes + self.owners.nbytes
