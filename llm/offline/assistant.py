"""The shopping-assistant role: choose a tool call from the shopper's words, then answer.

Each request is read afresh (the API is stateless): the shopper's message, the page they
are on, the notes (their facts, earlier visits and this conversation so far), and any tool
rounds since that message decide the next step. Follow-ups ("the black one", "in M?",
"cheaper", "show more") are resolved by replaying this conversation's exchanges: each
answer ends with the products it showed, so the model knows what the shopper saw.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from llm.cards import MAX_CARDS
from llm.offline.facts import Profile, profile_from_facts
from llm.offline.memory import memory_answer, memory_topic
from llm.offline.notes import Memory, Notes, notes_parse
from llm.offline.replies import Reply, text_reply, tool_reply
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary, vocabulary_from_tools
from llm.prompts import NOTES_OPEN, content_text
from llm.transcript import (
    ShownProduct,
    memory_state_parse,
    page_context_parse,
    products_shown_parse,
)

# Products one answer shows: the cards under it say the rest.
SHOWN_PRODUCTS = MAX_CARDS

_CHEAPER = re.compile(
    r"\b(cheaper|less expensive|lower price|more affordable|too expensive|too pricey)\b"
)
_MORE = re.compile(
    r"^\s*(more|next|others)\b(?!\s+(than|affordable|expensive))"
    r"|\b(show|see|give|get|got)\s+(me\s+)?(some\s+|a\s+few\s+)?(more|others|other ones)\b"
    r"(?!\s+(than|affordable|expensive))"
    r"|\bmore (please|options|results|of (these|those|them))\b|\bany more\b|\bthe rest\b"
    r"|\bnext (page|ones|few)\b"
)
_SINGULAR_REFERENCE = re.compile(
    r"\b(it|that one|this one|the (\w+[ \-])?one|the (first|second|third|fourth|last|cheapest)"
    r"( one)?|that (\w+)|this (\w+))\b"
)
_PRONOUN = re.compile(r"\b(it|that one|this one|the one)\b")
_THIS = re.compile(
    r"\bthis\b(?!\s+(weekend|week|summer|winter|spring|autumn|year|time|evening|morning|"
    r"month|season))"
)
_PLURAL_REFERENCE = re.compile(r"\b(these|those|them|any of them|the ones|ones|others|any)\b")
_ORDINALS = (
    (re.compile(r"\b(the )?(first|1st)\b|\bnumber (one|1)\b|#1\b"), 0),
    (re.compile(r"\b(the )?(second|2nd)\b|\bnumber (two|2)\b|#2\b"), 1),
    (re.compile(r"\b(the )?(third|3rd)\b|\bnumber (three|3)\b|#3\b"), 2),
    (re.compile(r"\b(the )?(fourth|4th)\b|\bnumber (four|4)\b|#4\b"), 3),
    (re.compile(r"\bthe last( one)?\b"), -1),
)
_ASKS = {
    "sizes": re.compile(r"\bsizes?\b|\bfit\b"),
    "colours": re.compile(r"\bcolou?rs?\b"),
    "price": re.compile(r"\b(price|cost|how much)\b"),
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
_SHOPPING_INTENT = re.compile(
    r"\b(looking for|show me|do you (have|sell|stock|carry)|got any|i need|i want|find me|"
    r"recommend|suggest|buy|shopping for|searching for|any)\b"
)
# "any in blue?", "got any in M?": a follow-up about what was just shown, not a new search.
_ANY_IN = re.compile(r"^\s*(?:and\s+|but\s+)?(?:got\s+)?any(?:thing)?\s+in\b")
_YES = re.compile(
    r"^\s*(yes|yeah|yep|sure|ok|okay|please do|go on|go ahead)\b[\s!.,]*(please)?[\s!.]*$"
)
_OFFER = re.compile(r"Shall I look for other (?P<category>[\w -]+?) in (?P<colour>[\w -]+?)\?")
_STOP_WORDS = frozenset(
    "a an and any are can do for from got have i i'm im in is it me my need of on or "
    "please show some something that the them to want with you your looking find buy "
    "sell stock carry recommend suggest shopping searching this what which nice good great "
    "cool new cute pretty lovely stylish else other".split()
)


@dataclass
class ToolRound:
    name: str
    arguments: dict
    result: dict


@dataclass
class Turn:
    shopper: str
    notes: Notes
    rounds: list[ToolRound]
    tools: set[str]
    vocabulary: Vocabulary
    page: dict | None = None
    mode: str = "stateless"


@dataclass
class State:
    """What this conversation has established by the shopper's newest message."""

    search: ShopperRequest | None = None  # the search in force
    listed: int = 0  # how many products of that search were shown so far
    shown: list[ShownProduct] = field(default_factory=list)  # the newest answer's products
    # Colour and size the shopper picked on a product ("the black one", "in M?"): what
    # "cheaper" then keeps to.
    picked: ShopperRequest = field(default_factory=ShopperRequest)
    # A search the newest answer offered ("Shall I look for other t-shirts in blue?"): what a
    # plain "yes" accepts.
    offer: ShopperRequest | None = None


