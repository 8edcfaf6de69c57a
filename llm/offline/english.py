"""Which words are English words (the offline embedder's own vocabulary says), and which
are a garment or colour word misspelt.

A typo is read as the garment or colour it is one letter from ("jeens", "blakc"); a word
that is itself English ("block", "coast", "shits") is meant as written. The MiniLM package
ships a word-piece vocabulary of ~30,000 entries whose whole words are a fair list of
English; without the package nothing is known to be a word and typos are read as before.
"""

from __future__ import annotations

import logging
from functools import lru_cache

from llm.embedding.base import EmbedderUnavailable
from llm.embedding.minilm import minilm_dir

logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    try:
        path = minilm_dir() / "vocab.txt"
        lines = path.read_text(encoding="utf-8").splitlines()
    except (EmbedderUnavailable, OSError) as exc:
        logger.info("no word list for reading typos (%s): every near miss is read", exc)
        return frozenset()
    return frozenset(line for line in lines if line.isalpha() and line.islower())


def is_english(word: str) -> bool:
    return word.lower() in english_words()


# Only garment and colour words are read through a typo ("jeens", "trowsers"); a word
# must be long enough, keep its first and last letters and be no English word itself, so
# "coast" never reads as "coats", nor "block heels" as black ones.
_TYPO_KINDS = ("category", "colour")
_TYPO_MIN_LENGTH = 5


def misspelling_of(
    token: str, table: dict[tuple[str, ...], tuple[str, str]]
) -> tuple[str, str] | None:
    if len(token) < _TYPO_MIN_LENGTH or not token.isalpha() or is_english(token):
        return None
    found = {
        hit
        for key, hit in table.items()
        if len(key) == 1
        and hit[0] in _TYPO_KINDS
        and key[0][:1] == token[:1]
        and key[0][-1:] == token[-1:]
        and len(key[0]) - len(token) in (0, 1)  # a letter changed or dropped, never added
        and _one_edit_apart(key[0], token)
    }
    return found.pop() if len(found) == 1 else None


def _one_edit_apart(word: str, other: str) -> bool:
    """One letter changed, added, dropped, or two neighbours swapped."""
    if word == other:
        return False
    if len(word) == len(other):
        diff = [i for i, (a, b) in enumerate(zip(word, other, strict=True)) if a != b]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and word[diff[0]] == other[diff[1]]
            and word[diff[1]] == other[diff[0]]
        )
    short, long_ = sorted((word, other), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))
