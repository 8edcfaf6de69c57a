"""What the rest of the project may use of memory: its two faces and a few more names.

The shop's other apps reach `memoryapp` through this module only (an architecture test
holds them to it, and `assistant/` to at most a dozen names); everything else here is the
policy's own business. A chat turn's pipeline uses less still: the turn handle's names in
`memoryapp.turn`, and the shopper's face for the greeting.
"""

from __future__ import annotations

from memoryapp import staff
from memoryapp.cleaning import session_id_clean, text_clean
from memoryapp.clients import memory_health_status
from memoryapp.conf import RETENTION
from memoryapp.episodes import CloseOutcome
from memoryapp.fence import notes_message
from memoryapp.greeting import GreetingMemory
from memoryapp.shopper import ShopperMemory
from memoryapp.signals import memory_changed
from memoryapp.turn import (
    BlockIds,
    Exchange,
    MemoryUnavailable,
    Recall,
    Remembered,
    SessionInfo,
    TurnMemory,
)

# The turn's handle and the values it takes and hands back (`memoryapp.turn`); the
# shopper's face outside a turn and what it hands back (`memoryapp.shopper`); the rules the
# chat frames share with memory's writes and the notes' framing; memory's news for the
# panels (`memory_changed`, also `ShopperMemory.changed`), staff's pages (`staff`) and the
# health check the shop's own status page reports (`memory_health_status`).
__all__ = [
    "RETENTION",
    "BlockIds",
    "CloseOutcome",
    "Exchange",
    "GreetingMemory",
    "MemoryUnavailable",
    "Recall",
    "Remembered",
    "SessionInfo",
    "ShopperMemory",
    "TurnMemory",
    "memory_changed",
    "memory_health_status",
    "notes_message",
    "session_id_clean",
    "staff",
    "text_clean",
]
