"""The memory server's extractor and the episode writer: short JSON records of exchanges."""

from __future__ import annotations

import json
import re

from llm.offline.judge import OCCASION_PHRASES as _OCCASION_PHRASES
from llm.offline.memory import memory_topic
from llm.offline.payload import last_user_text, payload_read
from llm.offline.replies import Reply, text_reply
from llm.offline.shopper import occasions_find, request_parse
from llm.offline.vocabulary import default_vocabulary
from llm.transcript import PRODUCTS_SHOWN, bold_names, products_shown_parse

MAX_CONTEXTS = 5
_SEASONS = frozenset({"summer", "winter", "spring", "autumn"})
_ROLE_LINE = re.compile(
    r"^\s*(?P<role>user|shopper|human|customer|assistant|ai|bot)\s*:\s*", re.I | re.M
)
_NOTHING_FOUND = re.compile(
    r"\b(couldn't find|could not find|no matching|nothing (?:matches|fits))\b", re.I
)
_FOUND = re.compile(
    r"\b(i'll take|i will take|i'll buy|i'll get|i'll order|bought|ordered|added (?:it |them )?to "
    r"(?:my |the )?(?:cart|basket|bag)|perfect|exactly what i|that's the one|love it|"
    r"that works|sold)\b",
    re.I,
)
_NONE_SUITED = re.compile(
    r"\b(none of (these|those|them)|nothing (here |there )?(i like|suits|works|fits)|"
    r"not what i('m| am) looking for|didn't find|did not find|no luck)\b",
    re.I,
)
_PLEASANTRY_ONLY = re.compile(
    r"^\s*(?:(?:thanks|thank you|ok|okay|bye|goodbye|cheers|hi|hello|hey|great|cool|so much|"
    r"a lot|again|there|then|you|for now)[\s!.,]*)+$",
    re.I,
)
_SIZE_MISSING = re.compile(r"the \*\*(?P<name>[^*]+)\*\* isn't in stock in size (?P<size>\w+)")


def extraction_reply(messages: list[dict]) -> Reply:
    payload = payload_read(messages)
    text = payload.get("text")
    if not isinstance(text, str):
        text = last_user_text(messages)
    return text_reply(json.dumps(exchange_extract(text), ensure_ascii=False))


def episode_reply(messages: list[dict]) -> Reply:
    exchanges = [
        item for item in payload_read(messages).get("exchanges") or [] if isinstance(item, dict)
    ]
    turns = [
        (str(item.get("shopper") or ""), str(item.get("assistant") or "")) for item in exchanges
    ]
    shown = [
        [str(name) for name in item.get("shown") or [] if isinstance(name, str)]
        for item in exchanges
    ]
    return text_reply(json.dumps(episode_write(turns, shown=shown), ensure_ascii=False))


def exchange_extract(text: str) -> dict:
    """Summarise one exchange in a sentence and keep its product names in context lines."""
    query, answer = _exchange_split(text)
    names = _product_names(answer)
    shown = products_shown_parse(answer)
    asked = _compress(query) or "for help"
    summary = f"The shopper asked {_quoted(asked)}; {_outcome(answer, names)}."
    contexts = [f"Shopper asked: {_compress(query, 160)}"] if query else []
    for product in shown[:3]:
        details = [product.name]
        if product.price_eur is not None:
            details.append(f"€{product.price_eur:.2f}")
        if product.colours:
            details.append("colours " + ", ".join(product.colours))
        if product.sizes:
            details.append("sizes in stock " + ", ".join(product.sizes))
        contexts.append("Shown: " + "; ".join(details))
    if names and not shown:
        contexts.append("Mentioned: " + ", ".join(names[:4]))
    if not names and _NOTHING_FOUND.search(answer):
        contexts.append("Nothing matching was in stock.")
    return {"summary": summary, "contexts": contexts[:MAX_CONTEXTS]}


