"""What the shopper stated in a conversation that reads no memory, for its later turns.

Signed out (or with memory off or unreachable) nothing is stored, yet "I'm a size S" must
still hold three messages later. The browser sends the conversation back with each message
(`history`, docs/protocol.md); the shopper's own messages in it are read by the offline
fact judge — local, deterministic and free, whichever model answers — and what they state
becomes fact lines of the notes, labelled as said in this chat. Only the shopper's words
are read, never an answer's. The newest statement of a slot wins, as in memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from llm.note_lines import FACT, THIS_CHAT, note_label
from llm.offline.judge import facts_judge

MAX_CHAT_FACTS = 12


def chat_facts_read(*, messages: Sequence[str]) -> list[str]:
    """The fact sentences the shopper's messages (oldest first) state, one per slot."""
    by_slot: dict[str, str] = {}
    for text in messages:
        for judged in facts_judge(text):
            # A restated slot moves to the end: the newest word on it is the one kept.
            by_slot.pop(judged.slot, None)
            by_slot[judged.slot] = judged.fact
    return list(by_slot.values())[-MAX_CHAT_FACTS:]


def chat_fact_lines(facts: Sequence[str]) -> list[str]:
    return [f"{note_label(FACT, THIS_CHAT)}{fact}" for fact in facts]
