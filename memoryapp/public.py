"""What the rest of the project may use of memory: the turn's handle and a few more names.

The shop's other apps reach `memoryapp` through this module only (an architecture test
holds them to it, and `assistant/` to at most a dozen names); everything else here is the
policy's own business. A chat turn's pipeline uses less still: the handle's names in
`memoryapp.turn`.
"""

from __future__ import annotations

from memoryapp import staff
from memoryapp.cleaning import session_id_clean, text_clean
from memoryapp.conf import RETENTION
from memoryapp.fence import notes_message
from memoryapp.signals import memory_changed
from memoryapp.turn import (
    CloseOutcome,
    Exchange,
    MemoryUnavailable,
    Recall,
    SessionInfo,
    TurnMemory,
)

# The turn's handle and the values it takes and hands back (`memoryapp.turn`); the rules
# the chat frames share with memory's writes and the notes' framing; memory's news for the
# panels (`memory_changed`) and staff's pages, reads and erase (`staff`).
__all__ = [
    "RETENTION",
    "CloseOutcome",
    "Exchange",
    "MemoryUnavailable",
    "Recall",
    "SessionInfo",
    "TurnMemory",
    "memory_changed",
    "notes_message",
    "session_id_clean",
    "staff",
    "text_clean",
]
