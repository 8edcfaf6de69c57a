"""Comparing two products the shopper named or was shown: which is cheaper, what differs.

Both are looked up (one `get_product` each) before the answer, so every price and
difference it states comes from this turn's tool results. What the catalog does not hold
("which is warmer?") is said plainly, with both products shown.
"""

from __future__ import annotations

import re

from llm.offline.assistant.conversation import State, Target
from llm.offline.assistant.naming import products_named
from llm.offline.assistant.references import PICKED_AMONG_SHOWN
from llm.offline.assistant.words import ORDINAL_ALTERNATIVES, ORDINAL_WORDS, and_join
from llm.offline.vocabulary import Vocabulary
from llm.transcript import ShownProduct

_COMPARE = re.compile(
    r"\b(compare|comparison|versus|vs\.?|difference|differences|differ|"
    r"which (one )?(is|of)\b|which one'?s\b|"
    r"better|or the)\b"
    # Any quality said of one against the other: "is it warmer than the tee?", never of a
    # price ("anything cheaper than €30" is a budget).
    r"|\b([a-z]{3,}er|more [a-z]{3,}|less [a-z]{3,}) than\b(?!\s*(?:€|\$|£|eur|usd|gbp)?\s*\d)"
)
# What a comparison can be about that the catalog records.
_BY_PRICE = re.compile(
    r"\b(cheaper|cheapest|less expensive|more expensive|pricier|dearer|price|prices|costs?|"
    r"costs? (?:less|more))\b"
)
_UNKNOWABLE = re.compile(
    r"\b(warmer|cooler|lighter|heavier|softer|better quality|last longer|lasts longer|nicer|"
    r"better looking|better for [a-z]+(?: [a-z]+)?|"
    r"waterproof|breathable|warmest|coolest|lightest|softest|nicest|best quality"
    # Any quality asked "more", "most" or "-ier", "-iest" of but price: more formal, the
    # most grip, dressier, the comfiest.
    r"|(?:more|less|most|least) (?!expensive\b|affordable\b|pricey\b|costly\b|money\b)"
    r"[a-z-]{3,}"
    r"|(?!pricier\b|priciest\b)[a-z]{3,}ier|(?!priciest\b)[a-z]{3,}iest"
    r"|fits? better|feels? better|looks? better"
    # Any "-er" said as what one is ("which is smarter", "whats thicker"), but price and
    # the nouns that end so ("which is leather?").
    r"|(?<=is )(?!cheaper\b|dearer\b|leather\b|other\b|either\b|better\b|rather\b|never\b|"
    r"over\b|under\b|after\b|sweater\b|blazer\b|bomber\b|jumper\b|summer\b|winter\b)"
    r"[a-z]{3,}er"
    r"|(?<=whats |one's )[a-z]{3,}er)\b"
)
_IT = re.compile(r"\b(it|that one|this one|that)\b")
_BOTH = re.compile(r"\b(both|these two|those two|the two|them|(first|top) two)\b")
# Two shown products pointed at without a word of comparing: "these two", "the second and
# third", "the first and the last".
_TWO_POINTED = re.compile(
    r"\b(these|those|the|first|top) two\b|\bboth\b"
    rf"|\b({ORDINAL_ALTERNATIVES})\b.*\b(and|or|vs|with)\b.*\b({ORDINAL_ALTERNATIVES})\b"
)
_ORDINAL_WORDS = (
    *(
        (re.compile(rf"\b({word}|{short})\b"), at)
        for at, (word, short, _, _) in enumerate(ORDINAL_WORDS)
    ),
    (re.compile(r"\b(last)\b"), -1),
)


# "which is cheaper, the X or the Y?", "compare the X with the Y", "the X vs the Y"
_TWO_NAMES = (
    re.compile(
        r"(?:between|compare|comparing|,|:)\s*(?:the\s+)?(?P<a>[^,?]+?)\s+"
        r"(?:or|and|vs\.?|versus|with|to)\s+(?:the\s+)?(?P<b>[^,?]+?)\s*[?.!]*$"
    ),
    re.compile(
        r"^(?:(?:is|are|was|would)\s+)?(?:the\s+)?(?P<a>[^,?]+?)\s+(?:[a-z]{3,}er|more\s+[a-z]{3,}|"
        r"less\s+[a-z]{3,})\s+than\s+(?:the\s+)?(?P<b>[^,?]+?)\s*[?.!]*$"
    ),
    re.compile(
        r"^(?:the\s+)?(?P<a>[^,?]+?)\s+(?:vs\.?|versus)\s+(?:the\s+)?(?P<b>[^,?]+?)\s*[?.!]*$"
    ),
)


