"""What every generated set shares: the seed, the question's shape and how its words are
compared with its answer's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_SEED = 7
RELEVANT_K = 10
# The memory policy's default retention for a session's turns (90 days); facts never expire.
SESSION_TTL_SECONDS = 90 * 86400
KINDS = ("exact", "topic", "paraphrase")


# Words too common to count as shared between a question and its answer.
STOP_WORDS = frozenset(
    """a about above after again all also am an and any anything are as at be been before
    being below between both but by can could did do does doing don down during each else
    ever few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like me more most my myself no
    nor not now of off oh ok on once one only or other our ours ourselves out over own
    please quick re really right same she should so some something still such sure
    than that the their theirs them themselves then there these they this those through
    to too under until up us very was way we were what when where which while who whom why
    will with would you your yours yourself yourselves hey hmm sorry wait thing things
    question checking curiosity forget by""".split()
)
TOKEN = re.compile(r"[a-z0-9]+")
# A word with its clitic ("it's", "don't"), so the clitic is not mistaken for size S or T.
_WORD = re.compile(r"([a-z0-9]+)(?:'[a-z]+)?")


@dataclass(frozen=True)
class Question:
    key: str
    text: str
    kind: str  # exact | topic | paraphrase
    topic: str
    answers: tuple[str, ...]  # block keys
    type: str = ""  # the dialogue set's: single | across | temporal | inference


def stem(word: str) -> str:
    """A crude stemmer: good enough to say whether two texts share a word."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def content_stems(text: str) -> set[str]:
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    return {stem(w) for w in words if w not in STOP_WORDS}


def shares_words(a: str, b: str) -> bool:
    """True when the texts share a content word (a stem, or one stem a prefix of the other)."""
    left, right = content_stems(a), content_stems(b)
    if left & right:
        return True
    return any(
        len(x) >= 4 and len(y) >= 4 and (x.startswith(y) or y.startswith(x))
        for x in left
        for y in right
    )


def question_kind(text: str, needle: str, answers: list[str]) -> str:
    """exact: shares the rare word; paraphrase: shares no content word; else topic."""
    needle_stem = stem(needle.lower())
    if (
        needle
        and needle_stem in content_stems(text)
        and any(needle_stem in content_stems(a) for a in answers)
    ):
        return "exact"
    if not any(shares_words(text, a) for a in answers):
        return "paraphrase"
    return "topic"


@dataclass(frozen=True)
class StoredBlock:
    """One block as the server holds it: what the in-process ranking indexes."""

    key: str
    text: str
    session_id: str
    created_at: datetime
    extracted: bool  # stored with context_required, so its summary and contexts are searched
