"""Read a shopper's words: what they ask for, what they rule out, size, budget, occasion."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.offline.english import misspelling_of
from llm.offline.lifts import lifts_read
from llm.offline.vocabulary import GREETING_LEAD, STYLE_WORDS, Vocabulary, is_content_word
from llm.shopper_words import (
    CURRENCY_WORDS,
    FOOTWEAR_CUE,
    LETTER_SIZE_ALTERNATIVES,
    LETTER_SIZE_WORDS,
    OCCASIONS,
    OCCASIONS_IN_REQUESTS,
    SHOP_CURRENCY,
    UNMISTAKABLE_LETTER_SIZES,
    SizeSaid,
    money_said,
    numbers_in_digits,
    size_said,
)

# A request reads what it is for in every name of an occasion, the loose ones included.
OCCASION_WORDS: dict[str, str] = OCCASIONS | OCCASIONS_IN_REQUESTS
# Phrases after which the colours and categories that follow are ruled out.
NEGATION_CUES = (
    "not", "no", "hate", "hates", "dislike", "dislikes", "avoid", "without", "except",
    "excluding", "never", "anything but", "everything but", "anything except",
    "other than", "don't like", "dont like", "don't want", "dont want", "do not like",
    "do not want", "can't stand", "cannot stand", "not a fan of", "nothing in", "none in",
    "apart from", "skip", "no more", "sick of", "tired of", "aren't", "isn't", "arent",
    "isnt", "nothing", "steer clear of", "stay away from", "keep away from", "rather not",
    "rather avoid", "not keen on", "not into", "allergic to", "minus", "leave out",
)  # fmt: skip
# Words that keep a negation running over a list: "no yellow or pink", "not in red".
NEGATION_FILLERS = frozenset(
    "or and nor in any the a an colour colours color colors shade shades please really "
    "at all , too either more like want wear have having get see".split()
)
# "not only Vela", "not from Vela": the remembered brand is no limit this time.
_NOT_ONLY = re.compile(
    r"\b(?:not|don't|dont) (?:only|just|stick to|keep to|from|by)$|\bbesides$|\bother than$"
    r"|\b(?:nothing|anything but|except) (?:from|by)$"
)
_TOKEN = re.compile(r"[a-z0-9]+(?:['\u2019\-][a-z0-9]+)*|&|[?,.;!—:]")
_MAX_PHRASE = 4
_ASPECTS = frozenset("price prices cost size colour color style fit quality value".split())
_PRICE_CUE = (
    r"(?:under|below|beneath|less\s+than|cheaper\s+than|lower\s+than|max(?:imum)?(?:\s+of)?|at\s+most|"
    r"(?:nothing|not|none|no)\s+(?:over|above|more\s+than|dearer\s+than|pricier\s+than)|"
    r"up\s+to|no\s+more\s+than|not\s+more\s+than|within|budget(?:\s*:|\s+is|\s+of)?(?:\s+around)?|"
    r"spend(?:ing)?(?:\s+up\s+to)?|<|≤|top\s+price(?:\s+of)?|tops)"
)
_CURRENCY_NAMES = sorted(
    (re.escape(word) for words in CURRENCY_WORDS.values() for word in words if word.isalpha()),
    key=len,
    reverse=True,
)
_CURRENCY = r"(?:€|\$|£|(?:" + "|".join(_CURRENCY_NAMES) + r")\b)"
_MONEY = _CURRENCY + r"?\s*(\d{1,5}(?:[.,]\d{1,2})?)\s*" + _CURRENCY + "?"
_PRICE_PATTERNS = (
    re.compile(_PRICE_CUE + r"\s*" + _MONEY),
    # A budget moved: "raise it to 150", "stretch to 320", "bump the budget to 200".
    re.compile(
        r"\b(?:raise|stretch|increase|bump|push|extend|lower|drop|reduce|cut)\w*"
        r"(?:\s+(?:it|that|the budget|my budget|the limit|the price))?\s+(?:up\s+|down\s+)?to\s+"
        + _MONEY
    ),
    re.compile(r"between\s+" + _MONEY + r"\s+and\s+" + _MONEY),
    # A range with its currency: "50 to 80 euros", "€40-€70".
    re.compile(
        r"(?:€|\$|£)\s*(\d{1,5})\s*(?:-|\u2013|to)\s*(?:€|\$|£)?\s*(\d{1,5})"
        r"|\b(\d{1,5})\s*(?:-|\u2013|to)\s*(\d{1,5})\s*" + _CURRENCY
    ),
    re.compile(
        r"(?:€\s*(\d{1,5}(?:[.,]\d{1,2})?)|(\d{1,5}(?:[.,]\d{1,2})?)\s*(?:€|eur\b|euros?\b))"
        r"\s*(?:max\b|maximum\b|or\s+less\b|or\s+under\b|tops\b|at\s+most\b|or\s+cheaper\b)"
    ),  # "around 80 euros", "about €60": a figure near which to stay, with its currency said
    # (a bare "about 3" is no price).
    re.compile(
        r"\b(?:around|about|roughly|approximately|approx\.?|circa|~)\s*(?:"
        + _CURRENCY
        + r"\s*(\d{1,5}(?:[.,]\d{1,2})?)|(\d{1,5}(?:[.,]\d{1,2})?)\s*"
        + _CURRENCY
        + r")"
    ),
)
_LIMIT_PATTERNS = (
    re.compile(
        r"\b(?:show\s+me|give\s+me|list|top|find\s+me|suggest)\s+(\d{1,2})\b(?!\s*(?:€|eur|euro))"
    ),
    re.compile(r"\b(\d{1,2})\s+(?:options|items|products|suggestions|ideas|picks|results)\b"),
)


@dataclass
class ShopperRequest:
    """What one message asks for; every field is None/empty unless the shopper said it."""

    categories: list[str] = field(default_factory=list)
    excluded_categories: list[str] = field(default_factory=list)
    colours: list[str] = field(default_factory=list)
    excluded_colours: list[str] = field(default_factory=list)
    size: str | None = None
    max_price: float | None = None
    brand: str | None = None
    occasions: list[str] = field(default_factory=list)
    limit: int | None = None
    material: str | None = None
    absent_material: str | None = None  # a fabric the catalog has none of ("tweed")
    # Brands ruled out ("not from Vela"), and remembered defaults lifted for this message
    # ("any brand", "any colour"): names of LIFTS.
    excluded_brands: list[str] = field(default_factory=list)
    lifted: frozenset[str] = frozenset()
    # What no filter took ("quilted", "harrington", "chelsea"): the search's words.
    words: list[str] = field(default_factory=list)
    # A size given in another system or as a waist ("UK 8", "a 34 waist"), read as `size`.
    size_said: SizeSaid | None = None
    # A budget in a currency the shop does not price in: its code ("GBP"), said back.
    currency: str | None = None

    @property
    def category(self) -> str | None:
        return self.categories[0] if self.categories else None

    @property
    def colour(self) -> str | None:
        return self.colours[0] if self.colours else None

    def has_criteria(self) -> bool:
        return bool(
            self.categories
            or self.excluded_categories
            or self.colours
            or self.excluded_colours
            or self.size
            or self.max_price is not None
            or self.brand
            or self.occasions
            or self.material
            or self.absent_material
        )


def request_parse(text: str, vocabulary: Vocabulary) -> ShopperRequest:
    """Parse one shopper message against the catalog vocabulary."""
    lowered = _normalise(text)
    request = ShopperRequest()
    price_spans, price_phrases = _price_read(lowered, request)
    # A price's own words are no search words: "stretch to 320" moves the budget, and
    # "stretch" is then no fabric asked for.
    _terms_read(_blanked(lowered, price_phrases), vocabulary, request)
    request.size = size_read(text, vocabulary, category=request.category, skip=price_spans)
    said = size_said(lowered, footwear=_on_feet(lowered, request, vocabulary))
    # A waist is a measurement the shop's letters only roughly match: its letter filters this
    # search, said back beside the shopper's own figure ("a 32 waist, that is about M").
    if (
        said is not None
        and said.shop in vocabulary.sizes
        and (request.size is None or said.kind != "clothing")
    ):
        request.size, request.size_said = said.shop, said
    money = money_said(lowered)
    if money is not None and money.currency != SHOP_CURRENCY and request.max_price is not None:
        # "Nothing over 60 quid": the shop prices in euros. At a rate the shop states, the
        # figure converts (and the answer says so); without one it filters nothing, and the
        # answer says why and asks for it in euros.
        rate = vocabulary.rates.get(money.currency)
        request.currency = money.currency
        request.max_price = round(money.amount * rate) if rate else None
    request.limit = _limit_read(lowered)
    request.lifted = lifts_read(lowered, vocabulary)
    for lifted in request.lifted:
        # "Red is fine again": a remembered dislike lifted, not a request for red.
        colour = lifted.partition(":")[2]
        if colour in request.colours:
            request.colours.remove(colour)
    if (
        request.material
        and request.category
        and request.category == vocabulary.garment_of(request.material)
    ):
        request.material = None  # "denim jeans" are jeans
    return request


def _on_feet(lowered: str, request: ShopperRequest, vocabulary: Vocabulary) -> bool | None:
    """Whether a size with a system is a shoe size: a footwear word or category says so."""
    if request.category:
        return vocabulary.is_footwear(request.category)
    return True if FOOTWEAR_CUE.search(lowered) else None


def size_read(
    text: str,
    vocabulary: Vocabulary,
    *,
    category: str | None = None,
    skip: list[tuple[int, int]] | None = None,
) -> str | None:
    """Find the size a message names: "size M", "in XL", "medium", "size 42 shoes", "42s"."""
    sizes = {size.upper(): size for size in vocabulary.sizes}
    lowered = _normalise(text)
    skip = skip or []
    patterns = (
        # Uppercase single letters anywhere: "M black tees", "jeans L"; "I'm" is no size.
        # Lower case only after a size cue: "size m", "in l", "sz s".
        (
            re.compile(rf"\b(?:size|sz)\b\.?\s*:?\s*({LETTER_SIZE_ALTERNATIVES}|\d{{2}})\b", re.I),
            text,
        ),
        (re.compile(rf"\b(?:in|an?|eu|uk)\s+({LETTER_SIZE_ALTERNATIVES})\b"), text),
        (re.compile(rf"\b({UNMISTAKABLE_LETTER_SIZES})\b", re.I), text),
        (re.compile(r"(?<![\w'\u2019&.-])(M|L|S)(?![\w'\u2019&-])"), text),
        (
            re.compile(
                rf"\bin\s+({LETTER_SIZE_ALTERNATIVES})(?:\s*[?!.,]|\s*$|\s+(?:please|too|size))",
                re.I,
            ),
            text,
        ),
        (re.compile(rf"[,;]\s*({LETTER_SIZE_ALTERNATIVES})\s*[?!.]*\s*$", re.I), text),
        (re.compile(r"\b(?:eu|in)\s+(\d{2})\b"), lowered),
        (re.compile(r"\b(\d{2})s?\s+(?:shoes?|eu|feet)\b"), lowered),
        (re.compile(r"\bi (?:wear|take|am|'m) (?:an? )?(\d{2})\b"), lowered),
        (re.compile(r"\beu\s*(\d{2})\b"), lowered),
    )
    for pattern, haystack in patterns:
        for match in pattern.finditer(haystack):
            if _inside(match.span(1), skip):
                continue
            value = sizes.get(match.group(1).upper())
            if value:
                return value
    for phrase in sorted(LETTER_SIZE_WORDS, key=len, reverse=True):
        found = re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", lowered)
        if found and LETTER_SIZE_WORDS[phrase] in sizes:
            return sizes[LETTER_SIZE_WORDS[phrase]]
    # A bare 36..46 next to footwear is a shoe size ("sneakers in 42" is caught above).
    if vocabulary.is_footwear(category):
        for match in re.finditer(r"\b(\d{2})\b", lowered):
            if not _inside(match.span(1), skip) and match.group(1) in sizes:
                return sizes[match.group(1)]
    return None


def price_read(text: str) -> float | None:
    request = ShopperRequest()
    _price_read(_normalise(text), request)
    return request.max_price


def brand_find(text: str, brands: list[str]) -> str | None:
    lowered = _normalise(text)
    for brand in sorted(brands, key=len, reverse=True):
        for variant in _brand_variants(brand):
            if re.search(rf"(?<![a-z0-9]){re.escape(variant)}(?![a-z0-9])", lowered):
                return brand
    return None


def occasions_find(text: str) -> list[str]:
    lowered = _normalise(text)
    found: list[tuple[int, str]] = []
    for phrase, occasion in OCCASION_WORDS.items():
        match = re.search(rf"\b{re.escape(phrase)}\b", lowered)
        if match and occasion not in (name for _, name in found):
            found.append((match.start(), occasion))
    return [occasion for _, occasion in sorted(found)]


def _terms_read(lowered: str, vocabulary: Vocabulary, request: ShopperRequest) -> None:
    """Scan tokens once, so a negation cue can rule out the list of words after it."""
    tokens = _TOKEN.findall(lowered)
    # Built once per vocabulary: every message of a conversation is read against it.
    phrases = vocabulary.__dict__.get("_phrase_table")
    if phrases is None:
        phrases = vocabulary.__dict__["_phrase_table"] = _phrase_table(vocabulary)
    negating = False
    index = 0
    garment_end = -1  # where the last category word ended: "shirt dress" is a dress
    while index < len(tokens):
        kind, value, width = _phrase_at(tokens, index, phrases)
        if kind == "cue":
            negating = True
        elif kind == "material":
            if not negating and request.material is None:
                request.material = value
        elif kind == "absent material":
            if not negating and request.absent_material is None:
                request.absent_material = value
        elif kind in ("category", "colour"):
            if kind == "category":
                phrase = " ".join(tokens[index : index + width])
                fabric = vocabulary.material_phrases.get(phrase)
                if fabric and request.material is None:
                    request.material = fabric  # "cords" are corduroy trousers
                style = STYLE_WORDS.get(phrase)
                if style and not negating and style not in request.words:
                    request.words.append(style)  # a "puffer" is a kind of jacket
                if index == garment_end and request.categories and not negating:
                    # The garment is the last noun: "dress shirt", "t-shirt dress".
                    request.categories.pop()
                garment_end = index + width
            _term_add(request, kind, value, negated=negating)
            # "running shoes" names a category and an occasion at once.
            for token in tokens[index : index + width]:
                occasion = OCCASION_WORDS.get(token)
                if kind == "category" and occasion and occasion not in request.occasions:
                    request.occasions.append(occasion)
        elif kind == "brand":
            if negating or _NOT_ONLY.search(" ".join(tokens[max(0, index - 3) : index])):
                request.excluded_brands.append(value)
            elif request.brand is None:
                request.brand = value
            negating = False
        elif kind == "occasion":
            if value not in request.occasions:
                request.occasions.append(value)
        elif tokens[index] not in NEGATION_FILLERS:
            word = tokens[index]
            # "price wise", "size-wise": an aspect asked about, never a word of a product.
            aspect = word.endswith("-wise") or (
                word == "wise" and index > 0 and tokens[index - 1] in _ASPECTS
            )
            if not negating and not aspect and is_content_word(word) and word not in request.words:
                request.words.append(word)
            negating = False
        index += width


def _term_add(request: ShopperRequest, kind: str, value: str, *, negated: bool) -> None:
    wanted, excluded = (
        (request.categories, request.excluded_categories)
        if kind == "category"
        else (request.colours, request.excluded_colours)
    )
    target = excluded if negated else wanted
    if value not in target:
        target.append(value)
    # Saying both ("black, not black") keeps the exclusion, the safer reading.
    if negated and value in wanted:
        wanted.remove(value)


def _phrase_table(vocabulary: Vocabulary) -> dict[tuple[str, ...], tuple[str, str]]:
    table: dict[tuple[str, ...], tuple[str, str]] = {}
    for phrase, occasion in OCCASION_WORDS.items():
        table[tuple(_TOKEN.findall(phrase))] = ("occasion", occasion)
    for phrase, category in vocabulary.category_phrases.items():
        table[tuple(_TOKEN.findall(phrase))] = ("category", category)
    for phrase, material in vocabulary.absent_material_phrases.items():
        table[tuple(_TOKEN.findall(phrase))] = ("absent material", material)
    for phrase, material in vocabulary.material_phrases.items():
        table[tuple(_TOKEN.findall(phrase))] = ("material", material)
    for phrase, category in vocabulary.category_phrases.items():
        table[tuple(_TOKEN.findall(phrase))] = ("category", category)
    for phrase, colour in vocabulary.colour_phrases.items():
        table[tuple(_TOKEN.findall(phrase))] = ("colour", colour)
    for brand in vocabulary.brands:
        for variant in _brand_variants(brand):
            table[tuple(_TOKEN.findall(variant))] = ("brand", brand)
    for cue in NEGATION_CUES:
        table[tuple(_TOKEN.findall(cue))] = ("cue", cue)
    return table


def _phrase_at(
    tokens: list[str], index: int, table: dict[tuple[str, ...], tuple[str, str]]
) -> tuple[str, str, int]:
    for width in range(min(_MAX_PHRASE, len(tokens) - index), 0, -1):
        hit = table.get(tuple(tokens[index : index + width]))
        if hit:
            # "no more than 50" is a budget, not a negation of what follows.
            if hit[0] == "cue" and tokens[index + width : index + width + 1] == ["than"]:
                continue
            return hit[0], hit[1], width
    misspelt = misspelling_of(tokens[index], table)
    if misspelt is not None:
        return misspelt[0], misspelt[1], 1
    return "word", tokens[index], 1


def _price_read(
    lowered: str, request: ShopperRequest
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The budget a message sets; the spans of its figures and of its whole phrases."""
    lowered = numbers_in_digits(lowered, keep_length=True)
    spans, phrases = [], []
    for pattern in _PRICE_PATTERNS:
        for match in pattern.finditer(lowered):
            numbers = [group for group in match.groups() if group]
            if not numbers:
                continue
            value = float(numbers[-1].replace(",", "."))
            spans.extend(match.span(i) for i in range(1, len(match.groups()) + 1))
            phrases.append(match.span(0))
            if request.max_price is None and value > 0:
                request.max_price = value
    return spans, phrases


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _limit_read(lowered: str) -> int | None:
    for pattern in _LIMIT_PATTERNS:
        match = pattern.search(lowered)
        if match and 0 < int(match.group(1)) <= 20:
            return int(match.group(1))
    return None


def _brand_variants(brand: str) -> set[str]:
    lowered = brand.lower()
    variants = {lowered, lowered.replace("&", "and"), lowered.replace(" & ", "&")}
    return variants | {f"{variant}'s" for variant in variants}  # "Vela's tees"


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] < end for start, end in spans if start >= 0)


def _normalise(text: str) -> str:
    lowered = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return GREETING_LEAD.sub("", lowered)
