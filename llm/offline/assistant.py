"""The shopping-assistant role: choose a tool call from the shopper's words, then answer.

Each request is read afresh (the API is stateless): the shopper's message, the recalled
notes, and any tool rounds since that message decide the next step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from llm.offline.facts import Profile, profile_from_facts
from llm.offline.notes import (
    Notes,
    ShownProduct,
    answer_products,
    memory_line_parse,
    notes_parse,
)
from llm.offline.replies import Reply, text_reply, tool_reply
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary, vocabulary_from_tools
from llm.prompts import NOTES_OPEN, content_text

SHOWN_PRODUCTS = 4
MAX_TOOL_ROUNDS = 4

_CHEAPER = re.compile(
    r"\b(cheaper|less expensive|lower price|more affordable|too expensive|too pricey)\b"
)
_RECALL = re.compile(
    r"\b(last time|last visit|previous visit|earlier visit|what did i (look|ask|search|see|want|buy)"
    r"|what was i (looking|after)|remind me what|did i look at|we (talked|spoke) about"
    r"|what have i (looked|asked)|my (past|previous|earlier) (visits?|searches|sessions?))\b"
)
_SINGULAR_REFERENCE = re.compile(
    r"\b(it|that one|this one|the (\w+[ \-])?one|the (first|second|third|fourth|last|cheapest)"
    r"( one)?|that (\w+)|this (\w+))\b"
)
_PLURAL_REFERENCE = re.compile(r"\b(these|those|them|any of them|the ones)\b")
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}
_GREETING = re.compile(r"^\s*(hi|hello|hey|hiya|good (morning|afternoon|evening)|howdy|yo)\b")
_THANKS = re.compile(r"\b(thanks|thank you|cheers|perfect|great, thanks|that's all|ok|okay)\b")
_DISCOUNT = re.compile(
    r"\b(discount|% off|percent off|coupon|voucher|promo code|for free|refund)\b"
)
_SHOPPING_INTENT = re.compile(
    r"\b(looking for|show me|do you (have|sell|stock|carry)|got any|i need|i want|find me|"
    r"recommend|suggest|buy|shopping for|searching for|any)\b"
)
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


@dataclass
class Plan:
    """The first tool call a turn needs (or None for a plain answer) and what it is about."""

    kind: str  # "search" | "product" | "recall" | "text"
    call: tuple[str, dict] | None = None
    text: str = ""
    request: ShopperRequest = field(default_factory=ShopperRequest)
    relaxed: dict | None = None  # the search again without a recalled brand, or its free words
    product: ShownProduct | None = None
    asked_size: str | None = None
    asked_colour: str | None = None


def assistant_reply(request: dict) -> Reply:
    """Answer one chat-completions request as the shopping assistant."""
    turn = turn_read(request)
    choice = request.get("tool_choice")
    tools_allowed = bool(turn.tools) and choice != "none"
    plan = turn_plan(turn)
    if turn.rounds:
        return _answer_after_tools(turn, plan, tools_allowed)
    if plan.call and tools_allowed and plan.call[0] in turn.tools:
        return tool_reply(*plan.call)
    if plan.kind == "recall":
        return text_reply(plan.text)
    if plan.call:
        return text_reply(
            "I can't check the catalog right now. Please try again in a moment, or browse "
            "the catalog pages."
        )
    return text_reply(plan.text)


def turn_read(request: dict) -> Turn:
    messages = request["messages"]
    last_user = (
        max(i for i, m in enumerate(messages) if m.get("role") == "user")
        if any(m.get("role") == "user" for m in messages)
        else -1
    )
    shopper = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    notes_text = "\n".join(
        content_text(m.get("content"))
        for m in messages[: max(last_user, 0)]
        if m.get("role") == "user" and NOTES_OPEN in content_text(m.get("content"))
    )
    tools = {
        tool["function"]["name"] for tool in request.get("tools") or [] if tool.get("function")
    }
    return Turn(
        shopper=shopper,
        notes=notes_parse(notes_text),
        rounds=_rounds_read(messages[last_user + 1 :]),
        tools=tools,
        vocabulary=vocabulary_from_tools(request.get("tools")),
    )


def turn_plan(turn: Turn) -> Plan:
    """Decide what the shopper's message needs, in order of how specific the cue is."""
    text = turn.shopper.strip()
    lowered = text.lower().replace("\u2019", "'")
    vocabulary = turn.vocabulary
    parsed = request_parse(text, vocabulary)
    profile = profile_from_facts(turn.notes.facts, vocabulary)
    context, shown = _conversation_state(turn.notes, vocabulary)

    if not text:
        return Plan(kind="text", text=_GREETING_TEXT)
    if _RECALL.search(lowered):
        return Plan(kind="recall", call=("recall_memory", {"query": text}), text=_NO_RECALL_TEXT)
    if _CHEAPER.search(lowered) and not parsed.categories:
        if context is None:
            return Plan(kind="text", text=_CLARIFY_TEXT)
        cheaper = _cheaper_than_shown(context, shown)
        return _search_plan(_refine(cheaper, parsed), profile, vocabulary)
    product = _referenced_product(lowered, parsed, shown)
    if product is not None:
        return _product_plan(product, parsed)
    if (
        context is not None
        and not parsed.categories
        and (parsed.has_criteria() or _PLURAL_REFERENCE.search(lowered))
    ):
        return _search_plan(_refine(context, parsed), profile, vocabulary)
    if parsed.has_criteria():
        return _search_plan(parsed, profile, vocabulary)
    if _DISCOUNT.search(lowered):
        return Plan(kind="text", text=_DISCOUNT_TEXT)
    if _SINGULAR_REFERENCE.search(lowered) and not shown and _SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=_CLARIFY_TEXT)
    free_words = _free_words(lowered)
    if _SHOPPING_INTENT.search(lowered) and free_words:
        return _search_plan(parsed, profile, vocabulary, query=" ".join(free_words))
    if _THANKS.search(lowered):
        return Plan(kind="text", text="You're welcome! Is there anything else I can find for you?")
    if _GREETING.search(lowered) or _SHOPPING_INTENT.search(lowered):
        return Plan(kind="text", text=_GREETING_TEXT)
    return Plan(kind="text", text=_off_topic_text(vocabulary))