@dataclass
class Plan:
    """What a message needs: a plain answer, or a tool call and how to answer its result."""

    kind: str  # "text" | "memory" | "search" | "product"
    text: str = ""
    topic: str | None = None
    request: ShopperRequest = field(default_factory=ShopperRequest)
    query: str = ""
    offset: int = 0
    more: bool = False
    below: ShownProduct | None = None  # "cheaper" than this product
    product: ShownProduct | None = None
    asked_size: str | None = None
    asked_colour: str | None = None
    by_colour: bool = False  # "the black one": the colour picked the product
    asks: frozenset[str] = frozenset()


def assistant_reply(request: dict) -> Reply:
    """Answer one chat-completions request as the shopping assistant."""
    turn = turn_read(request)
    tools_allowed = bool(turn.tools) and request.get("tool_choice") != "none"
    state = conversation_state(turn)
    plan = message_plan(turn.shopper, state, turn.vocabulary, turn.page)
    profile = profile_from_facts(turn.notes.facts, turn.vocabulary)
    call = _first_call(plan, profile, turn)
    if turn.rounds:
        return _answer_after_tools(turn, plan, call, tools_allowed)
    if plan.kind == "memory":
        if call and tools_allowed and call[0] in turn.tools:
            return tool_reply(*call)
        return text_reply(_memory_text(plan, turn))
    if call and tools_allowed and call[0] in turn.tools:
        return tool_reply(*call)
    if call:
        return text_reply(
            "I can't check the catalog right now. Please try again in a moment, or browse "
            "the catalog pages."
        )
    return text_reply(plan.text)


def turn_read(request: dict) -> Turn:
    messages = request["messages"]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    last_user = users[-1] if users else -1
    shopper = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    before = messages[: max(last_user, 0)]
    notes_text = "\n".join(
        content_text(m.get("content"))
        for m in before
        if m.get("role") == "user" and NOTES_OPEN in content_text(m.get("content"))
    )
    # Only system messages say which page the shopper is on or what memory holds: a
    # shopper's own message can claim neither.
    system = [
        content_text(m.get("content")) for m in before if m.get("role") in ("system", "developer")
    ]
    page = next((p for p in map(page_context_parse, system) if p), None)
    tools = {
        tool["function"]["name"] for tool in request.get("tools") or [] if tool.get("function")
    }
    mode = next((m for m in map(memory_state_parse, system) if m), None)
    if mode is None:
        mode = "remembering" if "recall_memory" in tools else "stateless"
    elif mode == "remembering" and "recall_memory" not in tools:
        mode = "memory_unavailable"  # said to remember, but given no way to look
    return Turn(
        shopper=shopper,
        notes=notes_parse(notes_text),
        rounds=_rounds_read(messages[last_user + 1 :]),
        tools=tools,
        vocabulary=vocabulary_from_tools(request.get("tools")),
        page=page,
        mode=mode,
    )


# --- the conversation so far ----------------------------------------------------------------


def conversation_state(turn: Turn) -> State:
    """Replay this conversation's verbatim exchanges, oldest first, with the same rules."""
    state = State()
    for exchange in turn.notes.exchanges:
        plan = message_plan(exchange.query, state, turn.vocabulary, turn.page)
        state = _state_after(state, plan, products_shown_parse(exchange.answer))
        state.offer = _offer_read(exchange.answer, turn.vocabulary)
    return state


