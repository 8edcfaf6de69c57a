"""What a shopper finds remembered after they change their mind, lift a preference, or say
something that is not a standing fact of theirs.

Each case goes through the judge the memory policy uses (offline model, prompt, screen) and
the consolidation plan over what was stored before, and checks the facts that are current
afterwards: the new value replaces the old one, a lift supersedes what it lifts, and a
one-off, someone else's taste or a sarcastic remark changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from llm.fact_schema import FactSlot
from memoryapp.consolidation import facts_plan
from memoryapp.judge import exchange_judge
from memoryapp.management.commands.judge_facts import (
    exchanges_judge,
    exchanges_read,
    facts_score,
)
from tests.support.memory_blocks import fact

EARLIER = "2026-03-01T10:00:00+00:00"
NOW = datetime(2026, 10, 1, 10, tzinfo=UTC)
CHANGES = Path(__file__).resolve().parent.parent / "data" / "judge_facts_changes.jsonl"


def stored(slot: str, value: str):
    category = slot.split("/", 1)[0]
    block = fact(f"{slot} = {value}", at=EARLIER)
    annotations = {"category": category, "slot": slot, "value": value}
    return block.model_copy(update={"annotations": block.annotations | annotations})


async def current_after(message: str, before: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (slot, value) facts current once `message` is judged and consolidated."""
    blocks = [stored(slot, value) for slot, value in before]
    plan = facts_plan(
        new=await exchange_judge(query=message, answer=""), current=blocks, stated_at=NOW
    )
    retired = {id(r.block) for r in plan.replaced} | {id(b) for b in plan.duplicates}
    kept = {(b.annotations["slot"], b.annotations["value"]) for b in blocks if id(b) not in retired}
    return kept | {(f.slot.slot, f.slot.value) for f in plan.store if isinstance(f.slot, FactSlot)}


@pytest.mark.parametrize(
    ("message", "before", "after"),
    [
        # A switch keeps the new brand as well as the old one given up.
        (
            "I'm switching from Vela to Tern",
            [("brand/vela", "like")],
            {("brand/vela", "dislike"), ("brand/tern", "like")},
        ),
        (
            "I ditched Kestrel for Northwind",
            [("brand/kestrel", "like")],
            {("brand/kestrel", "dislike"), ("brand/northwind", "like")},
        ),
        (
            "Navy instead of black from now on",
            [("colour/black", "like")],
            {("colour/black", "dislike"), ("colour/navy", "like")},
        ),
        (
            "Black was my colour, now it's navy",
            [("colour/black", "like")],
            {("colour/black", "like"), ("colour/navy", "like")},
        ),
        # A correction replaces the size it corrects, in its own slot.
        ("Make it a 38.5, not 38", [("size/shoes", "38")], {("size/shoes", "38.5")}),
        ("I'm a 32 waist, well 33 now", [("size/waist", "32")], {("size/waist", "33")}),
        ("Scratch the budget of 50, it's 70 now", [("budget", "50 EUR")], {("budget", "70 EUR")}),
        ("Please update my shoe size to 43", [("size/shoes", "42")], {("size/shoes", "43")}),
        (
            "Used to be a 38 in shoes. These days a 39.",
            [("size/shoes", "38")],
            {("size/shoes", "39")},
        ),
        (
            "Everything M except coats, which are L",
            [("size/tops", "S")],
            {("size/tops", "M"), ("size/outerwear", "L")},
        ),
        (
            "Jackets in L, everything else S",
            [("size/tops", "M")],
            {("size/outerwear", "L"), ("size/tops", "S")},
        ),
    ],
)
async def test_a_change_leaves_the_new_value_current(message, before, after):
    assert await current_after(message, before) == after


@pytest.mark.parametrize(
    ("message", "before", "after"),
    [
        (
            "You can show me yellow again",
            [("colour/yellow", "dislike")],
            {("colour/yellow", "neutral")},
        ),
        (
            "Polyester is back on the table",
            [("material/polyester", "dislike")],
            {("material/polyester", "neutral")},
        ),
        ("Price isn't an issue any more", [("budget", "50 EUR")], {("budget", "none")}),
        (
            "Brand isn't important to me anymore",
            [("brand/vela", "like")],
            {("brand/any", "neutral")},
        ),
    ],
)
async def test_a_lift_supersedes_what_it_lifts(message, before, after):
    assert await current_after(message, before) == after


async def test_the_usual_figure_said_beside_a_one_off_is_remembered_without_it():
    message = "I never spend more than 50, but this time I'll go to 120"
    assert await current_after(message, []) == {("budget", "50 EUR")}


@pytest.mark.parametrize(
    "message",
    [
        "Just this one time I'll go up to 250",
        "I'm buying for my dad who loves Vela",
        "For my husband: he's an XL and hates yellow",
        "Wow, I just adore scratchy wool, totally",
        "Sure, I'd love to pay 200 for a plain tee",
        "My husband switched from Tern to Vela",
        "In Kestrel I take a 42 because they run big",
        "Love that the only sizes left are XXS, really helpful",
    ],
)
async def test_a_one_off_someone_else_or_irony_changes_nothing(message):
    before = [("budget", "50 EUR"), ("brand/tern", "like"), ("size/tops", "M")]
    assert await current_after(message, before) == set(before)


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Linen only, and under 60", {("material/linen", "like"), ("budget", "60 EUR")}),
        (
            "No logos, no neon, and under 80",
            {("design/logos", "dislike"), ("colour/neon", "dislike"), ("budget", "80 EUR")},
        ),
        ("I prefer a muscle fit", {("design/muscle-fit", "like")}),
        ("I love square necklines", {("design/square-neck", "like")}),
        ("I love raglan sleeves", {("design/raglan-sleeve", "like")}),  # in no lexicon
        ("I have wide feet", {("design/wide-fit", "like")}),
        ("My sister loves Tern but I'm not keen", {("brand/tern", "dislike")}),
        ("I need wide-fit shoes", {("design/wide-fit", "like")}),
        ("I'm a UK 6.5 in shoes", {("size/shoes", "39.5")}),
        ("My shoe size is 9 and a half UK", {("size/shoes", "43.5")}),
    ],
)
async def test_each_item_of_a_list_and_each_style_word_is_remembered(message, facts):
    assert await current_after(message, []) == facts


async def test_the_judge_meets_its_targets_on_the_changes_tuning_set(settings):
    settings.MEMORY_MAX_FACTS_PER_TURN = 5
    with CHANGES.open(encoding="utf-8") as stream:
        rows = exchanges_read(stream)
    assert len(rows) >= 200
    score = facts_score(rows, await exchanges_judge(rows))
    assert score.precision >= 0.97, score
    assert score.recall >= 0.95, score
