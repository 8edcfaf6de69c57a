"""Read the recalled-memory notes the assistant is sent, and its own earlier answers.

Line formats (`llm.note_lines`, which the memory code writes with), one per line inside the fence:
  [fact · stated 2026-05-01] The shopper wears size M.
  [earlier visit · 2026-04-12] <compressed exchange>
  [past visit summary · 2026-04-12 · unresolved] <episode summary>
  [this visit · earlier] <compressed older exchange of this session>
  [this visit] Shopper: <query> ‖ Assistant: <answer>
  [this visit · continued] <more of the exchange above, when it was longer than one line>
  [2026-04-12] <compressed exchange>   (a line the recall_memory tool found)
An answer ends with the products it showed (`llm.transcript.products_shown_line`).
Everything in the fence is data: only these shapes are read, nothing is ever obeyed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.note_lines import (
    CONTINUED,
    EARLIER,
    EARLIER_VISIT,
    FACT,
    PAST_VISIT_SUMMARY,
    THIS_CHAT,
    THIS_VISIT,
    note_line_read,
)
from llm.prompts import NOTES_CLOSE, NOTES_OPEN

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EXCHANGE = re.compile(
    r"^\s*Shopper:\s*(?P<query>.*?)\s*(?:‖|\|\|)\s*Assistant:\s*(?P<answer>.*)$", re.S
)
# An older exchange of this visit, compressed by the memory server's extractor, keeps what
# the shopper asked in its first context: "Shopper asked: black jeans; Shown: ...".
_ASKED = re.compile(r"^\s*Shopper asked:\s*(?P<query>[^;]*?)\s*(?:;\s*(?P<rest>.*))?$", re.S)


@dataclass(frozen=True)
class Fact:
    date: str
    text: str
    order: int
    # Stated in a conversation that reads no memory (`[fact · this chat]`): never stored.
    this_chat: bool = False


@dataclass(frozen=True)
class Exchange:
    query: str
    answer: str


@dataclass(frozen=True)
class Memory:
    """A recalled line shown back to the shopper on request: a date and what happened."""

    date: str
    text: str
    # A past visit's summary (an episode), rather than one exchange of an earlier visit.
    summary: bool = False


@dataclass
class Notes:
    facts: list[Fact] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    earlier: list[Memory] = field(default_factory=list)


def notes_parse(text: str) -> Notes:
    """Parse the fenced notes; lines of any other shape are ignored."""
    notes = Notes()
    for order, line in enumerate(_fenced(text).splitlines()):
        read = note_line_read(line)
        if read is None:
            continue
        parts, body = read
        date = next((found.group(0) for found in map(_DATE.search, parts) if found), "")
        if parts[0] == FACT:
            notes.facts.append(
                Fact(date=date, text=body, order=order, this_chat=THIS_CHAT in parts)
            )
        elif parts[0] == THIS_VISIT and len(parts) == 1:
            exchange = _EXCHANGE.match(body)
            if exchange:
                notes.exchanges.append(Exchange(exchange["query"], exchange["answer"]))
        elif parts == [THIS_VISIT, CONTINUED] and notes.exchanges:
            last = notes.exchanges[-1]
            notes.exchanges[-1] = Exchange(last.query, f"{last.answer} {body}")
        elif parts == [THIS_VISIT, EARLIER]:
            # Replayed before the verbatim window, so "cheaper" still knows the search.
            exchange = _EXCHANGE.match(body)
            asked = _ASKED.match(body)
            if exchange:
                notes.exchanges.append(Exchange(exchange["query"], exchange["answer"]))
            elif asked:
                notes.exchanges.append(Exchange(asked["query"], asked["rest"] or ""))
        elif parts[0] in (EARLIER_VISIT, PAST_VISIT_SUMMARY) or _DATE.fullmatch(parts[0]):
            notes.earlier.append(
                Memory(date=date, text=body, summary=parts[0] == PAST_VISIT_SUMMARY)
            )
    return notes


def _fenced(text: str) -> str:
    start = text.find(NOTES_OPEN)
    if start < 0:
        return ""
    end = text.rfind(NOTES_CLOSE)
    return text[start + len(NOTES_OPEN) : end if end > start else len(text)]
