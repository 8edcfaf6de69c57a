"""What all of a user's blocks have in common, taken out of the query before dense ranking.

Sentence embeddings share a direction: every block of a user's memory is somewhat close to
every other, and closest to their mean. The blocks nearest that mean are the ones that say
least of their own: in a long talk stored turn by turn ("Gina: Hard?", "Gina: Talk
soon!"), the speaker's name and the small talk are most of what a short turn's vector
holds, so any question that names Gina finds them close, above the turns that answer it
("Gina: I ran my first 5k") — and a question whose answer is told in several turns finds
one of them and a screen of such hubs. The same holds for a shopper's memory, whose common
direction is the shop's own talk.

So the dense side of a fused search ranks by the cosine to the query less a weight times
the cosine to the user's mean block (the hubness correction of dense retrieval, with the mean as every
block's neighbourhood), which is the cosine to the query vector less `WEIGHT` times the
mean: one subtraction per search, no second product. A block's sentences are scored by
the same vector, so a sentence is judged by what it says beyond the common direction too.

With MiniLM, on the recall benchmark (near-copies giving way, `index.spread`, on in
both), recall@1 / @5 / @10: long chats (tuning half) .460 / .720 / .790 -> .467 / .737 /
.829, conversations .529 / .850 / .896 -> .517 / .883 / .929, dialogues .148 / .437 /
.601 -> .176 / .549 / .720, shoppers .442 / .789 / .882 -> .442 / .805 / .897. A weight
of 0.3 to 1.0 found more at 5 and 10 everywhere; 0.5 keeps the shoppers' and the long
chats' recall@1 (the conversations lose three questions' worth there, still above the
.512 before either rule), 1.0 cost the shoppers 1.3 points at 1 and 1.5 the dialogues 4
at 10.

The mean is a running sum of the live blocks' vectors, changed with each write, so a
search never scans the matrix for it.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings

from memoryserver.conf import ServerSettings, common_weight_for


def weight_default() -> float:
    """The server's AGENT_MEMORY_SEARCH_COMMON_WEIGHT (`memoryserver.conf`, by embedder
    when unset), or the default embedder's where no server is set up."""
    if settings.configured and hasattr(settings, "AGENT_MEMORY_SEARCH_COMMON_WEIGHT"):
        return float(settings.AGENT_MEMORY_SEARCH_COMMON_WEIGHT)
    return common_weight_for(ServerSettings.model_fields["AGENT_MEMORY_EMBEDDER"].default)


class CommonDirection:
    """The running sum of one user's live block vectors."""

    def __init__(self, dimensions: int) -> None:
        self.total = np.zeros(dimensions, dtype=np.float64)

    @classmethod
    def of(cls, vectors: np.ndarray, live: np.ndarray) -> CommonDirection:
        common = cls(vectors.shape[1])
        if live.any():
            common.total = vectors[: live.shape[0]][live].sum(axis=0, dtype=np.float64)
        return common

    def add(self, vector: np.ndarray) -> None:
        self.total += vector

    def drop(self, vector: np.ndarray) -> None:
        self.total -= vector

    def query(self, vector: np.ndarray, weight: float) -> np.ndarray:
        """The query vector less `weight` times the unit mean of the blocks (none: as is)."""
        norm = float(np.linalg.norm(self.total))
        if weight <= 0 or norm < 1e-9:
            return vector
        return (vector - weight * self.total / norm).astype(vector.dtype, copy=False)
