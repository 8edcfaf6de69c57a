"""Answers after tool results: a list, one product, or what memory holds."""

from __future__ import annotations

from llm.offline.assistant.calls import (
    SHOWN_PRODUCTS,
    SORT_PAGES,
    compare_call,
    relaxed_arguments,
)
from llm.offline.assistant.compare import compare_answer, compared_found
from llm.offline.assistant.conversation import Plan
from llm.offline.assistant.described import looked_up, not_found_text
from llm.offline.assistant.lines import (
    describe,
    product_line,
    shared_sentences,
)
from llm.offline.assistant.product import product_answer
from llm.offline.assistant.state import Turn
from llm.offline.assistant.words import and_join
from llm.offline.memory import memory_answer
from llm.offline.notes import Memory, notes_parse
from llm.offline.replies import Reply, text_reply, tool_reply
from llm.transcript import ShownProduct


def answer_after_tools(
    turn: Turn, plan: Plan, call: tuple[str, dict] | None, tools_allowed: bool
) -> Reply:
    last = turn.rounds[-1]
    if looked_up(plan) and last.name == "search_products":
        # The described product found: looked up as any product pointed at.
        found = [p for p in last.result.get("products") or [] if isinstance(p, dict)]
        if not found and "size" in last.arguments and tools_allowed:
            # Not in the size the shopper wears: the product itself still answers.
            unsized = {k: v for k, v in last.arguments.items() if k != "size"}
            return tool_reply("search_products", unsized)
        if not found or not tools_allowed:
            return text_reply(not_found_text(last.arguments))
        arguments = {"sku": found[0].get("sku")}
        if plan.asked_colour:
            arguments["colour"] = plan.asked_colour
        return tool_reply("get_product", arguments)
    if plan.kind == "compare":
        done = turn.rounds[: len(plan.compared)]
        if len(done) < len(plan.compared) and tools_allowed:
            return tool_reply(*compare_call(plan.compared[len(done)]))
        found = [
            compared_found(round_.result, target)
            for round_, target in zip(done, plan.compared, strict=False)
        ]
        return text_reply(compare_answer(found, plan.compared, plan.said))
    if (
        last.name == "search_products"
        and len(turn.rounds) == 1
        and not last.result.get("products")
        and tools_allowed
        # A later page that is empty means all of them were shown, not that none match.
        and not (last.arguments.get("offset") and last.result.get("total"))
    ):
        relaxed = relaxed_arguments(last.arguments, plan)
        if relaxed is not None:
            return tool_reply("search_products", relaxed)
    if last.name == "search_products" and plan.sort is not None:
        following = _next_page(last, len(turn.rounds))
        if following is not None and tools_allowed:
            return tool_reply("search_products", following)
        return text_reply(_sorted_answer(turn, plan))
    if last.name == "search_products" and plan.seen:
        unseen = _unseen(turn, plan)
        following = _next_page(last, len(turn.rounds))
        if len(unseen) < SHOWN_PRODUCTS and following is not None and tools_allowed:
            return tool_reply("search_products", following)
        return text_reply(_more_answer(turn, plan, unseen))
    if last.name == "search_products":
        first = turn.rounds[0].arguments if len(turn.rounds) > 1 else None
        return text_reply(search_answer(last.arguments, last.result, plan, first=first))
    if last.name == "get_product":
        return text_reply(product_answer(last.result, plan))
    if last.name == "recall_memory":
        return text_reply(memory_text(plan, turn, found=last.result))
    return text_reply("Here's what I found. What else can I help you find?")


def _next_page(last, rounds: int) -> dict | None:
    """The next page of a sorted search, while it has more and the pages allow."""
    result, arguments = last.result, last.arguments
    count, total = len(result.get("products") or []), result.get("total")
    offset = result.get("offset") if isinstance(result.get("offset"), int) else 0
    if not isinstance(total, int) or not count or offset + count >= total or rounds >= SORT_PAGES:
        return None
    return {**arguments, "offset": offset + count}