def episode_write(turns: list[tuple[str, str]], *, shown: list[list[str]] | None = None) -> dict:
    """Record what a closed session was about, whether it ended well, and what to follow up.

    Everything said comes from what happened: the goal is a product the shopper asked for
    (never a question about themselves or about what is remembered), the products are those
    the answers showed (`shown`, else the names an answer gives), and "did not find" is said
    only when the searches came back empty or the shopper said nothing suited.
    """
    queries = [query for query, _ in turns if query.strip()]
    requests = [query for query in queries if _is_request(query)]
    occasions = [o for query in requests for o in occasions_find(query)]
    occasion = next(
        (o for o in occasions if o not in _SEASONS), occasions[0] if occasions else None
    )
    per_turn = [
        (shown[i] if shown is not None and i < len(shown) and shown[i] else _product_names(answer))
        for i, (_, answer) in enumerate(turns)
    ]
    names: list[str] = []
    for turn_names in per_turn:
        names += [name for name in turn_names if name not in names]
    found = bool(queries) and any(_FOUND.search(query) for query in queries[-2:])
    came_back_empty = not names and any(_NOTHING_FOUND.search(answer) for _, answer in turns)
    said_none = any(_NONE_SUITED.search(query) for query in queries)
    goal = _goal(requests)
    if found:
        outcome = "found"
    elif came_back_empty or said_none:
        outcome = "not_found"
    elif goal is None:
        outcome = "browsing"
    else:
        outcome = "shown"
    if goal is None:
        asked_memory = any(memory_topic(query.lower()) for query in queries)
        summary = (
            "The shopper asked what is remembered about them"
            if asked_memory
            else "The shopper looked for nothing in particular"
        )
        if asked_memory and not names:
            summary += " and looked for no products"
    else:
        summary = f"The shopper looked for {_quoted(_compress(goal, 100))}"
        if occasion and occasion not in goal.lower():
            # "looked for “a dress for a wedding” for a wedding" says it twice.
            summary += f" for {_OCCASION_PHRASES.get(occasion, occasion)}"
    if names:
        summary += f"; shown {', '.join(names[:3])}."
    elif came_back_empty:
        summary += "; nothing matching was in stock."
    else:
        # Products named in plain words (an imported visit) are no cards, but they were
        # suggested: saying "no products were shown" would be false.
        summary += "."
    followed = _followed_up(per_turn)
    if followed and not found:
        summary += f" They followed up on the {followed}."
    if found:
        summary += " They found what they wanted."
    elif said_none:
        summary += " They said nothing shown suited them."
    elif outcome == "shown":
        summary += " They had not chosen anything yet."
    return {
        "summary": summary,
        "occasion": occasion,
        "found": found,
        "outcome": outcome,
        "follow_ups": [] if found else _follow_ups(turns, requests),
    }


def _is_request(query: str) -> bool:
    """A message that asks for something to shop: no question about the shopper themselves
    or what is remembered, no greeting or thanks on its own, no "I'll take it"."""
    if memory_topic(query.lower()):
        return False
    if _PLEASANTRY_ONLY.match(query):
        return False
    return not (_FOUND.search(query) and len(query.split()) <= 6)


def _goal(requests: list[str]) -> str | None:
    """The first request that names a product, an occasion or a brand; else the first."""
    vocabulary = default_vocabulary()
    for query in requests:
        request = request_parse(query, vocabulary)
        if request.categories or request.occasions or request.brand:
            return query
    return requests[0] if requests else None


def _followed_up(per_turn: list[list[str]]) -> str | None:
    """The product the shopper came back to: after a list, a turn about that one alone."""
    listed: set[str] = set()
    followed = None
    for names in per_turn:
        if len(names) == 1 and names[0] in listed:
            followed = names[0]
        if len(names) > 1:
            listed.update(names)
    return followed


def _follow_ups(turns: list[tuple[str, str]], queries: list[str]) -> list[str]:
    follow_ups = []
    for _, answer in turns:
        for missing in _SIZE_MISSING.finditer(answer):
            follow_ups.append(
                f"Check whether the {missing['name']} is back in stock in size {missing['size']}."
            )
    requests = [query for query in queries if _is_request(query)]
    if requests:
        follow_ups.append(f"Offer new options for {_quoted(_compress(requests[-1], 100))}.")
    return list(dict.fromkeys(follow_ups))[:3]


def _exchange_split(text: str) -> tuple[str, str]:
    parts = list(_ROLE_LINE.finditer(text))
    if not parts:
        # The embedded server stores an exchange as the shopper's message, a newline, and
        # the answer, without role names: read as one long question, the answer's product
        # names would pose as what the shopper asked for (a brand nobody asked for).
        query, _, answer = text.strip().partition("\n")
        return query.strip(), answer.strip()
    query, answer = [], []
    for index, match in enumerate(parts):
        end = parts[index + 1].start() if index + 1 < len(parts) else len(text)
        body = text[match.end() : end].strip()
        target = answer if match["role"].lower() in ("assistant", "ai", "bot") else query
        target.append(body)
    return " ".join(query), "\n".join(answer)


def _product_names(answer: str) -> list[str]:
    """The products an answer showed: its "Products shown:" line, else its bold names."""
    shown = [product.name for product in products_shown_parse(answer)]
    if shown:
        return shown
    return bold_names(answer.split(PRODUCTS_SHOWN, 1)[0])


def _outcome(answer: str, names: list[str]) -> str:
    if names:
        return "the assistant suggested " + ", ".join(names[:4])
    if _NOTHING_FOUND.search(answer):
        return "nothing matching was in stock"
    if answer.strip():
        return "the assistant answered without suggesting products"
    return "no answer was recorded"


def _compress(text: str, limit: int = 120) -> str:
    flat = re.sub(r"\s+", " ", text).strip().rstrip(".!?")
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _quoted(text: str) -> str:
    return f"“{text}”"
