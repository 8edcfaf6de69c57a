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
from array import array
from collections import Counter
from collections.abc import Iterator
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
    """Postings and BM25 statistics of one user's blocks, addressed by slot position."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._postings: dict[str, tuple[array, array]] = {}  # term -> (documents, counts)
        self._df: dict[str, int] = {}
        self._doc_position = array("q")  # document -> slot position, -1 once retired
        self._doc_length = array("f")
        self._doc_terms: list[tuple[str, ...] | None] = []  # a live document's distinct terms
        self._doc_of: dict[int, int] = {}  # slot position -> its live document
        self._live = 0
        self._total_length = 0

    # Terms or documents per part of a transfer, each about a millisecond to unpickle in the
    # process that takes it in (`UserIndex.parts`): a term's postings cost the most.
    PART_SIZE = 5000
    POSTINGS_PART_SIZE = 1000

    def parts(self) -> Iterator[tuple[str, Any]]:
        """This index as (name, value) parts, each small to unpickle; see `from_parts`."""
        yield (
            "lexical",
            {
                "doc_position": self._doc_position,
                "doc_length": self._doc_length,
                "live": self._live,
                "total_length": self._total_length,
            },
        )
        for name, table, size in (
            ("postings", self._postings, self.POSTINGS_PART_SIZE),
            ("df", self._df, self.PART_SIZE),
        ):
            items = list(table.items())
            for start in range(0, len(items), size):
                yield name, dict(items[start : start + size])
        for start in range(0, len(self._doc_terms), self.PART_SIZE):
            yield "doc_terms", self._doc_terms[start : start + self.PART_SIZE]

    def take_part(self, name: str, value: Any) -> None:
        """Take one part of `parts`, on an empty index, in their order."""
        if name == "lexical":
            self._doc_position = value["doc_position"]
            self._doc_length = value["doc_length"]
            self._live = value["live"]
            self._total_length = value["total_length"]
        elif name == "postings":
            self._postings.update(value)
        elif name == "df":
            self._df.update(value)
        elif name == "doc_terms":
            # Which document each of these holds follows from the documents' positions.
            first = len(self._doc_terms)
            self._doc_terms.extend(value)
            for doc in range(first, len(self._doc_terms)):
                if (position := self._doc_position[doc]) >= 0:
                    self._doc_of[position] = doc
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
            postings[0].append(doc)
            postings[1].append(count)
            self._df[term] = self._df.get(term, 0) + 1

    def drop(self, position: int) -> None:
        """Forget the block at `position`."""
        doc = self._doc_of.pop(position, None)
        if doc is None:
            return
        terms = self._doc_terms[doc]
        assert terms is not None
        for term in terms:
            left = self._df[term] - 1
            if left:
                self._df[term] = left
            else:
                del self._df[term]
                del self._postings[term]
        self._live -= 1
        self._total_length -= int(self._doc_length[doc])
        self._doc_position[doc] = -1
        self._doc_terms[doc] = None
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
        live = [doc for doc, terms in enumerate(self._doc_terms) if terms is not None]
        renumber = np.full(len(self._doc_position), -1, dtype=np.int64)
        renumber[live] = np.arange(len(live))
        for term, (docs_raw, counts_raw) in self._postings.items():
            docs = renumber[np.frombuffer(docs_raw, dtype=np.int64)]
            keep = docs >= 0
            kept_docs, kept_counts = array("q"), array("f")
            kept_docs.frombytes(docs[keep].tobytes())
            kept_counts.frombytes(np.frombuffer(counts_raw, dtype=np.float32)[keep].tobytes())
            self._postings[term] = (kept_docs, kept_counts)
        self._doc_position = array("q", (self._doc_position[d] for d in live))
        self._doc_length = array("f", (self._doc_length[d] for d in live))
        self._doc_terms = [self._doc_terms[d] for d in live]
        self._doc_of = {int(p): doc for doc, p in enumerate(self._doc_position)}

    def scores(self, terms: list[str], size: int) -> tuple[np.ndarray, float]:
        """BM25 of every slot position for the query terms, and the query's total idf.

        A position with no query term scores 0. The total idf (the sum over the query's
        terms, including those no block holds) is what a block holding every term once, at
        average length, would score: dividing by it says how much of the query a block
        matches.
        """
        out = np.zeros(size, dtype=np.float32)
        if not self._live:
            return out, 0.0
        n = self._live
        average = self._total_length / n
        by_doc = np.zeros(len(self._doc_position), dtype=np.float32)
        lengths = np.frombuffer(self._doc_length, dtype=np.float32)
        total_idf = 0.0
        for term in terms:
            df = self._df.get(term, 0)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            total_idf += idf
            if not df:
                continue
            docs_raw, counts_raw = self._postings[term]
            docs = np.frombuffer(docs_raw, dtype=np.int64)
            counts = np.frombuffer(counts_raw, dtype=np.float32)
            norm = K1 * (1.0 - B + B * lengths[docs] / average)
            # A term's postings name each document once, so plain indexing adds correctly.
            by_doc[docs] += idf * counts * (K1 + 1.0) / (counts + norm)
        positions = np.frombuffer(self._doc_position, dtype=np.int64)
        hit = (positions >= 0) & (by_doc > 0)
        out[positions[hit]] = by_doc[hit]
        return out, total_idf
