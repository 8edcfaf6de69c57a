"""What a role produces for one request: text, or tool calls, never both."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


def text_reply(content: str) -> Reply:
    return Reply(content=content)


def tool_reply(name: str, arguments: dict) -> Reply:
    return Reply(tool_calls=[ToolCall(name=name, arguments=arguments)])