def compared_products(
    lowered: str, state: State, on_page: ShownProduct | None, vocabulary: Vocabulary
) -> list[Target] | None:
    """The two products a comparison is about, or None when the message is no comparison.

    Products in view are looked up by SKU; names of products not in view are searched for.
    """
    if PICKED_AMONG_SHOWN.search(lowered):
        return None  # "the cheaper of the two" picks one of them: a reference
    if not _COMPARE.search(lowered):
        two = _two_in_focus(state)
        if two and (
            _WHICH.search(lowered)
            or _WHICH_ONE.search(lowered)
            or (state.compared and _ON_PRICE.search(lowered))
        ):
            # "which costs less", "and price wise?" of the two just compared or in view.
            return two
        return (
            _in_view(lowered, state, on_page, vocabulary) if _TWO_POINTED.search(lowered) else None
        )
    if len(state.shown) == 2 and not _names_another(lowered, state, vocabulary):
        # The two products just compared or shown: "which is warmer?", "which one is cheaper?"
        return list(state.shown)
    in_view = _in_view(lowered, state, on_page, vocabulary)
    if in_view is not None:
        return in_view
    # "the oxford or the corduroy, which is cheaper": the two named in a clause of their own,
    # the question asked in another.
    parts = [c.strip() for c in _ASIDE.split(lowered) if c.strip()]
    # The clauses first: "1 vs 2 whats warmer" names 1 and 2, not "2 whats warmer".
    clauses = parts if len(parts) > 1 else [lowered]
    asked = bool(_WHICH_ANY.search(lowered) or _UNKNOWABLE.search(lowered))
    for clause in clauses:
        # "pocket tee or the organic cotton" alone names two only beside a question of them.
        bare = (_EITHER,) if clause != lowered and asked else ()
        for pattern in (*_TWO_NAMES, *bare):
            match = pattern.search(clause)
            if match:
                sides = [_side(match[key], state, on_page, vocabulary) for key in ("a", "b")]
                if all(sides) and _distinct(sides):
                    return [side for side in sides if side]
    # "which is better for marathons", "ok and which is cheaper" naming neither: of the two
    # the conversation is on (the one just asked about and the one before it).
    two = _two_in_focus(state)
    if two and (_WHICH.search(lowered) or _WHICH_ONE.search(lowered)):
        return two
    return None


_EITHER = re.compile(r"^(?:the\s+)?(?P<a>[^,?]+?)\s+or\s+(?:the\s+)?(?P<b>[^,?]+?)\s*[?.!]*$")
_WHICH_ANY = re.compile(r"\bwhich\b|\bbetter\b")
# Where a comparison's question stands apart from the two it names.
_ASIDE = re.compile(
    r"\s*[,;:?]\s*|\s+[-\u2013\u2014]\s+|\s+(?=which\b|what'?s\b|what is\b)"
    r"|\s+for\s+(?=[a-z]+\W*$)"
)


# A choice asked of what is in view: "which costs less", "which one's lighter", "which lasts
# longer"; not "which sizes" or "which colours" (of one product).
_WHICH = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|but|then)\W+)*which\b(?!\s+(?:sizes?|colou?rs?|brands?|ones?\b))"
)
# "which one costs more", "which one's warmer": one of two chosen by a quality.
_WHICH_ONE = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|but|then)\W+)*which one(?:'s|\s+is|\s+costs?|\s+would be)?\s+"
    r"(?:more|less|cheaper|pricier|dearer|better|[a-z]{3,}er)\b"
)
# A comparison's next question on price alone: "and price wise?", "price?", "cost?".
_ON_PRICE = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|what about)\W+)*(?:the\s+)?(?:price|prices|cost|costs)"
    r"(?:\s*-?\s*wise)?\W*$"
)


def _two_in_focus(state: State) -> list[ShownProduct] | None:
    """The two a bare "which" chooses between: the two in view, else, after an answer about
    one, it and the one discussed before it."""
    if len(state.shown) == 2:
        return list(state.shown)
    if len(state.shown) == 1 and len(state.seen) >= 2 and (state.about_one or state.compared):
        return state.seen[:2]
    return None


