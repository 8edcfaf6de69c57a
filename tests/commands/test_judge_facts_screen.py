"""judge_facts --score also says what the local screen in front of a hosted judge costs."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command


def test_score_reports_the_share_of_turns_that_call_the_judge_and_the_recall_kept(tmp_path):
    rows = [
        {"query": "Nike is my go-to brand", "expected": [{"slot": "brand/nike", "value": "like"}]},
        {"query": "I'm a size M", "expected": [{"slot": "size/tops", "value": "M"}]},
        # A search of no one's: the screen holds it back, and it states nothing.
        {"query": "do you have jeans under 50 EUR?", "expected": []},
        {"query": "thanks, bye", "expected": []},
    ]
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = StringIO()
    call_command("judge_facts", "--jsonl", str(path), "--score", stdout=out)
    assert (
        "local screen: the judge is called on 2 of 4 turns (50.0%); recall 1.000 with it; "
        "0 of 2 expected facts are on lines it holds back"
    ) in out.getvalue()


def test_a_fact_on_a_line_the_screen_holds_back_counts_as_lost(tmp_path):
    # Labelled as a budget, though it reads as a question of no one's: the screen skips it.
    rows = [
        {
            "query": "do you have jeans under 50 EUR?",
            "expected": [{"slot": "budget", "value": "50 EUR"}],
        },
        {"query": "I'm a size M", "expected": [{"slot": "size/tops", "value": "M"}]},
    ]
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = StringIO()
    call_command("judge_facts", "--jsonl", str(path), "--score", stdout=out)
    assert "called on 1 of 2 turns (50.0%); recall 0.500 with it; 1 of 2 expected" in (
        out.getvalue()
    )
