"""Ranking in process with the server's own code."""

from __future__ import annotations

from datetime import UTC, datetime

from benchmarks.recall.conversations import Conversation
from benchmarks.recall.policy import keys_canonical, shoppers_held
from benchmarks.recall.store import Answered, History, answers_canonical, conversation_blocks
from benchmarks.recall.words import RELEVANT_K

# --- ranking in process ----------------------------------------------------------------------


def ask_in_process(
    histories: list[History],
    embedder_name: str,
    modes: list[str],
    neighbour_credit: float | None = None,
) -> dict[str, list[Answered]]:
    """Rank every question in process over the same blocks the server would hold.

    The server's own embedder, extractive extractor, terms, index and fusion code, without
    HTTP or SQLite (but for the shoppers' blocks, which the memory policy writes to a scratch
    server first and which are read back from it): the recall figures are the server's (tests/test_benchmark_memory_recall.py
    checks that against a live server), in seconds instead of minutes, so a change to the
    ranking can be tried on the whole set. Each history's blocks are embedded once and
    every mode ranks the same index.
    """
    from memoryserver.conf import ServerSettings, common_weight_for, rerank_for
    from memoryserver.embedders import build_embedder
    from memoryserver.extractors import ExtractiveExtractor
    from memoryserver.index.context import asks, own_terms
    from memoryserver.index.lexical import search_text
    from memoryserver.index.rows import IndexRow, Query
    from memoryserver.index.sentences import blocks_embedded
    from memoryserver.index.slot import UserIndex
    from memoryserver.index.when import asks_when, query_times, tells_time
    from memoryserver.terms import query_terms

    if neighbour_credit is None:  # the server's default
        neighbour_credit = ServerSettings.model_fields[
            "AGENT_MEMORY_SEARCH_NEIGHBOUR_CREDIT"
        ].default
    spread = ServerSettings.model_fields["AGENT_MEMORY_SEARCH_SPREAD"].default
    embedder = build_embedder(embedder_name)
    extractor = ExtractiveExtractor()
    answered: dict[str, list[Answered]] = {mode: [] for mode in modes}
    stored = datetime.now(UTC)
    # A shopper's blocks are what the memory policy wrote: stored once and read back.
    shoppers = [h for h in histories if not isinstance(h, Conversation)]
    held, ids = shoppers_held(shoppers) if shoppers else ({}, {})
    canonical = keys_canonical(ids)
    for history in histories:
        if isinstance(history, Conversation):
            blocks = conversation_blocks(history)
        else:
            blocks = held[history.user_id]
        embedded = blocks_embedded(embedder, [block.text for block in blocks])
        index = UserIndex(dimensions=embedded[0][0].shape[0])
        for pk, block in enumerate(blocks):
            text = block.text
            if block.extracted:
                extraction = extractor.extract(text)
                text = search_text(text, extraction.summary, extraction.contexts)
            row = IndexRow(
                pk, block.key, block.session_id, embedded[pk][0], stored, block.created_at,
                None, "ready", None, None, None, text, embedded[pk][1], asks(block.text),
                own_terms(block.text, text), tells_time(block.text),
            )  # fmt: skip
            index.upsert(row)
        questions = list(history.questions)
        query_vectors = embedder.embed([q.text for q in questions])
        for question, vector in zip(questions, query_vectors, strict=True):
            terms = query_terms(question.text)
            for mode in modes:
                query = Query(
                    now=stored.timestamp(),
                    vector=vector if mode != "lexical" else None,
                    terms=terms if mode != "dense" else None,
                    times=query_times(question.text, stored),
                    asks_when=asks_when(question.text),
                    session_id=history.today_session_id,
                    neighbour_credit=neighbour_credit,
                    spread=spread,
                    common_weight=common_weight_for(embedder_name),
                    rerank=rerank_for(embedder_name),
                    relevant_k=RELEVANT_K,
                )
                ranked = [hit.block_id for hit in index.search(query)]
                answered[mode].append(Answered(answers_canonical(question, canonical), ranked))
    return answered