_POINTED = re.compile(r"^(?:it|this|that|this one|that one|these|those)$")
_PLACE = re.compile(r"(?:#|number |no\.? ?|option |item )?([1-9])")
_NOTHING_NAMED = re.compile(r"^(?:any|some|every|no)(?:thing|one)s?\b")


def _side(
    text: str, state: State, on_page: ShownProduct | None, vocabulary: Vocabulary
) -> Target | None:
    """One side of "the X or the Y", "is it warmer than the Y": "it" is the product in
    focus, a word of a product seen this visit is that product, else a name to look up."""
    text = text.strip()
    known = [*state.seen, *([on_page] if on_page else [])]
    if _NOTHING_NAMED.match(text):
        return None  # "anything cheaper than the boots" asks for other products
    if _POINTED.match(text):
        return next((p for p in known if p.sku == state.picked_sku), None) or on_page
    place = _PLACE.fullmatch(text)
    if place:
        # "compare 1 and 3": a number is a place in the list shown, never a name to search.
        listing = state.listing or state.shown
        at = int(place.group(1)) - 1
        return listing[at] if at < len(listing) else None
    named = products_named(text, known, vocabulary)
    if len(named) == 1:
        return named[0][1]
    return text if _looks_named(text, vocabulary) else None


def _distinct(sides: list[Target | None]) -> bool:
    keys = [side.sku if isinstance(side, ShownProduct) else side for side in sides]
    return len(set(keys)) == len(keys)


def _looks_named(text: str, vocabulary: Vocabulary) -> bool:
    """A product's name, not a bare category or colour: "the crew tee" or "the bomber" (a
    kind within a category), not "t-shirts" or "jackets"."""
    words = re.findall(r"[a-z0-9&'-]+", text)
    categories = {c.lower() for c in vocabulary.categories}
    plain = {
        p
        for p, c in vocabulary.category_phrases.items()
        if p in categories or p + "s" in categories
    }
    plain |= categories | set(vocabulary.colour_phrases) | {"one", "ones"}
    return 1 <= len(words) <= 8 and text.strip() not in plain


def _in_view(
    lowered: str, state: State, on_page: ShownProduct | None, vocabulary: Vocabulary
) -> list[Target] | None:
    known = [*state.seen, *([on_page] if on_page else [])]
    found: list[tuple[int, ShownProduct]] = []
    for product in known:
        at = _mention(lowered, product, vocabulary)
        if at >= 0 and product.sku not in {p.sku for _, p in found}:
            found.append((at, product))
    if len(found) < 2:
        # "the chelsea or the walking boots": each named by a word of its own name.
        for at, product in products_named(lowered, known, vocabulary):
            if product.sku not in {p.sku for _, p in found}:
                found.append((at, product))
    for pattern, position in _ORDINAL_WORDS:
        match = pattern.search(lowered)
        listing = state.listing or state.shown
        if match and position < len(listing) and listing:
            product = listing[position]
            if product.sku not in {p.sku for _, p in found}:
                found.append((match.start(), product))
    seen = {p.sku for _, p in found}
    if on_page is not None and on_page.sku not in seen and re.search(r"\bthis\b", lowered):
        found.append((lowered.find("this"), on_page))
    picked = next((p for p in known if p.sku == state.picked_sku), None)
    pointed = _IT.search(lowered)
    if len(found) == 1 and picked is not None and picked.sku not in seen and pointed:
        # "compare it with the lambswool one": "it" is the product just asked about.
        found.append((pointed.start(), picked))
    products = [product for _, product in sorted(found, key=lambda pair: pair[0])]
    if len(products) < 2 and _BOTH.search(lowered):
        # "these two": the two in view, or, after an answer about one, it and the one
        # discussed before it.
        pool = state.shown if len(state.shown) >= 2 else state.seen
        if len(pool) >= 2:
            products = pool[:2]
    return products[:2] if len(products) >= 2 else None


def _names_another(lowered: str, state: State, vocabulary: Vocabulary) -> bool:
    """Whether a comparison names something besides the two in view: a category, or two
    names of which neither is one of them ("the Trench Coat or the Rain Shell?")."""
    words = set(re.findall(r"[a-z][a-z-]+", lowered))
    if words & set(vocabulary.category_phrases):
        return True
    named = any(_mention(lowered, product, vocabulary) >= 0 for product in state.shown)
    return not named and any(pattern.search(lowered) for pattern in _TWO_NAMES)


