"""Keep the notes message within its token budget. Pure functions, no I/O.

The budget (`MEMORY_NOTES_MAX_TOKENS`) is a cost bound: the notes go in both rounds of a
turn. It never drops a fact or the verbatim window, and it never empties a search that
returned something: each keeps its best lines, its floor. Over budget, in this order:
1. the rest of this visit's older exchanges, least relevant first (the in-session search's
   score; listed under the threshold, they have none and go oldest first);
2. the rest of earlier visits' exchanges, least relevant first (the search's score);
3. the rest of the past-visit summaries (resolved before unresolved, oldest first);
4. the floors' longest compressed lines, cut after a context or a sentence.
What is left then goes whole, over budget if it must.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memoryapp.fence import notes_frame, notes_message
from memoryapp.render import EARLIER_THIS_VISIT, tokens_estimate
from memoryapp.types import RecalledItem

# The earlier-visit floor was chosen on the return-visit scenarios of
# benchmarks/notes_reach.py (a reference to the products an earlier visit showed, or to what
# the shopper asked for there, late in a visit, answered from the notes alone): 4 reached 19
# of 20 at the 800 budget, 3 reached 16, none 0; the whole turn's input p95 went 5,794 ->
# 6,308 tokens (benchmarks/turn_cost.py; docs/benchmarks.md, "Notes that reach the model").
# The other two were not varied: the least that keeps each search from being emptied, plus
# one more of this visit's older exchanges for a follow-up that reaches past the window.
EARLIER_VISIT_FLOOR = 4
THIS_VISIT_FLOOR = 2
EPISODE_FLOOR = 1
# A floor line cut to its first contexts keeps at most this many characters, label
# included: the label, what was asked and the products shown fit in it.
CUT_LINE_CHARS = 240
# The separators a compressed line is cut at: between two contexts, between sentences.
_CUTS = ("; ", ". ")


def line_cut(line: str, *, max_chars: int) -> str:
    """The line up to its last context or sentence that ends within max_chars, then "…".

    A line with no such end in its first half is cut between words; a short line is left.
    """
    if len(line) <= max_chars:
        return line
    room = max_chars - 1
    cut = max(line.rfind(sep, 0, room) + (sep == ". ") for sep in _CUTS)
    if cut < room // 2:
        cut = line.rfind(" ", room // 2, room)
        cut = cut if cut > 0 else room
    return line[:cut] + "…"


def _relevance(item: RecalledItem, index: int) -> tuple[bool, float, int]:
    """Sort key, least relevant first: unscored before scored, then score, then age."""
    return (item.score is not None, item.score or 0.0, index)


def _groups(items: Sequence[RecalledItem]) -> tuple[list[int], list[int], list[int]]:
    """The lines the budget may touch, by search: this visit's older exchanges (oldest
    first, as rendered), earlier visits' exchanges and past-visit summaries (as rendered:
    unresolved first, newest first within each)."""
    here = [
        i
        for i, it in enumerate(items)
        if it.scope == "session" and it.line.startswith(EARLIER_THIS_VISIT)
    ]
    visits = [i for i, it in enumerate(items) if it.scope == "turn"]
    summaries = [i for i, it in enumerate(items) if it.scope == "episode"]
    return here, visits, summaries


def notes_floor(items: Sequence[RecalledItem]) -> set[int]:
    """Indexes of the lines kept whatever the budget: each search's best."""
    here, visits, summaries = _groups(items)
    best_visits = sorted(visits, key=lambda i: _relevance(items[i], i), reverse=True)
    return (
        set(here[len(here) - THIS_VISIT_FLOOR :] if THIS_VISIT_FLOOR else [])
        | set(best_visits[:EARLIER_VISIT_FLOOR])
        | set(summaries[:EPISODE_FLOOR])
    )


def _drop_order(items: Sequence[RecalledItem], floor: set[int]) -> list[int]:
    # Scores are comparable within one search only (docs/agent-memory-server.md): each
    # search's rest is ordered on its own.
    here, visits, summaries = _groups(items)

    def rest(group: list[int]) -> list[int]:
        return sorted((i for i in group if i not in floor), key=lambda i: _relevance(items[i], i))

    return rest(here) + rest(visits) + [i for i in reversed(summaries) if i not in floor]


def _size(items: Sequence[RecalledItem]) -> int:
    return tokens_estimate(notes_message([it.line for it in items]) or "")


def notes_budgeted(items: Sequence[RecalledItem], *, max_tokens: int) -> list[RecalledItem]:
    """The items whose notes message fits in max_tokens, in the order of the module doc."""
    floor = notes_floor(items)
    # Each line's share (its tokens and its newline), so dropping is not re-counting; the
    # shares add up to the whole within a token or two, and the whole decides at the end.
    costs = [tokens_estimate(it.line) + 1 for it in items]
    size = tokens_estimate(notes_frame()) + sum(costs)
    dropped: set[int] = set()
    order = _drop_order(items, floor)
    for index in order:
        if size <= max_tokens:
            break
        dropped.add(index)
        size -= costs[index]
    kept = [it for i, it in enumerate(items) if i not in dropped]
    for index in order:
        if index in dropped:
            continue
        if _size(kept) <= max_tokens:
            break
        dropped.add(index)
        kept = [it for i, it in enumerate(items) if i not in dropped]
    if _size(kept) <= max_tokens:
        return kept
    # Only the facts, the window and the floors are left: cut the longest floor lines.
    lines = {i: it for i, it in enumerate(items) if i not in dropped}
    for index in sorted(floor, key=lambda i: (-len(items[i].line), i)):
        lines[index] = replace(
            items[index], line=line_cut(items[index].line, max_chars=CUT_LINE_CHARS)
        )
        if _size(list(lines.values())) <= max_tokens:
            break
    return list(lines.values())