# --- the conversation so far ----------------------------------------------------------------


def _conversation_state(
    notes: Notes, vocabulary: Vocabulary
) -> tuple[ShopperRequest | None, list[ShownProduct]]:
    """Replay this visit's verbatim exchanges: the search in force and the products last shown."""
    context: ShopperRequest | None = None
    shown: list[ShownProduct] = []
    for exchange in notes.exchanges:
        lowered = exchange.query.lower()
        parsed = request_parse(exchange.query, vocabulary)
        if _CHEAPER.search(lowered) and context is not None and not parsed.categories:
            context = _cheaper_than_shown(context, shown)
        elif _referenced_product(lowered, parsed, shown) is not None:
            pass  # a question about one product leaves the search as it was
        elif parsed.categories or context is None:
            context = parsed if parsed.has_criteria() else context
        else:
            context = _refine(context, parsed)
        products = answer_products(exchange.answer)
        if products:
            shown = products
    return context, shown


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


def _cheaper_than_shown(context: ShopperRequest, shown: list[ShownProduct]) -> ShopperRequest:
    prices = [product.price for product in shown if product.price is not None]
    if not prices:
        return context
    return replace(context, max_price=round(min(prices) - 0.01, 2))


def _referenced_product(
    lowered: str, parsed: ShopperRequest, shown: list[ShownProduct]
) -> ShownProduct | None:
    """Pick the product a follow-up points at: by name, colour, brand, position or "it"."""
    if not shown:
        return None
    for product in shown:
        if product.name.lower() in lowered:
            return product
    if parsed.categories and not any(
        c.rstrip("s") in product.name.lower() for product in shown for c in parsed.categories
    ):
        return None  # a new category is a new search
    if not _SINGULAR_REFERENCE.search(lowered) or _PLURAL_REFERENCE.search(lowered):
        return None
    for word, position in _ORDINALS.items():
        if re.search(rf"\bthe {word}\b", lowered):
            return shown[position] if position < len(shown) else shown[-1]
    if re.search(r"\bthe cheapest\b", lowered):
        priced = [p for p in shown if p.price is not None]
        return min(priced, key=lambda p: p.price) if priced else shown[0]
    if parsed.colours:
        with_colour = [p for p in shown if parsed.colours[0] in p.colours]
        return with_colour[0] if with_colour else None
    if parsed.brand:
        by_brand = [p for p in shown if p.brand == parsed.brand or parsed.brand in p.name]
        return by_brand[0] if by_brand else None
    return shown[0]


