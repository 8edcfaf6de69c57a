"""The catalog's words: which products a shopper's free words find, and how well.

One engine for the catalog page's search box and the assistant's `search_products` query,
so the chat finds what the page finds. Structured filters (category, colour, size in stock,
brand, price, material) stay hard and are applied by `shop.selectors`; this module only
reads the words.

- SQLite (the default) keeps an FTS5 index of each product's name, brand, category and
  description with the porter stemmer ("quilted" finds "Quilted", "boots" finds "boot"),
  kept in step with `shop_product` by triggers (migration 0003), so bulk writes, the
  admin and fixture loads all reach it.
- PostgreSQL reads the same columns with its English full-text search (same contract).

Words fall in four kinds, because a shopper's message carries more than catalog words:
- category words ("boots", "t-shirt"): narrow the results to that category;
- catalog words: some active product uses them; the results are the products matching the
  most of them (every one, when a product has them all), ranked by BM25 relevance fused
  with closeness in meaning (`shop.meaning`);
- generic words: used by over half the active catalog ("for", "size", "by"); they cannot
  tell products apart and neither filter nor rank;
- foreign words: no active product uses them ("comfy", "swimwear"). Beside a catalog word
  they change nothing; alone they find nothing, and the search reports them, so an answer
  says the shop has none described so instead of passing other products off as a match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import connection

from shop.models import Product

FTS_TABLE = "shop_product_text"
MAX_WORDS = 8  # a message's free words; more than this is a sentence, not a query
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_PART = re.compile(r"[a-z0-9]+")
# Function words and the shopper's own framing; none of them names a product.
STOP_WORDS = frozenset(
    """a an and any are as at be but by can could do does for from get got have i i'd i'm im
    in is it its just like looking me might my need of on one ones or please really show so
    some something that the them these this those to too very want wanted what which with
    would you your find buy pair pairs thing things stuff kind sort maybe also more other
    others else not no new nice good""".split()
)
GENERIC_SHARE = 0.5


@dataclass(frozen=True)
class WordMatches:
    """What a query's words found among the active products."""

    words: list[str]
    # product id -> (how many catalog words it matches, relevance: higher is better)
    scores: dict[int, tuple[int, float]] = field(default_factory=dict)
    catalog_words: list[str] = field(default_factory=list)
    foreign_words: list[str] = field(default_factory=list)
    # catalog word -> the active products that have it
    hits: dict[str, frozenset[int]] = field(default_factory=dict)
    # Words naming a category ("boots", "t-shirt"): they narrow to those categories.
    category_words: dict[str, str] = field(default_factory=dict)

    @property
    def categories(self) -> set[str]:
        return set(self.category_words.values())

    @property
    def filters(self) -> bool:
        """Whether the words narrow the results at all (some word is the catalog's)."""
        return bool(self.catalog_words)


def query_terms(text: str, *, covered: Iterable[str] = ()) -> list[str]:
    """The content words of a free-text query, lower case, each once, in order.

    `covered` holds words a structured filter already says (the category, colour, brand,
    material): "navy boots" with category boots and colour navy has no free word left.
    """
    skip = {word for phrase in covered for word in _WORD.findall(phrase.lower())}
    skip |= {part for word in list(skip) for part in _PART.findall(word)}
    skip |= {_singular(word) for word in skip}
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or len(word) < 2 or word in skip or _singular(word) in skip:
            continue
        if word not in terms:
            terms.append(word)
    return terms[:MAX_WORDS]


