"""The chat panel's websocket: parse a frame, run one service, send the events it yields."""

from __future__ import annotations

import json
import logging

from channels.generic.websocket import AsyncWebsocketConsumer

from assistant.services import conversation_close, turn_run
from assistant.validation import FrameError, close_request_parse, frame_decode, turn_request_parse

logger = logging.getLogger("assistant")


class AssistantConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = frame_decode(text_data)
            kind = frame.get("type")
            if kind == "message":
                request = turn_request_parse(frame)
                async for event in turn_run(user=self.scope.get("user"), request=request):
                    await self.send_event(event)
            elif kind == "close":
                event = await conversation_close(
                    user=self.scope.get("user"), request=close_request_parse(frame)
                )
                await self.send_event(event)
            else:
                raise FrameError(400, "Unknown frame type; expected message or close.")
        except FrameError as exc:
            await self.send_event(
                {"type": "error", "code": exc.code, "message": exc.message, "retryable": False}
            )
        except Exception:
            # The socket must stay usable whatever one turn did; the traceback goes to the log.
            logger.exception("Assistant turn failed")
            await self.send_event(
                {
                    "type": "error",
                    "code": 500,
                    "message": "Something went wrong on our side. Please try again.",
                    "retryable": True,
                }
            )

    async def send_event(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event, ensure_ascii=False, default=str))
