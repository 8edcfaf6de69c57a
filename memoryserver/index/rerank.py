"""A second stage: the fused top `DEPTH` ranked again by each candidate's best sentence.

The first stage's dense score of a block is blended before it is fused: its best
sentence's cosine (`index.sentences`) beside the block before it (`index.context`), then
one rank among the lexical side's, the reply credit and the date boosts. Good for finding
candidates, coarse for ordering them: a block that matches the query's words and follows
a close block ranks above one whose own sentence says what was asked. So the top `DEPTH`
are ranked again, late-interaction style at the sentence level: each candidate by the
cosine of its own best sentence to the query (the query without the user's common
direction, `index.common`), that order joining the fused score as one more reciprocal
rank (`fusion.RRF_K`) weighted by `WEIGHT`. A candidate moves within the top `DEPTH`;
none comes in from outside. The cosines are those the first stage worked out, so it
costs a sort of 50 numbers.

On the recall benchmark with MiniLM (near-copies giving way and the common direction out,
in both), recall@1 / @5 / @10, off -> on: long chats (tuning half) .467 / .737 / .829 ->
.483 / .743 / .827, conversations .517 / .883 / .929 -> .562 / .900 / .950, dialogues
.176 / .549 / .720 -> .189 / .555 / .738, shoppers .442 / .805 / .897 -> .453 / .817 /
.904. A weight of 0.5 found more on the long chats' tuning half at 1, 5 and 10 but cost
the dialogues at 5; the neighbours' best sentences added to a candidate's (a share of 0.3)
lost at every weight. With the hashing embedder it lost on every set (its cosines count
shared hashed words, which the lexical side has already counted), so it follows the
embedder (`memoryserver.conf.RERANK_BY_EMBEDDER`).
"""

from __future__ import annotations

import numpy as np
from django.conf import settings

from memoryserver.conf import ServerSettings, rerank_for
from memoryserver.index.fusion import RRF_K

DEPTH = 50
WEIGHT = 0.25


def rerank_default() -> bool:
    """The server's AGENT_MEMORY_SEARCH_RERANK (`memoryserver.conf`, by embedder when
    unset), or the default embedder's where no server is set up."""
    if settings.configured and hasattr(settings, "AGENT_MEMORY_SEARCH_RERANK"):
        return bool(settings.AGENT_MEMORY_SEARCH_RERANK)
    return rerank_for(ServerSettings.model_fields["AGENT_MEMORY_EMBEDDER"].default)


def reranked(
    chosen: np.ndarray, scores: np.ndarray, own: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`chosen` (best first, with their fused `scores` in [0, 1]) in their second-stage
    order by `own` (each position's best sentence's cosine), with scores that agree with
    the order, still in [0, 1]."""
    n = min(chosen.size, DEPTH)
    if n <= 1 or WEIGHT <= 0:
        return chosen, scores
    head = chosen[:n]
    rank = np.empty(n)
    rank[np.argsort(-own[head], kind="stable")] = np.arange(1, n + 1)
    # On the fused score's scale: rank 1 here is worth WEIGHT times the first hit's score.
    combined = scores[:n] + WEIGHT * float(scores[0]) * (RRF_K + 1) / (RRF_K + rank)
    order = np.argsort(-combined, kind="stable")
    positions = np.concatenate([head[order], chosen[n:]])
    shown = np.concatenate([scores[:n][order], scores[n:]])
    return positions, np.minimum.accumulate(shown)
