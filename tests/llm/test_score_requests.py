"""score_requests: the labelled shopper requests, scored by the real offline model."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from assistant.management.commands.score_requests import TUNING, request_score, requests_load
from shop.selectors import catalog_vocabulary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _score(tmp_path, tuning: list[dict], frozen: list[dict], *flags: str) -> str:
    paths = {}
    for name, lines in (("tuning", tuning), ("frozen", frozen)):
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = io.StringIO()
    call_command(
        "score_requests",
        "--tuning",
        paths["tuning"],
        "--frozen",
        paths["frozen"],
        *flags,
        stdout=out,
    )
    return out.getvalue()


def _line(text: str, expect: dict, **rest) -> dict:
    return {"text": text, "page": None, "facts": [], "expect": expect, "style": "catalog", **rest}


UNDERSTOOD = _line("linen shirts", {"category": "shirts", "material": "linen"})
# A filter the line does not name must not be sent: "in M" is lost here on purpose.
MISSED = _line("black jeans in M", {"category": "jeans", "colour": "black"})


def test_the_share_understood_and_each_tuning_miss_are_printed(tmp_path) -> None:
    out = _score(tmp_path, [UNDERSTOOD, MISSED], [])
    assert "tuning: 1/2 fully understood (50.0%)" in out
    assert "MISS 'black jeans in M'" in out and "'size': 'm'" in out
    assert "linen shirts" not in out


def test_the_frozen_set_prints_its_figure_and_no_miss_unless_asked(tmp_path) -> None:
    out = _score(tmp_path, [UNDERSTOOD], [UNDERSTOOD, MISSED])
    assert "frozen: 1/2 fully understood (50.0%)" in out
    assert "black jeans" not in out
    shown = _score(tmp_path, [UNDERSTOOD], [MISSED], "--show-frozen-misses")
    assert "MISS 'black jeans in M'" in shown


def test_facts_and_the_page_reach_the_model_as_the_pipeline_gives_them(tmp_path) -> None:
    lines = [
        _line("t-shirts", {"category": "t-shirts", "brand": "Vela"}, facts=["brand/vela=like"]),
        _line("something similar", {"category": "jackets"}, page="JK-0090"),
        _line("boots", {"category": "boots", "size": "42"}, facts=["size/shoes=42"]),
    ]
    assert "tuning: 3/3 fully understood" in _score(tmp_path, lines, [])


def test_a_bad_line_is_refused_with_where_it_is(tmp_path) -> None:
    with pytest.raises(CommandError, match=r"tuning\.jsonl:1: unscored keys"):
        _score(tmp_path, [_line("jeans", {"category": "jeans", "query": "x"})], [])


def test_the_tuning_set_is_large_a_third_everyday_and_understood_at_95_percent() -> None:
    lines = requests_load(TUNING)
    assert len(lines) >= 200
    assert sum(line["style"] == "everyday" for line in lines) * 3 >= len(lines)
    vocabulary = catalog_vocabulary()
    understood = sum(request_score(line, vocabulary=vocabulary).understood for line in lines)
    assert understood / len(lines) >= 0.95