def _offer_read(answer: str, vocabulary: Vocabulary) -> ShopperRequest | None:
    """The search an answer offered to run, when the shopper only has to say yes."""
    found = _OFFER.search(answer)
    if not found:
        return None
    offered = request_parse(f"{found['category']} in {found['colour']}", vocabulary)
    return offered if offered.categories and offered.colours else None


def _state_after(state: State, plan: Plan, shown: list[ShownProduct]) -> State:
    state = replace(state)
    if plan.kind == "search":
        if plan.more:
            state.listed += len(shown)
        elif plan.below is not None and not shown:
            # Nothing is cheaper: the list on screen is still the one in force, so "show
            # more" goes on with it instead of repeating a search that found nothing.
            pass
        else:
            state.search, state.listed = plan.request, len(shown)
            if plan.below is None:
                state.picked = ShopperRequest()
    elif plan.kind == "product":
        state.picked = _refine(
            state.picked,
            ShopperRequest(
                colours=[plan.asked_colour] if plan.asked_colour else [],
                size=plan.asked_size,
            ),
        )
    if shown:
        state.shown = shown
    return state


def message_plan(text: str, state: State, vocabulary: Vocabulary, page: dict | None) -> Plan:
    """Decide what one shopper message needs, most specific cue first."""
    lowered = text.strip().lower().replace("\u2019", "'")
    parsed = request_parse(text, vocabulary)
    page_filters = _page_request(page, vocabulary)
    if not lowered:
        return Plan(kind="text", text=_GREETING_TEXT)
    topic = memory_topic(lowered)
    if topic:
        return Plan(kind="memory", topic=topic)
    if state.offer is not None and _YES.search(lowered):
        return Plan(kind="search", request=state.offer)
    context = state.search or page_filters
    if _MORE.search(lowered) and not parsed.has_criteria():
        if context is None:
            return Plan(kind="text", text=_MORE_OF_WHAT_TEXT)
        offset = state.listed if state.search is not None else 0
        return Plan(kind="search", request=context, offset=offset, more=offset > 0)
    if _CHEAPER.search(lowered) and not parsed.categories:
        return _cheaper_plan(state, parsed, page, vocabulary)
    product, by_colour = _referenced_product(lowered, parsed, state, page, vocabulary)
    if product is not None:
        colour = parsed.colour
        if colour is None and product in state.shown and len(product.colours) == 1:
            # Keep to the colour the shopper's card showed.
            colour = product.colours[0]
        return Plan(
            kind="product",
            product=product,
            asked_size=parsed.size,
            asked_colour=colour,
            by_colour=by_colour,
            asks=frozenset(name for name, cue in _ASKS.items() if cue.search(lowered)),
        )
    if (
        not state.shown
        and page is None
        and not parsed.categories
        and (_THIS.search(lowered) or _PRONOUN.search(lowered))
        and not _PLURAL_REFERENCE.search(lowered)
    ):
        return Plan(kind="text", text=_CLARIFY_TEXT)  # "this" with nothing it could be
    if (
        context is not None
        and not parsed.categories
        and (parsed.has_criteria() or _PLURAL_REFERENCE.search(lowered))
    ):
        return Plan(kind="search", request=_refine(context, parsed))
    if context is None and _noted(lowered, parsed):
        return Plan(kind="text", text=_noted_text(parsed))
    if parsed.has_criteria():
        return Plan(kind="search", request=parsed)
    if _DISCOUNT.search(lowered):
        return Plan(kind="text", text=_DISCOUNT_TEXT)
    if _SINGULAR_REFERENCE.search(lowered) and _SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=_CLARIFY_TEXT)
    free_words = _free_words(lowered)
    if _SHOPPING_INTENT.search(lowered) and free_words:
        return Plan(kind="search", request=parsed, query=" ".join(free_words))
    if _THANKS.search(lowered):
        return Plan(kind="text", text="You're welcome! Is there anything else I can find for you?")
    if _GREETING.search(lowered) or _SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=_GREETING_TEXT)
    return Plan(kind="text", text=_off_topic_text(vocabulary))


