"""The answer about one product, from its look-up: sizes and colours as its card shows them."""

from __future__ import annotations

from llm.offline.assistant.conversation import Plan
from llm.offline.assistant.lines import first_sentence, fit_sentence, lower_first
from llm.offline.assistant.words import and_join


def product_answer(result: dict, plan: Plan) -> str:
    """Answer about one product from its look-up; sizes and colours as its card shows them."""
    if not isinstance(result, dict) or result.get("error") or not result.get("name"):
        return "That product may have been withdrawn: I can't find it. Want something similar?"
    name = f"**{result['name']}**"
    blurb = first_sentence(result.get("blurb"))
    colour, size = plan.asked_colour, plan.asked_size
    # Colours the shopper dislikes are neither counted nor offered, nor their sizes.
    colours = [str(c) for c in result.get("colours") or [] if str(c) not in plan.avoid]
    sizes = [str(s) for s in result.get("sizes_in_stock") or []]
    if plan.avoid and not colour:
        worn = [v for v in result.get("variants") or [] if str(v.get("colour")) in colours]
        sizes = [s for s in sizes if any(v.get("size") == s for v in worn)]
    if colour and result.get("colour_in_stock") is False:
        available = and_join(colours) if colours else "no colour at the moment"
        category = str(result.get("category") or "").strip()
        offer = f" Shall I look for other {category} in {colour}?" if category else ""
        return f"The {name} isn't in stock in {colour} right now; it comes in {available}.{offer}"
    in_colour = f" in {colour}" if colour else ""
    price = result.get("price_eur")
    # Asked beside a colour or size in force ("and how much?", "is it true to size?").
    fit = fit_sentence(result.get("blurb")) if "fit" in plan.asks else ""
    also_asked = f" {fit}" if fit and fit != blurb else ""
    if "fit" in plan.asks and not fit:
        also_asked = " Its description says nothing of how it fits."
    if "price" in plan.asks and isinstance(price, int | float):
        also_asked += f" It costs €{float(price):.2f}."
    if size and not colour:
        return _size_by_colour(result, name, size, avoid=plan.avoid)
    if size:
        variants = [
            v
            for v in result.get("variants") or []
            if v.get("size") == size and (v.get("stock") or 0) > 0
        ]
        if variants:
            left = sum(int(v.get("stock") or 0) for v in variants)
            return (
                f"Yes, the {name} is in stock in size {size}{in_colour} ({left} left).{also_asked}"
            )
        other = f"sizes {and_join(sizes)}" if sizes else "no size at the moment"
        return (
            f"Sorry, the {name} isn't in stock in size {size}{in_colour}. "
            f"{'In ' + colour + ' it' if colour else 'It'} comes in {other}. "
            f"Want me to look for something similar in {size}?"
        )
    if colour:
        sized = f"in sizes {and_join(sizes)}" if sizes else "but no size is in stock right now"
        if not plan.colour_said and not plan.by_colour:
            # "Is the first one any good for the office?": no colour was asked; the card's
            # colour only keeps the sizes to it.
            lead = f"Here's the {name}" + (f": {lower_first(blurb)}" if blurb else ".")
            return f"{lead} In {colour} it's in stock {sized}.{also_asked}"
        if plan.by_colour:
            lead = f"The {name} is the {colour} one" + (f": {lower_first(blurb)}" if blurb else ".")
            return f"{lead} In {colour} it's in stock {sized}.{also_asked}"
        return f"Yes, the {name} comes in {colour}, {sized}.{also_asked}"
    if "stock" in plan.asks and not plan.asks & {"sizes", "colours"}:
        # "Is the harrington in stock?": yes or no first, and in what.
        if not sizes:
            return f"Sorry, the {name} is sold out in every size right now.{also_asked}"
        within = f", in {and_join(colours)}" if colours else ""
        return f"Yes, the {name} is in stock in sizes {and_join(sizes)}{within}.{also_asked}"
    parts = [f"Here's the {name}" + (f": {lower_first(blurb)}" if blurb else ".")]
    if "sizes" in plan.asks:
        parts.append(
            f"It's in stock in sizes {and_join(sizes)}." if sizes else "No size is in stock."
        )
    if "colours" in plan.asks:
        parts.append(f"It comes in {and_join(colours)}." if colours else "")
    parts.append(also_asked.strip())
    if not plan.asks:
        parts.append("Want me to check a size or colour?")
    return " ".join(part for part in parts if part)


def _size_by_colour(result: dict, name: str, size: str, *, avoid: list[str]) -> str:
    """A size's stock colour by colour, never one total that hides which colour has it,
    and never counting or offering a colour the shopper dislikes."""
    colours = [str(c) for c in result.get("colours") or [] if str(c) not in avoid]
    left: dict[str, int] = {}
    for variant in result.get("variants") or []:
        colour, stock = str(variant.get("colour")), int(variant.get("stock") or 0)
        if variant.get("size") == size and stock > 0 and colour not in avoid:
            left[colour] = left.get(colour, 0) + stock
    missing = [c for c in colours if c not in left]
    if not left:
        variants = result.get("variants") or []
        sized = [
            str(s)
            for s in result.get("sizes_in_stock") or []
            if any(v.get("size") == s and v.get("colour") in colours for v in variants)
        ]
        wearable = " in the colours you'd wear" if avoid else ""
        other = f" It comes in sizes {and_join(sized)}." if sized else ""
        return (
            f"Sorry, the {name} isn't in stock in size {size}{wearable} right now.{other} "
            f"Want me to look for something similar in {size}?"
        )
    counts = "; ".join(f"{count} in {colour}" for colour, count in left.items())
    lacking = f"; not in {' or '.join(missing)}" if missing else ""
    return f"Yes, the {name} is in stock in size {size}: {counts}{lacking}."