def _unseen(turn: Turn, plan: Plan) -> list[dict]:
    """The products of every page read this turn that the visit has not shown yet."""
    pages = [r.result.get("products") or [] for r in turn.rounds if r.name == "search_products"]
    return [
        p for page in pages for p in page if isinstance(p, dict) and p.get("sku") not in plan.seen
    ]


def _more_answer(turn: Turn, plan: Plan, unseen: list[dict]) -> str:
    """The next products of the search in force, none the visit has shown already."""
    first, last = turn.rounds[0], turn.rounds[-1]
    total = last.result.get("total") if isinstance(last.result.get("total"), int) else 0
    offset = last.result.get("offset") if isinstance(last.result.get("offset"), int) else 0
    read_to = offset + len(last.result.get("products") or [])
    # What may still be new: the unseen read but not shown, and every match not read yet.
    remaining = max(len(unseen) - SHOWN_PRODUCTS, 0) + max(total - read_to, 0)
    result = {**first.result, "products": unseen[:SHOWN_PRODUCTS], "total": total}
    return search_answer(first.arguments, result, plan, first=None, remaining=remaining)


def _sorted_answer(turn: Turn, plan: Plan) -> str:
    """The cheapest (or dearest) of what the search matched, every page read first."""
    searches = [r for r in turn.rounds if r.name == "search_products"]
    products = [p for r in searches for p in r.result.get("products") or [] if isinstance(p, dict)]
    arguments = {k: v for k, v in searches[0].arguments.items() if k not in ("limit", "offset")}
    described = describe(arguments)
    if not products:
        return f"I couldn't find any {described} in stock right now. {_relax_suggestion(arguments)}"
    dearest = plan.sort == "price_desc"
    products.sort(key=lambda p: float(p.get("price_eur") or 0), reverse=dearest)
    total = searches[-1].result.get("total")
    partial = isinstance(total, int) and total > len(products)
    read = f" (of the first {len(products)} matches)" if partial else ""
    shown = products[:SHOWN_PRODUCTS]
    which = "most expensive" if dearest else "cheapest"
    lines = [product_line(p, shared=shared_sentences(shown), priced=True) for p in shown]
    intro = f"The {which} {described}{read}, {which} first:"
    outro = " ".join([*_defaults_said(arguments, plan), "Want me to check a size or colour?"])
    return f"{intro}\n\n" + "\n".join(lines) + f"\n\n{outro}"


def memory_text(plan: Plan, turn: Turn, found: dict | None = None) -> str:
    visits = list(turn.notes.earlier)
    facts = list(turn.notes.facts)
    notes = (found or {}).get("notes")
    if isinstance(notes, str):
        recalled = notes_parse(notes)
        known = {visit.text for visit in visits}
        visits += [visit for visit in recalled.earlier if visit.text not in known]
        facts += recalled.facts
    # The look-up failed and the notes hold nothing: say memory is out of reach, not that
    # nothing is remembered.
    failed = "error" in (found or {}) and not facts and not visits
    return memory_answer(
        topic=plan.topic or "all",
        mode="memory_unavailable" if failed else turn.mode,
        facts=facts,
        visits=_unique(visits),
        vocabulary=turn.vocabulary,
    )


