"""Storing the sets through the SDK and asking their questions."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from agentmemory import AgentMemoryClient
from agentmemory.models import MemoryBlockStatus

from benchmarks.recall.bm25 import bm25_rank
from benchmarks.recall.conversations import Conversation
from benchmarks.recall.shoppers import Shopper
from benchmarks.recall.words import RELEVANT_K, SESSION_TTL_SECONDS, Question

# --- storing and asking through the SDK -----------------------------------------------------


def created_at(day: date, position: int) -> str:
    """The visit's day; exchanges two minutes apart so they stay in order."""
    start = datetime(day.year, day.month, day.day, 10, 0, tzinfo=UTC)
    return (start + timedelta(minutes=2 * position)).isoformat()


History = Shopper | Conversation


@dataclass(frozen=True)
class StoredBlock:
    """One block as the server holds it: what the in-process ranking indexes."""

    key: str
    text: str
    session_id: str
    created_at: datetime
    extracted: bool  # stored with context_required, so its summary and contexts are searched


def history_blocks(history: History) -> list[StoredBlock]:
    """The blocks `history_store` writes, in the order it writes them."""
    blocks = []
    if isinstance(history, Conversation):
        for chat in history.chats:
            for position, turn in enumerate(chat.turns):
                when = datetime.fromisoformat(created_at(chat.day, position))
                blocks.append(
                    StoredBlock(
                        turn.key, turn.block, chat.session_id, when, history.context_required
                    )
                )
        return blocks
    for visit in history.visits:
        for position, exchange in enumerate(visit.exchanges):
            when = datetime.fromisoformat(created_at(visit.day, position))
            text = f"{exchange.user}\n{exchange.assistant}"
            blocks.append(StoredBlock(exchange.key, text, visit.session_id, when, True))
            for key, fact in zip(exchange.fact_keys, exchange.facts, strict=True):
                blocks.append(StoredBlock(key, fact, visit.session_id, when, False))
    return blocks


def shopper_store(client: AgentMemoryClient, shopper: Shopper) -> dict[str, str]:
    """Store the history as the memory policy would; return block key -> block id."""
    user = client.create_user(shopper.user_id, name=shopper.name)
    ids: dict[str, str] = {}
    for visit in shopper.visits:
        session = user.create_session(
            visit.session_id,
            metadata={"retention": "default", "session_date": visit.day.isoformat()},
            memory_blocks_ttl=SESSION_TTL_SECONDS,
        )
        for position, exchange in enumerate(visit.exchanges):
            when = created_at(visit.day, position)
            added = session.add_memory(
                messages=[{"user_content": exchange.user, "assistant_content": exchange.assistant}],
                annotations={"type": "turn"},
                context_required=True,
                created_at=when,
            )
            ids[exchange.key] = added.block_ids[0]
            if exchange.facts:
                added = session.add_memory(
                    facts=list(exchange.facts),
                    annotations={"type": "fact"},
                    memory_block_ttl=0,
                    context_required=False,
                    created_at=when,
                )
                ids.update(zip(exchange.fact_keys, added.block_ids, strict=True))
        session.end()
    user.create_session(
        shopper.today_session_id,
        metadata={"retention": "default"},
        memory_blocks_ttl=SESSION_TTL_SECONDS,
    )
    return ids


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
                annotations={"type": "turn"},
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
    keys = {block_id: key for key, block_id in ids.items()}
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
            answered.append(Answered(question, ranked, ms))
    return answered


def shoppers_ask_bm25(shoppers: list[History]) -> list[Answered]:
    answered = []
    for shopper in shoppers:
        texts = shopper.blocks()
        for question in shopper.questions:
            answered.append(Answered(question, bm25_rank(texts, question.text, k=RELEVANT_K)))
    return answered