def _noted(lowered: str, parsed: ShopperRequest) -> bool:
    """A preference said on its own ("I'm a size M", "I hate yellow"), with nothing on screen
    to apply it to: it is no request to list the whole catalog in that size."""
    if not _SELF_STATEMENT.search(lowered) or _SHOPPING_INTENT.search(lowered):
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
        said.append(f"you like {_and(parsed.colours)}")
    if parsed.max_price is not None:
        price = parsed.max_price
        amount = f"{price:.0f}" if float(price).is_integer() else f"{price:.2f}"
        said.append(f"a budget of up to €{amount}")
    return (
        f"Noted: {_and(said)}. What are you looking for? Tell me a category (jeans, t-shirts, "
        "sneakers…) and I'll find options that fit."
    )


def _cheaper_plan(
    state: State, parsed: ShopperRequest, page: dict | None, vocabulary: Vocabulary
) -> Plan:
    """Cheaper than what the shopper is looking at, keeping to what they asked for."""
    page_product = _page_product(page)
    base = state.search or _page_request(page, vocabulary)
    compared = state.shown
    if not compared and page_product is not None:
        compared = [page_product]
        category = (page or {}).get("product", {}).get("category")
        base = base or ShopperRequest(categories=[category] if category else [])
    if base is None and compared:
        # The search that showed them is out of sight: their names still say what they are.
        named = request_parse(" ".join(p.name for p in compared), vocabulary).categories
        base = ShopperRequest(categories=named[:1]) if len(set(named)) == 1 else None
    if base is None:
        return Plan(kind="text", text=_CLARIFY_TEXT)
    request = _refine(_refine(base, state.picked), parsed)
    priced = [product for product in compared if product.price_eur is not None]
    below = min(priced, key=lambda p: p.price_eur) if priced else None
    if below is not None:
        request = replace(request, max_price=round(below.price_eur - 0.01, 2))
    return Plan(kind="search", request=request, below=below)


def _refine(context: ShopperRequest, parsed: ShopperRequest) -> ShopperRequest:
    """Apply a follow-up's criteria on top of the search in force ("in navy?", "size L?")."""
    refined = replace(
        context,
        categories=list(context.categories),
        excluded_categories=_union(context.excluded_categories, parsed.excluded_categories),
        colours=list(
            parsed.colours or [c for c in context.colours if c not in parsed.excluded_colours]
        ),
        excluded_colours=_union(
            [c for c in context.excluded_colours if c not in parsed.colours],
            parsed.excluded_colours,
        ),
        occasions=_union(context.occasions, parsed.occasions),
    )
    for name in ("size", "max_price", "brand", "limit"):
        if getattr(parsed, name) is not None:
            setattr(refined, name, getattr(parsed, name))
    return refined


def _referenced_product(
    lowered: str,
    parsed: ShopperRequest,
    state: State,
    page: dict | None,
    vocabulary: Vocabulary,
) -> tuple[ShownProduct | None, bool]:
    """The product a follow-up points at, and whether its colour picked it."""
    shown = state.shown
    page_product = _page_product(page)
    for product in [*shown, *([page_product] if page_product else [])]:
        if product.name.lower() in lowered:
            return product, False
    known = [*shown, *([page_product] if page_product else [])]
    if parsed.categories and not any(
        _singular(category) in product.name.lower()
        for product in known
        for category in parsed.categories
    ):
        return None, False  # a new category is a new search
    # "Any in blue?" after a list refines its search; after one product, asks about it.
    one_in_view = len(shown) == 1 or (not shown and state.search is None and page_product)
    if (
        _PLURAL_REFERENCE.search(lowered)
        and not _PRONOUN.search(lowered)
        and not (one_in_view and _ANY_IN.search(lowered))
    ):
        return None, False
    if shown:
        for pattern, position in _ORDINALS:
            if pattern.search(lowered) and _SINGULAR_REFERENCE.search(lowered):
                return (shown[position] if position < len(shown) else shown[-1]), False
        if re.search(r"\bthe cheapest\b", lowered):
            priced = [p for p in shown if p.price_eur is not None]
            return (min(priced, key=lambda p: p.price_eur) if priced else shown[0]), False
        if parsed.colours and _colour_named_as_one(lowered, parsed.colours[0], vocabulary):
            return _by_colour(shown, parsed.colours[0]), True
        if parsed.brand:
            by_brand = [p for p in shown if parsed.brand.lower() in p.name.lower()]
            if by_brand and _SINGULAR_REFERENCE.search(lowered):
                return by_brand[0], False
    if page_product is not None and _THIS.search(lowered):
        return page_product, False
    if _PRONOUN.search(lowered):
        if len(shown) == 1:
            return shown[0], False
        if page_product is not None:
            return page_product, False
        if shown:
            return shown[0], False
    bare = (parsed.size or parsed.colours) and not parsed.categories
    if bare and (not _SHOPPING_INTENT.search(lowered) or _ANY_IN.search(lowered)):
        if len(shown) == 1:
            return shown[0], False
        if not shown and state.search is None and page_product is not None:
            return page_product, False
    return None, False


