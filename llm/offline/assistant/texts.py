"""The assistant's fixed answers: a greeting, a question back, what it cannot do."""

from __future__ import annotations

from llm.offline.vocabulary import Vocabulary


def off_topic_text(vocabulary: Vocabulary) -> str:
    carried = f" We carry {', '.join(vocabulary.categories)}." if vocabulary.categories else ""
    return (
        "I can only help with shopping at Aisle." + carried + " Tell me what you're looking "
        "for, with a colour, size, budget or occasion if you have one in mind."
    )


GREETING_TEXT = (
    "Hi! I'm Aisle's shopping assistant. Tell me what you're looking for (a category, "
    "colour, size, budget or occasion) and I'll find options that are in stock."
)
CLARIFY_TEXT = (
    "Which product do you mean? Tell me its name, or what you're looking for, and I'll check."
)
WHICH_OF_THESE_TEXT = "Which one do you mean? Say “the first”, “the second”… or its name."
MORE_OF_WHAT_TEXT = "More of what? Tell me what you're looking for and I'll find options."
SERVICE_TEXT = (
    "That's not something I can do from this chat: I can find products, check sizes, colours "
    "and stock, and compare them for you. What are you looking for?"
)
DISCOUNT_TEXT = (
    "I can't change prices or give discounts; prices are as shown in the shop. I can help "
    "you find something within your budget, though. What are you looking for?"
)


def lifted_text(lifted: frozenset[str]) -> str:
    """A preference lifted with nothing to search again: what the searches include now."""
    back = sorted(name.partition(":")[2] for name in lifted if name.startswith("colour:"))
    included = [" and ".join(back)] if back else []
    included += [
        wording
        for name, wording in (
            ("colour", "every colour"),
            ("brand", "every brand"),
            ("size", "every size"),
            ("budget", "any price"),
        )
        if name in lifted
    ]
    if not included:
        return "Noted. What are you looking for?"
    return f"Noted: from now on I'll include {', '.join(included)}. What are you looking for?"
