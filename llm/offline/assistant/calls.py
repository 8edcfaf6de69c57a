"""The tool call a plan makes: what was asked, then recalled facts for the rest."""

from __future__ import annotations

from llm.cards import MAX_CARDS
from llm.offline.assistant.conversation import Plan, Target
from llm.offline.assistant.described import looked_up, lookup_arguments
from llm.offline.assistant.state import Turn
from llm.offline.facts import Profile
from llm.offline.shopper import ShopperRequest
from llm.offline.vocabulary import Vocabulary

# Products one answer shows: the cards under it say the rest.
SHOWN_PRODUCTS = MAX_CARDS
# Products a "similar" search fetches to pick the nearest in price from, and a page of a
# search sorted by price (the search tool's most per call).
SIMILAR_CANDIDATES = 10
SORT_PAGE = 10
# Pages a sorted search reads before it answers: the agent loop's rounds leave room for 3.
SORT_PAGES = 3


def first_call(plan: Plan, profile: Profile, turn: Turn) -> tuple[str, dict] | None:
    plan.avoid = [c for c in profile.disliked_colours if c != plan.asked_colour]
    if plan.kind == "search":
        return "search_products", search_arguments(plan, profile, turn.vocabulary)
    if plan.kind == "product" and plan.product is not None:
        arguments = {"sku": plan.product.sku}
        if plan.asked_colour:
            arguments["colour"] = plan.asked_colour
        return "get_product", arguments
    if looked_up(plan):
        usual = profile.size_for(plan.request.category, turn.vocabulary)
        return "search_products", lookup_arguments(plan, usual_size=usual)
    if plan.kind == "compare":
        return compare_call(plan.compared[0])
    if plan.kind == "memory" and plan.topic == "visits":
        return "recall_memory", {"query": turn.shopper}
    return None


def search_arguments(plan: Plan, profile: Profile, vocabulary: Vocabulary) -> dict:
    """`search_products` arguments: what was asked, then recalled facts for the rest.

    A remembered preference is a default: what the shopper says wins, and "any brand",
    "any colour", "any size", "any price" lift it for this message.
    """
    parsed = plan.request
    lifted = parsed.lifted
    disliked = [c for c in profile.disliked_colours if f"colour:{c}" not in lifted]
    plan.avoid = [] if "colour" in lifted else disliked
    plan.dropped = _dropped(parsed, profile, vocabulary)
    arguments: dict = {}
    # What no filter took is the search's words: "quilted", "chelsea", an occasion.
    words = " ".join([*parsed.occasions, *parsed.words]) or plan.query
    if words:
        arguments["query"] = words
    if parsed.category:
        arguments["category"] = parsed.category
    if parsed.excluded_categories and not parsed.category:
        arguments["exclude_categories"] = list(parsed.excluded_categories)
    if parsed.colour:
        arguments["colour"] = parsed.colour
    if parsed.material:
        arguments["material"] = parsed.material
    excluded = list(parsed.excluded_colours)
    if "colour" not in lifted:
        excluded += [c for c in disliked if c not in excluded and c not in parsed.colours]
    if excluded:
        arguments["exclude_colours"] = excluded
    # A measurement said now ("a 34 waist") wins over a remembered size, filter or not.
    size = parsed.size or (
        None
        if "size" in lifted or parsed.size_said
        else profile.size_for(parsed.category, vocabulary)
    )
    if size:
        arguments["size"] = size
    brand = parsed.brand
    if brand is None and "brand" not in lifted and profile.brand not in parsed.excluded_brands:
        brand = profile.brand
    if brand:
        arguments["brand"] = brand
    max_price = parsed.max_price
    if max_price is None and "budget" not in lifted:
        max_price = profile.max_price
    if max_price is not None:
        arguments["max_price"] = int(max_price) if float(max_price).is_integer() else max_price
    if parsed.limit:
        arguments["limit"] = min(parsed.limit, SHOWN_PRODUCTS)
    if plan.like is not None:
        # Enough to choose the nearest in price from, the product itself left out.
        arguments["limit"] = SIMILAR_CANDIDATES
    if plan.sort is not None:
        arguments["limit"] = SORT_PAGE
    if plan.offset:
        arguments["offset"] = plan.offset
    return arguments


def compare_call(target: Target) -> tuple[str, dict]:
    """A product in view is looked up by SKU; a name, by searching for it."""
    if isinstance(target, str):
        return "search_products", {"query": target, "limit": 1}
    return "get_product", {"sku": target.sku}


def _dropped(parsed: ShopperRequest, profile: Profile, vocabulary: Vocabulary) -> list[str]:
    """The remembered defaults this message sets aside, as the answer says them."""
    dropped = []
    usual_size = profile.size_for(parsed.category, vocabulary)
    if (
        profile.brand
        and not parsed.brand
        and ("brand" in parsed.lifted or profile.brand in parsed.excluded_brands)
    ):
        dropped.append(f"every brand, not only {profile.brand}")
    back = [c for c in profile.disliked_colours if f"colour:{c}" in parsed.lifted]
    if profile.disliked_colours and "colour" in parsed.lifted:
        dropped.append(f"every colour, {' and '.join(profile.disliked_colours)} included")
    elif back:
        dropped.append(f"{' and '.join(back)} too")
    if usual_size and not parsed.size and "size" in parsed.lifted:
        dropped.append(f"every size, not only {usual_size}")
    if profile.max_price is not None and parsed.max_price is None and "budget" in parsed.lifted:
        dropped.append(f"any price, not only up to €{profile.max_price:g}")
    return dropped


def relaxed_arguments(arguments: dict, plan: Plan) -> dict | None:
    """The search again, once, when it found nothing: without the occasion it is for, without
    the material (the answer says none is made of it), without a recalled brand, or without
    free words no description uses within a category or brand ("a navy shirt for the
    office")."""
    words = str(arguments.get("query") or "").split()
    said_for = " ".join(plan.request.occasions)
    if (
        words
        and all(word in said_for for word in words)
        and arguments.keys() & {"category", "brand"}
    ):
        # "a linen shirt for a summer wedding": what it is for gives way before what it is.
        return {key: value for key, value in arguments.items() if key != "query"}
    if "material" in arguments and set(arguments) - {"material", "query", "offset", "limit"}:
        return {key: value for key, value in arguments.items() if key != "material"}
    if "brand" in arguments and not plan.request.brand:
        return {key: value for key, value in arguments.items() if key != "brand"}
    if "query" in arguments and arguments.keys() & {"category", "brand"}:
        # Only within what was asked for: words in no category or brand that nothing has
        # ("swimwear", with a remembered dislike left out) are something the shop does not
        # sell, not a reason to show whatever else it has.
        return {key: value for key, value in arguments.items() if key != "query"}
    return None
