"""Fact consolidation as pure planning: one current fact per slot, restatements stored once.

The live tests (test_consolidation_live.py) drive the same rules through the SDK and the
embedded server; these pin each decision of `facts_plan` and the recall collapse directly.
"""

from __future__ import annotations

from datetime import UTC, datetime

from llm.fact_schema import FactSlot, restatement_key
from memoryapp.blocks import SUPERSEDED
from memoryapp.consolidation import (
    block_key,
    block_slot,
    facts_distinct,
    facts_plan,
    newest_distinct,
    superseded_annotations,
    text_key,
)
from memoryapp.judge import JudgedFact
from tests.support.memory_blocks import fact, turn

SPRING = "2026-03-01T10:00:00+00:00"
SUMMER = "2026-06-01T10:00:00+00:00"
AUTUMN = "2026-09-01T10:00:00+00:00"
NOW = datetime(2026, 10, 1, 10, tzinfo=UTC)


def stored(text: str, *, at: str, session: str = "session1", slot: FactSlot | None = None):
    """A stored fact; with slot, annotated as the judge files it, else a bare sentence."""
    block = fact(text, at=at, session=session)
    if slot is None:
        return block
    slotted = {"category": slot.category, "slot": slot.slot, "value": slot.value}
    return block.model_copy(update={"annotations": block.annotations | slotted})


def size(value: str) -> FactSlot:
    return FactSlot("size", "size/tops", value)


def said(value: str) -> JudgedFact:
    return JudgedFact(f"The shopper wears size {value}.", size(value))


# --- one current fact per slot ------------------------------------------------------------


def test_a_restatement_stores_nothing_and_keeps_the_first_statement():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    plan = facts_plan(new=[said("M")], current=[m], stated_at=NOW)
    assert plan.store == [] and plan.restated == [said("M")]
    assert plan.replaced == [] and plan.duplicates == [] and plan.born_superseded == []


def test_a_new_value_is_stored_and_the_old_one_becomes_history_of_it():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    plan = facts_plan(new=[said("L")], current=[m], stated_at=NOW)
    assert plan.store == [said("L")] and plan.restated == []
    assert [(r.block, r.by) for r in plan.replaced] == [(m, 0)]
    assert plan.duplicates == []


def test_the_replaced_fact_points_at_its_own_replacement_among_several_stored():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    tight = stored("The shopper is on a tight budget.", at=SPRING)
    hundred = JudgedFact(
        "The shopper's budget is up to 100 EUR.", FactSlot("budget", "budget", "100 EUR")
    )
    plan = facts_plan(new=[hundred, said("L")], current=[m, tight], stated_at=NOW)
    assert plan.store == [hundred, said("L")]
    assert {r.block.block_id: r.by for r in plan.replaced} == {tight.block_id: 0, m.block_id: 1}


def test_the_newest_stored_value_decides_whatever_order_the_search_returned():
    # M in spring, L in summer: L is current, so saying L again is a restatement and the
    # older M (still stored, from before consolidation) becomes history of the L block.
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    l_ = stored("The shopper wears size L.", at=SUMMER, slot=size("L"))
    plan = facts_plan(new=[said("L")], current=[m, l_], stated_at=NOW)
    assert plan.store == [] and plan.restated == [said("L")]
    assert [(r.block, r.by) for r in plan.replaced] == [(m, l_.block_id)]
    # Saying M again is a change back: stored, and L becomes history.
    back = facts_plan(new=[said("M")], current=[m, l_], stated_at=NOW)
    assert back.store == [said("M")] and back.restated == []
    assert {r.block.block_id for r in back.replaced} == {m.block_id, l_.block_id}


def test_older_copies_of_the_kept_value_are_deleted_without_history():
    first = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    copy = stored("The shopper wears size M.", at=SUMMER, session="session2", slot=size("M"))
    plan = facts_plan(new=[said("M")], current=[first, copy], stated_at=NOW)
    assert plan.restated == [said("M")]
    assert plan.duplicates == [first] and plan.replaced == []


def test_of_several_copies_of_a_replaced_value_only_the_newest_becomes_history():
    old = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    newer = stored("The shopper wears size M.", at=SUMMER, session="session2", slot=size("M"))
    plan = facts_plan(new=[said("L")], current=[old, newer], stated_at=NOW)
    assert plan.store == [said("L")]
    assert [r.block for r in plan.replaced] == [newer]
    assert plan.duplicates == [old]


def test_a_fact_older_than_the_current_one_goes_straight_into_history():
    # A session dated in spring says M after a summer visit said L: L stays current.
    l_ = stored("The shopper wears size L.", at=SUMMER, slot=size("L"))
    spring = datetime.fromisoformat(SPRING)
    plan = facts_plan(new=[said("M")], current=[l_], stated_at=spring)
    assert plan.store == [] and plan.replaced == []
    assert plan.born_superseded == [(said("M"), l_.block_id)]
    # Stated at the very moment of the current fact it is not older: it replaces it.
    same_time = facts_plan(new=[said("M")], current=[l_], stated_at=datetime.fromisoformat(SUMMER))
    assert same_time.store == [said("M")] and same_time.born_superseded == []


