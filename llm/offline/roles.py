"""Dispatch a request to the role its system prompt names."""

from __future__ import annotations

import json

from llm.offline.assistant import assistant_reply
from llm.offline.judge import judge_reply
from llm.offline.replies import Reply, text_reply
from llm.offline.writers import episode_reply, extraction_reply
from llm.prompts import role_of

_ROLE_REPLIES = {
    "judge": judge_reply,
    "extraction": extraction_reply,
    "episode": episode_reply,
}


def reply_for(request: dict) -> Reply:
    role = role_of(request["messages"])
    if role in _ROLE_REPLIES:
        return _ROLE_REPLIES[role](request["messages"])
    reply = assistant_reply(request)
    kind = (request.get("response_format") or {}).get("type")
    if kind in ("json_object", "json_schema") and not reply.tool_calls:
        # JSON mode promises parseable JSON whatever the role.
        return text_reply(json.dumps({"answer": reply.content or ""}, ensure_ascii=False))
    return reply
