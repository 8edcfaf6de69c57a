"""The retrieval benchmark's generated set: labels that hold, and the same set on every run.

The figures the benchmark prints are not asserted here; what is asserted is that they mean
something: every question is answered by blocks of its own shopper, its kind is what its
words say, and storing the set through the SDK gives every answer a real block.
"""

from __future__ import annotations

import pytest
from agentmemory import AgentMemoryClient

from benchmarks.recall.bm25 import bm25_rank
from benchmarks.recall.conversations import conversations_generate
from benchmarks.recall.inprocess import ask_in_process
from benchmarks.recall.longchat import KINDS as LONGCHAT_KINDS
from benchmarks.recall.longchat import halves, longchat_generate
from benchmarks.recall.report import figures_of
from benchmarks.recall.shoppers import dataset_generate
from benchmarks.recall.store import (
    Answered,
    extraction_wait,
    history_store,
    shopper_store,
    shoppers_ask,
)
from benchmarks.recall.words import KINDS, Question, content_stems, question_kind, shares_words
from harness.memoryserver import start_agentmemory_server
from llm.fact_schema import slot_from_sentence
from memoryapp.blocks import FACT, TURN


@pytest.fixture(scope="module")
def shoppers():
    return dataset_generate(shoppers=5, seed=11)


@pytest.fixture(scope="module")
def conversations():
    return conversations_generate(conversations=3, seed=11)


def test_the_same_seed_gives_the_same_set_and_another_seed_another():
    assert dataset_generate(shoppers=3, seed=11) == dataset_generate(shoppers=3, seed=11)
    assert dataset_generate(shoppers=3, seed=11) != dataset_generate(shoppers=3, seed=12)


def test_histories_have_the_promised_shape(shoppers):
    for shopper in shoppers:
        assert 5 <= len(shopper.visits) <= 15
        days = [visit.day for visit in shopper.visits]
        assert days == sorted(days) and len(set(days)) == len(days)
        sessions = [visit.session_id for visit in shopper.visits]
        assert sessions == [f"session{n}" for n in range(1, len(sessions) + 1)]
        assert shopper.today_session_id not in sessions
        assert len(shopper.questions) >= 10


def test_every_answer_is_a_block_of_the_shopper_who_asks(shoppers):
    owners = {key: s.user_id for s in shoppers for key in s.blocks()}
    assert len(owners) == sum(len(s.blocks()) for s in shoppers)  # no key in two histories
    for shopper in shoppers:
        for question in shopper.questions:
            assert question.answers, question
            assert {owners.get(key) for key in question.answers} == {shopper.user_id}, question


def test_questions_are_distinct_and_of_every_kind(shoppers):
    texts = [q.text for s in shoppers for q in s.questions]
    assert len(set(texts)) == len(texts)
    assert {q.kind for s in shoppers for q in s.questions} == set(KINDS)


def test_a_question_kind_says_what_it_shares_with_its_answers(shoppers):
    for shopper in shoppers:
        blocks = shopper.blocks()
        for question in shopper.questions:
            answers = [blocks[key] for key in question.answers]
            shared = any(shares_words(question.text, text) for text in answers)
            assert shared == (question.kind != "paraphrase"), question


def test_facts_answer_with_their_turn_and_the_jacket_was_seen_last_visit(shoppers):
    for shopper in shoppers:
        last_visit = {e.key for e in shopper.visits[-1].exchanges}
        for question in shopper.questions:
            facts = [key for key in question.answers if "/fact" in key]
            turns = [key for key in question.answers if "/fact" not in key]
            assert all(key.rsplit("/", 1)[0] in turns for key in facts), question
            if question.topic == "product/jacket":
                assert set(question.answers) <= last_visit


def test_the_default_size_asks_at_least_400_questions():
    shoppers = dataset_generate(shoppers=40)
    assert len(shoppers) == 40
    assert sum(len(s.questions) for s in shoppers) >= 400


def test_bm25_reference_ranks_by_rare_shared_words():
    texts = {
        "a": "I take a 42 in shoes.",
        "b": "Do you have any boots? Here are 2 options.",
        "c": "Do you have any shoes? Here is one option.",
    }
    assert bm25_rank(texts, "my shoe size is 42", k=2)[0] == "a"
    assert bm25_rank(texts, "completely unrelated words", k=10) == []
    assert content_stems("It's my sister's") == {"sister"}


def test_recall_counts_the_share_of_answers_found():
    question = Question("q", "text", "exact", "brand", ("a", "b"))
    answered = [Answered(question, ["x", "a", "y", "z", "w", "b"], ms=2.0)]
    figures = figures_of(answered)
    assert (figures.recall5, figures.recall10) == (0.5, 1.0)
    assert (figures.hit5, figures.hit10) == (1.0, 1.0)


