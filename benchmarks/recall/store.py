"""Storing the sets through the SDK and asking their questions."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from agentmemory import AgentMemoryClient
from agentmemory.models import MemoryBlockStatus

from benchmarks.recall.bm25 import bm25_rank
from benchmarks.recall.conversations import Conversation
from benchmarks.recall.policy import keys_canonical, shoppers_record
from benchmarks.recall.shoppers import Shopper
from benchmarks.recall.words import RELEVANT_K, SESSION_TTL_SECONDS, Question, StoredBlock
from memoryapp.blocks import TURN

# --- storing and asking through the SDK -----------------------------------------------------


def created_at(day: date, position: int) -> str:
    """The visit's day; exchanges two minutes apart so they stay in order."""
    start = datetime(day.year, day.month, day.day, 10, 0, tzinfo=UTC)
    return (start + timedelta(minutes=2 * position)).isoformat()


History = Shopper | Conversation


def conversation_blocks(conversation: Conversation) -> list[StoredBlock]:
    """The blocks `conversation_store` writes, in the order it writes them. (A shopper's
    blocks are what the memory policy wrote, read back: `policy.shoppers_held`.)"""
    blocks = []
    for chat in conversation.chats:
        for position, turn in enumerate(chat.turns):
            when = datetime.fromisoformat(created_at(chat.day, position))
            blocks.append(
                StoredBlock(
                    turn.key, turn.block, chat.session_id, when, conversation.context_required
                )
            )
    return blocks


def shopper_store(client: AgentMemoryClient, shopper: Shopper) -> dict[str, str]:
    """Store the history through the memory policy's recording code (`policy`); return
    block key -> block id."""
    return shoppers_record(client.base_url, [shopper])


def conversation_store(client: AgentMemoryClient, conversation: Conversation) -> dict[str, str]:
    """Store each turn as one block (the first speaker's as user content, the other's as
    assistant content, the speaker's name in front), one session per chat; return key -> id."""
    user = client.create_user(conversation.user_id, name=" & ".join(conversation.speakers))
    ids: dict[str, str] = {}
    for chat in conversation.chats:
        session = user.create_session(
            chat.session_id,
            metadata={"session_date": chat.day.isoformat()},
            memory_blocks_ttl=SESSION_TTL_SECONDS,
        )
        for position, turn in enumerate(chat.turns):
            side = (
                "user_content" if turn.speaker == conversation.speakers[0] else "assistant_content"
            )
            added = session.add_memory(
                messages=[{side: turn.block}],
                annotations=TURN,
                context_required=conversation.context_required,
                created_at=created_at(chat.day, position),
            )
            ids[turn.key] = added.block_ids[0]
        session.end()
    user.create_session(conversation.today_session_id, memory_blocks_ttl=SESSION_TTL_SECONDS)
    return ids


def history_store(client: AgentMemoryClient, history: History) -> dict[str, str]:
    if isinstance(history, Conversation):
        return conversation_store(client, history)
    return shopper_store(client, history)


def extraction_wait(
    client: AgentMemoryClient, shoppers: list[History], timeout: float = 600.0
) -> None:
    """Wait until every block has its summary and contexts, so every run ranks the same text."""
    deadline = time.monotonic() + timeout
    for shopper in shoppers:
        session = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
        while True:
            blocks = session.search_memory(filters={"session_ids": "all"}).memory_blocks
            if all(b.status != MemoryBlockStatus.PROCESSING for b in blocks):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"extraction still running for {shopper.user_id}")
            time.sleep(0.2)


@dataclass
class Answered:
    question: Question
    ranked: list[str]  # block keys, best first
    ms: float | None = None


def shoppers_ask(
    client: AgentMemoryClient, shoppers: list[History], ids: dict[str, str]
) -> list[Answered]:
    canonical = keys_canonical(ids)
    keys = {ids[key]: key for key in set(canonical.values())}
    answered = []
    for shopper in shoppers:
        session = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
        # The first search of a user loads their index: not a figure of this benchmark.
        session.search_memory(query=f"warm-up for {shopper.user_id}")
        for question in shopper.questions:
            started = time.perf_counter()
            found = session.search_memory(
                query=question.text, filters={"session_ids": "all", "relevant_k": RELEVANT_K}
            )
            ms = (time.perf_counter() - started) * 1000
            ranked = [keys.get(b.block_id, f"foreign:{b.block_id}") for b in found.memory_blocks]
            answered.append(Answered(answers_canonical(question, canonical), ranked, ms))
    return answered


def answers_canonical(question: Question, canonical: dict[str, str]) -> Question:
    """The question with each answer named by its block's first key (see `keys_canonical`)."""
    answers = tuple(dict.fromkeys(canonical.get(key, key) for key in question.answers))
    return replace(question, answers=answers)


def shoppers_ask_bm25(shoppers: list[History]) -> list[Answered]:
    answered = []
    for shopper in shoppers:
        texts = shopper.blocks()
        for question in shopper.questions:
            answered.append(Answered(question, bm25_rank(texts, question.text, k=RELEVANT_K)))
    return answered
