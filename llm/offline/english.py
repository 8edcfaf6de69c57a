"""Which words are English words: the offline embedder's own vocabulary says.

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
