"""The memory server's extractor and the episode writer: short JSON records of exchanges."""

from __future__ import annotations

import json
import re

from llm.offline.judge import OCCASION_PHRASES as _OCCASION_PHRASES
from llm.offline.payload import last_user_text, payload_read
from llm.offline.replies import Reply, text_reply
from llm.offline.shopper import occasions_find
from llm.transcript import PRODUCTS_SHOWN, products_shown_parse

MAX_CONTEXTS = 5
_SEASONS = frozenset({"summer", "winter", "spring", "autumn"})
_ROLE_LINE = re.compile(
    r"^\s*(?P<role>user|shopper|human|customer|assistant|ai|bot)\s*:\s*", re.I | re.M
)
_BOLD_NAME = re.compile(r"\*\*([^*]{2,120})\*\*")
_NOTHING_FOUND = re.compile(
    r"\b(couldn't find|could not find|no matching|nothing (?:matches|fits))\b", re.I
)
_FOUND = re.compile(
    r"\b(i'll take|i will take|i'll buy|i'll get|i'll order|bought|ordered|added (?:it |them )?to "
    r"(?:my |the )?(?:cart|basket|bag)|perfect|exactly what i|that's the one|love it|"
    r"that works|sold)\b",
    re.I,
)
_PLEASANTRY = re.compile(r"^\s*(thanks|thank you|ok|okay|bye|goodbye|cheers|hi|hello|hey)\b", re.I)
_SIZE_MISSING = re.compile(r"the \*\*(?P<name>[^*]+)\*\* isn't in stock in size (?P<size>\w+)")


def extraction_reply(messages: list[dict]) -> Reply:
    payload = payload_read(messages)
    text = payload.get("text")
    if not isinstance(text, str):
        text = last_user_text(messages)
    return text_reply(json.dumps(exchange_extract(text), ensure_ascii=False))


def episode_reply(messages: list[dict]) -> Reply:
    exchanges = payload_read(messages).get("exchanges")
    turns = [
        (str(item.get("shopper") or ""), str(item.get("assistant") or ""))
        for item in exchanges or []
        if isinstance(item, dict)
    ]
    return text_reply(json.dumps(episode_write(turns), ensure_ascii=False))


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


def episode_write(turns: list[tuple[str, str]]) -> dict:
    """Record what a closed session was about, whether it ended well, and what to follow up."""
    queries = [query for query, _ in turns if query.strip()]
    occasions = [o for query in queries for o in occasions_find(query)]
    occasion = next(
        (o for o in occasions if o not in _SEASONS), occasions[0] if occasions else None
    )
    names: list[str] = []
    for _, answer in turns:
        names += [name for name in _product_names(answer) if name not in names]
    found = bool(queries) and any(_FOUND.search(query) for query in queries[-2:])
    looked_for = _compress(queries[0], 100) if queries else "nothing in particular"
    summary = f"The shopper looked for {_quoted(looked_for)}"
    if occasion and occasion not in looked_for.lower():
        # "looked for “a dress for a wedding” for a wedding" says it twice.
        summary += f" for {_OCCASION_PHRASES.get(occasion, occasion)}"
    if names:
        summary += f"; shown {', '.join(names[:3])}."
    elif any(_NOTHING_FOUND.search(answer) for _, answer in turns):
        summary += "; nothing matching was in stock."
    else:
        # Products named in plain words (an imported visit) are no cards, but they were
        # suggested: saying "no products were shown" would be false.
        summary += "."
    summary += " They found what they wanted." if found else " They did not settle on anything."
    return {
        "summary": summary,
        "occasion": occasion,
        "found": found,
        "follow_ups": [] if found else _follow_ups(turns, queries),
    }


def _follow_ups(turns: list[tuple[str, str]], queries: list[str]) -> list[str]:
    follow_ups = []
    for _, answer in turns:
        for missing in _SIZE_MISSING.finditer(answer):
            follow_ups.append(
                f"Check whether the {missing['name']} is back in stock in size {missing['size']}."
            )
    requests = [query for query in queries if not _PLEASANTRY.match(query)]
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
    text = answer.split(PRODUCTS_SHOWN, 1)[0]
    return list(dict.fromkeys(name.strip() for name in _BOLD_NAME.findall(text)))


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
