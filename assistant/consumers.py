"""The chat panel's websocket: parse a frame, run one service, send the events it yields.

A turn runs as a task of its own, so the socket keeps receiving while it streams: a `stop`
frame cancels it, a second `message` is refused (409) until the first is answered.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import aclosing

from channels.generic.websocket import AsyncWebsocketConsumer

from assistant import events
from assistant.services import (
    TurnProgress,
    conversation_close,
    turn_run,
    welcome_build,
)
from assistant.validation import (
    FrameError,
    TurnRequest,
    close_request_parse,
    frame_decode,
    frame_type,
    hello_request_parse,
    turn_request_parse,
)
from memoryapp.public import shopper_group

logger = logging.getLogger("assistant")


class AssistantConsumer(AsyncWebsocketConsumer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.turn: asyncio.Task | None = None  # the latest turn, answering or writing memory
        self.progress = TurnProgress()  # that turn's progress
        self.open = True
        self.group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            # Told when this shopper's memory is erased or a record deleted elsewhere.
            self.group = shopper_group(user.get_username())
            await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        self.open = False
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.turn is not None and not self.turn.done():
            if not self.progress.answered:
                self.turn.cancel()
            # An answered turn still finishes its memory writes; a stopped one unwinds.
            await asyncio.wait([self.turn])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = frame_decode(text_data)
            kind = frame_type(frame)
            if kind == "message":
                request = turn_request_parse(frame)
                if self._answering():
                    raise FrameError(409, "A turn is already running: wait for it, or stop it.")
                self._turn_start(request)
            elif kind == "stop":
                await self._turn_stop()
            elif kind == "hello":
                request = hello_request_parse(frame)
                await self.send_event(
                    await welcome_build(user=self.scope.get("user"), request=request)
                )
            elif kind == "close":
                request = close_request_parse(frame)
                # The visit's episode is written from everything the session holds: a turn in
                # progress is stopped first, an answered one's memory writes land first.
                if self._answering():
                    await self._turn_stop()
                elif self.turn is not None:
                    await asyncio.wait([self.turn])
                await self.send_event(
                    await conversation_close(user=self.scope.get("user"), request=request)
                )
            else:
                raise FrameError(400, "Unknown frame type; expected message, stop, hello or close.")
        except FrameError as exc:
            await self.send_event(events.Error(code=exc.code, message=exc.message, retryable=False))
        except Exception:
            # The socket must stay usable whatever one frame did; the traceback goes to the log.
            logger.exception("Assistant frame failed")
            await self.send_event(events.UNEXPECTED)

    async def memory_changed(self, message: dict) -> None:
        """A group message: this shopper's memory changed elsewhere; tell the panel."""
        reason = message.get("reason")
        if reason not in ("erased", "record_deleted"):
            logger.warning("Ignored a memory.changed message with reason %r", reason)
            return
        await self.send_event(
            events.MemoryChanged(
                reason=reason,
                session_ids=[str(s) for s in message.get("session_ids") or []],
                block_id=message.get("block_id"),
            )
        )

    def _answering(self) -> bool:
        return self.turn is not None and not self.turn.done() and not self.progress.answered

    def _turn_start(self, request: TurnRequest) -> None:
        previous = self.turn
        self.progress = TurnProgress()
        self.turn = asyncio.create_task(self._turn_send(request, self.progress, previous))

    async def _turn_send(
        self, request: TurnRequest, progress: TurnProgress, previous: asyncio.Task | None
    ) -> None:
        if previous is not None and not previous.done():
            # The previous answer's memory writes land first, so this turn recalls them.
            await asyncio.wait([previous])
        try:
            turn = turn_run(user=self.scope.get("user"), request=request, progress=progress)
            async with aclosing(turn):
                async for event in turn:
                    await self.send_event(event)
        except Exception:
            logger.exception("Assistant turn failed")
            await self.send_event(events.UNEXPECTED)

    async def _turn_stop(self) -> None:
        if not self._answering():
            await self.send_event(events.Stopped(turn_id=None))
            return
        turn, progress = self.turn, self.progress
        turn.cancel()
        # Wait for it to unwind: its chat record is marked stopped before we say so.
        await asyncio.wait([turn])
        await self.send_event(events.Stopped(turn_id=progress.turn_id))

    async def send_event(self, event: events.Event) -> None:
        if not self.open:
            return  # a turn finishing its memory writes after the panel went away
        await self.send(text_data=json.dumps(event.to_dict(), ensure_ascii=False, default=str))
