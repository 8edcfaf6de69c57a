"""judge_facts: one JSON array of judged facts per exchange, bad lines named."""

from __future__ import annotations

import io
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memoryapp.management.commands import judge_facts


def judge(*args: str) -> list[list[str]]:
    out = StringIO()
    call_command("judge_facts", *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def lines(*rows) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n"


def test_each_exchange_gets_its_facts_in_order(tmp_path):
    path = tmp_path / "exchanges.jsonl"
    path.write_text(
        lines(
            {"query": "I'm a size M and I hate yellow, show me jeans", "answer": "Here are jeans."},
            "",
            {"query": "do you have jeans under 50 EUR?", "answer": "Yes."},
            {"query": "My shoe size is 44 and my budget is 120 EUR", "answer": "Noted."},
        )
    )
    assert judge("--jsonl", str(path)) == [
        ["The shopper wears size M.", "The shopper dislikes yellow."],
        [],  # a question states no budget
        ["The shopper wears shoe size 44.", "The shopper's budget is up to 120 EUR."],
    ]


def test_dash_reads_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(lines({"query": "I wear size L"})))
    assert judge("--jsonl", "-") == [["The shopper wears size L."]]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["query"]', "line 2: expected an object"),
        ('{"answer": "x"}', 'line 2: "query" must be a non-blank string'),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_printed(tmp_path, bad, message):
    path = tmp_path / "exchanges.jsonl"
    path.write_text(lines({"query": "I wear size S", "answer": "ok"}, bad))
    out = StringIO()
    with pytest.raises(CommandError, match=message):
        call_command("judge_facts", "--jsonl", str(path), stdout=out)
    assert out.getvalue() == ""


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("judge_facts", "--jsonl", str(tmp_path / "nope.jsonl"))


def test_slots_prints_category_slot_and_value(tmp_path):
    path = tmp_path / "exchanges.jsonl"
    path.write_text(lines({"query": "not a fan of orange, I'm a 32 waist"}))
    assert judge("--jsonl", str(path), "--slots") == [
        [
            {
                "fact": "The shopper dislikes orange.",
                "category": "colour",
                "slot": "colour/orange",
                "value": "dislike",
            },
            {
                "fact": "The shopper's waist size is 32.",
                "category": "size",
                "slot": "size/waist",
                "value": "32",
            },
        ]
    ]


def test_score_reports_precision_and_recall_over_slots(tmp_path):
    path = tmp_path / "labelled.jsonl"
    path.write_text(
        lines(
            # Right: the brand; missed: nothing else expected.
            {
                "query": "Nike is my go-to brand",
                "expected": [{"slot": "brand/nike", "value": "like"}],
            },
            # A question states nothing, and nothing is expected.
            {"query": "do you have jeans under 50 EUR?", "expected": []},
            # Expected a budget the judge cannot read: one miss.
            {
                "query": "Around 200 is what I had in mind",
                "expected": [{"slot": "budget", "value": "200 EUR"}],
            },
            # The label says M, the judge reads L: one wrong fact and one miss.
            {"query": "I'm an L", "expected": [{"slot": "size/tops", "value": "M"}]},
        )
    )
    out = StringIO()
    call_command("judge_facts", "--jsonl", str(path), "--score", stdout=out, verbosity=2)
    text = out.getvalue()
    assert "4 utterances (1 without facts); 3 facts expected, 2 judged, 1 correct" in text
    assert "precision 0.500, recall 0.333" in text
    assert "line 3: 'Around 200 is what I had in mind'" in text
    assert "line 4: \"I'm an L\"\n  missed [('size/tops', 'M')]; wrong [('size/tops', 'L')]" in text
    assert "line 1:" not in text and "line 2:" not in text


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"query": "I wear M"}', 'needs "expected" on every line; line 2 has none'),
        ('{"query": "I wear M", "expected": {"slot": "size/tops"}}', 'line 2: "expected" must be'),
        ('{"query": "I wear M", "expected": [{"slot": "size/tops", "value": 5}]}', "line 2:"),
    ],
)
def test_score_needs_well_formed_labels(tmp_path, bad, message):
    path = tmp_path / "labelled.jsonl"
    path.write_text(lines({"query": "I wear S", "expected": []}, bad))
    with pytest.raises(CommandError, match=message):
        call_command("judge_facts", "--jsonl", str(path), "--score", stdout=StringIO())


