"""Products named by a word of their own: "the mohair one", "the chelsea or the walking boots".

A shopper points at a product shown earlier in the visit by what sets it apart in its name:
a fabric, a style, a brand ("the Mistral pair"). Which words do that is read from the
products themselves, not from a list: a word of a shown product's name that no more than
two of the shown products share, and that is not a colour or a word of no content ("the",
"one", "pair").
"""

from __future__ import annotations

import re

from llm.offline.assistant.words import singular
from llm.offline.vocabulary import Vocabulary
from llm.transcript import ShownProduct

_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_EMPTY = frozenset("the a an and of one ones pair pairs by in with for to".split())
# "the mohair one", "that chelsea pair", "those harbor supply ones": a determiner then,
# within three words, the product's own word.
_DETERMINER = frozenset("the that this these those".split())
DETERMINED_WITHIN = 3
# A word more products share than this names none of them.
SHARED_BY_AT_MOST = 2


def _words(text: str) -> list[str]:
    words = []
    for word in _WORD.findall(text.lower().replace("&", " ")):
        words.append(word)
        if "-" in word:
            words.extend(word.split("-"))
    return words


def _plain(vocabulary: Vocabulary) -> set[str]:
    # The colours only (a colour picks by the product's colours, elsewhere). A garment word
    # names a product when few shown share it ("the shirt or the tee" after a shirt and a
    # tee), and none when many do ("jacket" in a list of jackets), by the sharing rule.
    phrases = [*vocabulary.colour_phrases]
    plain = {singular(word) for phrase in phrases for word in _words(phrase)}
    return plain | _EMPTY


def products_named(
    lowered: str,
    candidates: list[ShownProduct],
    vocabulary: Vocabulary,
    *,
    determined: bool = False,
) -> list[tuple[int, ShownProduct]]:
    """The candidates the message names by their own words, with where each is first named,
    in the message's order; `determined` counts only words after "the", "that", ... .

    A product is named when it has the most of the message's naming words among the
    candidates that have any; ties name all of them (at most two per word)."""
    message = _words(lowered)
    plain = _plain(vocabulary)
    own: dict[str, set[str]] = {}  # word -> skus of the candidates whose name has it
    for product in candidates:
        for word in _words(product.name):
            if singular(word) not in plain and len(word) > 2:
                own.setdefault(singular(word), set()).add(product.sku)
    hits: dict[str, list[int]] = {}  # sku -> positions in the message of its naming words
    for at, word in enumerate(message):
        skus = own.get(singular(word))
        if not skus or len(skus) > SHARED_BY_AT_MOST:
            continue
        if determined and not _DETERMINER & set(message[max(0, at - DETERMINED_WITHIN) : at]):
            continue
        for sku in skus:
            hits.setdefault(sku, []).append(at)
    if not hits:
        return []
    named = []
    seen: set[str] = set()
    for product in candidates:
        if product.sku in hits and product.sku not in seen:
            seen.add(product.sku)
            named.append((hits[product.sku], product))
    # Two products sharing one word ("the leather ones") are both named only if nothing
    # in the message tells them apart.
    most = max(len(at) for at, _ in named)
    best = [(min(at), product) for at, product in named if len(at) == most]
    return sorted(best, key=lambda pair: pair[0])
