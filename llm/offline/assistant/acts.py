"""What a message does, by its likeness to a labelled bank of example messages.

The slot readers (`llm.offline.shopper`) take values; they cannot tell a request from a
question to the shop, or "can you write me a poem?" from "white, please" (one letter apart).
The act is the label of the bank's examples nearest the message. Two likenesses: by
meaning (`act_by_meaning`: MiniLM, the memory server's own sentence embedder, when its
package is installed, as `make install` does), which knows "thx" and "ta" for thanks; and
by cosine over word and character-trigram features (`act_of`), deterministic and without a
model, so it runs wherever the offline model does. The bank is general shopping language,
written for it; none of it is any labelled evaluation's.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache

BANK: dict[str, tuple[str, ...]] = {
    "request": (
        "show me black jeans", "I'm looking for a summer dress", "do you have linen shirts",
        "I need new trainers for running", "a warm jacket for winter please",
        "any wool jumpers under 100 euros", "I want some boots", "find me a skirt for a party",
        "got any t-shirts in medium", "looking for trousers for the office",
    ),
    "refinement": (
        "in navy?", "what about in black", "in size L", "cheaper ones please",
        "under 50 then", "only the linen ones", "something in blue instead",
        "and in a smaller size", "without the grey ones", "in a large?",
    ),
    "reference": (
        "tell me about the fourth one", "the first one please", "what about the black one",
        "that jacket", "the last one", "more about the third", "this one", "the grey pair",
    ),
    "comparison": (
        "compare the first and second", "which is better", "which one is warmer",
        "what's the difference between them", "those two side by side", "the first or the last",
    ),
    "availability": (
        "is it in stock in M", "does that come in green", "do you have it in a 42",
        "is that available in XL", "which sizes is it made in", "is the second one in stock",
    ),
    "more": ("let me see more", "more of those", "next", "any others", "what else have you got"),
    "memory_question": (
        "which size do I wear", "do you know my shoe size", "how much did I say I would spend",
        "what colours do I avoid", "what have I told you about me", "what did I look at last time",
    ),
    "statement": (
        "I'm a size M", "I wear a 42 in shoes", "I hate yellow", "my budget is 80 euros",
        "I love Vela", "I never wear polyester", "I'm a US 10 in trainers", "I prefer slim fits",
    ),
    "lift": (
        "all brands are fine", "forget my budget", "blue is ok again",
        "any colour is ok", "I don't mind the size", "price is no object",
    ),
    "catalog_question": (
        "what labels do you stock", "do you sell sunglasses", "what do you sell",
        "do you have hats", "do you stock accessories", "what kinds of clothes do you have",
    ),
    "smalltalk": (
        "hiya", "hello there", "many thanks", "thanks a million", "that's everything", "goodbye",
        "how can you help me", "who are you", "great, cheers", "alright then",
    ),
    "out_of_scope": (
        "what's the forecast for the weekend", "make me laugh", "compose a limerick for me",
        "who is winning the match", "how do I cook pasta", "what's the capital of France",
        "help me with my homework", "can you book me a flight", "what time is it",
        "write me a song", "translate this into Spanish", "what's the news today",
        "will it rain later", "who is the president", "what's a good recipe for dinner",
        "can you do my taxes", "tell me a story", "how old is the universe",
        "what film should I watch tonight", "play some music",
    ),
}  # fmt: skip

_WORD = re.compile(r"[a-z0-9']+")
# Nearest examples that vote, and the likeness below which no act is claimed.
NEIGHBOURS = 3
FLOOR = 0.35


@dataclass(frozen=True)
class Act:
    name: str
    likeness: float  # cosine to the nearest example of that act, 0..1


def _features(text: str) -> dict[str, float]:
    words = _WORD.findall(text.lower())
    counts: Counter[str] = Counter(f"w:{w}" for w in words)
    for word in words:
        padded = f" {word} "
        counts.update(f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2))
    norm = math.sqrt(sum(v * v for v in counts.values())) or 1.0
    return {key: value / norm for key, value in counts.items()}


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(value * large.get(key, 0.0) for key, value in small.items())


@cache
def _bank() -> tuple[tuple[str, dict[str, float]], ...]:
    return tuple((act, _features(text)) for act, texts in BANK.items() for text in texts)


@lru_cache(maxsize=4096)  # a conversation's earlier messages are read again each turn
def act_of(text: str) -> Act | None:
    """The act of the message's nearest examples (a vote of the closest few), or None when
    nothing in the bank is like it."""
    features = _features(text)
    ranked = sorted(((_cosine(features, f), act) for act, f in _bank()), reverse=True)
    nearest = [(score, act) for score, act in ranked[:NEIGHBOURS] if score >= FLOOR]
    if not nearest:
        return None
    votes: Counter[str] = Counter()
    for score, act in nearest:
        votes[act] += score
    name = votes.most_common(1)[0][0]
    return Act(name, max(score for score, act in nearest if act == name))


logger = logging.getLogger(__name__)
_model_lock = threading.Lock()
_model: list = []  # [MiniLM] once loaded, [None] when it cannot be


def _minilm():
    with _model_lock:
        if not _model:
            try:
                from llm.embedding import EmbedderUnavailable, shared_minilm

                _model.append(shared_minilm())
            except (ImportError, EmbedderUnavailable) as exc:
                logger.info("Acts are read by words only: MiniLM is unavailable (%s)", exc)
                _model.append(None)
        return _model[0]


@cache
def _bank_vectors():
    model = _minilm()
    if model is None:
        return None
    return model.embed([text for texts in BANK.values() for text in texts])


@cache
def _bank_acts() -> tuple[str, ...]:
    return tuple(act for act, texts in BANK.items() for _ in texts)


@lru_cache(maxsize=4096)
def act_by_meaning(text: str) -> Act | None:
    """The act of the bank's examples nearest the message in meaning (a vote of the closest
    few), or the act by words when MiniLM is not installed."""
    vectors = _bank_vectors()
    if vectors is None:
        return act_of(text)
    scores = vectors @ _minilm().embed([text])[0]
    nearest = sorted(zip(scores.tolist(), _bank_acts(), strict=True), reverse=True)[:NEIGHBOURS]
    votes: Counter[str] = Counter()
    for score, act in nearest:
        votes[act] += score
    name = votes.most_common(1)[0][0]
    return Act(name, max(score for score, act in nearest if act == name))
