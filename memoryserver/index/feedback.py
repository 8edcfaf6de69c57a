"""Query feedback: the search ranks a second time with the words its first top hits hold.

Pseudo-relevance feedback, training-free and worked out at search time: the terms of the
first ranking's top `DEPTH` hits (after the filters, so it only learns from blocks the
search may return) that are not in the query, the `TERMS` rarest (by idf, summed over the
hits holding them), join the lexical side at up to `WEIGHT` of a query term's weight (the
rarest at `WEIGHT`, the others in proportion), and the search ranks again. They do not
count in the query's total idf, so a block's coverage still says how much of what was
asked it matches, and `rel_score` stays in [0, 1]. A block matches them by its own words
only: no block gains through the feedback terms of the block before it, and the lexical
ranking alone still returns only blocks the query's words match.

What it does in practice: the rarest words of the top hits are mostly each held by one of
them, so among blocks the question's words match about as well, the one whose own words
say the most about the topic (the turn that gave the fact: "I got promoted to head nurse
at the hospital last Friday!") moves above the shorter later mentions that repeat the
question's words ("Head nurse suits you."). It reorders the top of the ranking far more
than it brings new blocks in.

The figures of feedback alone (docs/benchmarks-history.md, "Query feedback (alone, when it
shipped)"; recall@1 / @5 / @10 with
MiniLM, hybrid):
conversations 0.321 / 0.767 / 0.854 -> 0.400 / 0.771 / 0.854, dialogues 0.128 / 0.364 /
0.464 -> 0.143 / 0.362 / 0.462, shoppers 0.434 / 0.776 / 0.865 -> 0.438 / 0.777 / 0.865;
with hashing, within 1 point at 5 and 10 on every set. Weights of 0.1 and up lift recall@1
on the conversations further (to 0.47-0.56) but cost the shoppers 1 to 3.5 points at rank
1 and up to 1.4 at 5; five terms at this weight pass too (conversations 0.429 at rank 1)
for 0.4 points at 5 on the dialogues. Moving the query vector toward the top hits'
vectors (Rocchio, 2-5 hits, beta 0.1-1.0) lost recall on every set and is not done: the
first hits are too often not the answer (recall@1 0.13-0.43) to steer the embedding by.
Lending the feedback terms through the context too lifted recall@10 on the dialogues by a
point, but the block after each top hit gained from it, which the context must not do.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from memoryserver.index.lexical import LexicalIndex

DEPTH = 3  # top hits the feedback terms come from; 0 turns feedback off
TERMS = 3
WEIGHT = 0.05


def terms_expanded(lexical: LexicalIndex, terms: list[str], ranked: list[int]) -> dict[str, float]:
    """The feedback terms of a first ranking (positions, best first) and their weights (a
    query term's is 1); none to rank again with."""
    asked = set(terms)
    weight: dict[str, float] = defaultdict(float)
    for pos in ranked[:DEPTH]:
        for term in lexical.terms_at(pos):
            if term not in asked:
                weight[term] += lexical.idf(term)
    chosen = sorted(weight, key=lambda t: (-weight[t], t))[:TERMS]
    if not chosen:
        return {}
    best = weight[chosen[0]]
    return {t: WEIGHT * weight[t] / best for t in chosen}


def lexical_with_feedback(
    lexical: LexicalIndex,
    bm25: np.ndarray,
    extra: dict[str, float] | None,
    size: int,
    *,
    alone: bool,
) -> np.ndarray:
    """Each block's BM25 (its context's share included) plus its own match of the feedback
    terms; `alone` (no dense ranking beside it), only for blocks the query's words match,
    so the lexical ranking returns the blocks it returned without them."""
    if not extra:
        return bm25
    lent = lexical.scores([], size, extra)[0]
    if alone:
        lent = np.where(bm25 > 0, lent, 0.0)
    return bm25 + lent
