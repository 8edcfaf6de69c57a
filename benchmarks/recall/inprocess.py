"""Ranking in process with the server's own code."""

from __future__ import annotations

from datetime import UTC, datetime

from benchmarks.recall.store import Answered, History
from benchmarks.recall.words import RELEVANT_K

# --- ranking in process ----------------------------------------------------------------------


def ask_in_process(
    histories: list[History], embedder_name: str, modes: list[str]
) -> dict[str, list[Answered]]:
    """Rank every question in process over the same blocks the server would hold.

    The server's own embedder, extractive extractor, terms, index and fusion code, without
    HTTP or SQLite: the recall figures are the server's (tests/test_benchmark_memory_recall.py
    checks that against a live server), in seconds instead of minutes, so a change to the
    ranking can be tried on the whole set. Each history's blocks are embedded once and
    every mode ranks the same index.
    """
    from memoryserver.embedders import build_embedder
    from memoryserver.extractors import ExtractiveExtractor
    from memoryserver.index.lexical import search_text
    from memoryserver.index.slot import IndexRow, Query, UserIndex
    from memoryserver.terms import query_terms

    embedder = build_embedder(embedder_name)
    extractor = ExtractiveExtractor()
    answered: dict[str, list[Answered]] = {mode: [] for mode in modes}
    stored = datetime(2026, 1, 1, tzinfo=UTC)
    for history in histories:
        texts = history.blocks()
        keys = list(texts)
        vectors = embedder.embed([texts[key] for key in keys])
        index = UserIndex(dimensions=vectors.shape[1])
        for pk, key in enumerate(keys):
            text = texts[key]
            if "/fact" not in key:  # turns are stored with context_required, facts without
                extraction = extractor.extract(text)
                text = search_text(text, extraction.summary, extraction.contexts)
            row = IndexRow(
                pk, key, "s", vectors[pk], stored, None, None, "ready", None, None, None, text
            )
            index.upsert(row)
        questions = list(history.questions)
        query_vectors = embedder.embed([q.text for q in questions])
        for question, vector in zip(questions, query_vectors, strict=True):
            terms = query_terms(question.text)
            for mode in modes:
                query = Query(
                    now=0.0,
                    vector=vector if mode != "lexical" else None,
                    terms=terms if mode != "dense" else None,
                    relevant_k=RELEVANT_K,
                )
                ranked = [hit.block_id for hit in index.search(query)]
                answered[mode].append(Answered(question, ranked))
    return answered
