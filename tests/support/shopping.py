"""The assistant's real prompt, tool schemas and notes fence, and helpers that drive a model.

Everything a model is sent is built by the modules the turn pipeline uses
(`assistant.turn.prompting`, `assistant.turn.tools`, `memoryapp.render`, `llm.transcript`), so these
tests notice when the offline model and what it is sent drift apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from assistant.turn.agent import FinalEvent, TokenEvent, ToolEvent, agent_run
from assistant.turn.prompting import turn_messages
from assistant.turn.tools import tool_run, tool_schemas, vocabulary_load
from llm.factory import chat_client, model_for
from llm.transcript import exchange_with_products, page_context_message
from memoryapp.fence import notes_message
from memoryapp.render import verbatim_lines
from shop.selectors import ProductHit, catalog_vocabulary, product_blurb
from shop.services import CATALOG_FIXTURE

_CATALOG = json.loads(CATALOG_FIXTURE.read_text())
# The vocabulary the tool schemas carry, without a database: the catalog's enums, and the
# brands of the fixture the database is seeded from.
VOCABULARY = catalog_vocabulary(
    brands={product["brand"] for product in _CATALOG if product.get("active", True)},
    texts=[f"{p['name']} {p['description']}" for p in _CATALOG if p.get("active", True)],
)
TOOLS = tool_schemas(vocabulary=VOCABULARY, with_memory=True)
SIGNED_OUT_TOOLS = tool_schemas(vocabulary=VOCABULARY, with_memory=False)
NOTE_MAX_CHARS = 500


def catalog_product(sku: str, **changes: Any) -> dict:
    """A search result for a fixture product, shaped by the real selector's dataclass."""
    product = next(p for p in _CATALOG if p["sku"] == sku)
    in_stock = [v for v in product["variants"] if v["stock"] > 0]
    colour = changes.pop("colour", None)
    if colour:
        in_stock = [v for v in in_stock if v["colour"] == colour]
    order = {size: i for i, size in enumerate(VOCABULARY["sizes"])}
    hit = ProductHit(
        sku=product["sku"],
        name=product["name"],
        brand=product["brand"],
        category=product["category"],
        price_eur=float(product["price"]),
        colours=sorted({v["colour"] for v in in_stock}),
        sizes_in_stock=sorted({v["size"] for v in in_stock}, key=order.__getitem__),
        url=f"/products/{product['slug']}/",
        blurb=product_blurb(description=product["description"], brand=product["brand"]),
    ).as_dict()
    return {**hit, **changes}


def product_detail(sku: str, *, colour: str | None = None) -> dict:
    """A get_product result for a fixture product (optionally seen in one colour)."""
    product = next(p for p in _CATALOG if p["sku"] == sku)
    detail = catalog_product(sku, colour=colour)
    variants = [
        {"sku": v["sku"], "colour": v["colour"], "size": v["size"], "stock": v["stock"]}
        for v in product["variants"]
        if v["stock"] > 0 and (colour is None or v["colour"] == colour)
    ]
    extra = {"colour_in_stock": True} if colour else {}
    return {**detail, "description": product["description"], "variants": variants, **extra}


# Fjord & Pine Pocket Tee (grey, navy), Vela Crew Tee (black), Orchard Street Organic
# Cotton Tee (navy), as search results straight from the catalog fixture.
TEES = [catalog_product("TS-0002"), catalog_product("TS-0001"), catalog_product("TS-0003")]


def exchange_lines(query: str, answer: str, cards: list[dict] | None = None) -> list[str]:
    """One exchange of this conversation as the notes carry it (memory and signed-out alike)."""
    text = f"Shopper: {query} ‖ Assistant: {exchange_with_products(answer, cards or [])}"
    return verbatim_lines(text, max_chars=NOTE_MAX_CHARS)