def unknowable_among_shown(lowered: str, state: State) -> str | None:
    """ "Which of those is warmer?" of more than two in view: the quality asked, when the
    catalog records nothing of it (price it does record: that is a sort)."""
    if len(state.shown) <= 2 or _BY_PRICE.search(lowered) or not _COMPARE.search(lowered):
        return None
    asked = _UNKNOWABLE.search(lowered)
    return asked.group(1) if asked else None


def compared_found(result: dict, target: Target) -> dict | None:
    """The product one look-up found: get_product's result, or a name search's best match."""
    if not isinstance(result, dict) or result.get("error"):
        return None
    if isinstance(target, ShownProduct):
        return result if result.get("name") else None
    products = [p for p in result.get("products") or [] if isinstance(p, dict)]
    return products[0] if products else None


def quality_said(asked: str) -> str:
    """ "is warmer", "lasts longer": the quality asked, as "which ..." goes on."""
    if asked.startswith("last"):
        return "lasts longer"
    if asked.split()[0] in ("fit", "fits", "feel", "feels", "look", "looks"):
        verb = asked.split()[0]
        return f"{verb if verb.endswith('s') else verb + 's'} better"
    return f"is {asked}"


def compare_answer(found: list[dict | None], targets: list[Target], lowered: str) -> str:
    """Which is cheaper and what differs, from the two look-ups."""
    products = [product for product in found if product]
    if len(products) < 2:
        missing = [
            target if isinstance(target, str) else target.name
            for target, product in zip(targets, found, strict=False)
            if not product
        ]
        shown = "".join(f"\n\n- **{p['name']}** — {_summary(p)}" for p in products)
        return (
            f"I can't compare those: I couldn't find “{and_join(missing)}” in the catalog. "
            "Tell me its name as the shop lists it, or open its page and ask me there." + shown
        )
    if products[0].get("sku") == products[1].get("sku"):
        return f"Those are the same product, the **{products[0]['name']}**: {_summary(products[0])}"
    first, second = products[:2]
    lines = [f"- **{p['name']}** — {_summary(p)}" for p in (first, second)]
    if _UNKNOWABLE.search(lowered) and not _BY_PRICE.search(lowered):
        asked = quality_said(_UNKNOWABLE.search(lowered).group(1))
        return (
            f"I can't compare those on which {asked}: the catalog doesn't say. Here are both "
            "as the catalog describes them:\n\n" + "\n".join(lines)
        )
    a, b = float(first.get("price_eur") or 0), float(second.get("price_eur") or 0)
    if a == b:
        verdict = f"They cost the same, €{a:.2f}."
    else:
        cheap, dear = (first, second) if a < b else (second, first)
        verdict = (
            f"The **{cheap['name']}** is cheaper: €{min(a, b):.2f} against "
            f"€{max(a, b):.2f} for the **{dear['name']}** (€{abs(a - b):.2f} less)."
        )
    differs = _differences(first, second)
    tail = f"\n\nWhat differs: {differs}." if differs else ""
    return f"{verdict}\n\n" + "\n".join(lines) + tail


def _mention(lowered: str, product: ShownProduct, vocabulary: Vocabulary) -> int:
    """Where the message names the product: its whole name, or its name without the brand."""
    name = product.name.lower()
    at = lowered.find(name)
    if at >= 0:
        return at
    for brand in vocabulary.brands:
        if name.startswith(brand.lower() + " "):
            short = name[len(brand) + 1 :]
            at = lowered.find(short)
            return at if len(short) > 3 else -1
    return -1


def _summary(product: dict) -> str:
    colours = and_join([str(c) for c in product.get("colours") or []]) or "no colour in stock"
    sizes = and_join([str(s) for s in product.get("sizes_in_stock") or []]) or "no size in stock"
    price = float(product.get("price_eur") or 0)
    return f"€{price:.2f}, by {product.get('brand')}, in {colours}; sizes {sizes}."


def _differences(first: dict, second: dict) -> str:
    said = []
    if first.get("category") != second.get("category"):
        said.append(f"one is {first.get('category')}, the other {second.get('category')}")
    if first.get("brand") != second.get("brand"):
        said.append(f"brand ({first.get('brand')} and {second.get('brand')})")
    only_first = [c for c in first.get("colours") or [] if c not in (second.get("colours") or [])]
    only_second = [c for c in second.get("colours") or [] if c not in (first.get("colours") or [])]
    if only_first or only_second:
        said.append("colours")
    if set(first.get("sizes_in_stock") or []) != set(second.get("sizes_in_stock") or []):
        said.append("sizes in stock")
    return and_join(said)
