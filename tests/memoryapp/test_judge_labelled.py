"""The fact judge (offline model, through the prompt and validation) on the labelled set.

tests/data/judge_facts.jsonl: everyday shopper messages, each with the (slot, value) facts
it states; over a third state none (questions, searches, other people, small talk,
entitlement claims). The same figures come from
`manage.py judge_facts --jsonl tests/data/judge_facts.jsonl --score` (docs/benchmarks.md).
"""

from __future__ import annotations

import re
from pathlib import Path

from memoryapp.management.commands.judge_facts import (
    exchanges_judge,
    exchanges_read,
    facts_score,
)

LABELLED = Path(__file__).resolve().parent.parent / "data" / "judge_facts.jsonl"


async def test_the_judge_meets_its_targets_on_the_labelled_set(settings):
    settings.MEMORY_MAX_FACTS_PER_TURN = 5
    with LABELLED.open(encoding="utf-8") as stream:
        rows = exchanges_read(stream)
    assert len(rows) >= 200 and sum(1 for row in rows if not row.expected) * 3 >= len(rows)
    score = facts_score(rows, await exchanges_judge(rows))
    assert score.precision >= 0.97, score
    assert score.recall >= 0.90, score


_ASKS = re.compile(
    r"\?\s*$|^(?:show|find|give|get)\s+me\b|^(?:can|could|would)\s+you\b|\bdo you have\b|"
    r"\b(?:i'm|i am)\s+(?:looking|after)\b|\bi(?:'d| would)\s+like\b",
    re.IGNORECASE,
)


async def test_questions_and_searches_in_the_labelled_set_state_nothing(settings):
    settings.MEMORY_MAX_FACTS_PER_TURN = 5
    with LABELLED.open(encoding="utf-8") as stream:
        asks = [
            row for row in exchanges_read(stream) if not row.expected and _ASKS.search(row.query)
        ]
    assert len(asks) >= 50
    judged = await exchanges_judge(asks)
    stated = {
        row.query: [fact.text for fact in facts]
        for row, facts in zip(asks, judged, strict=True)
        if facts
    }
    assert stated == {}