def _colour_named_as_one(lowered: str, colour: str, vocabulary: Vocabulary) -> bool:
    """ "the black one", "that navy pair", "the grey jeans": a colour naming one product."""
    phrases = [p for p, value in vocabulary.colour_phrases.items() if value == colour] or [colour]
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return bool(re.search(rf"\b(the|that)\s+(\w+\s+)?({alternatives})\b", lowered))


def _by_colour(shown: list[ShownProduct], colour: str) -> ShownProduct | None:
    """ "The black one": a plain black product before one that is black among others."""
    candidates = [(len(p.colours), i, p) for i, p in enumerate(shown) if colour in p.colours]
    return min(candidates)[2] if candidates else None


# --- the page the shopper is on ------------------------------------------------------------


def _page_product(page: dict | None) -> ShownProduct | None:
    product = (page or {}).get("product") if (page or {}).get("kind") == "product" else None
    if not isinstance(product, dict) or not product.get("sku") or not product.get("name"):
        return None
    price = product.get("price_eur")
    return ShownProduct(
        name=str(product["name"]),
        sku=str(product["sku"]),
        colours=tuple(str(c) for c in product.get("colours") or []),
        sizes=tuple(str(s) for s in product.get("sizes_in_stock") or []),
        price_eur=float(price) if isinstance(price, int | float) else None,
    )


def _page_request(page: dict | None, vocabulary: Vocabulary) -> ShopperRequest | None:
    """A catalog page's filters as a search, keeping only values the catalog knows."""
    if not page or page.get("kind") != "catalog" or not isinstance(page.get("filters"), dict):
        return None
    filters = page["filters"]

    def known(value: object, choices: list[str]) -> str | None:
        lowered = {choice.lower(): choice for choice in choices}
        return lowered.get(str(value).strip().lower()) if value else None

    category = known(filters.get("category"), vocabulary.categories)
    colour = known(filters.get("colour"), vocabulary.colours)
    price = filters.get("max_price")
    request = ShopperRequest(
        categories=[category] if category else [],
        colours=[colour] if colour else [],
        size=known(filters.get("size"), vocabulary.sizes),
        brand=known(filters.get("brand"), vocabulary.brands),
        max_price=float(price) if isinstance(price, int | float) and price > 0 else None,
    )
    query = str(filters.get("q") or "").strip()
    if query:
        request.occasions = _free_words(query.lower())
    return request if request.has_criteria() else None


# --- tool calls -------------------------------------------------------------------------------


def _first_call(plan: Plan, profile: Profile, turn: Turn) -> tuple[str, dict] | None:
    if plan.kind == "search":
        return "search_products", search_arguments(plan, profile, turn.vocabulary)
    if plan.kind == "product" and plan.product is not None:
        arguments = {"sku": plan.product.sku}
        if plan.asked_colour:
            arguments["colour"] = plan.asked_colour
        return "get_product", arguments
    if plan.kind == "memory" and plan.topic == "visits":
        return "recall_memory", {"query": turn.shopper}
    return None


def search_arguments(plan: Plan, profile: Profile, vocabulary: Vocabulary) -> dict:
    """`search_products` arguments: what was asked, then recalled facts for the rest."""
    parsed = plan.request
    arguments: dict = {}
    words = " ".join(parsed.occasions) or plan.query
    if words:
        arguments["query"] = words
    if parsed.category:
        arguments["category"] = parsed.category
    if parsed.excluded_categories and not parsed.category:
        arguments["exclude_categories"] = list(parsed.excluded_categories)
    if parsed.colour:
        arguments["colour"] = parsed.colour
    excluded = list(parsed.excluded_colours)
    excluded += [
        c for c in profile.disliked_colours if c not in excluded and c not in parsed.colours
    ]
    if excluded:
        arguments["exclude_colours"] = excluded
    size = parsed.size or profile.size_for(parsed.category, vocabulary)
    if size:
        arguments["size"] = size
    brand = parsed.brand or profile.brand
    if brand:
        arguments["brand"] = brand
    max_price = parsed.max_price if parsed.max_price is not None else profile.max_price
    if max_price is not None:
        arguments["max_price"] = int(max_price) if float(max_price).is_integer() else max_price
    if parsed.limit:
        arguments["limit"] = min(parsed.limit, SHOWN_PRODUCTS)
    if plan.offset:
        arguments["offset"] = plan.offset
    return arguments


