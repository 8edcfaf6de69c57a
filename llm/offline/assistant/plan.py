"""What one shopper message needs: a plain answer, or which tool call to make."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from llm.offline.assistant.alike import cheaper_plan, similar_plan
from llm.offline.assistant.compare import (
    compared_products,
    quality_said,
    unknowable_among_shown,
)
from llm.offline.assistant.conversation import Plan, refine
from llm.offline.assistant.described import described_plan
from llm.offline.assistant.page import page_product, page_request
from llm.offline.assistant.reading import (
    ABOUT_LEAD,
    FOLLOW_UP,
    asks_in_a_clause,
    out_of_scope,
    passing,
    service_asked,
    size_for_the_list,
)
from llm.offline.assistant.references import (
    AMONG_SHOWN,
    OF_THE_ONE,
    ORDINALS,
    PICKED_AMONG_SHOWN,
    PLURAL_REFERENCE,
    POSITION_POINTED,
    PRONOUN,
    SHOPPING_INTENT,
    SINGULAR_REFERENCE,
    THIS,
    order_words,
    positions_spelt,
    referenced_product,
    superlative,
)
from llm.offline.assistant.statements import acknowledgement, catalog_answer, statement_read
from llm.offline.assistant.texts import (
    CLARIFY_TEXT,
    DISCOUNT_TEXT,
    GREETING_TEXT,
    MORE_OF_WHAT_TEXT,
    SERVICE_TEXT,
    WHICH_OF_THESE_TEXT,
    lifted_text,
    off_topic_text,
)
from llm.offline.assistant.words import and_join, free_words
from llm.offline.lifts import colours_back, judged_lifts, lifts_read
from llm.offline.memory import memory_topic
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary, shorthand_spelt

if TYPE_CHECKING:
    from llm.offline.assistant.conversation import State

_CHEAPER = re.compile(
    r"\b(cheaper|less expensive|lower price|more affordable|too expensive|too pricey)\b"
)
_MORE = re.compile(
    r"^\s*(?:and\s+|some\s+|a\s+few\s+)?(more|next|others)\b(?!\s+(than|affordable|expensive))"
    r"|\b(show|see|give|get|got)\s+(me\s+)?(some\s+|a\s+few\s+)?(more|others|other ones)\b"
    r"(?!\s+(than|affordable|expensive))"
    r"|\bmore (please|options|results|of (these|those|them))\b|\bany more\b|\bthe rest\b"
    r"|\bnext (page|ones|few)\b"
)
_SIMILAR = re.compile(
    r"\b(similar|alike|lookalikes?|like (this|that|these|those|it|them|the \w+( one)?)|"
    r"same (style|kind|sort|type|vibe|look)|along those lines|in that vein|close to (this|that|it)|"
    r"alternatives?|like this one|what else is there)\b"
)
_ASKS = {
    "sizes": re.compile(r"\bsizes?\b|\bfit\b"),
    "colours": re.compile(r"\bcolou?rs?\b"),
    "price": re.compile(r"\b(price|cost|how much)\b"),
    "fit": re.compile(r"\b(fit|fits|fitting|cut|true to size|runs? (small|large|big))\b"),
    "stock": re.compile(r"\b(in stock|available|availability|stocked|sold out)\b"),
}
_GREETING = re.compile(r"^\s*(hi|hello|hey|hiya|good (morning|afternoon|evening)|howdy|yo)\b")
_THANKS = re.compile(r"\b(thanks|thank you|cheers|perfect|great, thanks|that's all|ok|okay)\b")
_DISCOUNT = re.compile(
    r"\b(discount|% off|percent off|coupon|voucher|promo code|for free|refund)\b"
)
# The shopper telling something about themselves rather than asking for something.
_SELF_STATEMENT = re.compile(
    r"^\s*(?:(?:hi|hello|hey)\b[,!.\s]*)?(?:i'?m\b|i am\b|i wear\b|i take\b|i usually\b|"
    r"my (?:usual )?(?:size|shoe size|budget)\b|i (?:really )?(?:hate|dislike|love|like|prefer|"
    r"avoid|can'?t stand|don'?t like|never wear)\b)"
)
# "only navy", "white ones", "anything in white": of the list, though one product was in focus.
_OF_THE_LIST = re.compile(r"\b(only|ones|any|anything|all)\b")
_WANTED = re.compile(
    r"\b(?:i'?m|i am)\s+(?:after|hunting for|on the hunt for|in the market for|shopping for)\b"
    r"|\bi'?d (?:like|love)\b|\bi would (?:like|love)\b"
)
_FIRST_PERSON = re.compile(r"\b(i|i'?m|i'?ve|i'?d|me|my|mine|budget)\b")
_ASKING = re.compile(r"\bplease\b|\?\s*$|\b(similar|like this|like that|cheaper|more)\b")
_STOCKED = re.compile(r"\b(do|does|d'you) (you|aisle|the shop) (sell|have|carry|stock|do)\b")
_YES = re.compile(
    r"^\s*(yes|yeah|yep|sure|ok|okay|please do|go on|go ahead)\b[\s!.,]*(please)?[\s!.]*$"
)


def message_plan(text: str, state: State, vocabulary: Vocabulary, page: dict | None) -> Plan:
    """Decide what one shopper message needs; a default lifted earlier in the visit stays
    lifted ("any brand is fine" holds for every search after it)."""
    text = shorthand_spelt(text)
    if state.listing or state.shown:
        text = positions_spelt(text)
    plan = _plan(text, state, vocabulary, page)
    lowered = text.lower().replace("\u2019", "'")
    # "The strappy ones - other colours?" asks about one product's colours; only a lift the
    # judge reads as the shopper's ("black is fine again") holds for the visit then.
    plan.lifted = (
        judged_lifts(lowered, vocabulary)
        if plan.kind == "product"
        else lifts_read(lowered, vocabulary)
    )
    if plan.kind == "search":
        plan.request = replace(plan.request, lifted=plan.request.lifted | state.lifted)
    plan.carried = list(vocabulary.categories)
    return plan


def _plan(
    text: str, state: State, vocabulary: Vocabulary, page: dict | None, *, statements: bool = True
) -> Plan:
    """Decide what one shopper message needs, most specific cue first."""
    lowered = text.strip().lower().replace("\u2019", "'")
    parsed = request_parse(text, vocabulary)
    page_filters = page_request(page, vocabulary)
    if not lowered:
        return Plan(kind="text", text=GREETING_TEXT)
    topic = memory_topic(lowered, following=state.asked_about_me)
    if topic == "forget" and parsed.lifted:
        topic = None  # "forget my budget" lifts the budget; it erases nothing
    if topic:
        return Plan(kind="memory", topic=topic)
    if out_of_scope(lowered, parsed) and not _points_or_names(lowered, state):
        return Plan(kind="text", text=off_topic_text(vocabulary))
    if service_asked(lowered):
        return Plan(kind="text", text=SERVICE_TEXT)
    about_the_shop = catalog_answer(lowered, vocabulary)
    if about_the_shop:
        return Plan(kind="text", text=about_the_shop)
    compared = compared_products(lowered, state, page_product(page), vocabulary)
    if compared is not None:
        return Plan(kind="compare", compared=compared, said=lowered)
    beyond = _place_beyond(lowered, state)
    if beyond:
        return Plan(kind="text", text=beyond)
    quality = unknowable_among_shown(lowered, state)
    if quality is not None:
        # No search could answer it: said plainly, with what can be asked instead.
        return Plan(
            kind="text",
            text=(
                f"I can't tell which of these {quality_said(quality)}: the catalog doesn't "
                "record that. "
                "Ask me about one of them, or to compare two, and I'll show you what the "
                "catalog says of each."
            ),
        )
    on_feet = bool(context_category(state, page)) and vocabulary.is_footwear(
        context_category(state, page)
    )
    said = statement_read(text, vocabulary, footwear=on_feet) if statements else []
    if said:
        # "I'm a size 12 in dresses" names a garment only to say what the size is for;
        # "I wear 42, sneakers please" and "similar, but not from Vela" ask for something.
        asking = (
            SHOPPING_INTENT.search(lowered)
            or _ASKING.search(lowered)
            or (parsed.categories and not _SELF_STATEMENT.search(lowered))
            # "I'm after a dress for a summer wedding": a garment wanted, said of oneself.
            or (parsed.categories and _WANTED.search(lowered))
            or asks_in_a_clause(text, vocabulary, footwear=on_feet)
            # "not black" with a list in view narrows it; "I hate black" tells.
            or (
                state.listing
                and (not state.about_one or _OF_THE_LIST.search(lowered))
                and _narrows(lowered, parsed)
            )
            # "I'm a large" just after a list: that list in the size.
            or (
                state.search is not None
                and state.shown
                and not state.about_one
                and not state.compared
                and size_for_the_list(lowered, parsed)
            )
        )
        if not asking:
            return Plan(kind="text", text=acknowledgement(said, asks_for_more=True))
        # "I'm a UK 8, show me boots": said back, then the request served.
        plan = _plan(text, state, vocabulary, page, statements=False)
        said = statement_read(text, vocabulary, footwear=on_feet, occasions=False)
        if said:
            plan.noted = acknowledgement(said, asks_for_more=False)
        return plan
    if state.offer is not None and _YES.search(lowered):
        return Plan(kind="search", request=state.offer)
    context = state.search or page_filters
    if _SIMILAR.search(lowered) and not _CHEAPER.search(lowered) and not parsed.categories:
        similar = similar_plan(lowered, state, parsed, page, vocabulary)
        if similar is not None:
            return similar
    same_search = context is not None and parsed.categories == context.categories
    if (
        _MORE.search(lowered)
        and not replace(parsed, categories=[]).has_criteria()
        and (not parsed.categories or same_search)
    ):
        if context is None:
            return Plan(kind="text", text=MORE_OF_WHAT_TEXT)
        offset = state.listed if state.search is not None else 0
        seen = frozenset(product.sku for product in state.seen) if offset else frozenset()
        return Plan(kind="search", request=context, offset=offset, more=offset > 0, seen=seen)
    if (
        parsed.lifted
        and not parsed.has_criteria()
        # "Does the last one come in other colours?" asks about that one: no lift.
        and not (
            state.shown and SINGULAR_REFERENCE.search(lowered) and _ASKS["colours"].search(lowered)
        )
        # "black's fine now i guess": a colour back in is the whole clause, whatever words
        # trail it.
        and (
            not parsed.words
            or judged_lifts(lowered, vocabulary)
            or colours_back(lowered, vocabulary)
        )
    ):
        # "The budget doesn't matter now", "forget my budget altogether, money's not an
        # issue": the search in force again, without it (the lift's own words are no search).
        if context is not None:
            return Plan(kind="search", request=refine(context, replace(parsed, words=[])))
        return Plan(kind="text", text=lifted_text(parsed.lifted))
    order = superlative(lowered)
    # "The cheapest of those" after a list is the cheapest of all its search matches (the
    # same one when the list was all of them); after a comparison, of the two compared.
    among_view = (
        state.shown
        and not parsed.categories
        and AMONG_SHOWN.search(lowered)
        and (state.compared or state.search is None)
    )
    if order and not among_view:
        # "The cheapest sneakers you have": every match ranked by price, not the list in view.
        dropped = order_words(lowered)
        parsed = replace(parsed, words=[w for w in parsed.words if w not in dropped])
        request = refine(context, parsed) if context and not parsed.categories else parsed
        return Plan(kind="search", request=request, sort=order)
    # "cheaper than €30" is a budget; "cheaper" alone is cheaper than what is in view.
    if (
        _CHEAPER.search(lowered)
        and not parsed.categories
        and parsed.max_price is None
        and not PICKED_AMONG_SHOWN.search(lowered)  # "the cheaper of the two" picks one
    ):
        return cheaper_plan(state, parsed, page, vocabulary)
    product, by_colour = referenced_product(lowered, parsed, state, page, vocabulary)
    if product is None:
        described = described_plan(
            lowered, parsed, state, context_category(state, page), vocabulary
        )
        if described is not None:
            return described
    if product is None and _BARE_ASK.search(lowered):
        # "what colours?" right after an answer about one product, or of a list of one.
        if state.about_one:
            product = next((p for p in state.seen if p.sku == state.picked_sku), None)
        elif len(state.shown) == 1:
            product = state.shown[0]
    if product is not None:
        colour = parsed.colour
        if colour is None and product in state.shown and len(product.colours) == 1:
            # Keep to the colour the shopper's card showed.
            colour = product.colours[0]
        if colour is None and state.picked_sku == product.sku and "colour" not in parsed.lifted:
            colour = state.picked.colour  # the colour under discussion ("in black?", "in L?")
        return Plan(
            kind="product",
            product=product,
            asked_size=parsed.size,
            asked_colour=colour,
            colour_said=parsed.colour is not None,
            by_colour=by_colour,
            asks=frozenset(name for name, cue in _ASKS.items() if cue.search(lowered))
            | ({"price"} if superlative(lowered) else set()),
        )
    if (
        not state.shown
        and page is None
        and not parsed.categories
        and (THIS.search(lowered) or PRONOUN.search(lowered))
        and not PLURAL_REFERENCE.search(lowered)
    ):
        return Plan(kind="text", text=CLARIFY_TEXT)  # "this" with nothing it could be
    if (
        _STOCKED.search(lowered)
        and parsed.words
        and not replace(parsed, occasions=[]).has_criteria()
    ):
        # "Do you sell ties?", "running socks?": a new question of the whole shop, never of
        # the list in view (what the thing is for does not make it a refinement).
        return Plan(kind="search", request=parsed)
    if (
        context is not None
        and not parsed.categories
        and (parsed.has_criteria() or parsed.currency or PLURAL_REFERENCE.search(lowered))
    ):
        return Plan(kind="search", request=refine(context, parsed))
    if (
        context is not None
        and not parsed.categories
        and parsed.words
        and FOLLOW_UP.search(lowered)
        # "How about midi?" asks about the list, however the act bank reads it.
        and (ABOUT_LEAD.search(lowered) or not passing(lowered))
    ):
        # "quilted?", "something wrap style", "what about a midi length": the search in
        # force, narrowed by the catalog's own words (the search says if none has them).
        return Plan(kind="search", request=refine(context, parsed))
    if context is None and _noted(lowered, parsed):
        return Plan(kind="text", text=_noted_text(parsed))
    if parsed.has_criteria():
        return Plan(kind="search", request=parsed)
    if _DISCOUNT.search(lowered):
        return Plan(kind="text", text=DISCOUNT_TEXT)
    if SINGULAR_REFERENCE.search(lowered) and SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=CLARIFY_TEXT)
    if state.shown and (OF_THE_ONE.search(lowered) or _BARE_ASK.search(lowered)):
        # "How much?" with several in view and none picked: which one, not a brush-off.
        return Plan(kind="text", text=WHICH_OF_THESE_TEXT)
    words = free_words(lowered)
    if SHOPPING_INTENT.search(lowered) and words:
        return Plan(kind="search", request=parsed, query=" ".join(words))
    if _THANKS.search(lowered):
        return Plan(kind="text", text="You're welcome! Is there anything else I can find for you?")
    if _GREETING.search(lowered) or SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=GREETING_TEXT)
    if _asked_by_name(lowered):
        # The search says plainly when the shop has none of it.
        return Plan(kind="search", request=parsed, query=" ".join(words))
    return Plan(kind="text", text=off_topic_text(vocabulary))


_TWO_PLACES = re.compile(
    r"\b(?:#|number\s)?([1-9])(?:st|nd|rd|th)?\s+(?:vs\.?|versus|or|and|with)\s+"
    r"(?:the\s+)?(?:#|number\s)?([1-9])(?:st|nd|rd|th)?\b"
)


def _place_beyond(lowered: str, state: State) -> str:
    """ "1 vs 3" of a list of one: say how many were shown, never search for "3"."""
    listing = state.listing or state.shown
    places = _TWO_PLACES.search(lowered)
    if not listing or not places or max(int(n) for n in places.groups()) <= len(listing):
        return ""
    count = "one product" if len(listing) == 1 else f"{len(listing)} products"
    return f"I showed {count} there. {WHICH_OF_THESE_TEXT}"


def _points_or_names(lowered: str, state: State) -> bool:
    """Never out of scope: a place in the list in view ("second one looks nice"), a bare
    question of the product in focus ("what colours?"), or a thing asked for by name alone
    ("hoodie?", answered by the search, none if the shop has none)."""
    if (state.listing or state.shown) and (
        POSITION_POINTED.search(lowered)
        or (SINGULAR_REFERENCE.search(lowered) and any(p.search(lowered) for p, _ in ORDINALS))
        or _BARE_ASK.search(lowered)
    ):
        return True
    return _asked_by_name(lowered)


def _asked_by_name(lowered: str) -> bool:
    """ "hoodie?", "scarves?": a thing asked for by its name alone."""
    words = re.findall(r"[a-z][a-z'-]*", lowered)
    return (
        len(words) <= 2
        and lowered.rstrip().endswith("?")
        and bool(free_words(lowered))
        and not set(words) & _QUESTION_WORDS
    )


# "what colours?", "sizes?", "how much": of the product in focus, asked bare.
_BARE_ASK = re.compile(
    r"^\W*(?:and\s+)?(?:what|which)?\s*(?:colou?rs?|sizes?)\W*$|^\W*(?:and\s+)?how much\W*$"
    r"|^\W*(?:and\s+)?(?:the\s+)?(?:price|prices|cost)(?:\s*-?\s*wise)?\W*$"
)
_QUESTION_WORDS = frozenset("why what how who when where really seriously sure ok okay".split())


def context_category(state: State, page: dict | None) -> str | None:
    """The category the conversation is about: the search in force's, else the page's."""
    if state.search is not None and state.search.category:
        return state.search.category
    return ((page or {}).get("product") or {}).get("category")


def _narrows(lowered: str, parsed: ShopperRequest) -> bool:
    """A filter said bare ("not black", "no black ones"), telling nothing of the shopper:
    no word of themselves, nor of their budget."""
    return not _FIRST_PERSON.search(lowered) and parsed.has_criteria()


def _noted(lowered: str, parsed: ShopperRequest) -> bool:
    """A preference said on its own ("I'm a size M", "I hate yellow"), with nothing on screen
    to apply it to: it is no request to list the whole catalog in that size."""
    if not _SELF_STATEMENT.search(lowered) or SHOPPING_INTENT.search(lowered):
        return False
    if parsed.categories or parsed.excluded_categories or parsed.occasions or parsed.brand:
        return False
    return bool(
        parsed.size or parsed.colours or parsed.excluded_colours or parsed.max_price is not None
    )


def _noted_text(parsed: ShopperRequest) -> str:
    said = []
    if parsed.size:
        said.append(f"size {parsed.size}")
    said += [f"no {colour}" for colour in parsed.excluded_colours]
    if parsed.colours:
        said.append(f"you like {and_join(parsed.colours)}")
    if parsed.max_price is not None:
        price = parsed.max_price
        amount = f"{price:.0f}" if float(price).is_integer() else f"{price:.2f}"
        said.append(f"a budget of up to €{amount}")
    return (
        f"Noted: {and_join(said)}. What are you looking for? Tell me a category (jeans, t-shirts, "
        "sneakers…) and I'll find options that fit."
    )
