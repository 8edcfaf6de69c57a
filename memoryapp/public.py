"""What the rest of the project may use of memory: the turn's handle and a few more names.

The shop's other apps reach `memoryapp` through this module only (an architecture test
holds them to it); everything else here is the policy's own business. A chat turn's
pipeline uses less still: the handle's names in `memoryapp.turn`.
"""

from __future__ import annotations

from memoryapp import admin_views
from memoryapp.cleaning import session_id_clean, text_clean
from memoryapp.clients import memory_health_status
from memoryapp.conf import RETENTION_CHOICES, RETENTION_PRESETS
from memoryapp.erasure import shopper_memory_erase
from memoryapp.notify import (
    PANELS_GROUP,
    EndReason,
    memory_switched_send,
    session_tag,
    shopper_ended_send,
    shopper_group,
)
from memoryapp.render import recalled_line_defuse, verbatim_lines
from memoryapp.selectors import session_texts_read, sessions_metadata_read
from memoryapp.turn import (
    CloseOutcome,
    Exchange,
    MemoryUnavailable,
    Recall,
    SessionInfo,
    TurnMemory,
    greeting_read,
    memory_clients_close,
    memory_conf,
    notes_message,
    session_close,
    session_end,
)

__all__ = [
    "PANELS_GROUP",
    "RETENTION_CHOICES",
    "RETENTION_PRESETS",
    "CloseOutcome",
    "EndReason",
    "Exchange",
    "MemoryUnavailable",
    "Recall",
    "SessionInfo",
    "TurnMemory",
    "admin_views",
    "greeting_read",
    "memory_clients_close",
    "memory_conf",
    "memory_health_status",
    "memory_switched_send",
    "notes_message",
    "recalled_line_defuse",
    "session_close",
    "session_end",
    "session_id_clean",
    "session_tag",
    "session_texts_read",
    "sessions_metadata_read",
    "shopper_ended_send",
    "shopper_group",
    "shopper_memory_erase",
    "text_clean",
    "verbatim_lines",
]
