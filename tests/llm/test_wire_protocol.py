"""The offline model speaks the chat-completions protocol the real `openai` SDK expects."""

from __future__ import annotations

import asyncio
import json

import httpx
import openai
import pytest
from django.test import override_settings

from llm.factory import OFFLINE_MODEL, chat_client, model_for, model_mode
from llm.offline import offline_app
from tests.support.shopping import TEES, TOOLS, conversation


async def test_without_a_key_every_role_uses_the_offline_model() -> None:
    assert model_mode() == "offline"
    assert {model_for(role) for role in ("assistant", "judge", "extraction", "episode")} == {
        OFFLINE_MODEL
    }
    models = await chat_client().models.list()
    assert [model.id for model in models.data] == [OFFLINE_MODEL]


@override_settings(OPENAI_API_KEY="sk-test", JUDGE_MODEL="gpt-judge", ASSISTANT_MODEL="gpt-main")
async def test_with_a_key_the_configured_models_and_endpoint_are_used() -> None:
    assert model_mode() == "openai"
    assert model_for("assistant") == "gpt-main"
    assert model_for("judge") == "gpt-judge"
    client = chat_client()
    assert client.api_key == "sk-test"
    assert str(client.base_url).startswith("https://api.openai.com")


def test_unknown_role_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown model role"):
        model_for("poet")


async def test_client_is_reused_within_one_event_loop() -> None:
    assert chat_client() is chat_client()


def test_each_event_loop_gets_its_own_client() -> None:
    async def client_of_this_loop() -> object:
        return chat_client()

    assert asyncio.run(client_of_this_loop()) is not asyncio.run(client_of_this_loop())


async def test_streamed_tool_call_arrives_in_pieces_and_reassembles() -> None:
    stream = await chat_client().chat.completions.create(
        model=OFFLINE_MODEL,
        messages=conversation("black t-shirts under 30 euros"),
        tools=TOOLS,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [
        call
        for chunk in chunks
        for choice in chunk.choices
        for call in choice.delta.tool_calls or []
    ]
    assert pieces[0].id and pieces[0].function.name == "search_products"
    assert {piece.index for piece in pieces} == {0}
    assert len(pieces) >= 3  # the name, then the arguments in several pieces
    arguments = "".join(piece.function.arguments or "" for piece in pieces)
    assert json.loads(arguments) == {"category": "t-shirts", "colour": "black", "max_price": 30}
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "tool_calls"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


async def test_streamed_text_answer_concatenates_to_the_full_answer() -> None:
    messages = conversation("black t-shirts")
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {"name": "search_products", "arguments": '{"colour": "black"}'},
            }
        ],
    }
    result = {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": json.dumps({"products": TEES[1:], "count": 2}),
    }
    client = chat_client()
    stream = await client.chat.completions.create(
        model=OFFLINE_MODEL, messages=[*messages, call, result], tools=TOOLS, stream=True
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 5
    assert chunks[-1].choices[0].finish_reason == "stop"
    plain = await client.chat.completions.create(
        model=OFFLINE_MODEL, messages=[*messages, call, result], tools=TOOLS
    )
    assert plain.choices[0].message.content == text
    # One line per product: the price, colours and sizes are on its card.
    assert "**Vela Crew Tee**" in text and "€" not in text


async def test_same_request_gives_the_same_answer() -> None:
    client = chat_client()
    first = await client.chat.completions.create(
        model=OFFLINE_MODEL, messages=conversation("navy jeans in M"), tools=TOOLS
    )
    second = await client.chat.completions.create(
        model=OFFLINE_MODEL, messages=conversation("navy jeans in M"), tools=TOOLS
    )
    assert first.id == second.id
    assert first.choices[0].message.tool_calls == second.choices[0].message.tool_calls
    assert first.choices[0].finish_reason == "tool_calls"


async def test_tool_choice_none_answers_in_text() -> None:
    response = await chat_client().chat.completions.create(
        model=OFFLINE_MODEL, messages=conversation("black jeans"), tools=TOOLS, tool_choice="none"
    )
    message = response.choices[0].message
    assert message.tool_calls is None and message.content
    assert response.choices[0].finish_reason == "stop"


async def test_unknown_model_is_a_not_found_error() -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        await chat_client().chat.completions.create(
            model="gpt-4o-mini", messages=conversation("hi")
        )
    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"
    assert caught.value.body["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("messages", "param"),
    [
        ([], "messages"),
        ("hello", "messages"),
        ([{"role": "wizard", "content": "hi"}], "messages[0].role"),
        ([{"role": "tool", "tool_call_id": "nope", "content": "{}"}], "messages[0].role"),
    ],
)
async def test_badly_shaped_messages_are_bad_requests(messages: object, param: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await chat_client().chat.completions.create(model=OFFLINE_MODEL, messages=messages)
    assert caught.value.status_code == 400
    assert caught.value.param == param
    assert caught.value.body["type"] == "invalid_request_error"


async def test_json_mode_without_the_word_json_is_refused_like_the_real_api() -> None:
    with pytest.raises(openai.BadRequestError, match="must contain the word 'json'"):
        await chat_client().chat.completions.create(
            model=OFFLINE_MODEL,
            messages=conversation("hello"),
            response_format={"type": "json_object"},
        )


async def test_malformed_body_gets_the_api_error_body() -> None:
    transport = httpx.ASGITransport(app=offline_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://offline") as client:
        response = await client.post(
            "/v1/chat/completions",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )
        missing = await client.post("/v1/chat/completions", json={"model": OFFLINE_MODEL})
        unknown_route = await client.get("/v1/embeddingz")
    assert response.status_code == 400
    assert set(response.json()["error"]) == {"message", "type", "param", "code"}
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == "missing_required_parameter"
    assert unknown_route.status_code == 404


async def test_unanswered_tool_call_is_a_bad_request() -> None:
    messages = [
        *conversation("black jeans"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "search_products", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "hello?"},
    ]
    with pytest.raises(openai.BadRequestError, match="call_a"):
        await chat_client().chat.completions.create(model=OFFLINE_MODEL, messages=messages)
