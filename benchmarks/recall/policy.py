"""Storing the shoppers' visits through the memory policy's own recording code.

Each visit is opened as the shop opens one (`memoryapp.sessions.session_open`: the next
`session{n}`, the visit's date, the default retention), each exchange is written by
`memoryapp.recording.turn_record` and the facts a judge would keep by
`memoryapp.recording.facts_record`: the same annotations, TTLs and dates the shop writes,
and the same consolidation, so a fact the shopper restates is not stored again and one they
change retires the older value into history (`superseded_fact`, searchable like any block).
The judge itself does not run: each exchange carries the facts it states.

A policy write that fails is a guarded loss in the shop (the answer goes on); here it is
an error, since a block missing from the set would change every figure.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from datetime import date, datetime
from typing import TYPE_CHECKING

from agentmemory import AgentMemoryClient

from benchmarks.recall.shoppers import Shopper
from benchmarks.recall.words import StoredBlock

if TYPE_CHECKING:
    from memoryapp.sessions import MemorySession

# A loaded machine embedding with MiniLM is slower than a shopper's turn may be.
WRITE_TIMEOUT_SECONDS = 120.0


def _django_ready() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    import django

    django.setup()


def shoppers_record(base_url: str, shoppers: list[Shopper]) -> dict[str, str]:
    """Store every shopper's visits as the policy does; block key -> block id.

    A fact the policy did not store (a restatement) maps to the stored fact it restates.
    The policy is pointed at the server at `base_url` for this call only: the suite runs
    this in a process whose later tests need the shop's own memory settings.
    """
    _django_ready()
    from django.test import override_settings

    with override_settings(
        AGENT_MEMORY_URL=base_url.rstrip("/"),
        AGENT_MEMORY_TIMEOUT_SECONDS=WRITE_TIMEOUT_SECONDS,
        AGENT_MEMORY_WRITE_TIMEOUT_SECONDS=WRITE_TIMEOUT_SECONDS,
    ):
        return asyncio.run(_shoppers_record(shoppers))


async def _shoppers_record(shoppers: list[Shopper]) -> dict[str, str]:
    from memoryapp.public import ShopperMemory

    ids: dict[str, str] = {}
    try:
        for shopper in shoppers:
            ids.update(await _shopper_record(shopper))
    finally:
        await ShopperMemory.clients_close()
    return ids


async def _shopper_record(shopper: Shopper) -> dict[str, str]:
    from memoryapp.recording import facts_record, turn_record

    ids: dict[str, str] = {}
    for visit in shopper.visits:
        memory = await _visit_open(shopper, visit.day, expected=visit.session_id)
        for exchange in visit.exchanges:
            turn = await turn_record(memory=memory, query=exchange.user, answer=exchange.assistant)
            if not turn:
                raise RuntimeError(f"the turn block of {exchange.key} was not written")
            ids[exchange.key] = turn[0]
            if exchange.facts:
                stored = await facts_record(memory=memory, facts=list(exchange.facts))
                ids.update(await _facts_keyed(memory, exchange.fact_keys, exchange.facts, stored))
        await memory.resource.end()
    await _visit_open(shopper, None, expected=shopper.today_session_id)
    return ids


async def _visit_open(shopper: Shopper, day: date | None, *, expected: str) -> MemorySession:
    from memoryapp.sessions import session_open

    memory = await session_open(
        user_id=shopper.user_id,
        display_name=shopper.name,
        session_id=None,
        session_date=day,
        timeout=WRITE_TIMEOUT_SECONDS,
    )
    if memory.session_id != expected:
        raise RuntimeError(f"{shopper.user_id}: minted {memory.session_id}, not {expected}")
    return memory


async def _facts_keyed(
    memory: MemorySession, keys: tuple[str, ...], facts: tuple[str, ...], stored: list[str]
) -> dict[str, str]:
    """Each fact's key -> the block that holds it: the one just stored with its sentence,
    else (a restatement) the shopper's current fact of its slot, or of its sentence."""
    from llm.fact_schema import slot_from_sentence
    from memoryapp.blocks import FACT
    from memoryapp.consolidation import block_slot

    found = await memory.resource.search_memory(filters={"session_ids": "all", "annotations": FACT})
    current = list(found.memory_blocks)
    by_text = {b.fact: b.block_id for b in current if b.block_id in stored}
    keyed: dict[str, str] = {}
    for key, fact in zip(keys, facts, strict=True):
        block_id = by_text.get(fact)
        if block_id is None:  # a fact without a slot is its own, keyed by its sentence
            slot = slot_from_sentence(fact)
            same = [
                b
                for b in current
                if (block_slot(b) == slot if slot is not None else b.fact == fact)
            ]
            block_id = same[0].block_id if same else None
        if block_id is None:
            raise RuntimeError(f"{key}: the policy stored neither it nor a fact it restates")
        keyed[key] = block_id
    return keyed


def keys_canonical(ids: dict[str, str]) -> dict[str, str]:
    """Each key -> the first key of its block: a restatement and the fact it restates are
    one block, so a question may name either."""
    first: dict[str, str] = {}
    for key, block_id in ids.items():
        first.setdefault(block_id, key)
    return {key: first[block_id] for key, block_id in ids.items()}


def held_blocks(client: AgentMemoryClient, shopper: Shopper, ids: dict[str, str]) -> list:
    """The blocks the server holds for `shopper`, in the order they were written, keyed by
    their first key (a fact moved into history: `<user>/history/<block id>`)."""
    keys = {block_id: key for key, block_id in reversed(list(ids.items()))}
    session = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
    listed = session.search_memory(filters={"session_ids": "all"}).memory_blocks
    blocks = []
    for block in reversed(listed):  # newest first, ties to the later write
        if block.message is not None:
            parts = (block.message.user_content, block.message.assistant_content)
            text = "\n".join(p for p in parts if p)
        else:
            text = block.fact or ""
        key = keys.get(block.block_id, f"{shopper.user_id}/history/{block.block_id}")
        when = datetime.fromisoformat(block.created_at.replace("Z", "+00:00"))
        blocks.append(
            StoredBlock(key, text, block.session_id, when, bool(block.message is not None))
        )
    return blocks


# What `shoppers_held` read back, by the shoppers' ids: one store serves every embedder.
_held: dict[tuple[str, ...], tuple[dict[str, list], dict[str, str]]] = {}


def shoppers_held(shoppers: list[Shopper]) -> tuple[dict[str, list], dict[str, str]]:
    """Store the shoppers through the policy in a scratch server (hashing embedder: the
    in-process ranking embeds again with its own) and read back what it holds: user id ->
    blocks in writing order, and block key -> block id. Once per run for the same shoppers."""
    key = tuple(s.user_id for s in shoppers)
    if key not in _held:
        _held[key] = _shoppers_held(shoppers)
    return _held[key]


def _shoppers_held(shoppers: list[Shopper]) -> tuple[dict[str, list], dict[str, str]]:
    from harness.memoryserver import start_agentmemory_server

    with tempfile.TemporaryDirectory(prefix="recall-policy-") as tmp:
        base_url, stop = start_agentmemory_server(
            tmp, AGENT_MEMORY_EMBEDDER="hashing", AGENT_MEMORY_EXTRACTOR="extractive"
        )
        try:
            ids = shoppers_record(base_url, shoppers)
            with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
                held = {s.user_id: held_blocks(client, s, ids) for s in shoppers}
        finally:
            stop()
    return held, ids