def _singular(word: str) -> str:
    for suffix, replacement in (("ies", "y"), ("ses", "s"), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


def _degree_bases(word: str) -> list[str]:
    """What a superlative or an -ier comparative may be the degree of: "warmest" -> "warm",
    "largest" -> "large", "biggest" -> "big", "dressier" -> "dressy". Plain "-er" is left
    alone: too many nouns end in it ("sweater" is no degree of "sweat")."""
    for suffix, replacement in (("iest", "y"), ("ier", "y"), ("est", "")):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3:
            bases = [stem + replacement]
            if not replacement:
                bases.append(stem + "e")
                if len(stem) >= 4 and stem[-1] == stem[-2]:
                    bases.append(stem[:-1])
            return bases
    return []


def category_named(word: str, categories: Iterable[str]) -> str | None:
    """The category a word names, plural or singular ("jacket" -> "jackets"), or None."""
    for category in categories:
        if word == category or _singular(word) == _singular(category):
            return category
    return None


def words_match(words: list[str], *, categories: Iterable[str] = ()) -> WordMatches:
    """Score the active products by the words; see the module docstring for the kinds.

    A word naming one of `categories` narrows the results to it instead of being searched.
    """
    if not words:
        return WordMatches(words=[])
    named = {w: c for w in words if (c := category_named(w, categories)) is not None}
    searched = [word for word in words if word not in named]
    active = Product.objects.active().count() if searched else 0
    hits_by_word = {word: _word_hits(word) for word in searched}
    for at, word in enumerate(searched):
        if not hits_by_word[word]:
            # "the warmest", "something dressier": no product says it, some say "warm".
            for base in _degree_bases(word):
                hits = hits_by_word.get(base) or _word_hits(base)
                if hits:
                    if base not in hits_by_word:
                        searched[at], hits_by_word[base] = base, hits
                    break
    catalog, foreign = [], []
    for word in searched:
        if not hits_by_word[word]:
            foreign.append(word)
        elif len(hits_by_word[word]) <= GENERIC_SHARE * active:
            catalog.append(word)
    scores: dict[int, tuple[int, float]] = {}
    for word in catalog:
        for pid, rank in hits_by_word[word].items():
            count, relevance = scores.get(pid, (0, 0.0))
            scores[pid] = (count + 1, relevance + rank)
    return WordMatches(
        words=words,
        scores=scores,
        catalog_words=catalog,
        foreign_words=foreign,
        hits={word: frozenset(hits_by_word[word]) for word in catalog},
        category_words=named,
    )


def _word_hits(word: str) -> dict[int, float]:
    """Active product id -> relevance (higher is better) of every one whose text has the word."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            # bm25() is lower for better matches; the word's parts are [a-z0-9]+ and quoted
            # as one phrase ("t-shirt" -> "t shirt"), never read as FTS5 query syntax.
            cursor.execute(
                f"SELECT t.rowid, bm25({FTS_TABLE}) FROM {FTS_TABLE} AS t"
                f" JOIN {Product._meta.db_table} AS p ON p.id = t.rowid"
                f" WHERE {FTS_TABLE} MATCH %s AND p.active",
                ['"' + " ".join(_PART.findall(word)) + '"'],
            )
            return {row[0]: -float(row[1]) for row in cursor.fetchall()}
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector

        vector = SearchVector("name", "brand", "category", "description", config="english")
        query = SearchQuery(" ".join(_PART.findall(word)), config="english", search_type="phrase")
        rows = (
            Product.objects.active()
            .annotate(text=vector, rank=SearchRank(vector, query))
            .filter(text=query)
            .values_list("id", "rank")
        )
        return {pid: float(rank) for pid, rank in rows}
    # Another database: a plain containment test, with no relevance beyond matching.
    rows = Product.objects.active().values_list("id", "name", "brand", "category", "description")
    return {
        pid: 1.0
        for pid, *texts in rows
        if re.search(rf"\b{re.escape(_singular(word))}", " ".join(texts).lower().replace("-", " "))
    }


def matching_ids_sql(words: Iterable[str]) -> tuple[str, list[str]] | None:
    """SQL selecting the ids of products having any of `words`, for a subquery, where the
    database can say it (SQLite's index); None elsewhere."""
    phrases = ['"' + " ".join(_PART.findall(word)) + '"' for word in words]
    if connection.vendor != "sqlite" or not phrases:
        return None
    return f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", [" OR ".join(phrases)]