# --- plans ------------------------------------------------------------------------------------


def _search_plan(
    parsed: ShopperRequest, profile: Profile, vocabulary: Vocabulary, *, query: str = ""
) -> Plan:
    arguments, recalled_brand = search_arguments(parsed, profile, vocabulary, query=query)
    relaxed = None
    if recalled_brand:
        relaxed = {key: value for key, value in arguments.items() if key != "brand"}
    elif "query" in arguments and len(arguments) > 1:
        # "a navy shirt for the office": when no description mentions the occasion, the
        # stated category, colour and size still describe what the shopper wants.
        relaxed = {key: value for key, value in arguments.items() if key != "query"}
    return Plan(kind="search", call=("search_products", arguments), request=parsed, relaxed=relaxed)


def search_arguments(
    parsed: ShopperRequest, profile: Profile, vocabulary: Vocabulary, *, query: str = ""
) -> tuple[dict, bool]:
    """Build `search_products` arguments: what was stated, then recalled facts for the rest."""
    arguments: dict = {}
    words = " ".join(parsed.occasions) or query
    if words:
        arguments["query"] = words
    if parsed.category:
        arguments["category"] = parsed.category
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
        arguments["limit"] = parsed.limit
    return arguments, bool(brand and not parsed.brand)


def _product_plan(product: ShownProduct, parsed: ShopperRequest) -> Plan:
    call = (
        ("get_product", {"sku": product.sku})
        if product.sku
        else ("search_products", {"query": product.name})
    )
    return Plan(
        kind="product",
        call=call,
        product=product,
        asked_size=parsed.size,
        asked_colour=parsed.colour,
    )


# --- answers after tool results ---------------------------------------------------------------


def _answer_after_tools(turn: Turn, plan: Plan, tools_allowed: bool) -> Reply:
    last = turn.rounds[-1]
    if (
        last.name == "search_products"
        and plan.relaxed
        and len(turn.rounds) == 1
        and not last.result.get("products")
        and tools_allowed
        and len(turn.rounds) < MAX_TOOL_ROUNDS
    ):
        return tool_reply("search_products", plan.relaxed)
    if last.name == "search_products":
        relaxed = len(turn.rounds) > 1 and plan.relaxed is not None
        if plan.kind == "product":
            return text_reply(_product_answer_from_search(last.result, plan))
        return text_reply(_search_answer(last.arguments, last.result, plan, relaxed=relaxed))
    if last.name == "get_product":
        return text_reply(_product_answer(last.result, plan))
    if last.name == "recall_memory":
        return text_reply(_recall_answer(last.result))
    return text_reply("Here's what I found. What else can I help you find?")


def _search_answer(arguments: dict, result: dict, plan: Plan, *, relaxed: bool) -> str:
    excluded_categories = plan.request.excluded_categories
    products = [
        p
        for p in result.get("products") or []
        if isinstance(p, dict) and p.get("category") not in excluded_categories
    ]
    described = _describe(arguments)
    if not products:
        return f"I couldn't find any {described} in stock right now. {_relax_suggestion(arguments)}"
    intro = []
    if relaxed and plan.call:
        first = plan.call[1]
        if "brand" in first and "brand" not in arguments:
            brand = first["brand"]
            intro.append(
                f"There's nothing from {brand} that fits right now, so here are other brands."
            )
        elif "query" in first and "query" not in arguments:
            intro.append(
                f"Nothing is described as made for “{first['query']}”, "
                "so here are the closest matches."
            )
    shown = products[:SHOWN_PRODUCTS]
    if len(shown) == 1:
        intro.append(f"Here is one option for {described}:")
    else:
        intro.append(f"Here are {len(shown)} options for {described}:")
    outro = []
    if excluded_categories:
        outro.append(f"I've left out {', '.join(excluded_categories)} as you asked.")
    outro.append(
        "Want me to check a size or colour for it?"
        if len(shown) == 1
        else "Want me to check a size or colour for one of these?"
    )
    bullets = "\n".join(product_line(p) for p in shown)
    return f"{' '.join(intro)}\n\n{bullets}\n\n{' '.join(outro)}"


