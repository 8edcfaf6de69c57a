"""The reference line: plain Okapi BM25 computed in the benchmark itself."""

from __future__ import annotations

import math
from collections import Counter

from benchmarks.recall.words import TOKEN

# --- the reference line: plain BM25 ----------------------------------------------------------


def bm25_rank(
    texts: dict[str, str], query: str, *, k: int, k1: float = 1.2, b: float = 0.75
) -> list[str]:
    """Okapi BM25 over lower-cased word tokens, no stemming or stop words; newest wins ties."""
    docs = {key: TOKEN.findall(text.lower()) for key, text in texts.items()}
    average = sum(len(d) for d in docs.values()) / max(1, len(docs))
    frequency: Counter[str] = Counter()
    for tokens in docs.values():
        frequency.update(set(tokens))
    terms = TOKEN.findall(query.lower())
    scored = []
    for position, (key, tokens) in enumerate(docs.items()):
        counts = Counter(tokens)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / average))
        if score > 0:
            scored.append((-score, -position, key))
    return [key for _, _, key in sorted(scored)[:k]]
