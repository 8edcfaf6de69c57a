"""Recall by context and by date: a reply found by its question's words, a dated question
preferring blocks of its month, and the context kept in step with every kind of write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.index import feedback
from memoryserver.index.registry import get_registry
from memoryserver.index.when import MONTHS
from memoryserver.services.blocks import blocks_delete
from memoryserver.services.sessions import session_delete, session_end
from memoryserver.services.ttl import blocks_expired_sweep
from tests.support.memoryserver_stock import block_text_set, blocks_stocked, user_stocked

DB = ["default", "agentmemory"]
MODES = ("dense", "lexical", "hybrid")
QUESTION = "Which colour did you pick for the sofa in the end?"
REPLY = "Teal velvet, it arrives on Friday."


def _found(user: str, query: str, settings, mode: str, k: int = 10) -> list[str]:
    settings.AGENT_MEMORY_SEARCH_MODE = mode
    hits = selectors.blocks_search(
        user_id=user,
        session_id="s1",
        query=query,
        filters={"session_ids": "all", "relevant_k": k},
    )
    assert all(0.0 <= b["rel_score"] <= 1.0 for b in hits), hits
    return [b["block_id"] for b in hits]


@pytest.fixture
def talker(db):
    get_registry().clear()
    yield user_stocked("context-user", ("s1", "s2"), name="C")
    get_registry().clear()
    clock.reset()


def _chat(user: str, session: str, lines: list[str], start: datetime) -> list[str]:
    """Each line one block, a minute apart from `start`."""
    ids = []
    for n, line in enumerate(lines):
        ids += blocks_stocked(user, session, [line], created_at=start + timedelta(minutes=n))
    return ids


SMALL_TALK = [
    "How was your weekend?",
    "Quiet, mostly laundry.",
    "The weather has been so strange lately.",
    "Sun one hour and hail the next.",
    "We should get dinner soon.",
]


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_reply_is_found_by_the_words_of_the_question_it_answers(talker, settings, mode):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    ids = _chat(talker, "s1", [*SMALL_TALK[:2], QUESTION, REPLY, *SMALL_TALK[2:]], start)
    question, reply = ids[2], ids[3]
    # The reply shares no word with what is asked; the question it answered does.
    found = _found(talker, "What colour is the new sofa?", settings, mode, k=3)
    assert found[:2] == [question, reply]
    # Only the block *before* lends its words: the small talk after the reply gains nothing.
    assert ids[4] not in found


@pytest.mark.django_db(databases=DB)
def test_the_block_after_a_reply_gains_nothing_from_the_replys_feedback_words(
    talker, settings, monkeypatch
):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    ids = _chat(talker, "s1", [*SMALL_TALK[:2], QUESTION, REPLY, *SMALL_TALK[2:]], start)
    reply, after = ids[3], ids[4]

    def scores() -> dict[str, float]:
        settings.AGENT_MEMORY_SEARCH_MODE = "hybrid"
        hits = selectors.blocks_search(
            user_id=talker,
            session_id="s1",
            query="What colour is the new sofa?",
            filters={"session_ids": "all", "relevant_k": 50},
        )
        return {b["block_id"]: b["rel_score"] for b in hits}

    with_feedback = scores()
    monkeypatch.setattr(feedback, "DEPTH", 0)
    without = scores()
    # The reply, a top hit, matches its own rare words ("teal", "velvet"), which feedback
    # adds to the query; the small talk after it does not hold them and borrows none.
    assert with_feedback[reply] > without[reply]
    assert with_feedback[after] == pytest.approx(without[after])


@pytest.mark.django_db(databases=DB)
def test_a_short_reply_leans_on_its_question_more_than_a_long_statement_does(talker, settings):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    # The same question twice; a two-word reply to one, a long unrelated statement after
    # the other, written later (so a tie would go to the statement).
    _, reply = _chat(talker, "s1", [QUESTION, "Teal, finally!"], start)
    statement = (
        "Honestly the whole week was chaos at work, three deadlines, a broken printer, "
        "a fire drill on Tuesday and my manager away at a conference in Porto."
    )
    _, long_one = _chat(talker, "s2", [QUESTION, statement], start + timedelta(days=1))
    found = _found(talker, "Which colour did they pick for the sofa?", settings, "dense")
    assert found.index(reply) < found.index(long_one)


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", MODES)
def test_a_question_naming_a_month_prefers_the_blocks_of_that_month(talker, settings, mode):
    now = clock.now()
    hike = "We went hiking by the lake with my brother."
    # The same words twice, in sessions dated eight and two months back.
    early_day, late_day = now - timedelta(days=240), now - timedelta(days=60)
    early = _chat(talker, "s1", [hike], early_day)
    late = _chat(talker, "s2", [hike], late_day)
    for day, first, second in ((early_day, early, late), (late_day, late, early)):
        month = MONTHS[day.month - 1].capitalize()
        assert _found(talker, f"Where did we go hiking in {month}?", settings, mode) == [
            *first,
            *second,
        ]  # a soft boost, not a filter: the other block still ranks
        assert _found(talker, f"The hike in {month} {day.year}", settings, mode)[0] == first[0]
    # Relative to the server's clock.
    assert _found(talker, "That hike eight months ago?", settings, mode)[0] == early[0]
    assert _found(talker, "That hike two months ago?", settings, mode)[0] == late[0]


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", MODES)
def test_a_question_naming_a_span_or_a_date_in_figures_prefers_the_blocks_then(
    talker, settings, mode
):
    hike = "We went hiking by the lake with my brother."
    days = [datetime(2022, 4, 15, tzinfo=UTC), datetime(2023, 4, 15, tzinfo=UTC),
            datetime(2023, 7, 15, tzinfo=UTC)]  # fmt: skip
    april_2022, april_2023, july_2023 = (_chat(talker, "s1", [hike], day)[0] for day in days)
    assert _found(talker, "Where did we hike between March and May 2023?", settings, mode)[0] == (
        april_2023
    )
    assert _found(talker, "The hike from June to August 2023", settings, mode)[0] == july_2023
    assert _found(talker, "Which hike was on 2022-04-15?", settings, mode)[0] == april_2022
    assert _found(talker, "Which hike was on 15/4/2023?", settings, mode)[0] == april_2023


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", MODES)
def test_last_time_prefers_the_latest_visit_before_this_one(settings, mode):
    get_registry().clear()
    user = user_stocked("visits-user", ("s1", "s2", "s3"), name="V")
    now = clock.now()
    # The older visit's words are closer to the question; the last visit's answer it.
    [older] = _chat(
        user, "s1", ["You showed me a rain jacket, the Alpine shell."], now - timedelta(days=60)
    )
    [last] = _chat(user, "s2", ["The Harbour jacket, in navy, for rain."], now - timedelta(days=7))
    # The visit searching: its own blocks are not "last time".
    [this] = _chat(user, "s3", ["Hello again! Rain jacket shopping today?"], now)
    settings.AGENT_MEMORY_SEARCH_MODE = mode

    def found(query: str) -> list[str]:
        hits = selectors.blocks_search(
            user_id=user, session_id="s3", query=query, filters={"session_ids": "all"}
        )
        return [b["block_id"] for b in hits]

    assert found("Which rain jacket did you show me last time?")[0] == last
    # A soft boost: without "last time" the closer words win, and nothing is filtered out.
    assert found("Which rain jacket did you show me?")[0] == older
    assert set(found("Which rain jacket did you show me last time?")) == {older, last, this}
    get_registry().clear()


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_the_month_asked_outweighs_a_closer_wording_from_another_month(talker, settings, mode):
    now = clock.now()
    asked, later = now - timedelta(days=240), now - timedelta(days=60)
    [told] = _chat(talker, "s1", ["We went hiking by the lake."], asked)
    # Another month's block that also names the brother and the dog the question asks about.
    [other] = _chat(
        talker, "s2", ["We went hiking by the lake with my brother and his dog."], later
    )
    month = MONTHS[asked.month - 1].capitalize()
    found = _found(
        talker, f"Where did I go hiking with my brother and his dog in {month}?", settings, mode
    )
    assert found[:2] == [told, other]


@pytest.mark.django_db(databases=DB)
def test_the_context_follows_every_kind_of_write(talker, settings):
    def by_sofa() -> set[str]:
        return set(_found(talker, "sofa", settings, "lexical"))

    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    question, reply = _chat(talker, "s1", [QUESTION, REPLY], start)
    assert by_sofa() == {question, reply}

    # Add: a block written later but dated between them becomes the reply's context.
    [between] = blocks_stocked(
        talker, "s1", ["Hang on, the doorbell."], created_at=start + timedelta(seconds=30)
    )
    assert by_sofa() == {question, between}

    # Delete: the reply's context is the question again.
    blocks_delete(user_id=talker, session_id="s1", block_ids=[between])
    assert by_sofa() == {question, reply}

    # Update: the question's new words, not its old ones, are the reply's context.
    block_text_set(
        user_id=talker,
        session_id="s1",
        block_id=question,
        text="Which colour did you pick for the armchair?",
    )
    assert by_sofa() == set()
    assert set(_found(talker, "armchair", settings, "lexical")) == {question, reply}

    # Another session's blocks are never a context.
    [elsewhere] = blocks_stocked(talker, "s2", ["Our sofa is grey."], created_at=start)
    [after] = blocks_stocked(talker, "s2", ["Nice!"], created_at=start + timedelta(minutes=5))
    assert by_sofa() == {elsewhere, after}
    # The reply is the last block of s1, and s2's first block is not its neighbour.
    assert set(_found(talker, "teal velvet", settings, "lexical")) == {reply}

    # Reload from SQLite: the loaded index lends the same context.
    get_registry().clear()
    assert by_sofa() == {elsewhere, after}
    assert set(_found(talker, "armchair", settings, "lexical")) == {question, reply}

    # Session end keeps its blocks, so their context too.
    session_end(user_id=talker, session_id="s2")
    assert by_sofa() == {elsewhere, after}

    # Expiry: an expired block lends nothing, before the sweep and after it.
    [short] = blocks_stocked(
        talker, "s1", ["Did the ottoman come too?"], created_at=start + timedelta(minutes=2),
        block_ttl=60,
    )  # fmt: skip
    [answer] = blocks_stocked(
        talker, "s1", ["Yes, same fabric."], created_at=start + timedelta(minutes=3)
    )
    assert set(_found(talker, "ottoman", settings, "lexical")) == {short, answer}
    clock.advance(61)
    # The answer's context is now the block before the expired one, the reply: at once,
    # and the same after the sweep has deleted the expired row.
    for sweep in (False, True):
        if sweep:
            assert blocks_expired_sweep() == 1
        assert set(_found(talker, "ottoman", settings, "lexical")) == set()
        assert set(_found(talker, "teal velvet", settings, "lexical")) == {reply, answer}

    # Session delete: its blocks and the context they lent are gone.
    session_delete(user_id=talker, session_id="s2")
    assert by_sofa() == set()


# A chat over a new sofa in one session, beside other sessions' blocks that share some of
# the question's words: "Which colour is the new sofa?"
SOFA_CHAT = [
    "How was your weekend?",
    "Did the new sofa arrive?",
    "It did, teal velvet.",  # the answer, sharing no word with the question
    "We gave the old sofa to my sister.",  # after a block that does not ask
    "Lovely, she needed one.",
]
SOFA_ELSEWHERE = [
    "That colour of sofa in the shop window!",
    "Sofa beds are never comfortable.",
    "The colour of the new rug is lovely.",
    "Quiet, mostly laundry.",
    "What a colour!",
]
SOFA_QUERY = "Which colour is the new sofa?"


def _sofa_index():
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index.rows import IndexRow
    from memoryserver.index.slot import UserIndex

    lines = [("s", text) for text in SOFA_CHAT]
    lines += [(f"other{n}", text) for n, text in enumerate(SOFA_ELSEWHERE)]
    vectors = HashingEmbedder().embed([text for _, text in lines])
    index = UserIndex(dimensions=vectors.shape[1])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n, ((session, text), vector) in enumerate(zip(lines, vectors, strict=True)):
        at = start + timedelta(minutes=n)
        index.upsert(IndexRow(n, text, session, vector, at, None, None, "ready", None, None,
                              None, text))  # fmt: skip
    return index


def _sofa_found(index, query: str, mode: str) -> list[str]:
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index.rows import Query
    from memoryserver.terms import query_terms

    hits = index.search(
        Query(
            now=0.0,
            vector=HashingEmbedder().embed([query])[0] if mode != "lexical" else None,
            terms=query_terms(query) if mode != "dense" else None,
        )
    )
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    return [h.block_id for h in hits]


@pytest.mark.parametrize("mode", MODES)
def test_a_question_lifts_its_reply_above_blocks_sharing_more_of_the_words_asked(mode):
    found = _sofa_found(_sofa_index(), SOFA_QUERY, mode)
    # The reply holds none of the query's words, "What a colour!" one of them; the question
    # before the reply holds two and lends the reply part of its score, never all of it.
    assert found.index("Did the new sofa arrive?") < found.index("It did, teal velvet.")
    assert found.index("It did, teal velvet.") < found.index("What a colour!")


def test_only_a_block_that_asks_lends_its_score_to_the_block_after_it():
    found = _sofa_found(_sofa_index(), SOFA_QUERY, "hybrid")
    # The block after the reply (which asks nothing) gains nothing from it, so it stays
    # below another session's block that holds one of the words.
    after_reply = found.index("We gave the old sofa to my sister.")
    assert found.index("Sofa beds are never comfortable.") < after_reply


def test_a_reply_never_passes_the_question_it_answers():
    index = _sofa_index()
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index.rows import IndexRow

    question, reply = "Which colour was the armchair?", "Teal, like the armchair cushions were."
    vectors = HashingEmbedder().embed([question, reply])
    at = datetime(2026, 1, 2, tzinfo=UTC)
    for n, (text, vector) in enumerate(zip((question, reply), vectors, strict=True)):
        index.upsert(IndexRow(100 + n, text, "armchair", vector, at + timedelta(minutes=n),
                              None, None, "ready", None, None, None, text))  # fmt: skip
    # Dense alone, the reply is close behind its question: the share lent would take it
    # past, the cap keeps it second.
    assert _sofa_found(index, "teal armchair colour", "dense")[:2] == [question, reply]


@pytest.mark.django_db(databases=DB)
def test_what_a_question_lends_its_reply_follows_updates_and_a_reload(talker, settings):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    ids = _chat(talker, "s1", SOFA_CHAT, start)
    for n, line in enumerate(SOFA_ELSEWHERE):
        _chat(talker, "s2", [line], start + timedelta(days=1, minutes=n))
    question, reply = ids[1], ids[2]
    [distractor] = [
        b["block_id"]
        for b in selectors.blocks_search(
            user_id=talker, session_id="s2", query="What a colour!", filters={"relevant_k": 1}
        )
    ]

    def reply_above_distractor() -> bool:
        found = _found(talker, SOFA_QUERY, settings, "hybrid", k=20)
        return found.index(reply) < found.index(distractor)

    assert reply_above_distractor()
    # Loaded from SQLite, the index knows the same question asks.
    get_registry().clear()
    assert reply_above_distractor()

    # Updated to a statement, it no longer asks: it lends the reply its words, not its score.
    block_text_set(user_id=talker, session_id="s1", block_id=question, text="The new sofa arrived.")
    assert not reply_above_distractor()


def test_neighbour_credit_lifts_the_blocks_beside_a_hit_only_when_set():
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index.rows import IndexRow, Query
    from memoryserver.index.slot import UserIndex
    from memoryserver.terms import query_terms

    texts = ["Look at this one.", "The Kestrel parka in olive.", "Fits a size M.", *SMALL_TALK]
    vectors = HashingEmbedder().embed(texts)
    index = UserIndex(dimensions=vectors.shape[1])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        session = "s" if n < 3 else f"other{n}"  # the parka talk; small talk apart
        at = start + timedelta(minutes=n)
        index.upsert(IndexRow(n, f"b{n}", session, vector, at, None, None, "ready", None, None,
                              None, text))  # fmt: skip

    def found(credit: float) -> list[str]:
        query = Query(now=0.0, terms=query_terms("kestrel parka"), neighbour_credit=credit)
        hits = index.search(query)
        assert all(0.0 <= h.score <= 1.0 for h in hits)
        return [h.block_id for h in hits]

    # b2 follows the hit, so it holds the hit's words as context; b0, before it, does not.
    assert found(0.0) == ["b1", "b2"]
    assert found(0.3) == ["b1", "b2", "b0"]


def test_the_search_mode_follows_the_embedder_unless_set(monkeypatch):
    from memoryserver.conf import SEARCH_MODE_BY_EMBEDDER, ServerSettings

    monkeypatch.delenv("AGENT_MEMORY_SEARCH_MODE", raising=False)

    def mode(**env: str) -> object:
        return ServerSettings(_env_file=None, **env).knobs()["AGENT_MEMORY_SEARCH_MODE"]

    for embedder, expected in SEARCH_MODE_BY_EMBEDDER.items():
        assert mode(AGENT_MEMORY_EMBEDDER=embedder) == expected
    assert mode(AGENT_MEMORY_EMBEDDER="minilm") == "hybrid"
    assert mode(AGENT_MEMORY_EMBEDDER="a.dotted.Embedder") == "hybrid"
    assert mode(AGENT_MEMORY_EMBEDDER="hashing", AGENT_MEMORY_SEARCH_MODE="lexical") == "lexical"


LONG = (
    "Sure, the Storm Shell comes in medium and large. We also have the Alpine Fleece in "
    "green and grey. By the way, delivery to Vienna takes three days. Returns are free "
    "within thirty days of the order."
)


@pytest.mark.django_db(databases=DB)
def test_a_long_block_is_found_by_one_of_its_sentences(talker, settings):
    def ranked(query: str) -> list[str]:
        return _found(talker, query, settings, "dense", k=3)

    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    [long] = blocks_stocked(talker, "s1", [LONG], created_at=start)
    # Short blocks on one part of the question each: closer to it than the long block's
    # whole vector, further than its one sentence on delivery to Vienna.
    others = [
        blocks_stocked(talker, "s2", [text], created_at=start + timedelta(hours=n))[0]
        for n, text in enumerate(["The parcel to Vienna is late.", "Is delivery free?",
                                  "Delivery is usually quick."], start=1)
    ]  # fmt: skip
    asked = "How long does delivery to Vienna take?"
    assert ranked(asked)[0] == long
    # Its sentences are stored with it: a reload from SQLite finds it the same way.
    get_registry().clear()
    assert ranked(asked)[0] == long
    # New content brings new sentences; the old ones are gone with the old text.
    block_text_set(
        user_id=talker,
        session_id="s1",
        block_id=long,
        text="The Storm Shell comes in medium. The fleece is sold out now. More comes soon.",
    )
    assert ranked(asked)[0] != long and ranked("Is the fleece sold out?")[0] == long
    blocks_delete(user_id=talker, session_id="s1", block_ids=[long])
    assert long not in ranked("Is the fleece sold out?")
    assert set(ranked(asked)) <= set(others)


def test_sentences_get_vectors_only_in_a_block_of_three_or_more():
    from memoryserver.index.sentences import MAX_SENTENCES, sentences_of

    assert sentences_of("The shopper wears shoe size 44.") == []
    # Two sentences, or a turn's question and its answer, are about one thing.
    assert sentences_of("The kitten came home on Saturday. She sleeps all day now.") == []
    assert sentences_of("Do you have it in size 44\nYes, in black and in brown") == []
    # A piece under four words joins the next; a line break ends a sentence too.
    assert sentences_of(
        "Oh wow! The kitten came home on Saturday. She sleeps all day now.\nShe loves the sofa"
    ) == [
        "Oh wow! The kitten came home on Saturday.",
        "She sleeps all day now.",
        "She loves the sofa",
    ]
    many = " ".join(f"Sentence number {n} is here." for n in range(20))
    assert len(sentences_of(many)) == MAX_SENTENCES


def test_a_short_reply_leans_on_its_question_as_much_once_its_summary_is_stored():
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index import context
    from memoryserver.index.rows import IndexRow, Query
    from memoryserver.index.slot import UserIndex

    reply = "Teal, finally!"
    summary = "The speaker says the colour they finally chose is teal, after a long wait."
    texts = [QUESTION, reply]
    vectors = HashingEmbedder().embed(texts)
    at = datetime(2026, 1, 2, tzinfo=UTC)

    def reply_cosine(searched: str) -> float:
        index = UserIndex(dimensions=vectors.shape[1])
        for n, text in enumerate(texts):
            shown = searched if text == reply else text
            index.upsert(IndexRow(n, text, "s", vectors[n], at + timedelta(minutes=n), None, None,
                                  "ready", None, None, None, shown,
                                  own_terms=context.own_terms(text, shown)))  # fmt: skip
        query = Query(now=0.0, vector=HashingEmbedder().embed([QUESTION])[0])
        return {h.block_id: h.score for h in index.search(query)}[reply]

    # What it is searched by grows fivefold with its summary; how much the reply borrows
    # from the question before it does not change.
    assert reply_cosine(f"{reply}\n{summary}") == pytest.approx(reply_cosine(reply))


@pytest.mark.django_db(databases=DB)
def test_a_replys_own_length_is_kept_when_its_extraction_lands_and_after_a_reload(
    talker, monkeypatch
):
    from memoryserver.extractors import Extraction
    from memoryserver.services import extraction
    from memoryserver.services.extraction import extraction_attempt

    class Restating:
        name = "restating"

        def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
            return Extraction(
                summary="The speaker says the colour they finally chose is teal, at last.",
                contexts=["Colour chosen: teal, after weeks of going back and forth."],
            )

    monkeypatch.setattr(extraction, "get_extractor", lambda: Restating())
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    _chat(talker, "s1", [QUESTION], start)
    [reply] = blocks_stocked(
        talker, "s1", ["Teal, finally!"], context_required=True,
        created_at=start + timedelta(minutes=1),
    )  # fmt: skip

    def loaded():
        selectors.blocks_search(
            user_id=talker, session_id="s1", query="teal", filters={"session_ids": "all"}
        )  # a search loads the user's index if it is not in memory
        return get_registry().loaded(talker)

    def own_length() -> int:
        index = loaded()
        return int(index.own_terms[index.positions[reply]])

    written = own_length()
    pk = selectors.MemoryBlock.objects.get(block_id=reply).pk
    assert extraction_attempt(pk) == "ready"
    index = loaded()
    # Searched by its summary and contexts now, at many times its length; its own stays.
    assert index.lexical.length_at(index.positions[reply]) > 4 * written
    assert own_length() == written
    get_registry().clear()  # loaded again from SQLite, summary and all
    assert own_length() == written


# A question asking "when" is answered by the turn that says when, not by later talk that
# repeats the question's words without a time.
PAINTING_CHAT = [
    "Mel: I painted a sunrise over the lake last Sunday, my first painting in years.",
    "Nia: You should show me the sunrise painting!",
    "Mel: My sunrise painting of the lake is on the wall now, I love painting.",
]


@pytest.mark.django_db(databases=DB)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])  # dense: the hashing vectors agree
def test_a_question_asking_when_prefers_the_turn_that_says_when(talker, settings, mode):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    told, _, repeated = _chat(talker, "s1", PAINTING_CHAT, start)
    _chat(talker, "s2", SMALL_TALK, start + timedelta(days=2))

    assert (
        _found(talker, "When did Mel paint the sunrise over the lake?", settings, mode)[0] == told
    )
    # Asked whether, not when: the turn repeating more of the words comes first.
    assert _found(talker, "Did Mel paint the sunrise over the lake?", settings, mode)[0] == repeated


@pytest.mark.django_db(databases=DB)
def test_whether_a_turn_says_when_follows_updates_and_a_reload(talker, settings):
    start = datetime(2026, 3, 2, 18, tzinfo=UTC)
    told, _, repeated = _chat(talker, "s1", PAINTING_CHAT, start)
    query = "When did Mel paint the sunrise over the lake?"

    assert _found(talker, query, settings, "hybrid")[0] == told
    get_registry().clear()  # loaded from SQLite, the index knows which turn says when
    assert _found(talker, query, settings, "hybrid")[0] == told
    # Its time taken out, it says when no more.
    block_text_set(
        user_id=talker, session_id="s1", block_id=told,
        text="Mel: I painted a sunrise over the lake, my first painting in years.",
    )  # fmt: skip
    assert _found(talker, query, settings, "hybrid")[0] == repeated


def test_a_long_block_is_embedded_once_as_its_sentences():
    """A write pays for each word once: a block with sentence vectors gets no pass of its
    own, and its vector (their mean by words) still points where its text does."""
    from memoryserver.embedders import HashingEmbedder
    from memoryserver.index.sentences import blocks_embedded, sentences_of

    class Counting(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.texts: list[str] = []

        def embed(self, texts: list[str]) -> np.ndarray:
            self.texts += texts
            return super().embed(texts)

    embedder = Counting()
    short = "Do you have it in size 44\nYes, in black and in brown"
    [(long_vector, rows), (short_vector, none)] = blocks_embedded(embedder, [LONG, short])
    assert embedder.texts == [short, *sentences_of(LONG)]
    assert none is None and rows is not None and rows.shape[0] == len(sentences_of(LONG))
    assert np.allclose(short_vector, HashingEmbedder().embed([short])[0])
    assert abs(float(np.linalg.norm(long_vector)) - 1.0) < 1e-5
    whole = HashingEmbedder().embed([LONG])[0]
    assert float(long_vector @ whole) > max(float(row @ whole) for row in rows)
