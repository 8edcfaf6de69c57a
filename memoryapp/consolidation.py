"""Fact consolidation: one current fact per slot, and a restatement is not stored again.

Every fact belongs to a slot (`llm.fact_schema`: size/shoes, budget, colour/yellow, ...)
that holds one value at a time. Before facts are written, each is compared with the current
facts of its slot:
- the same value: a restatement, not stored again;
- another value: stored as the new current fact, and the older one stops being recalled;
- a relative size change ("+1"): applied to the current size of the slot, or dropped when
  there is none (a change with nothing to change is not a fact);
- a lift: a slot's `neutral` ("yellow's fine now") or the budget's `none` is another value
  of the slot and replaces the like, dislike or budget like any other; a whole category
  lifted (`brand/any` = `neutral`, "any brand is fine") replaces every older fact of its
  category, since each of them is a filter the shopper has just set aside.
Newest wins by the date the fact speaks for (created_at, else ingested_at), as the memory
specification has it: a fact from a session dated in the past that arrives after a newer
one is stored straight away as superseded.

Why a superseded fact is a copy: facts live in sessions that have ended, and the API refuses updates
there (SESSION_ALREADY_ENDED), so an old fact can be neither edited nor re-labelled in
place. A replaced fact is copied into the session in progress as a superseded record
(`type: superseded_fact`, its own date, the id of the fact that replaced it and the session
it was stated in) and then deleted from its own session; deletes are allowed in ended
sessions. Recall filters on `type: fact`, so a superseded fact is never recalled; the inspector and the
admin list it, marked superseded. Older copies of the current fact itself (restatements
stored before consolidation existed) are deleted without a copy: they say nothing new.

Facts stored before slots were annotated get theirs from their sentence when it is worded
as the judge words facts; any other fact is its own slot, keyed by its text, so a fact said
twice in the same words is still one fact. Recall collapses the same way (`facts_distinct`),
so data written before consolidation renders each fact once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeGuard

from llm.fact_schema import (
    ANY_KEY,
    FactSlot,
    restatement_key,
    size_sentence,
    size_step,
    slot_from_sentence,
    slot_valid,
)
from memoryapp.blocks import SUPERSEDED, block_time
from memoryapp.judge import JudgedFact


def block_slot(block: Any) -> FactSlot | None:
    """The slot a stored fact belongs to: its annotations, else its sentence, else none."""
    annotations = getattr(block, "annotations", None) or {}
    category, slot, value = (annotations.get(k) for k in ("category", "slot", "value"))
    if (
        isinstance(category, str)
        and isinstance(slot, str)
        and isinstance(value, str)
        and slot_valid(category, slot, value)
    ):
        return FactSlot(category, slot, value)
    return slot_from_sentence(getattr(block, "fact", None) or "")


def text_key(text: str) -> str:
    """Facts that differ only in case, spacing or a final full stop are the same."""
    return "text:" + restatement_key(text)


def _key(slot: FactSlot | None, text: str) -> str:
    return f"slot:{slot.slot}" if slot else text_key(text)


def block_key(block: Any) -> str:
    return _key(block_slot(block), getattr(block, "fact", None) or "")


def _same_value(slot: FactSlot | None, other: FactSlot | None) -> bool:
    # Keys match already: with slots the value decides, without them the text did.
    return slot is None or other is None or slot.value == other.value


@dataclass(frozen=True)
class Replaced:
    """A stored fact that stops being current, and what replaced it.

    `by` is the block id of a current fact, or the index in FactsPlan.store of a new one
    (its id is known only once it is written).
    """

    block: Any
    by: str | int


@dataclass
class FactsPlan:
    store: list[JudgedFact] = field(default_factory=list)
    replaced: list[Replaced] = field(default_factory=list)
    # Facts of this turn that are older than the current fact of their slot.
    born_superseded: list[tuple[JudgedFact, str]] = field(default_factory=list)
    duplicates: list[Any] = field(default_factory=list)
    restated: list[JudgedFact] = field(default_factory=list)
    dropped: list[JudgedFact] = field(default_factory=list)


def facts_plan(
    *,
    new: Sequence[JudgedFact],
    current: Sequence[Any],
    stated_at: datetime,
    protected: frozenset[str] = frozenset(),
) -> FactsPlan:
    """Decide what to write, what to copy as superseded and what to delete (no I/O).

    current: the shopper's stored `type: fact` blocks; stated_at: the date the new facts
    speak for (the session's date, else now); protected: ids of facts the shopper was told
    were saved, never deleted as copies (a copy memory kept after its answer was lost may be
    newer than the one acknowledged; recall collapses the two).
    """
    plan = FactsPlan()
    groups: dict[str, list[Any]] = {}
    for block in current:
        groups.setdefault(block_key(block), []).append(block)
    for blocks in groups.values():
        blocks.sort(key=block_time, reverse=True)
    for fact in new:
        resolved = _resolve(fact, groups)
        if resolved is None:
            plan.dropped.append(fact)
            continue
        key = _key(resolved.slot, resolved.text)
        group = groups.get(key, [])
        newest = group[0] if group else None
        if newest is not None and _same_value(resolved.slot, block_slot(newest)):
            plan.restated.append(fact)
            _retire(plan, group[1:], keep=newest, by=newest.block_id)
        elif newest is not None and block_time(newest) > stated_at:
            plan.born_superseded.append((resolved, newest.block_id))
        else:
            plan.store.append(resolved)
            _retire(plan, group, keep=None, by=len(plan.store) - 1)
            if _category_lift(resolved.slot):
                _category_retire(plan, groups, resolved.slot.category, stated_at=stated_at)
        groups[key] = []  # a slot is settled once per turn
    plan.duplicates = [b for b in plan.duplicates if b.block_id not in protected]
    return plan


def _category_lift(slot: FactSlot | None) -> TypeGuard[FactSlot]:
    return slot is not None and slot.slot == f"{slot.category}/{ANY_KEY}"


def _category_retire(
    plan: FactsPlan, groups: dict[str, list[Any]], category: str, *, stated_at: datetime
) -> None:
    """Every older fact of a lifted category stops being current ("any brand is fine" ends
    the liking of Vela and the dislike of Tern alike); a fact newer than the lift stays."""
    for key, blocks in groups.items():
        slot = block_slot(blocks[0]) if blocks else None
        if slot is None or slot.category != category or _category_lift(slot):
            continue
        older = [block for block in blocks if block_time(block) <= stated_at]
        _retire(plan, older, keep=None, by=len(plan.store) - 1)
        groups[key] = [block for block in blocks if block_time(block) > stated_at]


def _resolve(fact: JudgedFact, groups: dict[str, list[Any]]) -> JudgedFact | None:
    """A relative size change made absolute against the slot's current size."""
    if fact.slot is None or not fact.slot.is_relative:
        return fact
    for block in groups.get(_key(fact.slot, fact.text), []):
        base = block_slot(block)
        if base is not None and not base.is_relative:
            value = size_step(base.value, fact.slot.value)
            if value is None:
                return None
            slot = FactSlot(fact.slot.category, fact.slot.slot, value)
            return JudgedFact(size_sentence(slot.slot, value), slot)
    return None


def _retire(plan: FactsPlan, blocks: Iterable[Any], *, keep: Any, by: str | int) -> None:
    """Older blocks of a settled slot: copies of the kept value go, other values become superseded copies.

    Of several old copies of one replaced value only the newest is kept as a superseded copy.
    """
    kept_slot = block_slot(keep) if keep is not None else None
    superseded_values: set[str | None] = set()
    for block in blocks:
        slot = block_slot(block)
        value = slot.value if slot else None
        copy = keep is not None and _same_value(slot, kept_slot)
        if copy or value in superseded_values:
            plan.duplicates.append(block)
        else:
            superseded_values.add(value)
            plan.replaced.append(Replaced(block=block, by=by))


def superseded_annotations(block: Any, *, by: str) -> dict[str, str]:
    """Annotations of the superseded copy of a replaced fact."""
    slot = block_slot(block)
    annotations = {"type": SUPERSEDED, "superseded_by": by, "stated_in": block.session_id}
    if slot is not None:
        annotations |= {"category": slot.category, "slot": slot.slot, "value": slot.value}
    return annotations


def facts_distinct(blocks: Sequence[Any]) -> list[Any]:
    """One block per fact, the newest, in the order the best-ranked of its copies came.

    For recall: the search ranks by relevance, and an old copy may rank above the current
    one; the slot's place comes from the best rank, its text from the newest block.
    """
    newest: dict[str, Any] = {}
    order: list[str] = []
    for block in blocks:
        key = block_key(block)
        if key not in newest:
            order.append(key)
            newest[key] = block
        elif block_time(block) > block_time(newest[key]):
            newest[key] = block
    return [newest[key] for key in order]


def newest_distinct(blocks: Sequence[Any], *, text: Any) -> list[Any]:
    """Drop blocks that say the same as a newer one (by text(block)); order is kept."""
    newest: dict[str, Any] = {}
    for block in blocks:
        key = text_key(text(block))
        if key not in newest or block_time(block) > block_time(newest[key]):
            newest[key] = block
    kept = {id(block) for block in newest.values()}
    return [block for block in blocks if id(block) in kept]