def search_answer(
    arguments: dict, result: dict, plan: Plan, *, first: dict | None, remaining: int | None = None
) -> str:
    """Say how many of how many, one line on each product; the cards carry the details."""
    products = [p for p in result.get("products") or [] if isinstance(p, dict)]
    total = result.get("total") if isinstance(result.get("total"), int) else len(products)
    offset = result.get("offset") if isinstance(result.get("offset"), int) else 0
    reference = plan.like or plan.below
    if reference is not None:
        # Never the product itself as its own alternative.
        kept = [p for p in products if p.get("sku") != reference.sku]
        total -= len(products) - len(kept)
        products = kept
    if plan.like is not None:
        return _similar_answer(arguments, products, plan, plan.like, first=first)
    products = products[:SHOWN_PRODUCTS]
    described = describe(arguments)
    if not products:
        if offset:
            return f"That's all of them: there are no more {described}. Want to try something else?"
        if plan.below is not None and plan.below.price_eur is not None:
            # Asked for cheaper, a price limit is no more the shopper's than "a higher budget".
            unpriced = describe(_unpriced(arguments))
            if not _one_of(plan.below, arguments):
                # "Cheaper in blue?" of a product that is not blue: it is no blue one itself.
                return (
                    f"I couldn't find any {unpriced} cheaper than {_called(plan.below, plan)} "
                    f"(€{plan.below.price_eur:.2f}) in stock right now. "
                    f"{_cheapest_suggestion(_unpriced(arguments))}"
                )
            called = _called(plan.below, plan)
            return (
                f"{called[:1].upper()}{called[1:]}, at €{plan.below.price_eur:.2f}, is already "
                f"the cheapest of the {unpriced} in stock. "
                f"{_cheapest_suggestion(_unpriced(arguments))}"
            )
        if plan.request.absent_material:
            described = f"{described} (and nothing at all in {plan.request.absent_material})"
        if arguments.get("query") and not arguments.keys() & {"category", "brand"} and plan.carried:
            # Words in no category or brand, and nothing has them: something the shop does
            # not sell, whatever size or colour came with it.
            return (
                f"We don't sell anything like “{arguments.get('query', '')}”, sorry. The shop "
                f"carries {and_join(plan.carried)}."
            )
        others = [p for p in result.get("alternatives") or [] if isinstance(p, dict)]
        if others:
            # The category or brand asked for has no product with those words: said so,
            # then what it has, named as something else (no card: it was not asked for).
            lines = [f"- {p.get('name')} — €{float(p.get('price_eur') or 0):.2f}" for p in others]
            return (
                f"We have no {described} in stock. Instead, here is what we do have that is "
                f"closest:\n\n" + "\n".join(lines[:SHOWN_PRODUCTS])
            )
        return f"I couldn't find any {described} in stock right now. {_relax_suggestion(arguments)}"
    intro = _relaxed_intro(arguments, first)
    unmatched = [w for w in result.get("unmatched_words") or [] if isinstance(w, str)]
    if unmatched and not offset:
        # "running socks": the shop has running shoes, but nothing called socks; the list
        # is then described by the words its products do have.
        quoted = and_join([f"“{word}”" for word in unmatched])
        intro.append(f"We have nothing described as {quoted}; instead, these match the rest.")
        kept = [w for w in str(arguments.get("query", "")).split() if w not in unmatched]
        described = describe(
            {**arguments, "query": " ".join(kept)} if kept else _unqueried(arguments)
        )
    if plan.request.absent_material:
        intro.append(
            f"We have nothing in {plan.request.absent_material}, so here are other "
            f"{describe(arguments)}."
        )
    if plan.below is not None and plan.below.price_eur is not None:
        # "under €52.99" is a limit the shopper never said: they asked for cheaper than this.
        described = (
            f"{describe(_unpriced(arguments))} cheaper than {_called(plan.below, plan)} "
            f"(€{plan.below.price_eur:.2f})"
        )
    count = len(products)
    if offset and count == 1:
        intro.append(f"Here is the last of the {total} {described}:")
    elif offset:
        intro.append(f"Here are {count} more of the {total} {described}:")
    elif count == total == 1:
        intro.append(f"I found one match for {described}:")
    elif count == total:
        intro.append(f"I found {count} {described}:")
    else:
        intro.append(f"Here are {count} of {total} {described}:")
    shared = shared_sentences(products)
    lines = [product_line(product, shared=shared) for product in products]
    outro = _defaults_said(arguments, plan)
    if plan.request.excluded_categories:
        outro.append(f"I've left out {', '.join(plan.request.excluded_categories)} as you asked.")
    if remaining is None:
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


