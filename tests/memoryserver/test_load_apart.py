"""A large user's index loaded in the loader process: the same index, and a fallback."""

from __future__ import annotations

import logging
import pickle
import random

import numpy as np
import pytest

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.embedders import get_embedder
from memoryserver.index import apart
from memoryserver.index.lexical import LexicalIndex
from memoryserver.index.registry import get_registry
from memoryserver.index.rows import Query
from memoryserver.services.blocks import NewBlock
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

# The loader reads what is committed, on its own connection: these tests commit.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])

COLUMNS = ("vectors", "alive", "pks", "sessions", "ingested", "created", "expires", "status")


@pytest.fixture
def stocked():
    user_stocked("large", ("a", "b"), name="L")
    for n in range(12):
        blocks_stocked(
            "large",
            "ab"[n % 2],
            [
                f"The shopper wears size {n} boots.",
                NewBlock(user_content=f"black jeans {n}?", assistant_content="Here you are."),
            ],
            annotations=[None, {"type": "fact"}, {"type": "turn"}][n % 3],
        )
    yield "large"
    get_registry().clear()


def _here(user_id: str):
    return selectors.user_index_read(user_id, now=clock.now(), width=get_embedder().dimensions)


def _assert_same(loaded, expected) -> None:
    assert loaded.size == expected.size == 24
    assert loaded.positions == expected.positions and loaded.ids == expected.ids
    assert loaded.annotations == expected.annotations
    assert loaded.session_codes == expected.session_codes
    for name in COLUMNS:
        assert np.array_equal(getattr(loaded, name), getattr(expected, name), equal_nan=True)
    query = Query(
        now=clock.now().timestamp(),
        vector=get_embedder().embed_query("black boots size 3"),
        terms=["black", "boot", "size", "3"],
    )
    assert loaded.search(query) == expected.search(query)
    # The lexical index goes on like one built here: a block changes its text, one goes.
    for index in (loaded, expected):
        index.set_fields(index.ids[0], text="linen shirt")
        index.remove([index.ids[1]])
    assert loaded.lexical.scores(["linen", "boot"], 24)[0].tolist() == (
        expected.lexical.scores(["linen", "boot"], 24)[0].tolist()
    )


def test_a_user_past_the_threshold_loads_in_the_loader_process(
    stocked, settings, monkeypatch, caplog
):
    settings.AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS = 20
    apart_loads = []
    real = apart.loaded_apart

    def spied(*args, **kwargs):
        apart_loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "loaded_apart", spied)
    with caplog.at_level(logging.WARNING, logger="memoryserver.selectors"):
        _assert_same(selectors.load_user_index(stocked), _here(stocked))
    assert apart_loads == [(stocked,)]
    # Taken in from the loader, not loaded here after a failure.
    assert not any("apart failed" in r.getMessage() for r in caplog.records)


def test_a_user_under_the_threshold_loads_here(stocked, settings, monkeypatch):
    settings.AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS = 25
    monkeypatch.setattr(selectors, "loaded_apart", lambda *a, **k: pytest.fail("loaded apart"))
    _assert_same(selectors.load_user_index(stocked), _here(stocked))
    settings.AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS = 0  # never apart
    _assert_same(selectors.load_user_index(stocked), _here(stocked))


def test_a_failing_loader_costs_a_warning_and_the_load_happens_here(
    stocked, settings, monkeypatch, caplog
):
    settings.AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS = 20
    monkeypatch.setattr(apart, "LOADER_MODULE", "memoryserver.no_such_loader")
    with caplog.at_level(logging.WARNING, logger="memoryserver.selectors"):
        loaded = selectors.load_user_index(stocked)
    _assert_same(loaded, _here(stocked))
    assert any("apart failed" in r.getMessage() for r in caplog.records)


def _handed_over(index: LexicalIndex) -> LexicalIndex:
    """What the serving process takes in: every part through pickle, as from the loader."""
    taken = LexicalIndex()
    for name, value in index.parts():
        taken.take_part(name, pickle.loads(pickle.dumps(value, protocol=5)))
    return taken


def _built_block_by_block(texts: list[str]) -> LexicalIndex:
    index = LexicalIndex()
    for position, text in enumerate(texts):
        index.set(position, text)
    return index


@pytest.mark.parametrize("loaded", [False, True], ids=["set-one-by-one", "loaded-whole"])
def test_a_lexical_index_handed_over_goes_on_like_one_built_block_by_block(loaded):
    words = [f"w{n}" for n in range(40)] + ["the", "and"]  # stop words: some texts hold none
    rng = random.Random(7)

    def text() -> str:
        # A rare word too, most often held by one document: its term goes and comes back.
        rare = f"r{rng.randrange(3000)}"
        return " ".join([*(rng.choice(words) for _ in range(rng.randint(1, 6))), rare])

    texts = [text() for _ in range(1500)]
    reference = _built_block_by_block(texts)
    index = LexicalIndex.from_texts(texts) if loaded else _built_block_by_block(texts)
    queries = [[w] for w in words] + [["w1", "w2", "w3"], ["w7", "nothing"]]
    queries += [[f"r{n}"] for n in range(0, 3000, 7)]

    def assert_same() -> None:
        for query in queries:
            expected, expected_idf = reference.scores(query, 1500)
            for got_index in (index, taken):
                got, got_idf = got_index.scores(query, 1500)
                assert got.tolist() == expected.tolist() and got_idf == expected_idf

    taken = _handed_over(index)
    assert_same()
    # The same edits on all three: new texts on packed documents' positions, terms gone and back,
    # a compaction, a second hand-over of an edited index, and enough retired documents that
    # both rebuild their postings.
    for step in range(2500):
        position = rng.randrange(1500)
        if step % 4 == 0:
            for edited in (reference, index, taken):
                edited.drop(position)
        else:
            new = text()
            for edited in (reference, index, taken):
                edited.set(position, new)
        if step == 600:
            taken = _handed_over(taken)
        if step == 1200:
            moved = {p: 1499 - p for p in range(1500)}
            for edited in (reference, index, taken):
                edited.move(moved)
        if step % 500 == 0:
            assert_same()
    assert_same()
    # Both rebuilt: every term now has postings of its own.
    assert index._packed.documents == taken._packed.documents == 0