def _relaxed(arguments: dict, plan: Plan) -> dict | None:
    """The search again, once, when it found nothing: without a recalled brand, or without
    free words no description uses ("a navy shirt for the office")."""
    if "brand" in arguments and not plan.request.brand:
        return {key: value for key, value in arguments.items() if key != "brand"}
    if "query" in arguments and set(arguments) - {"query", "offset", "limit"}:
        return {key: value for key, value in arguments.items() if key != "query"}
    return None


# --- answers after tool results ---------------------------------------------------------------


def _answer_after_tools(
    turn: Turn, plan: Plan, call: tuple[str, dict] | None, tools_allowed: bool
) -> Reply:
    last = turn.rounds[-1]
    if (
        last.name == "search_products"
        and len(turn.rounds) == 1
        and not last.result.get("products")
        and tools_allowed
    ):
        relaxed = _relaxed(last.arguments, plan)
        if relaxed is not None:
            return tool_reply("search_products", relaxed)
    if last.name == "search_products":
        first = turn.rounds[0].arguments if len(turn.rounds) > 1 else None
        return text_reply(search_answer(last.arguments, last.result, plan, first=first))
    if last.name == "get_product":
        return text_reply(product_answer(last.result, plan))
    if last.name == "recall_memory":
        return text_reply(_memory_text(plan, turn, found=last.result))
    return text_reply("Here's what I found. What else can I help you find?")


def _memory_text(plan: Plan, turn: Turn, found: dict | None = None) -> str:
    visits = list(turn.notes.earlier)
    facts = list(turn.notes.facts)
    notes = (found or {}).get("notes")
    if isinstance(notes, str):
        recalled = notes_parse(notes)
        known = {visit.text for visit in visits}
        visits += [visit for visit in recalled.earlier if visit.text not in known]
        facts += recalled.facts
    return memory_answer(
        topic=plan.topic or "all",
        mode=turn.mode,
        facts=facts,
        visits=_unique(visits),
        vocabulary=turn.vocabulary,
    )


def search_answer(arguments: dict, result: dict, plan: Plan, *, first: dict | None) -> str:
    """Say how many of how many, one line on each product; the cards carry the details."""
    products = [p for p in result.get("products") or [] if isinstance(p, dict)][:SHOWN_PRODUCTS]
    total = result.get("total") if isinstance(result.get("total"), int) else len(products)
    offset = result.get("offset") if isinstance(result.get("offset"), int) else 0
    described = _describe(arguments)
    if not products:
        if offset:
            return f"That's all of them: there are no more {described}. Want to try something else?"
        if plan.below is not None and plan.below.price_eur is not None:
            # Asked for cheaper, a price limit is no more the shopper's than "a higher budget".
            unpriced = _describe(_unpriced(arguments))
            if not _one_of(plan.below, arguments):
                # "Cheaper in blue?" of a product that is not blue: it is no blue one itself.
                return (
                    f"I couldn't find any {unpriced} cheaper than the {plan.below.name} "
                    f"(€{plan.below.price_eur:.2f}) in stock right now. "
                    f"{_cheapest_suggestion(_unpriced(arguments))}"
                )
            return (
                f"The {plan.below.name}, at €{plan.below.price_eur:.2f}, is already the "
                f"cheapest of the {unpriced} in stock. {_cheapest_suggestion(_unpriced(arguments))}"
            )
        return f"I couldn't find any {described} in stock right now. {_relax_suggestion(arguments)}"
    intro = []
    if first is not None:
        if "brand" in first and "brand" not in arguments:
            intro.append(
                f"There's nothing from {first['brand']} that fits right now, so here are "
                "other brands."
            )
        elif "query" in first and "query" not in arguments:
            intro.append(
                f"Nothing is described as made for “{first['query']}”, so here are the "
                "closest matches."
            )
    if plan.below is not None and plan.below.price_eur is not None:
        # "under €52.99" is a limit the shopper never said: they asked for cheaper than this.
        described = (
            f"{_describe(_unpriced(arguments))} cheaper than the {plan.below.name} "
            f"(€{plan.below.price_eur:.2f})"
        )
    count = len(products)
    if offset:
        intro.append(f"Here are {count} more of the {total} {described}:")
    elif count == total == 1:
        intro.append(f"I found one match for {described}:")
    elif count == total:
        intro.append(f"I found {count} {described}:")
    else:
        intro.append(f"Here are {count} of {total} {described}:")
    shared = _shared_sentences(products)
    lines = [_product_line(product, shared=shared) for product in products]
    outro = []
    if plan.request.excluded_categories:
        outro.append(f"I've left out {', '.join(plan.request.excluded_categories)} as you asked.")
    remaining = total - offset - count
    if remaining > 0:
        outro.append(
            f"Say “show more” for the next {min(remaining, SHOWN_PRODUCTS)}, or ask me about "
            "one of these."
        )
    else:
        outro.append(
            "Want me to check a size or colour for it?"
            if count == 1
            else "Want me to check a size or colour for one of these?"
        )
    return f"{' '.join(intro)}\n\n" + "\n".join(lines) + f"\n\n{' '.join(outro)}"


