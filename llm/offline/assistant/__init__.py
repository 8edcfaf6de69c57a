"""The shopping-assistant role: choose a tool call from the shopper's words, then answer.

Each request is read afresh (the API is stateless): the shopper's message, the page they
are on, the notes (their facts, earlier visits and this conversation so far), and any tool
rounds since that message decide the next step. Follow-ups ("the black one", "in M?",
"cheaper", "show more") are resolved by replaying this conversation's exchanges: each
answer ends with the products it showed, so the model knows what the shopper saw.
"""

from __future__ import annotations

from llm.offline.assistant.answer import answer_after_tools, memory_text
from llm.offline.assistant.calls import first_call
from llm.offline.assistant.plan import message_plan
from llm.offline.assistant.state import conversation_state, turn_read
from llm.offline.facts import profile_from_facts
from llm.offline.replies import Reply, text_reply, tool_reply

__all__ = ["assistant_reply"]


def assistant_reply(request: dict) -> Reply:
    """Answer one chat-completions request as the shopping assistant."""
    turn = turn_read(request)
    tools_allowed = bool(turn.tools) and request.get("tool_choice") != "none"
    state = conversation_state(turn)
    plan = message_plan(turn.shopper, state, turn.vocabulary, turn.page)
    profile = profile_from_facts(turn.notes.facts, turn.vocabulary)
    call = first_call(plan, profile, turn)
    if turn.rounds:
        reply = answer_after_tools(turn, plan, call, tools_allowed)
        if plan.noted and reply.content and not reply.tool_calls:
            return text_reply(f"{plan.noted}\n\n{reply.content}")
        return reply
    if plan.kind == "memory":
        if call and tools_allowed and call[0] in turn.tools:
            return tool_reply(*call)
        return text_reply(memory_text(plan, turn))
    if call and tools_allowed and call[0] in turn.tools:
        return tool_reply(*call)
    if call:
        return text_reply(
            "I can't check the catalog right now. Please try again in a moment, or browse "
            "the catalog pages."
        )
    return text_reply(plan.text)