def _similar_answer(
    arguments: dict, products: list[dict], plan: Plan, like: ShownProduct, *, first: dict | None
) -> str:
    """The same category, nearest in price first; never the product itself."""
    price = like.price_eur
    if price is not None:
        products = sorted(products, key=lambda p: abs(float(p.get("price_eur") or 0) - price))
    products = products[:SHOWN_PRODUCTS]
    unlimited = {key: value for key, value in arguments.items() if key not in ("limit", "offset")}
    described = describe(unlimited)
    called = _called(like, plan)
    if not products:
        return (
            f"I couldn't find other {described} like {called} in stock right now. "
            f"{_relax_suggestion(unlimited)}"
        )
    near = f", closest in price to {called} (€{price:.2f}) first" if price is not None else ""
    intro = _relaxed_intro(arguments, first)
    intro.append(f"Here are {len(products)} {described} like {called}{near}:")
    shared = shared_sentences(products)
    lines = [product_line(product, shared=shared) for product in products]
    outro = [
        *_defaults_said(arguments, plan),
        "Want me to check a size or colour for one of these?",
    ]
    return f"{' '.join(intro)}\n\n" + "\n".join(lines) + f"\n\n{' '.join(outro)}"


def _called(product: ShownProduct, plan: Plan) -> str:
    """How an answer refers to the product compared with: the page's is "this one", so its
    name does not put its card under a list of other products."""
    return "this one" if plan.on_page else f"the {product.name}"


def _relaxed_intro(arguments: dict, first: dict | None) -> list[str]:
    """What a second search left out of the first, said before its results."""
    if first is None:
        return []
    if "material" in first and "material" not in arguments:
        wanted = describe(first)
        return [f"I couldn't find any {wanted} in stock, so here are other {describe(arguments)}."]
    if "brand" in first and "brand" not in arguments:
        return [
            f"There's nothing from {first['brand']} that fits right now, so here are other brands."
        ]
    if "query" in first and "query" not in arguments:
        return [
            f"We have nothing described as “{first['query']}”, so here are other "
            f"{describe(arguments)} instead."
        ]
    return []


def _defaults_said(arguments: dict, plan: Plan) -> list[str]:
    """Say which remembered preferences the search applied, and which were set aside.

    Said as the search's filters, never as memory narrated back (the memory rules).
    """
    asked = plan.request
    applied: list[tuple[str, str]] = []  # what was applied, and the words that lift it
    if arguments.get("size") and not asked.size:
        applied.append((f"size {arguments['size']}", "“any size”"))
    remembered = [
        c for c in arguments.get("exclude_colours") or [] if c not in asked.excluded_colours
    ]
    if remembered:
        applied.append(("no " + " or ".join(remembered), "“any colour”"))
    if arguments.get("brand") and not asked.brand:
        applied.append((f"from {arguments['brand']}", "“any brand”"))
    if arguments.get("max_price") is not None and asked.max_price is None and plan.below is None:
        applied.append((f"up to €{arguments['max_price']}", "“any price”"))
    said = []
    if applied:
        filters = and_join([phrase for phrase, _ in applied])
        lifts = " or ".join(lift for _, lift in applied)
        said.append(f"These are {filters}; say {lifts} to widen it.")
    if plan.dropped:
        said.append(f"As you asked, I looked at {and_join(plan.dropped)}.")
    return said


def _one_of(product: ShownProduct, arguments: dict) -> bool:
    """Whether the product is itself one of what was searched, as far as its colour and size
    tell (a product page's product may carry neither: then it counts)."""
    colour, size = arguments.get("colour"), arguments.get("size")
    if colour and product.colours and colour not in product.colours:
        return False
    return not (size and product.sizes and size not in product.sizes)


def _unqueried(arguments: dict) -> dict:
    return {key: value for key, value in arguments.items() if key != "query"}


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


def _unique(visits: list[Memory]) -> list[Memory]:
    seen: set[str] = set()
    unique = []
    for visit in visits:
        if visit.text not in seen:
            seen.add(visit.text)
            unique.append(visit)
    return unique
