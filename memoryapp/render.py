"""Turn recalled blocks into the lines of the notes message. Pure functions, no I/O.

Order of the notes: earlier visits first (past-visit summaries, then earlier exchanges,
always compressed), then the shopper's facts (whole, dated, oldest first so the newest
statement is read last), then the conversation in progress, oldest first: its newest
exchanges verbatim (each with its answer's products-shown line, which a
follow-up reads), older ones compressed. `memoryapp.notes_budget` keeps the whole within
the notes' token budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from llm.note_lines import (
    CONTINUED,
    EARLIER,
    EARLIER_VISIT,
    FACT,
    PAST_VISIT_SUMMARY,
    RESOLVED,
    STATED,
    THIS_VISIT,
    UNRESOLVED,
    note_label,
)
from llm.transcript import PRODUCTS_SHOWN
from memoryapp.blocks import SUPERSEDED, block_date, block_kind, block_time
from memoryapp.fence import note_clean
from memoryapp.screening import summary_screen
from memoryapp.types import RecalledItem, Scope

# A verbatim exchange is what lets "the black one — in M?" be answered, so it is never cut
# at the line limit: it continues on further lines, each within the limit, up to this many.
VERBATIM_MAX_LINES = 8
CONTINUED_LABEL = note_label(THIS_VISIT, CONTINUED)


# A continuation's label inside a sentence reads as words of it ("Slim through [this visit
# · continued] the body"), so a line ends where a sentence, a line of the answer (" / ") or
# a products-shown entry (" | ") does; only a sentence longer than a whole line is broken
# between words. The mark stays on the line it ends, so the lines rejoined with a space are
# the exchange again. The first line always holds "Assistant:" (it is how the offline
# model's reader knows an exchange), so the " ‖ " between the halves is no end.
_SENTENCE_END = re.compile(r"(?<=[.!?…;/|]) ")


def _line_break(text: str, *, room: int) -> int:
    """Where a line of at most room characters ends: after a sentence, else a word."""
    ends = [m.start() for m in _SENTENCE_END.finditer(text, 0, room + 1)]
    if ends and ends[-1] > 0:
        return ends[-1]
    cut = text.rfind(" ", room // 2, room + 1)
    return cut if cut > 0 else room


def verbatim_lines(text: str, *, max_chars: int) -> list[str]:
    """Split a verbatim exchange over lines of at most max_chars, between sentences."""
    rest = note_clean(text, max_chars=max_chars * VERBATIM_MAX_LINES)
    lines: list[str] = []
    prefix = note_label(THIS_VISIT)
    while rest:
        room = max_chars - len(prefix)
        if len(rest) <= room:
            lines.append(prefix + rest)
            break
        cut = _line_break(rest, room=room)
        lines.append(prefix + rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
        prefix = CONTINUED_LABEL
    return lines


def exchange_line(user: str, assistant: str) -> str:
    """One exchange as the notes write it word for word, recalled or from the browser."""
    return f"Shopper: {user} ‖ Assistant: {assistant}"


def exchange_raw(block: Any, *, products: bool = True) -> str:
    """The exchange word for word; without products, less its answer's products-shown line.

    The line repeats the products the answer's text names, with their SKUs, colours and
    sizes, for a follow-up ("the black one", "in M?", "show more" after two pages).
    """
    message = block.message
    answer = message.assistant_content
    if not products:
        end = answer.rfind(f"\n{PRODUCTS_SHOWN}")
        answer = answer[:end] if end >= 0 else answer
    return exchange_line(message.user_content, answer)


# The server's contexts and summary are a model's writing, screened like a visit summary
# (memoryapp.screening): a claim or instruction in them goes, and each is cut to length.
MAX_CONTEXT_CHARS = 200
WITHHELD = "(summary withheld: it held only claims or instructions)"
MAX_EXTRACTED_SUMMARY_CHARS = 300


def exchange_compressed(block: Any) -> str:
    """Contexts, else the summary, else the raw exchange: never a blank line."""
    contexts = [
        screened
        for c in (getattr(block, "contexts", None) or [])
        if isinstance(c, str) and (screened := summary_screen(c, max_chars=MAX_CONTEXT_CHARS)[0])
    ]
    if contexts:
        return "; ".join(contexts)
    summary, _ = summary_screen(
        getattr(block, "summary", None) or "", max_chars=MAX_EXTRACTED_SUMMARY_CHARS
    )
    if summary:
        return summary
    if getattr(block, "message", None) is not None:
        return exchange_raw(block)
    return (getattr(block, "fact", None) or "").strip()


def fact_line(block: Any, *, max_chars: int) -> str:
    return note_clean(
        f"{note_label(FACT, f'{STATED} {block_date(block)}')}{block.fact}", max_chars=max_chars
    )


def episode_line(block: Any, *, max_chars: int) -> str:
    annotations = getattr(block, "annotations", None) or {}
    state = RESOLVED if annotations.get("resolved") == "true" else UNRESOLVED
    # Screened on the way out too: a summary stored before the screen existed is text
    # like any other.
    if block.fact:
        text = summary_screen(block.fact, max_chars=max_chars, visit=True)[0] or WITHHELD
    else:
        text = exchange_compressed(block)
    return note_clean(
        f"{note_label(PAST_VISIT_SUMMARY, block_date(block), state)}{text}", max_chars=max_chars
    )


def _item(block: Any, scope: Scope, line: str) -> RecalledItem:
    return RecalledItem(
        block_id=block.block_id,
        scope=scope,
        line=line,
        score=getattr(block, "rel_score", None),
        session_id=getattr(block, "session_id", "") or "",
    )


EARLIER_THIS_VISIT = note_label(THIS_VISIT, EARLIER)


def session_items(
    blocks: Iterable[Any], *, window_turns: int, max_chars: int
) -> list[RecalledItem]:
    """Render the conversation in progress, oldest first.

    The window is counted in exchanges, not blocks: facts stored in this session render as
    facts and do not use up the window.
    """
    ordered = sorted(blocks, key=block_time)
    exchanges_seen = 0
    verbatim: set[str] = set()
    for block in reversed(ordered):
        if block_kind(block) == "turn" and getattr(block, "message", None) is not None:
            exchanges_seen += 1
            if exchanges_seen <= window_turns:
                verbatim.add(block.block_id)
    items = []
    for block in ordered:
        kind = block_kind(block)
        if kind == SUPERSEDED:
            continue  # a superseded fact is for the inspector, never for the model
        if kind == "fact":
            items.append(_item(block, "fact", fact_line(block, max_chars=max_chars)))
        elif kind == "episode":
            items.append(_item(block, "episode", episode_line(block, max_chars=max_chars)))
        elif block.block_id in verbatim:
            # Every verbatim answer keeps its products-shown line: "show more" twice counts
            # the products of each page shown so far, not only of the newest.
            text = exchange_raw(block)
            line = "\n".join(verbatim_lines(text, max_chars=max_chars))
            items.append(_item(block, "session", line))
        else:
            line = note_clean(
                f"{EARLIER_THIS_VISIT}{exchange_compressed(block)}", max_chars=max_chars
            )
            items.append(_item(block, "session", line))
    return items


def recall_items(
    *,
    session_blocks: Sequence[Any],
    fact_blocks: Sequence[Any],
    turn_blocks: Sequence[Any],
    episode_blocks: Sequence[Any],
    current_session_id: str | None,
    window_turns: int,
    max_chars: int,
) -> list[RecalledItem]:
    """Merge the searches into notes: de-duplicated on block id, this session's copy kept."""
    session_list: list[Any] = []
    seen: set[str] = set()

    def take(block: Any) -> bool:
        if block.block_id in seen:
            return False
        seen.add(block.block_id)
        return True

    for block in session_blocks:
        if take(block):
            session_list.append(block)
    facts, turns, episodes = [], [], []
    for block in fact_blocks:
        if take(block):
            facts.append(block)
    for block in turn_blocks:
        if not take(block):
            continue
        # "All sessions" includes the one in progress: its blocks belong with it.
        if current_session_id and block.session_id == current_session_id:
            session_list.append(block)
        else:
            turns.append(block)
    for block in episode_blocks:
        if take(block):
            episodes.append(block)

    # Unresolved visits first: they are the ones a returning shopper may pick up again.
    episodes.sort(
        key=lambda b: ((b.annotations or {}).get("resolved") == "true", -block_time(b).timestamp())
    )
    items = [_item(b, "episode", episode_line(b, max_chars=max_chars)) for b in episodes]
    for block in sorted(turns, key=block_time):
        line = note_clean(
            f"{note_label(EARLIER_VISIT, block_date(block))}{exchange_compressed(block)}",
            max_chars=max_chars,
        )
        items.append(_item(block, "turn", line))
    items.extend(
        _item(b, "fact", fact_line(b, max_chars=max_chars)) for b in sorted(facts, key=block_time)
    )
    items.extend(session_items(session_list, window_turns=window_turns, max_chars=max_chars))
    return items


