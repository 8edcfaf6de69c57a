"""The note-line grammar: the label in front of each recalled line, written and read here.

The memory code writes every line of the notes with `note_label` (`memoryapp.render`); the
offline model reads them back with `note_line_read` (`llm.offline.notes`). One module holds
both sides, as `llm.transcript` does for the answer's product line, so they cannot drift.

  [fact · stated 2026-05-01] The shopper wears size M.
  [fact · this chat] The shopper wears size S.   (said in a conversation that is not kept)
  [earlier visit · 2026-04-12] <compressed exchange>
  [past visit summary · 2026-04-12 · unresolved] <episode summary>
  [this visit · earlier] <compressed older exchange of this session>
  [this visit] Shopper: <query> ‖ Assistant: <answer>
  [this visit · continued] <more of the exchange above>
  [2026-04-12] <compressed exchange>   (a line the recall_memory tool found)
"""

from __future__ import annotations

import re

FACT = "fact"
STATED = "stated"
EARLIER_VISIT = "earlier visit"
PAST_VISIT_SUMMARY = "past visit summary"
THIS_VISIT = "this visit"
# A fact the shopper stated in a conversation that reads no memory (signed out): known for
# the rest of the chat, never stored.
THIS_CHAT = "this chat"
EARLIER = "earlier"
CONTINUED = "continued"
RESOLVED = "resolved"
UNRESOLVED = "unresolved"
SEPARATOR = " · "

_LINE = re.compile(r"^\s*\[(?P<label>[^\]]{1,120})\]\s*(?P<body>.*)$")


def note_label(*parts: str) -> str:
    """The label that opens a note line, with the space before its body."""
    return f"[{SEPARATOR.join(parts)}] "


def note_line_read(line: str) -> tuple[list[str], str] | None:
    """A note line's label parts (lower-cased) and its body; None for any other line."""
    match = _LINE.match(line)
    if not match:
        return None
    parts = [part.strip().lower() for part in re.split(r"[·|]", match.group("label"))]
    return parts, match.group("body").strip()