@pytest.mark.live_memory
def test_stored_through_the_sdk_every_answer_is_a_block_of_its_shopper(tmp_path, shoppers):
    chosen = shoppers[:2]
    base_url, stop = start_agentmemory_server(tmp_path)
    try:
        with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=30) as client:
            ids, restated = {}, 0
            for shopper in chosen:
                ids.update(shopper_store(client, shopper))
            for shopper in chosen:
                today = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
                stored = {
                    b.block_id: b
                    for b in today.search_memory(filters={"session_ids": "all"}).memory_blocks
                }
                mine = {ids[key] for key in shopper.blocks()}
                assert set(stored) == mine
                for question in shopper.questions:
                    for key in question.answers:
                        block = stored[ids[key]]
                        if "/fact" in key:  # the policy's fact, annotated with its slot
                            slot = slot_from_sentence(block.fact)
                            assert block.annotations["type"] == FACT["type"]
                            assert slot is None or block.annotations["slot"] == slot.slot
                        else:
                            assert block.annotations == TURN
                            assert block.session_id == key.split("/")[1]
                # A fact said again is the block it restates, stored once, as the policy does.
                facts = [(k, t) for k, t in shopper.blocks().items() if "/fact" in k]
                for n, (key, text) in enumerate(facts):
                    earlier = [k for k, t in facts[:n] if t == text]
                    if earlier:
                        assert ids[key] == ids[earlier[0]]
                        restated += 1
            answered = shoppers_ask(client, chosen, ids)
    finally:
        stop()
    assert restated  # the shoppers chosen do restate a fact
    assert len(answered) == sum(len(s.questions) for s in chosen)
    # Searches stay inside the asking shopper's memory.
    for result in answered:
        owner = result.question.key.split("/")[0]
        assert all(key.startswith(f"{owner}/") for key in result.ranked)


# --- the conversational set ------------------------------------------------------------------


def test_the_same_seed_gives_the_same_conversations_and_another_seed_others():
    assert conversations_generate(conversations=2, seed=11) == conversations_generate(
        conversations=2, seed=11
    )
    assert conversations_generate(conversations=2, seed=11) != conversations_generate(
        conversations=2, seed=12
    )


def test_conversations_are_two_speakers_over_many_dated_sessions(conversations):
    for conversation in conversations:
        assert 12 <= len(conversation.chats) <= 20
        days = [chat.day for chat in conversation.chats]
        assert days == sorted(days) and len(set(days)) == len(days)
        speakers = {t.speaker for chat in conversation.chats for t in chat.turns}
        assert speakers == set(conversation.speakers)
        assert len(conversation.blocks()) >= 250
        assert len(conversation.questions) >= 20


def test_each_question_is_answered_by_one_turn_its_speaker_said_once(conversations):
    texts = [q.text for c in conversations for q in c.questions]
    assert len(set(texts)) == len(texts)
    for conversation in conversations:
        blocks = conversation.blocks()
        said = [t.block for chat in conversation.chats for t in chat.turns]
        for question in conversation.questions:
            [key] = question.answers
            assert key.startswith(f"{conversation.user_id}/")
            speaker, words = blocks[key].split(": ", 1)
            assert speaker in question.text  # the question names who said it
            assert said.count(blocks[key]) == 1  # no other turn says the same
            # The kind is what the words say, the speaker's name aside.
            shared = shares_words(question.text.replace(speaker, ""), words)
            assert shared == (question.kind != "paraphrase"), question
    kinds = {q.kind for c in conversations for q in c.questions}
    assert kinds == set(KINDS)


def test_question_kind_reads_the_rare_word():
    answer = ["I adopted a puppy and named it Biscuit."]
    assert question_kind("Who is Biscuit?", "Biscuit", answer) == "exact"
    assert question_kind("What puppy did I adopt?", "Biscuit", answer) == "topic"
    assert question_kind("Which pet do I have?", "Biscuit", answer) == "paraphrase"


@pytest.mark.live_memory
def test_ranking_in_process_is_the_servers_ranking(tmp_path, shoppers, conversations):
    chosen = [*shoppers[:2], conversations[0]]
    base_url, stop = start_agentmemory_server(tmp_path)  # hashing, extractive, hybrid
    try:
        with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=30) as client:
            ids = {}
            for history in chosen:
                ids.update(history_store(client, history))
            extraction_wait(client, chosen)
            served = shoppers_ask(client, chosen, ids)
    finally:
        stop()
    [in_process] = ask_in_process(chosen, "hashing", ["hybrid"]).values()
    assert [a.question for a in served] == [a.question for a in in_process]
    assert [a.ranked for a in served] == [a.ranked for a in in_process]
    assert figures_of(served).recall10 > 0.3  # the rankings compared are not empty ones


# --- the long-chat set -----------------------------------------------------------------------


def test_long_chats_are_the_same_for_a_seed_and_their_halves_share_no_conversation():
    first = longchat_generate(conversations=4, seed=11)
    assert first == longchat_generate(conversations=4, seed=11)
    assert first != longchat_generate(conversations=4, seed=12)
    tuning, held_out = halves(first)
    assert len(tuning) == len(held_out) == 2
    assert not {c.user_id for c in tuning} & {c.user_id for c in held_out}
    # A conversation does not depend on how many are generated: the halves stay put.
    assert longchat_generate(conversations=2, seed=11) == tuning


def test_long_chat_questions_are_of_every_kind_with_their_evidence_turns():
    conversations = longchat_generate(conversations=2, seed=11)
    for conversation in conversations:
        assert 18 <= len(conversation.chats) <= 24
        blocks = conversation.blocks()
        session_of = {t.key: chat.session_id for chat in conversation.chats for t in chat.turns}
        for question in conversation.questions:
            assert all(key in blocks for key in question.answers)
            if question.type in ("multi-hop", "open-domain"):
                # Spread over the talk: each evidence turn in a session of its own.
                assert len(question.answers) >= 2
                assert len({session_of[k] for k in question.answers}) == len(question.answers)
            else:
                assert len(question.answers) == 1
            speaker = blocks[question.answers[0]].split(": ", 1)[0]
            assert speaker in question.text
    assert {q.type for c in conversations for q in c.questions} == set(LONGCHAT_KINDS)


def test_plain_bm25_finds_about_half_of_the_long_chats_evidence():
    answered = [
        Answered(q, bm25_rank(c.blocks(), q.text, k=10))
        for c in longchat_generate(conversations=2, seed=11)
        for q in c.questions
    ]
    assert 0.35 <= figures_of(answered).recall10 <= 0.6
