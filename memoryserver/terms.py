"""Text to search terms for the lexical (BM25) ranking: the same rules for blocks and queries.

Words are lower-cased, stripped of accents and of English clitics ("shopper's" -> shopper,
"I'm" -> i), ordinals lose their suffix ("12th" -> 12, so "the 12th of June" meets "12
June"), function words are dropped (Snowball's English stop list) and the rest are stemmed
with Porter's algorithm ("shoes" -> shoe, "wedding" -> wed). Numbers and single letters stay
terms: "44" and "M" are sizes, the words a shopper means exactly.
"""

from __future__ import annotations

import re
import threading
import unicodedata

import snowballstemmer

# Snowball's English stop words with the clitic forms removed (clitics are stripped first).
STOP_WORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do
    does did doing would should could ought a an the and but if or because as until while of
    at by for with about against between into through during before after above below to from
    up down in out on off over under again further then once here there when where why how
    all any both each few more most other some such no nor not only own same so than too
    very""".split()
)
# A word, with an apostrophe-led clitic that is dropped ("shopper's", "don't"; the
# typographic apostrophe too).
_WORD = re.compile(r"(\w+)(?:['\u2019]\w+)?")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_CACHE_LIMIT = 200_000

_stems: dict[str, str] = {}
_local = threading.local()


def _stemmer() -> snowballstemmer.stemmer:
    # A Snowball stemmer keeps state while it works: one per thread.
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("porter")
    return stemmer


def _term(word: str) -> str:
    if not word.isalpha():
        # Numbers, sizes and codes ("44", "12th", "ts-0001" parts) are not stemmed, and
        # being endless they are not cached either.
        ordinal = _ORDINAL.match(word)
        return ordinal.group(1) if ordinal else word
    term = _stems.get(word)
    if term is None:
        plain = unicodedata.normalize("NFKD", word)
        plain = "".join(c for c in plain if not unicodedata.combining(c))
        term = _stemmer().stemWord(plain)
        if len(_stems) >= _CACHE_LIMIT:
            _stems.clear()
        _stems[word] = term
    return term


def text_terms(text: str) -> list[str]:
    """Every term of the text, in order, repeats kept (a block's term frequencies)."""
    return [_term(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order."""
    return list(dict.fromkeys(text_terms(text)))