def _product_answer(result: dict, plan: Plan) -> str:
    if not isinstance(result, dict) or result.get("error") or not result.get("name"):
        return (
            "I couldn't find that product in the catalog any more; it may have been "
            "withdrawn. Want me to look for something similar?"
        )
    name = result["name"]
    colour, size = plan.asked_colour, plan.asked_size
    variants = [v for v in result.get("variants") or [] if (v.get("stock") or 0) > 0]
    if colour:
        variants = [v for v in variants if v.get("colour") == colour]
        if not variants:
            available = ", ".join(result.get("colours") or []) or "no colours right now"
            return f"The **{name}** isn't in stock in {colour} at the moment. It's available in: {available}.\n\n{product_line(result)}"
    sizes = _sizes_of(variants) if variants else list(result.get("sizes_in_stock") or [])
    in_colour = f" in {colour}" if colour else ""
    if size:
        matching = [v for v in variants if v.get("size") == size]
        if matching:
            stock = sum(int(v.get("stock") or 0) for v in matching)
            head = f"Yes, the **{name}** is in stock in size {size}{in_colour} ({stock} left)."
        else:
            other = ", ".join(sizes) or "no sizes right now"
            head = f"Sorry, the **{name}** isn't in stock in size {size}{in_colour}. Sizes in stock{in_colour}: {other}."
        return (
            f"{head}\n\n{product_line(result, sizes=sizes, colours=[colour] if colour else None)}"
        )
    description = (result.get("description") or "").strip()
    head = f"Here's the **{name}**{in_colour}." + (f" {description}" if description else "")
    return f"{head}\n\n{product_line(result, sizes=sizes, colours=[colour] if colour else None)}"


def _product_answer_from_search(result: dict, plan: Plan) -> str:
    name = plan.product.name if plan.product else ""
    for product in result.get("products") or []:
        if product.get("name", "").lower() == name.lower():
            return _product_answer({**product, "variants": []}, plan)
    return _product_answer({"error": "not found"}, plan)


def _recall_answer(result: dict) -> str:
    notes = [n for n in (result.get("notes") or []) if isinstance(n, str) and n.strip()]
    if not notes:
        return "I couldn't find anything from earlier visits yet. What are you looking for today?"
    lines = ["Here's what came up from your earlier visits:", ""]
    for note in notes[:6]:
        memory = memory_line_parse(note)
        lines.append(f"- {memory.date}: {memory.text}" if memory.date else f"- {memory.text}")
    lines += ["", "Prices and stock may have changed since. Want me to check any of these now?"]
    return "\n".join(lines)


def product_line(
    product: dict, *, sizes: list[str] | None = None, colours: list[str] | None = None
) -> str:
    """One bullet per product; the SKU is kept so a later "the black one" can be looked up."""
    price = product.get("price_eur")
    price_text = f"€{float(price):.2f}" if isinstance(price, int | float) else "price on request"
    colours = colours if colours is not None else list(product.get("colours") or [])
    sizes = sizes if sizes is not None else list(product.get("sizes_in_stock") or [])
    parts = [f"- **{product.get('name', 'Product')}** — {price_text}"]
    if product.get("brand"):
        parts.append(f"by {product['brand']}")
    if colours:
        parts.append(f"colours: {', '.join(colours)}")
    parts.append(f"sizes in stock: {', '.join(sizes) if sizes else 'none right now'}")
    if product.get("url"):
        parts.append(f"[view]({product['url']})")
    if product.get("sku"):
        parts.append(f"SKU {product['sku']}")
    return " · ".join(parts)


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
        text += f", not in {' or '.join(arguments['exclude_colours'])}"
    return text


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


def _sizes_of(variants: list[dict]) -> list[str]:
    seen: list[str] = []
    for variant in variants:
        if variant.get("size") and variant["size"] not in seen:
            seen.append(variant["size"])
    return seen


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
_DISCOUNT_TEXT = (
    "I can't change prices or give discounts; prices are as shown in the shop. I can help "
    "you find something within your budget, though. What are you looking for?"
)
_NO_RECALL_TEXT = (
    "I can only look up earlier visits for signed-in shoppers. Sign in and I can pick up "
    "where you left off, or tell me what you're looking for now."
)
