"""How a search ranks its filtered candidates: dense, lexical, or both fused.

Each function takes scores over the slot's positions and the candidate mask (the filters,
applied once, for every mode alike) and returns the chosen positions, best first, with
their `rel_score` in [0, 1]:

- dense: cosine similarity, floored at 0.
- lexical: BM25 (`index.lexical`); rel_score is the block's coverage, the share of the
  query's total idf it matches (a block holding every query term once, at average length,
  scores about 1), capped at 1. Blocks holding no query term are not returned.
- hybrid: reciprocal rank fusion (RRF) of the two rankings, each cut to its top
  `FUSION_DEPTH`, a lexical hit's share weighted by its coverage; rel_score is the fused
  score over the best possible one (first in both rankings, matching the whole query = 1).

Why this fusion (docs/benchmarks-history.md, "Before context, dates and sentence vectors",
has the figures, in both regimes: a strong
embedder, where dense far outranks lexical, and a weak one, where lexical far outranks dense,
as on long conversations):

- Ranks, not scores: cosine's scale depends on the embedder and BM25's on the query, and a
  query-by-query normalisation of cosine (min-max, z-score) was measured to help with one
  embedder and hurt with the other. Coverage is the one score that means the same thing in
  every search, so it is what weights the lexical side.
- `LEXICAL_WEIGHT = 3`, linear in coverage: a block that matches the whole query's idf counts
  three times a dense rank, so it leads even when the embedding ranks it nowhere (a name, a
  place, a size the embedder does not know); one that matches a third of it counts as much
  as a dense rank; a chance match on one incidental word ("happy" in "Happy to help!", a
  coverage of 0.1-0.2) counts 0.3 to 0.6 of one, so it does not push the dense ranking's
  answers out. A coverage threshold with full weight from 0.5 up (the fusion before this)
  left a whole-query match level with the dense top and lost 7.9 points of recall@5 to
  lexical alone where the embedder was weak.
- `RRF_K = 20`, not the 60 of the original RRF paper, which fused lists of a thousand
  documents: a user's memory is a few hundred blocks, most of them in both top-100 lists,
  and with k = 60 rank 1 and rank 40 differ by a factor of 1.6 only, so a block present in
  both lists at middling ranks could outrank the first of either.
- The two constants trade the regimes against each other (a larger weight or k favours the
  lexical one): with k = 20, a weight of 2 loses recall to lexical alone where the embedder
  is weak, 4 loses recall@10 to dense alone where it is strong; with a weight of 3, k from
  20 to 30 is within one question of the better ranking on conversations with a weak
  embedder and above it everywhere else. 3 and 20 are the middle of that range.
"""

from __future__ import annotations

import numpy as np

RRF_K = 20
FUSION_DEPTH = 100
LEXICAL_WEIGHT = 3.0


def _top(scores: np.ndarray, eligible: np.ndarray, count: int, pks: np.ndarray) -> np.ndarray:
    """The `count` best eligible positions, best first; ties go to the newest block."""
    positions = np.nonzero(eligible)[0]
    if positions.size > count:
        part = np.argpartition(-scores[positions], count - 1)[:count]
        positions = positions[part]
    order = np.lexsort((-pks[positions], -scores[positions]))
    return positions[order]


def dense_rank(
    cosine: np.ndarray, mask: np.ndarray, k: int, pks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    chosen = _top(cosine, mask, k, pks)
    return chosen, np.clip(cosine[chosen], 0.0, 1.0)


def lexical_rank(
    bm25: np.ndarray, total_idf: float, mask: np.ndarray, k: int, pks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    chosen = _top(bm25, mask & (bm25 > 0), k, pks)
    return chosen, coverage(bm25[chosen], total_idf)


def fused_dense_top(cosine: np.ndarray, mask: np.ndarray, k: int, pks: np.ndarray) -> np.ndarray:
    """The dense side's share of a fusion: its best positions, to the fusion's depth."""
    return _top(cosine, mask, max(FUSION_DEPTH, k), pks)


def hybrid_scores(
    cosine: np.ndarray,
    bm25: np.ndarray,
    total_idf: float,
    mask: np.ndarray,
    k: int,
    pks: np.ndarray,
    dense: np.ndarray | None = None,
) -> np.ndarray:
    """The fused score of every position, over the best possible one (0 = in neither top).

    `dense` is `fused_dense_top` of the same cosine, mask and k, where a search that ranks
    twice (query feedback changes only the lexical side) has it already."""
    depth = max(FUSION_DEPTH, k)
    fused = np.zeros(cosine.shape[0], dtype=np.float64)
    if dense is None:
        dense = fused_dense_top(cosine, mask, k, pks)
    fused[dense] += 1.0 / (RRF_K + np.arange(1, dense.size + 1))
    lexical = _top(bm25, mask & (bm25 > 0), depth, pks)
    weight = LEXICAL_WEIGHT * coverage(bm25[lexical], total_idf)
    fused[lexical] += weight / (RRF_K + np.arange(1, lexical.size + 1))
    return fused / ((1.0 + LEXICAL_WEIGHT) / (RRF_K + 1))


def hybrid_rank(
    cosine: np.ndarray,
    bm25: np.ndarray,
    total_idf: float,
    mask: np.ndarray,
    k: int,
    pks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The k best positions by the fused score, with their scores in [0, 1]."""
    return scored_rank(hybrid_scores(cosine, bm25, total_idf, mask, k, pks), cosine, mask, k, pks)


def scored_rank(
    scores: np.ndarray, cosine: np.ndarray | None, mask: np.ndarray, k: int, pks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The k best positions by score (above 0) among the candidates, their scores in [0, 1].

    Equal scores go to the closer vector, then the newest block.
    """
    candidates = np.nonzero(mask & (scores > 0))[0]
    if candidates.size > max(k, FUSION_DEPTH):
        candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
    ties = -cosine[candidates] if cosine is not None else np.zeros(candidates.size)
    order = np.lexsort((-pks[candidates], ties, -scores[candidates]))
    chosen = candidates[order][:k]
    return chosen, np.clip(scores[chosen], 0.0, 1.0)


def coverage(bm25: np.ndarray, total_idf: float) -> np.ndarray:
    """The share of the query's idf weight each block matches, in [0, 1]."""
    if total_idf <= 0:
        return np.zeros_like(bm25, dtype=np.float64)
    return np.clip(bm25 / total_idf, 0.0, 1.0)