def product_answer(result: dict, plan: Plan) -> str:
    """Answer about one product from its look-up; sizes and colours as its card shows them."""
    if not isinstance(result, dict) or result.get("error") or not result.get("name"):
        return (
            "I couldn't find that product in the catalog any more; it may have been "
            "withdrawn. Want me to look for something similar?"
        )
    name = f"**{result['name']}**"
    blurb = _first_sentence(result.get("blurb"))
    colour, size = plan.asked_colour, plan.asked_size
    colours = [str(c) for c in result.get("colours") or []]
    sizes = [str(s) for s in result.get("sizes_in_stock") or []]
    if colour and result.get("colour_in_stock") is False:
        available = _and(colours) if colours else "no colour at the moment"
        category = str(result.get("category") or "").strip()
        offer = f" Shall I look for other {category} in {colour}?" if category else ""
        return f"The {name} isn't in stock in {colour} right now; it comes in {available}.{offer}"
    in_colour = f" in {colour}" if colour else ""
    if size:
        variants = [
            v
            for v in result.get("variants") or []
            if v.get("size") == size and (v.get("stock") or 0) > 0
        ]
        if variants:
            left = sum(int(v.get("stock") or 0) for v in variants)
            return f"Yes, the {name} is in stock in size {size}{in_colour} ({left} left)."
        other = f"sizes {_and(sizes)}" if sizes else "no size at the moment"
        return (
            f"Sorry, the {name} isn't in stock in size {size}{in_colour}. "
            f"{'In ' + colour + ' it' if colour else 'It'} comes in {other}. "
            f"Want me to look for something similar in {size}?"
        )
    if colour:
        sized = f"in sizes {_and(sizes)}" if sizes else "but no size is in stock right now"
        if plan.by_colour:
            lead = f"The {name} is the {colour} one" + (
                f": {_lower_first(blurb)}" if blurb else "."
            )
            return f"{lead} In {colour} it's in stock {sized}."
        return f"Yes, the {name} comes in {colour}, {sized}."
    parts = [f"Here's the {name}" + (f": {_lower_first(blurb)}" if blurb else ".")]
    if "sizes" in plan.asks:
        parts.append(f"It's in stock in sizes {_and(sizes)}." if sizes else "No size is in stock.")
    if "colours" in plan.asks:
        parts.append(f"It comes in {_and(colours)}." if colours else "")
    price = result.get("price_eur")
    if "price" in plan.asks and isinstance(price, int | float):
        parts.append(f"It costs €{float(price):.2f}.")
    if not plan.asks:
        parts.append("Want me to check a size or colour?")
    return " ".join(part for part in parts if part)


def _product_line(product: dict, *, shared: set[str]) -> str:
    """One line per product: its name and what sets it apart. Its card shows the rest."""
    sentences = _sentences(product.get("blurb"))
    telling = [s for s in sentences if s not in shared] or sentences[:1]
    name = f"**{product.get('name', 'Product')}**"
    return f"- {name} — {_lower_first(' '.join(telling))}" if telling else f"- {name}"


