"""What a block borrows from around it: the block before it in its session, and its date.

A reply rarely repeats the words of the question it answers ("Which colour did you pick
for the sofa?" / "Teal velvet, it arrives Friday."), so a block is also searchable by the
block before it in its session, weighted below its own text, and a block that asks lends
the block after it, its reply, a share of its score. A block's date counts as a word it
holds when a query names a time (`memoryserver.index.when`), and a block whose own text
says when ("I went yesterday", "last Tuesday") gains when a query asks when. Optionally, a
hit's session neighbours gain a share of its score.

All of it is worked out at search time from the slot's own columns (sessions, dates,
which blocks are live, and whether a block's own text asks or says when, set with its
text), so no write has anything extra to keep in step: an update changes what a block
lends, a delete or an expiry takes its words away, a load pairs the same blocks. The
constants were chosen on the recall benchmark's dialogues, conversations and shoppers with
both embedders (docs/benchmarks-history.md, "Retrieval").
"""

from __future__ import annotations

import math

import numpy as np

from memoryserver.terms import text_terms

# The previous block's BM25 counts half beside the block's own.
CONTEXT_LEXICAL_WEIGHT = 0.5
# Its cosine a fifth for a block of a typical turn's length, (own + 0.2 * previous) / 1.2,
# and in inverse proportion to the block's length from there, between half and three times
# that: a short reply ("Yes, meet Mochi!") means little without the question before it, a
# long statement stands on its own and is only blurred by the small talk before it. A fixed
# fifth lost 2 points of recall@5 on the conversational set, whose answers are such
# statements; a fixed larger share lost more there for less on the dialogues.
CONTEXT_DENSE_WEIGHT = 0.2
CONTEXT_TYPICAL_TERMS = 6.0
CONTEXT_DENSE_RANGE = (0.5, 3.0)
# A date the query names weighs as a term of its idf; a block dated then scores twice (1.5
# times found a third fewer of the temporal questions at 10 in hybrid mode: the fused
# scores of undated blocks matching the question's other words are close to the top).
DATE_WEIGHT = 1.0
DATE_BOOST = 1.0
# A block that asks lends the block after it a fifth of its score, up to nine tenths of it:
# the reply rises towards its question but never passes it. Lent by any block, or beside
# the block before as well as after, the same share found more replies on the dialogues
# but put small talk and reactions above answers that hold the query's own words on the
# conversational set; the cap keeps a hit's rank 1 to itself.
REPLY_CREDIT = 0.2
REPLY_CREDIT_CAP = 0.9
# A question asking "when" raises the blocks whose own text says when by half: on the
# conversational set it put the turn that told the time above the later talk repeating
# its words (MiniLM recall@1 / @5 / @10 .408 / .762 / .846 -> .512 / .787 / .863; a
# quarter gave .492 / .783 / .858); the shoppers held.
WHEN_BOOST = 0.5


def session_neighbours(
    live: np.ndarray, sessions: np.ndarray, dates: np.ndarray, pks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each position's previous and next live block in its session (-1: none), in order of
    the blocks' dates, then of writing."""
    n = live.shape[0]
    held = np.nonzero(live)[0]
    order = held[np.lexsort((pks[held], dates[held], sessions[held]))]
    same = sessions[order[1:]] == sessions[order[:-1]]
    previous = np.full(n, -1, dtype=np.int64)
    following = np.full(n, -1, dtype=np.int64)
    previous[order[1:][same]] = order[:-1][same]
    following[order[:-1][same]] = order[1:][same]
    return previous, following


def asks(text: str) -> bool:
    """Whether a block's own text asks: it ends with a question mark. An exchange that
    holds its answer ("Do you have it in M?" / "Yes, in M and L.") does not."""
    return text.rstrip().endswith("?")


def own_terms(own: str, searched: str) -> int | None:
    """How many terms a block's own text holds, where what search matches (`searched`)
    holds more: its summary and contexts. None where the two are the same text."""
    return None if searched == own else len(text_terms(own))


def dense_with_context(own: np.ndarray, previous: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Each cosine beside that of the block before it (a first block: its own alone), the
    share by the length in terms of the block's own text (`terms`, 0 for a block with none).

    Its own text, not its summary and contexts: an extraction restating a two-word reply
    ("Teal, finally!") at three times its length does not make it stand on its own. With
    the length of all it is searched by, the server's default extraction cost the dialogues
    6.5 points of recall@5 (docs/benchmarks-history.md, "A reply's context by its own
    length")."""
    context = np.where(previous >= 0, own[np.maximum(previous, 0)], own)
    low, high = CONTEXT_DENSE_RANGE
    scale = np.clip(CONTEXT_TYPICAL_TERMS / np.maximum(terms, 1.0), low, high)
    weight = CONTEXT_DENSE_WEIGHT * scale
    return (own + weight * context) / (1.0 + weight)


def lexical_with_context(bm25: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """Each BM25 plus a share of the block before it's."""
    lent = np.where(previous >= 0, bm25[np.maximum(previous, 0)], 0.0)
    return bm25 + CONTEXT_LEXICAL_WEIGHT * lent


def date_term(dated: np.ndarray, live: np.ndarray) -> float:
    """The weight of "dated then" as a term: its idf among the live blocks (0 if none)."""
    held = int(np.count_nonzero(dated))
    if not held:
        return 0.0
    blocks = int(np.count_nonzero(live))
    return DATE_WEIGHT * math.log(1.0 + (blocks - held + 0.5) / (held + 0.5))


def date_boosted(scores: np.ndarray, dated: np.ndarray) -> np.ndarray:
    return scores * np.where(dated, 1.0 + DATE_BOOST, 1.0)


def replies_credited(scores: np.ndarray, following: np.ndarray, asking: np.ndarray) -> np.ndarray:
    """Each score raised by `REPLY_CREDIT` of the block before it's, if that block asks, to
    at most `REPLY_CREDIT_CAP` of it (`following` links live blocks only).

    Worked out from the blocks that lend (those that ask and score), a few hundred at most
    in a fused ranking, rather than over every block: the same scores, at a fraction of a
    search's cost."""
    lenders = np.nonzero(scores > 0)[0]
    lenders = lenders[asking[lenders] & (following[lenders] >= 0)]
    if lenders.size == 0:
        return scores
    replies, lent = following[lenders], scores[lenders]
    raised = np.minimum(scores[replies] + REPLY_CREDIT * lent, REPLY_CREDIT_CAP * lent)
    credited = scores.copy()
    credited[replies] = np.maximum(scores[replies], raised)
    return credited


def when_answered(scores: np.ndarray, telling: np.ndarray) -> np.ndarray:
    """A question asking "when" raises the blocks that say when by `WHEN_BOOST` (a
    negative cosine, dense alone, is left as it is rather than pushed further down)."""
    return scores * np.where(telling & (scores > 0), 1.0 + WHEN_BOOST, 1.0)


def neighbour_credited(
    scores: np.ndarray,
    previous: np.ndarray,
    following: np.ndarray,
    live: np.ndarray,
    share: float,
) -> np.ndarray:
    """Each score plus `share` of its live session neighbours' scores."""
    lent = np.where(live, scores, 0.0)
    credit = np.where(previous >= 0, lent[np.maximum(previous, 0)], 0.0)
    credit += np.where(following >= 0, lent[np.maximum(following, 0)], 0.0)
    return scores + share * credit