# Tokens are estimated, not counted: no tokenizer of the hosted models works offline, and
# the estimate must be the same for every model (the offline one included). It splits text
# the way cl100k's pre-tokenizer does (words with their leading space, digits in threes,
# runs of punctuation, whitespace) and counts a piece as one token, a long word as one per
# seven letters, punctuation as one per three bytes. Measured against cl100k counts of this
# project's requests: the tools schema's 857 tokens come out 857, a judge request's ~1.1k
# and an extraction's ~0.4k within a few per cent.
_PIECE = re.compile(r"'(?:[sdmt]|ll|ve|re)|[ ]?[^\W\d_]+|[ ]?\d{1,3}|[ ]?(?:[^\s\w]|_)+|\s+")


def tokens_estimate(text: str) -> int:
    """A model's input tokens for text, estimated offline (see _PIECE)."""
    count = 0
    for match in _PIECE.finditer(text):
        piece = match.group().lstrip(" ")
        if not piece or piece[0].isspace() or piece[0].isdigit():
            count += 1
        elif piece[0].isalpha():
            count += 1 + (len(piece) - 1) // 7
        else:
            count += -(-len(piece.encode("utf-8")) // 3)
    return count


def tool_items(blocks: Sequence[Any], *, max_chars: int) -> list[RecalledItem]:
    """Lines for the explicit recall tool: every scope compressed, facts whole, all dated."""
    items = []
    for block in blocks:
        kind = block_kind(block)
        if kind == SUPERSEDED:
            continue
        if kind == "fact":
            line = fact_line(block, max_chars=max_chars)
        elif kind == "episode":
            line = episode_line(block, max_chars=max_chars)
        else:
            line = note_clean(
                f"{note_label(block_date(block))}{exchange_compressed(block)}", max_chars=max_chars
            )
        items.append(_item(block, "tool", line))
    return items