def _shared_sentences(products: list[dict]) -> set[str]:
    """Blurb sentences every product in the list has: they set none of them apart."""
    if len(products) < 2:
        return set()
    sets = [set(_sentences(product.get("blurb"))) for product in products]
    return set.intersection(*sets)


def _sentences(text: object) -> list[str]:
    if not isinstance(text, str):
        return []
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _describe(arguments: dict) -> str:
    category = arguments.get("category")
    words = [arguments["colour"]] if arguments.get("colour") else []
    words.append(category if category else "products")
    text = " ".join(words)
    if arguments.get("brand"):
        text += f" from {arguments['brand']}"
    if arguments.get("size"):
        text += f" in size {arguments['size']}"
    if arguments.get("max_price") is not None:
        text += f" under €{arguments['max_price']}"
    if arguments.get("query"):
        text += f" matching “{arguments['query']}”"
    if arguments.get("exclude_colours"):
        text += f" (leaving out {' and '.join(arguments['exclude_colours'])})"
    return text


def _one_of(product: ShownProduct, arguments: dict) -> bool:
    """Whether the product is itself one of what was searched, as far as its colour and size
    tell (a product page's product may carry neither: then it counts)."""
    colour, size = arguments.get("colour"), arguments.get("size")
    if colour and product.colours and colour not in product.colours:
        return False
    return not (size and product.sizes and size not in product.sizes)


def _unpriced(arguments: dict) -> dict:
    return {key: value for key, value in arguments.items() if key != "max_price"}


def _cheapest_suggestion(arguments: dict) -> str:
    """After "cheaper" found nothing: loosen what the shopper chose, else offer the product."""
    if any(arguments.get(name) for name in ("size", "colour", "brand")):
        return _relax_suggestion(arguments)
    return "Want me to check a size or colour for it?"


def _relax_suggestion(arguments: dict) -> str:
    if arguments.get("max_price") is not None:
        return "Would a higher budget work? I can search again without the price limit."
    if arguments.get("size"):
        return "Shall I look in other sizes, or in another category?"
    if arguments.get("colour"):
        return "Shall I try another colour?"
    if arguments.get("brand"):
        return "Shall I look at other brands?"
    return "Try a broader search, for example just a category or a colour."


# --- helpers ----------------------------------------------------------------------------------


def _rounds_read(messages: list[dict]) -> list[ToolRound]:
    calls: dict[str, tuple[str, dict]] = {}
    rounds = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                calls[call.get("id")] = (
                    function.get("name", ""),
                    _json_or_empty(function.get("arguments")),
                )
        elif message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id"), ("", {}))
            rounds.append(
                ToolRound(name, arguments, _json_or_empty(content_text(message.get("content"))))
            )
    return rounds


def _json_or_empty(text: object) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _unique(visits: list[Memory]) -> list[Memory]:
    seen: set[str] = set()
    unique = []
    for visit in visits:
        if visit.text not in seen:
            seen.add(visit.text)
            unique.append(visit)
    return unique


def _first_sentence(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        return ""
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _free_words(lowered: str) -> list[str]:
    words = re.findall(r"[a-z][a-z\-]+", lowered)
    return [w for w in words if w not in _STOP_WORDS and len(w) > 2][:4]


def _union(first: list[str], second: list[str]) -> list[str]:
    return first + [item for item in second if item not in first]


def _off_topic_text(vocabulary: Vocabulary) -> str:
    carried = f" We carry {', '.join(vocabulary.categories)}." if vocabulary.categories else ""
    return (
        "I can only help with shopping at Aisle." + carried + " Tell me what you're looking "
        "for, with a colour, size, budget or occasion if you have one in mind."
    )


_GREETING_TEXT = (
    "Hi! I'm Aisle's shopping assistant. Tell me what you're looking for (a category, "
    "colour, size, budget or occasion) and I'll find options that are in stock."
)
_CLARIFY_TEXT = (
    "Which product do you mean? Tell me its name, or what you're looking for, and I'll check."
)
_MORE_OF_WHAT_TEXT = "More of what? Tell me what you're looking for and I'll find options."
_DISCOUNT_TEXT = (
    "I can't change prices or give discounts; prices are as shown in the shop. I can help "
    "you find something within your budget, though. What are you looking for?"
)