def test_a_slot_is_settled_once_per_turn():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    plan = facts_plan(new=[said("L"), said("XL")], current=[m], stated_at=NOW)
    assert plan.store == [said("L"), said("XL")]
    assert [(r.block, r.by) for r in plan.replaced] == [(m, 0)]


def test_facts_without_a_slot_are_keyed_by_their_text():
    vegan = stored("The shopper only buys vegan leather.", at=SPRING)
    plan = facts_plan(
        new=[JudgedFact("the shopper only buys  vegan leather")], current=[vegan], stated_at=NOW
    )
    assert plan.store == [] and len(plan.restated) == 1
    other = facts_plan(
        new=[JudgedFact("The shopper loves linen shirts.")], current=[vegan], stated_at=NOW
    )
    assert [f.text for f in other.store] == ["The shopper loves linen shirts."]
    assert other.replaced == []  # another text is another fact, not a correction


# --- relative size changes ----------------------------------------------------------------


def test_a_size_up_is_applied_to_the_current_size():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    up = JudgedFact("The shopper went up a size.", size("+1"))
    plan = facts_plan(new=[up], current=[m], stated_at=NOW)
    assert plan.store == [JudgedFact("The shopper wears size L.", size("L"))]
    assert [(r.block, r.by) for r in plan.replaced] == [(m, 0)]


def test_a_size_change_applies_to_the_newest_size_of_its_slot():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    l_ = stored("The shopper wears size L.", at=SUMMER, slot=size("L"))
    down = JudgedFact("The shopper went down a size.", size("-1"))
    plan = facts_plan(new=[down], current=[m, l_], stated_at=NOW)
    # L (the newest) minus one is M, not the spring M minus one.
    assert plan.store == [JudgedFact("The shopper wears size M.", size("M"))]
    assert l_ in [r.block for r in plan.replaced]


def test_a_size_change_with_nothing_to_change_or_past_the_last_size_is_dropped():
    up = JudgedFact("The shopper went up a size.", size("+1"))
    assert facts_plan(new=[up], current=[], stated_at=NOW).dropped == [up]
    xxxl = stored("The shopper wears size XXXL.", at=SPRING, slot=size("XXXL"))
    plan = facts_plan(new=[up], current=[xxxl], stated_at=NOW)
    assert plan.dropped == [up] and plan.store == [] and plan.replaced == []
    shoes = stored("The shopper wears shoe size 42.", at=SPRING)
    assert facts_plan(new=[up], current=[shoes], stated_at=NOW).dropped == [up]


# --- how a stored fact finds its slot -----------------------------------------------------


def test_a_stored_fact_takes_its_slot_from_annotations_else_from_its_sentence():
    annotated = stored("Wears M, she said.", at=SPRING, slot=size("M"))
    assert block_slot(annotated) == size("M")
    bare = stored("The shopper wears shoe size 42.", at=SPRING)
    assert block_slot(bare) == FactSlot("size", "size/shoes", "42")
    broken = stored("The shopper wears size L.", at=SPRING)
    broken.annotations |= {"category": "size", "slot": "size/tops", "value": "enormous"}
    assert block_slot(broken) == size("L")
    assert block_slot(stored("The shopper likes a chat.", at=SPRING)) is None
    assert block_key(annotated) == block_key(stored("The shopper wears size XL.", at=SPRING))


def test_text_keys_ignore_case_spacing_and_a_final_full_stop_only():
    assert text_key("The shopper  loves Linen.") == text_key(" the shopper loves linen")
    assert text_key("The shopper loves linen") != text_key("The shopper loves silk")


def test_a_history_copy_says_what_replaced_it_and_where_it_was_stated():
    m = stored("The shopper wears size M.", at=SPRING, session="session3", slot=size("M"))
    assert superseded_annotations(m, by="f99") == {
        "type": SUPERSEDED,
        "superseded_by": "f99",
        "stated_in": "session3",
        "category": "size",
        "slot": "size/tops",
        "value": "M",
    }
    bare = stored("The shopper loves linen.", at=SPRING, session="session2")
    assert superseded_annotations(bare, by="f98") == {
        "type": "superseded_fact",
        "superseded_by": "f98",
        "stated_in": "session2",
    }


# --- recall collapses copies --------------------------------------------------------------


def test_recall_keeps_one_block_per_fact_the_newest_in_the_best_ranked_place():
    l_ = stored("The shopper wears size L.", at=SUMMER, slot=size("L"))
    linen = stored("The shopper loves linen.", at=SPRING)
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    xl = stored("The shopper wears size XL.", at=AUTUMN, slot=size("XL"))
    assert facts_distinct([m, linen, l_, xl]) == [xl, linen]
    assert facts_distinct([l_, linen, m]) == [l_, linen]


