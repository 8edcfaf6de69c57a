"""How a search ranks its filtered candidates: dense, lexical, or both fused.

Each function takes scores over the slot's positions and the candidate mask (the filters,
applied once, for every mode alike) and returns the chosen positions, best first, with
their `rel_score` in [0, 1]:

- dense: cosine similarity, floored at 0.
- lexical: BM25 (`index.lexical`); rel_score is the share of the query's total idf the block
  matches (a block holding every query term once, at average length, scores about 1),
  capped at 1. Blocks holding no query term are not returned.
- hybrid: reciprocal rank fusion (RRF) of the two rankings, each cut to its top
  `FUSION_DEPTH`; rel_score is the fused score over the best possible one (first in both
  rankings = 1).

Why RRF and these constants (docs/benchmarks.md has the figures): fusing ranks rather than
scores needs no calibration between cosine (whose scale depends on the embedder) and BM25
(whose scale depends on the query), and `RRF_K = 60` is the constant of the original RRF
paper, which rank fusion is known to be robust around. One change to plain RRF: a
lexical hit's share is weighted by how much of the query it matches (its coverage,
full weight from `FULL_COVERAGE` up). A query phrased in other words than the memory
that answers it matches, lexically, only on incidental words ("happy" in "Happy to
help!"): in plain RRF those chance hits take the top lexical ranks and push the dense
ranking's good answers out; weighted, they hardly count, while a hit on the query's rare
words (a brand, a size, a name, a date) counts in full.
"""

from __future__ import annotations

import numpy as np

RRF_K = 60
FUSION_DEPTH = 100
FULL_COVERAGE = 0.5


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
    return chosen, _coverage(bm25[chosen], total_idf)


def hybrid_rank(
    cosine: np.ndarray,
    bm25: np.ndarray,
    total_idf: float,
    mask: np.ndarray,
    k: int,
    pks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    depth = max(FUSION_DEPTH, k)
    dense = _top(cosine, mask, depth, pks)
    lexical = _top(bm25, mask & (bm25 > 0), depth, pks)
    fused = np.zeros(cosine.shape[0], dtype=np.float64)
    fused[dense] += 1.0 / (RRF_K + np.arange(1, dense.size + 1))
    weight = np.minimum(1.0, _coverage(bm25[lexical], total_idf) / FULL_COVERAGE)
    fused[lexical] += weight / (RRF_K + np.arange(1, lexical.size + 1))
    candidates = np.union1d(dense, lexical)
    # Best fused first; equal fused scores go to the closer vector, then the newest block.
    order = np.lexsort((-pks[candidates], -cosine[candidates], -fused[candidates]))
    chosen = candidates[order][:k]
    best = 2.0 / (RRF_K + 1)
    return chosen, np.clip(fused[chosen] / best, 0.0, 1.0)


def _coverage(bm25: np.ndarray, total_idf: float) -> np.ndarray:
    if total_idf <= 0:
        return np.zeros_like(bm25)
    return np.clip(bm25 / total_idf, 0.0, 1.0)