def _parts(tmp_path, monkeypatch, *, tuning, evaluation, second=None):
    (tmp_path / "tests" / "data").mkdir(parents=True)
    monkeypatch.setattr(judge_facts, "DATA", tmp_path / "tests" / "data")
    for name, rows in (("TUNING", tuning), ("EVALUATION", evaluation), ("EVALUATION_2", second)):
        path = tmp_path / "tests" / "data" / f"{name.lower()}.jsonl"
        if rows is not None:
            path.write_text(lines(*rows))
        monkeypatch.setattr(judge_facts, name, path)
    monkeypatch.setattr(judge_facts, "TUNING_LATER", ())


def test_a_second_evaluation_part_is_scored_apart_with_its_own_gap(tmp_path, monkeypatch):
    _parts(
        tmp_path,
        monkeypatch,
        tuning=[{"query": "I'm an M", "expected": [{"slot": "size/tops", "value": "M"}]}],
        evaluation=[{"query": "I'm an L", "expected": [{"slot": "size/tops", "value": "L"}]}],
        second=[
            {"query": "Hiya", "expected": [{"slot": "colour/red", "value": "like"}], "kind": "c"}
        ],
    )
    out = StringIO()
    call_command("judge_facts", "--score", stdout=out, verbosity=2)
    text = out.getvalue()
    second = text.split("second evaluation part")[1]
    assert "1 facts expected, 0 judged, 0 correct" in second and "recall 0.000" in second
    assert "  c: 1, 1 / 0 / 0" in second
    assert "gap (evaluation - tuning): precision +0.000, recall +0.000" in text
    assert "gap (second evaluation - tuning): precision +0.000, recall -1.000" in text
    assert "Hiya" not in text


def test_score_with_no_file_reports_both_parts_apart_and_the_gap(tmp_path, monkeypatch):
    _parts(
        tmp_path,
        monkeypatch,
        tuning=[{"query": "I'm an M", "expected": [{"slot": "size/tops", "value": "M"}]}],
        evaluation=[
            {"query": "I'm an L", "expected": [{"slot": "size/tops", "value": "L"}], "kind": "a"},
            {"query": "Hello", "expected": [{"slot": "size/tops", "value": "S"}], "kind": "b"},
        ],
    )
    out = StringIO()
    call_command("judge_facts", "--score", stdout=out, verbosity=2)
    text = out.getvalue()
    tuning, evaluation = text.split("evaluation part")
    assert "tuning part (tests/data/tuning.jsonl)" in tuning
    assert "precision 1.000, recall 1.000" in tuning
    assert "2 facts expected, 1 judged, 1 correct" in evaluation
    assert "precision 1.000, recall 0.500" in evaluation
    assert "  a: 1, 1 / 1 / 1" in evaluation and "  b: 1, 1 / 0 / 0" in evaluation
    assert "gap (evaluation - tuning): precision +0.000, recall -0.500" in text
    # The evaluation part is never listed line by line, even at -v 2.
    assert "Hello" not in text and "line 2" not in text


def test_the_later_tuning_sets_are_scored_in_the_tuning_part_and_listed_by_file(
    tmp_path, monkeypatch
):
    _parts(
        tmp_path,
        monkeypatch,
        tuning=[{"query": "I'm an M", "expected": [{"slot": "size/tops", "value": "M"}]}],
        evaluation=[{"query": "I'm an L", "expected": []}],
    )
    later = tmp_path / "tests" / "data" / "more.jsonl"
    later.write_text(lines({"query": "Hiya", "expected": [{"slot": "size/tops", "value": "S"}]}))
    monkeypatch.setattr(judge_facts, "TUNING_LATER", (later, tmp_path / "missing.jsonl"))
    out = StringIO()
    call_command("judge_facts", "--score", stdout=out, verbosity=2)
    tuning = out.getvalue().split("evaluation part")[0]
    assert "tuning part (tests/data/tuning.jsonl + tests/data/more.jsonl)" in tuning
    assert "2 facts expected, 1 judged, 1 correct" in tuning
    assert "  more.jsonl: 1 utterances, precision 1.000, recall 0.000" in tuning
    assert "more.jsonl line 1: 'Hiya'" in tuning


def test_the_evaluation_file_is_never_listed_line_by_line(tmp_path, monkeypatch):
    _parts(
        tmp_path,
        monkeypatch,
        tuning=[{"query": "I'm an M", "expected": []}],
        evaluation=[{"query": "I'm an L", "expected": []}],
    )
    out = StringIO()
    call_command(
        "judge_facts", "--jsonl", str(judge_facts.EVALUATION), "--score", stdout=out, verbosity=2
    )
    assert "1 judged, 0 correct" in out.getvalue() and "I'm an L" not in out.getvalue()


def test_without_a_file_only_score_may_run(tmp_path):
    with pytest.raises(CommandError, match="--jsonl FILE is needed"):
        call_command("judge_facts", stdout=StringIO())