def test_earlier_visits_saying_the_same_keep_only_the_newest_in_place():
    old = turn("jeans?", "Here are jeans.", at=SPRING, session="session1")
    other = turn("boots?", "Here are boots.", at=SUMMER, session="session2")
    new = turn("jeans?", "Here are jeans.", at=AUTUMN, session="session3")
    text = lambda b: b.message.user_content  # noqa: E731
    assert newest_distinct([old, other, new], text=text) == [other, new]
    assert newest_distinct([new, other, old], text=text) == [new, other]


def test_a_size_change_nobody_could_resolve_does_not_cost_the_turns_other_facts():
    up = JudgedFact("The shopper went up a size.", size("+1"))
    plan = facts_plan(new=[up, said("L")], current=[], stated_at=NOW)
    assert plan.dropped == [up] and plan.store == [said("L")]


def test_a_size_change_skips_an_unresolved_change_stored_before_it():
    m = stored("The shopper wears size M.", at=SPRING, slot=size("M"))
    change = stored("The shopper went up a size.", at=SUMMER, slot=size("+1"))
    up = JudgedFact("The shopper went up a size.", size("+1"))
    plan = facts_plan(new=[up], current=[m, change], stated_at=NOW)
    assert plan.store == [JudgedFact("The shopper wears size L.", size("L"))]


def test_older_copies_of_a_restated_sentence_without_a_slot_are_deleted():
    first = stored("The shopper only buys vegan leather.", at=SPRING)
    copy = stored("The shopper only buys vegan leather.", at=SUMMER, session="session2")
    plan = facts_plan(
        new=[JudgedFact("The shopper only buys vegan leather.")],
        current=[first, copy],
        stated_at=NOW,
    )
    assert len(plan.restated) == 1 and plan.duplicates == [first] and plan.replaced == []


def test_a_restatement_is_one_rule_for_the_judge_and_for_consolidation():
    said, again = "The shopper  wears size M.", "the shopper wears size m"
    assert restatement_key(said) == restatement_key(again)
    assert text_key(said) == text_key(again)
    assert restatement_key("The shopper wears size L.") != restatement_key(again)


# --- lifts: a preference set aside replaces it ----------------------------------------------


def _pref(category: str, key: str, value: str) -> FactSlot:
    return FactSlot(category, f"{category}/{key}", value)


def test_a_lifted_colour_replaces_the_older_dislike():
    dislike = stored(
        "The shopper dislikes yellow.", at=SPRING, slot=_pref("colour", "yellow", "dislike")
    )
    lift = JudgedFact("The shopper no longer minds yellow.", _pref("colour", "yellow", "neutral"))
    plan = facts_plan(new=[lift], current=[dislike], stated_at=NOW)
    assert plan.store == [lift]
    assert [(r.block, r.by) for r in plan.replaced] == [(dislike, 0)]


def test_any_brand_replaces_every_older_brand_fact_and_nothing_else():
    vela = stored(
        "The shopper prefers the brand Vela.", at=SPRING, slot=_pref("brand", "vela", "like")
    )
    tern = stored(
        "The shopper dislikes the brand Tern.", at=SUMMER, slot=_pref("brand", "tern", "dislike")
    )
    red = stored("The shopper likes red.", at=SUMMER, slot=_pref("colour", "red", "like"))
    lift = JudgedFact("The shopper does not mind which brand.", _pref("brand", "any", "neutral"))
    plan = facts_plan(new=[lift], current=[vela, tern, red], stated_at=NOW)
    assert plan.store == [lift]
    assert {r.block.fact for r in plan.replaced} == {vela.fact, tern.fact}
    assert all(r.by == 0 for r in plan.replaced)


def test_a_brand_fact_newer_than_the_lift_stays_current():
    # A visit dated in the past lifts brands; what the shopper said since still holds.
    vela = stored(
        "The shopper prefers the brand Vela.", at=AUTUMN, slot=_pref("brand", "vela", "like")
    )
    lift = JudgedFact("The shopper does not mind which brand.", _pref("brand", "any", "neutral"))
    plan = facts_plan(new=[lift], current=[vela], stated_at=datetime(2026, 7, 1, tzinfo=UTC))
    assert plan.store == [lift] and plan.replaced == []


def test_no_budget_replaces_the_budget():
    budget = stored(
        "The shopper's budget is up to 80 EUR.",
        at=SPRING,
        slot=FactSlot("budget", "budget", "80 EUR"),
    )
    lift = JudgedFact(
        "The shopper has no budget limit any more.", FactSlot("budget", "budget", "none")
    )
    plan = facts_plan(new=[lift], current=[budget], stated_at=NOW)
    assert plan.store == [lift] and [r.block for r in plan.replaced] == [budget]
