"""BM25 over one user's blocks, kept beside their vectors in the same slot of the index.

Each block's searchable text (the fact, or the turn's two messages, then its summary and
contexts once extracted) is turned into terms (`memoryserver.terms`) and kept as postings:
per term, the documents holding it and how often. A document is one version of a block's
text: new text retires the block's old document and adds another, and the statistics BM25
needs (live documents, their lengths, each term's document frequency) count live documents
only, so they are always those of the user's current memory. Retired documents are dropped
from the postings once they outnumber the live ones.

The statistics are the user's own: one shopper's memory never changes how another's ranks.
"""

from __future__ import annotations

import math
import time
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from memoryserver.terms import text_terms

# Okapi BM25's usual constants (Lucene's and SQLite FTS5's defaults).
K1 = 1.2
B = 0.75


def search_text(text: str, summary: str | None, contexts: Any) -> str:
    """What lexical search matches: the block's text, then its summary and contexts."""
    parts = [text, summary or "", *(c for c in contexts or [] if isinstance(c, str))]
    return "\n".join(p for p in parts if p)


class LexicalIndex:
    """Postings and BM25 statistics of one user's blocks, addressed by slot position.

    An index loaded whole (`from_texts`) or taken in from another process (`parts` /
    `take_part`) starts from `_Packed` postings: a few flat arrays, cheap to build and to
    hand over, in which each term names its row. A term gets growable arrays of its own once
    a later document holds it (`set`), and every term does when retired documents are
    dropped (`_rebuild`).
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        # term -> (documents, counts), or the term's row in the packed postings
        self._postings: dict[str, tuple[array, array] | int] = {}
        self._packed = _Packed.empty()
        self._df: dict[str, int] = {}
        self._doc_position = array("q")  # document -> slot position, -1 once retired
        self._doc_length = array("f")
        # The distinct terms of each live document past the packed ones (None once retired).
        self._doc_terms: list[tuple[str, ...] | None] = []
        self._doc_of: dict[int, int] = {}  # slot position -> its live document
        self._live = 0
        self._total_length = 0

    @classmethod
    def from_texts(cls, texts: Iterable[str], *, pause_every: int = 0) -> LexicalIndex:
        """The index `set(position, text)` for each text in turn would build, packed.

        In one pass and then whole arrays, as a user's index is loaded: at 100k blocks the
        per-term appends of `set` cost seconds. With `pause_every`, the GIL is handed to
        waiting requests after that many texts.
        """
        row_of: dict[str, int] = {}
        terms: list[str] = []
        rows, counts = array("i"), array("f")  # each document's distinct terms and counts
        doc_offsets, positions, lengths = array("q", [0]), array("q"), array("f")
        total_length = 0
        for position, text in enumerate(texts):
            held = Counter(text_terms(text))
            if held:
                for term, count in held.items():
                    row = row_of.get(term)
                    if row is None:
                        row = row_of[term] = len(terms)
                        terms.append(term)
                    rows.append(row)
                    counts.append(count)
                doc_offsets.append(len(rows))
                positions.append(position)
                length = sum(held.values())
                lengths.append(length)
                total_length += length
            if pause_every and position % pause_every == pause_every - 1:
                time.sleep(0)
        term_rows = np.frombuffer(rows, dtype=np.int32)
        doc_starts = np.frombuffer(doc_offsets, dtype=np.int64)
        # Each term's postings, in document order as `set` appends them: a stable sort of
        # the (document, term) entries by term.
        by_term = np.argsort(term_rows, kind="stable")
        documents = np.repeat(np.arange(len(positions), dtype=np.int64), np.diff(doc_starts))
        df = np.bincount(term_rows, minlength=len(terms)).astype(np.int64)
        index = cls()
        index._packed = _Packed(
            terms=terms,
            df=df,
            offsets=_offsets(df),  # a term's postings are as many as the documents holding it
            docs=documents[by_term],
            counts=np.frombuffer(counts, dtype=np.float32)[by_term],
            doc_offsets=doc_starts,
            doc_term_rows=term_rows,
        )
        index._postings = dict(zip(terms, range(len(terms)), strict=True))
        index._df = dict(zip(terms, df.tolist(), strict=True))
        index._doc_position, index._doc_length = positions, lengths
        index._doc_of = dict(zip(positions, range(len(positions)), strict=True))
        index._live, index._total_length = len(positions), total_length
        return index

    # Terms or documents per part of a transfer: each part about a millisecond to take in.
    PART_SIZE = 2000

    def parts(self) -> Iterator[tuple[str, Any]]:
        """This index as (name, value) parts, each quick to take in; see `take_part`."""
        packed = self._packed if self._untouched_since_packed() else self._packing()
        yield (
            "lexical",
            {
                "live": self._live,
                "total_length": self._total_length,
                # The terms follow in parts of their own.
                "packed": replace(packed, terms=[]),
            },
        )
        for start in range(0, len(packed.terms), self.PART_SIZE):
            yield "terms", packed.terms[start : start + self.PART_SIZE]
        for start in range(0, len(self._doc_position), self.PART_SIZE):
            stop = start + self.PART_SIZE
            yield "documents", (self._doc_position[start:stop], self._doc_length[start:stop])

    def _untouched_since_packed(self) -> bool:
        # Any new document lands past the packed ones, any drop lowers the live count.
        return not self._doc_terms and self._live == self._packed.documents

    def _packing(self) -> _Packed:
        """This index's postings and documents' terms, packed."""
        terms = list(self._postings)
        row_of = {term: row for row, term in enumerate(terms)}
        postings = [self._postings_of(term) for term in terms]
        doc_rows = [
            [row_of[term] for term in self._terms_of(doc)] if position >= 0 else []
            for doc, position in enumerate(self._doc_position)
        ]
        return _Packed(
            terms=terms,
            df=np.array([self._df[term] for term in terms], dtype=np.int64),
            offsets=_offsets(np.fromiter((len(docs) for docs, _ in postings), dtype=np.int64)),
            docs=_joined([docs for docs, _ in postings], np.int64),
            counts=_joined([counts for _, counts in postings], np.float32),
            doc_offsets=_offsets(np.fromiter((len(rows) for rows in doc_rows), dtype=np.int64)),
            doc_term_rows=np.fromiter((row for rows in doc_rows for row in rows), dtype=np.int32),
        )

    def take_part(self, name: str, value: Any) -> None:
        """Take one part of `parts`, on an empty index, in their order."""
        if name == "lexical":
            self._live = value["live"]
            self._total_length = value["total_length"]
            self._packed = value["packed"]
        elif name == "terms":
            first = len(self._packed.terms)
            self._packed.terms.extend(value)
            rows = range(first, first + len(value))
            self._postings.update(zip(value, rows, strict=True))
            df = self._packed.df[first : first + len(value)].tolist()
            self._df.update(zip(value, df, strict=True))
        elif name == "documents":
            positions, lengths = value
            first = len(self._doc_position)
            self._doc_position.extend(positions)
            self._doc_length.extend(lengths)
            # Which document each live position holds follows from the documents' positions.
            held = np.frombuffer(positions, dtype=np.int64)
            live = np.flatnonzero(held >= 0)
            self._doc_of.update(zip(held[live].tolist(), (live + first).tolist(), strict=True))
        else:
            raise ValueError(f"not a part of a lexical index: {name!r}")

    def set(self, position: int, text: str) -> None:
        """Index the text of the block at `position`, replacing what it had."""
        self.drop(position)
        counts = Counter(text_terms(text))
        if not counts:
            return
        doc = len(self._doc_position)
        length = sum(counts.values())
        self._doc_position.append(position)
        self._doc_length.append(length)
        self._doc_terms.append(tuple(counts))
        self._doc_of[position] = doc
        self._live += 1
        self._total_length += length
        for term, count in counts.items():
            postings = self._postings.get(term)
            if postings is None:
                postings = self._postings[term] = (array("q"), array("f"))
            elif isinstance(postings, int):
                docs, held = self._packed.postings(postings)
                postings = self._postings[term] = (_array("q", docs), _array("f", held))
            postings[0].append(doc)
            postings[1].append(count)
            self._df[term] = self._df.get(term, 0) + 1

    def drop(self, position: int) -> None:
        """Forget the block at `position`."""
        doc = self._doc_of.pop(position, None)
        if doc is None:
            return
        for term in self._terms_of(doc):
            left = self._df[term] - 1
            if left:
                self._df[term] = left
            else:
                del self._df[term]
                del self._postings[term]
        self._live -= 1
        self._total_length -= int(self._doc_length[doc])
        self._doc_position[doc] = -1
        if doc >= self._packed.documents:
            self._doc_terms[doc - self._packed.documents] = None
        retired = len(self._doc_position) - self._live
        if retired > 1024 and retired > self._live:
            self._rebuild()

    def move(self, moved: dict[int, int]) -> None:
        """Follow the slot's compaction: `moved` maps old positions to new ones."""
        for doc, position in enumerate(self._doc_position):
            if position >= 0:
                self._doc_position[doc] = moved[position]
        self._doc_of = {moved[p]: doc for p, doc in self._doc_of.items()}

    def _rebuild(self) -> None:
        """Drop retired documents: renumber the live ones and keep only their postings."""
        live = [doc for doc, position in enumerate(self._doc_position) if position >= 0]
        renumber = np.full(len(self._doc_position), -1, dtype=np.int64)
        renumber[live] = np.arange(len(live))
        for term in self._postings:
            docs, counts = self._postings_of(term)
            renumbered = renumber[docs]
            keep = renumbered >= 0
            self._postings[term] = (_array("q", renumbered[keep]), _array("f", counts[keep]))
        self._doc_terms = [self._terms_of(d) for d in live]
        self._packed = _Packed.empty()  # every term now has arrays of its own
        self._doc_position = array("q", (self._doc_position[d] for d in live))
        self._doc_length = array("f", (self._doc_length[d] for d in live))
        self._doc_of = {int(p): doc for doc, p in enumerate(self._doc_position)}

    def scores(
        self, terms: list[str], size: int, extra: dict[str, float] | None = None
    ) -> tuple[np.ndarray, float]:
        """BM25 of every slot position for the query terms, and the query's total idf.

        A position with no query term scores 0. The total idf (the sum over the query's
        terms, including those no block holds) is what a block holding every term once, at
        average length, would score: dividing by it says how much of the query a block
        matches. `extra` terms (query feedback's) count at their weight, in the scores only.
        """
        out = np.zeros(size, dtype=np.float32)
        if not self._live:
            return out, 0.0
        n = self._live
        average = self._total_length / n
        by_doc = np.zeros(len(self._doc_position), dtype=np.float32)
        lengths = np.frombuffer(self._doc_length, dtype=np.float32)
        total_idf = 0.0
        weighted = [(term, 1.0, True) for term in terms]
        weighted += [(term, weight, False) for term, weight in (extra or {}).items()]
        for term, weight, asked in weighted:
            df = self._df.get(term, 0)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            if asked:
                total_idf += idf
            if not df:
                continue
            idf *= weight
            docs, counts = self._postings_of(term)
            norm = K1 * (1.0 - B + B * lengths[docs] / average)
            # A term's postings name each document once, so plain indexing adds correctly.
            by_doc[docs] += idf * counts * (K1 + 1.0) / (counts + norm)
        positions = np.frombuffer(self._doc_position, dtype=np.int64)
        hit = (positions >= 0) & (by_doc > 0)
        out[positions[hit]] = by_doc[hit]
        return out, total_idf

    def idf(self, term: str) -> float:
        """The term's BM25 idf among the live documents."""
        df = self._df.get(term, 0)
        return math.log(1.0 + (self._live - df + 0.5) / (df + 0.5))

    def terms_at(self, position: int) -> tuple[str, ...]:
        """The distinct terms of the block at `position` (none if it has no text)."""
        doc = self._doc_of.get(position)
        return self._terms_of(doc) if doc is not None else ()

    def length_at(self, position: int) -> int:
        """The length in terms of the block at `position` (0 if it has no text)."""
        doc = self._doc_of.get(position)
        return int(self._doc_length[doc]) if doc is not None else 0

    def lengths(self, size: int) -> np.ndarray:
        """Each slot position's length in terms (0: no live text)."""
        out = np.zeros(size, dtype=np.float32)
        positions = np.frombuffer(self._doc_position, dtype=np.int64)
        if positions.size:
            lengths = np.frombuffer(self._doc_length, dtype=np.float32)
            live = (positions >= 0) & (positions < size)
            out[positions[live]] = lengths[live]
        return out

    def _postings_of(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """A term's documents and counts (views, not copies)."""
        postings = self._postings[term]
        if isinstance(postings, int):
            return self._packed.postings(postings)
        docs, counts = postings
        return np.frombuffer(docs, dtype=np.int64), np.frombuffer(counts, dtype=np.float32)

    def _terms_of(self, doc: int) -> tuple[str, ...]:
        """A live document's distinct terms."""
        packed = self._packed
        if doc < packed.documents:
            rows = packed.doc_term_rows[packed.doc_offsets[doc] : packed.doc_offsets[doc + 1]]
            return tuple(packed.terms[row] for row in rows.tolist())
        terms = self._doc_terms[doc - packed.documents]
        assert terms is not None
        return terms


@dataclass
class _Packed:
    """Postings in flat arrays: the term in row r (of `terms`) has the documents
    docs[offsets[r]:offsets[r + 1]], held counts[...] times each, and document frequency
    df[r] when packed; document d's distinct terms are the rows
    doc_term_rows[doc_offsets[d]:doc_offsets[d + 1]] (none for a retired document)."""

    terms: list[str]
    df: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    counts: np.ndarray
    doc_offsets: np.ndarray
    doc_term_rows: np.ndarray

    @classmethod
    def empty(cls) -> _Packed:
        none = np.zeros(0, dtype=np.int64)
        first = np.zeros(1, dtype=np.int64)
        return cls([], none, first, none, np.zeros(0, np.float32), first, none.astype(np.int32))

    @property
    def documents(self) -> int:
        return len(self.doc_offsets) - 1

    def postings(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        start, stop = self.offsets[row], self.offsets[row + 1]
        return self.docs[start:stop], self.counts[start:stop]


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Where each of a run of slices of these lengths starts, and where the last one stops."""
    return np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(lengths, dtype=np.int64)))


def _array(typecode: str, values: np.ndarray) -> array:
    """A growable copy of a numpy array (from its bytes: item by item would be slow)."""
    return array(typecode, values.tobytes())


def _joined(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)