def conversation(
    shopper: str,
    *,
    notes: list[str] | None = None,
    page: dict | None = None,
    signed_in: bool = True,
    mode: str | None = None,
) -> list[dict]:
    """The messages of one turn, assembled exactly as the turn pipeline assembles them."""
    return turn_messages(
        signed_in=signed_in,
        notes=notes_message(notes) if notes else None,
        text=shopper,
        page_context=page_context_message(page) if page else None,
        mode=mode,
    )


async def complete(messages: list[dict], *, tools: list[dict] | None = None, **kwargs):
    """One non-streamed completion from the offline model through the real SDK."""
    return await chat_client().chat.completions.create(
        model=model_for("assistant"),
        messages=messages,
        tools=TOOLS if tools is None else tools,
        **kwargs,
    )


async def first_reply(shopper: str, **kwargs):
    """The model's first message for a turn: a tool call, or a plain answer."""
    conversation_keys = ("notes", "page", "signed_in", "mode")
    shaping = {key: kwargs.pop(key) for key in conversation_keys if key in kwargs}
    response = await complete(conversation(shopper, **shaping), **kwargs)
    return response.choices[0].message


async def first_tool_call(shopper: str, **kwargs) -> tuple[str, dict] | None:
    message = await first_reply(shopper, **kwargs)
    if not message.tool_calls:
        return None
    call = message.tool_calls[0]
    return call.function.name, json.loads(call.function.arguments)


async def answer_after(messages: list[dict], call: tuple[str, dict], result: dict, **kwargs):
    """Feed one tool round back and return the model's next message."""
    name, arguments = call
    messages = [
        *messages,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(result)},
    ]
    response = await complete(messages, **kwargs)
    return response.choices[0].message


# --- whole turns against the real catalog (database tests) ------------------------------


@dataclass
class Answer:
    text: str
    products: list[dict]
    more: bool
    tools: list[ToolEvent]
    tokens: list[str]


@dataclass
class Shopper:
    """A conversation with the offline model over the real tools and catalog.

    Earlier exchanges reach the model as the pipeline gives them: the newest three as
    verbatim notes lines, each answer followed by the products it showed.
    """

    mode: str = "stateless"
    facts: list[str] = field(default_factory=list)
    history: list[tuple[str, str, list[dict]]] = field(default_factory=list)

    async def ask(self, text: str, *, page: dict | None = None) -> Answer:
        vocabulary = await vocabulary_load()
        lines = list(self.facts)
        for query, answer, cards in self.history[-3:]:
            lines += exchange_lines(query, answer, cards)
        linkable: list[dict] = []
        page_message = None
        if page and page.get("kind") == "product":
            found = await tool_run(
                name="get_product",
                raw_arguments=json.dumps({"sku": page["sku"]}),
                vocabulary=vocabulary,
                recall=None,
            )
            if found.products:
                linkable = found.products
                page_message = page_context_message({"kind": "product", "product": found.content})
        elif page:
            page_message = page_context_message(page)

        async def run_tool(name: str, arguments: str):
            return await tool_run(
                name=name, raw_arguments=arguments, vocabulary=vocabulary, recall=None
            )

        events = [
            event
            async for event in agent_run(
                client=chat_client(),
                model=model_for("assistant"),
                messages=turn_messages(
                    signed_in=self.mode != "stateless",
                    notes=notes_message(lines) if lines else None,
                    text=text,
                    page_context=page_message,
                    mode=self.mode,
                ),
                # Remembering, the model is given its recall tool, as the pipeline does.
                tools=tool_schemas(vocabulary=vocabulary, with_memory=self.mode == "remembering"),
                run_tool=run_tool,
                linkable=linkable,
            )
        ]
        final = next(e for e in events if isinstance(e, FinalEvent))
        self.history.append((text, final.text, final.products))
        return Answer(
            text=final.text,
            products=final.products,
            more=final.more,
            tools=[e for e in events if isinstance(e, ToolEvent)],
            tokens=[e.text for e in events if isinstance(e, TokenEvent)],
        )
