"""Room in the top k for an answer told in several places: the first ranking, less repeated.

A question whose answer is spread over several turns ("What sports does Gina do?": a
swim, a run and a yoga class, each told in a session of its own) ranks one of them high
and then, often, what repeats it rather than the others: the same remark made again in a
later session ("Still doing tennis?" asked three times), a near-copy of a hit, the hit's
echo in other words. Each repetition takes a place in the top k and tells the reader
nothing the hit above it did not.

So after the first ranking, the top `DEPTH` candidates are chosen again one at a time by
maximal marginal relevance over the fused scores: each place goes to the candidate whose
score, less `REDUNDANCY` times its closeness to the nearest block already chosen, is the
highest. Closeness is the cosine of the blocks' own vectors above `SIMILAR`, stretched to
[0, 1]: blocks about merely the same thing lose little (a question's answer and its
follow-up are both worth their places); near-copies give way. The first hit is never
moved, and a candidate is never pushed out of the top `DEPTH`, only down within it.

Worked out on the candidates alone (a few dozen vectors, one small matrix product), so it
costs a search a fraction of a millisecond at any size of index.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings

from memoryserver.conf import ServerSettings

# The candidates chosen again: the first ranking's top this many.
DEPTH = 50
# How far a near-copy's score falls: by this share of the first hit's score at most.
REDUNDANCY = 0.5
# Cosines up to this count as no redundancy at all. Chosen on the recall benchmark's
# long-chat set (its tuning half) with both embedders, then checked on the other sets:
# with 0.5 and 0.6 every set found more at 5 and 10 and none lost at 1 (MiniLM recall@5:
# long chats .700 -> .720, conversations .787 -> .850, dialogues .392 -> .437, shoppers
# .774 -> .789); at 0.4, or with the whole first score as the penalty, blocks about merely
# the same thing gave way too and the shoppers lost up to 4.7 points at 5.
SIMILAR = 0.6


def spread_default() -> bool:
    """The server's AGENT_MEMORY_SEARCH_SPREAD, or its default where no server is set up
    (the index used on its own, as the recall benchmark does)."""
    if settings.configured and hasattr(settings, "AGENT_MEMORY_SEARCH_SPREAD"):
        return bool(settings.AGENT_MEMORY_SEARCH_SPREAD)
    return bool(ServerSettings.model_fields["AGENT_MEMORY_SEARCH_SPREAD"].default)


def spread(
    chosen: np.ndarray, scores: np.ndarray, vectors: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """`chosen` (positions, best first, with their `scores`) reordered so near-copies of a
    higher hit give way; the first k of them with their scores, each at most the one above
    it's, so the order and the scores agree."""
    n = min(chosen.size, DEPTH)
    if n <= 2 or REDUNDANCY <= 0:
        return chosen[:k], scores[:k]
    head = chosen[:n]
    gains = scores[:n].astype(np.float64)
    own = vectors[head]
    closeness = np.clip((own @ own.T - SIMILAR) / (1.0 - SIMILAR), 0.0, 1.0)
    penalty = REDUNDANCY * float(gains[0])
    order = [0]
    nearest = closeness[0].copy()
    left = np.ones(n, dtype=bool)
    left[0] = False
    for _ in range(min(k, n) - 1):
        value = np.where(left, gains - penalty * nearest, -np.inf)
        pick = int(np.argmax(value))
        order.append(pick)
        left[pick] = False
        np.maximum(nearest, closeness[pick], out=nearest)
    picked = np.array(order, dtype=np.int64)
    positions = np.concatenate([head[picked], chosen[n:]])[:k]
    shown = np.concatenate([gains[picked], scores[n:]])[:k]
    return positions, np.minimum.accumulate(shown)
