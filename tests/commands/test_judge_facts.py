"""judge_facts: one JSON array of judged facts per exchange, bad lines named."""

from __future__ import annotations

import io
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


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
