"""The chat panel's websocket: parse a frame, run one service, send the events it yields.

A turn runs as a task of its own, so the socket keeps receiving while it streams: a `stop`
frame cancels it, a second `message` is refused (409) until the first is answered.

A signed-in socket speaks for its shopper only while their sign-in holds: it is checked
against the session store and the user table before every frame and before a turn's
memory writes (assistant/protocol/identity.py), and a sign-out, deactivation or deletion pushed
through the shopper's group ends the socket at once, its turn with it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import aclosing

from channels.generic.websocket import AsyncWebsocketConsumer

from assistant.protocol import events
from assistant.protocol.identity import SocketSignIn, sign_in_check, socket_sign_in
from assistant.protocol.panels import PANELS_GROUP, EndReason, session_tag, shopper_group
from assistant.protocol.validation import (
    FrameError,
    TurnRequest,
    close_request_parse,
    frame_decode,
    frame_type,
    hello_request_parse,
    turn_request_parse,
)
from assistant.turn.pipeline import (
    TurnProgress,
    conversation_close,
    greeting_build,
    turn_run,
)

logger = logging.getLogger("assistant")


class AssistantConsumer(AsyncWebsocketConsumer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.turn: asyncio.Task | None = None  # the latest turn, answering or writing memory
        self.progress = TurnProgress()  # that turn's progress
        self.open = True
        self.ended = False  # the shopper's sign-in ended: nothing more is done here
        self.sign_in: SocketSignIn | None = None
        self.groups_joined: list[str] = []

    async def connect(self) -> None:
        self.sign_in = socket_sign_in(self.scope)
        if self.sign_in is not None:
            # Told when this shopper's memory is erased, a record deleted or their sign-in
            # ended elsewhere; and, with every signed-in panel, when staff switch memory.
            self.groups_joined = [shopper_group(self.sign_in.user_id), PANELS_GROUP]
            for group in self.groups_joined:
                await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        self.open = False
        await self._groups_leave()
        if self.turn is not None and not self.turn.done():
            if not self.progress.answered:
                self.turn.cancel()
            # An answered turn still finishes its memory writes; a stopped one unwinds.
            await asyncio.wait([self.turn])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ended:
            return  # frames already on their way when the socket was ended
        try:
            user = await self._user_now()
            if user is None:
                return
            frame = frame_decode(text_data)
            kind = frame_type(frame)
            if kind == "message":
                request = turn_request_parse(frame)
                if self._answering():
                    raise FrameError(409, "A turn is already running: wait for it, or stop it.")
                self._turn_start(request, user)
            elif kind == "stop":
                await self._turn_stop()
            elif kind == "hello":
                request = hello_request_parse(frame)
                await self.send_event(await greeting_build(user=user, request=request))
            elif kind == "close":
                request = close_request_parse(frame)
                # The visit's episode is written from everything the session holds: a turn in
                # progress is stopped first, an answered one's memory writes land first.
                if self._answering():
                    await self._turn_stop()
                elif self.turn is not None:
                    await asyncio.wait([self.turn])
                await self.send_event(await conversation_close(user=user, request=request))
            else:
                raise FrameError(400, "Unknown frame type; expected message, stop, hello or close.")
        except FrameError as exc:
            await self.send_event(events.Error(code=exc.code, message=exc.message, retryable=False))
        except Exception:
            # The socket must stay usable whatever one frame did; the traceback goes to the log.
            logger.exception("Assistant frame failed")
            await self.send_event(events.UNEXPECTED)

    async def memory_changed(self, message: dict) -> None:
        """A group message: this shopper's memory changed elsewhere; tell the panel.

        After an erase the socket is closed too, its turn with it, answered or not: a
        turn's writes landing after the erase would bring back a memory the shopper (or
        staff) just deleted. The panel reconnects as the same shopper, with a new session.
        """
        reason = message.get("reason")
        if reason not in ("erased", "record_deleted"):
            logger.warning("Ignored a memory.changed message with reason %r", reason)
            return
        if self.ended:
            return
        if reason == "erased":
            await self._turn_end()
        await self.send_event(
            events.MemoryChanged(
                reason=reason,
                session_ids=[str(s) for s in message.get("session_ids") or []],
                block_id=message.get("block_id"),
            )
        )
        if reason == "erased":
            self.ended = True
            await self._groups_leave()
            await self.close(code=events.CLOSE_MEMORY_ERASED)

    async def shopper_ended(self, message: dict) -> None:
        """A group message: this shopper signed out, or was deactivated or deleted."""
        reason = message.get("reason")
        if reason not in ("signed_out", "deactivated", "deleted"):
            logger.warning("Ignored a shopper.ended message with reason %r", reason)
            return
        session = message.get("session")
        # A sign-out ends one browser's sign-in; the shopper's other browsers stay signed in.
        if session is not None and (
            self.sign_in is None or session != session_tag(self.sign_in.session_key)
        ):
            return
        await self._end(reason)

    async def memory_switched(self, message: dict) -> None:
        """A group message: staff switched memory on or off; the mode line says so now."""
        if self.ended or self.sign_in is None:
            return
        if await self._user_now() is None:
            return  # not this shopper's panel any more: it was ended instead
        mode: events.Mode = "remembering" if message.get("enabled") else "memory_off"
        await self.send_event(events.ModeChanged(mode=mode))

    async def _user_now(self):
        """The socket's user as of now; None, having ended the socket, if the sign-in ended."""
        if self.sign_in is None:
            return self.scope.get("user")  # signed out from the start: stateless, always
        check = await sign_in_check(self.sign_in)
        if check.ended is not None:
            await self._end(check.ended)
            return None
        return check.user

    async def _end(self, reason: EndReason) -> None:
        """The shopper's sign-in ended: stop what runs, say so, and close for good."""
        if self.ended:
            return
        self.ended = True
        await self._turn_end()
        await self.send_event(events.SignedOut(reason=reason))
        await self._groups_leave()
        await self.close(code=events.CLOSE_SIGNED_OUT)

    async def _turn_end(self) -> None:
        """Cancel the turn in flight, answering or writing memory, and wait for it to unwind."""
        turn, progress = self.turn, self.progress
        if turn is None or turn.done() or turn is asyncio.current_task():
            return
        answering = not progress.answered
        turn.cancel()
        await asyncio.wait([turn])
        if answering:
            await self.send_event(events.Stopped(turn_id=progress.turn_id))

    async def _groups_leave(self) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    def _answering(self) -> bool:
        return self.turn is not None and not self.turn.done() and not self.progress.answered

    def _turn_start(self, request: TurnRequest, user) -> None:
        previous = self.turn
        self.progress = TurnProgress()
        self.turn = asyncio.create_task(self._turn_send(request, user, self.progress, previous))

    async def _turn_send(
        self, request: TurnRequest, user, progress: TurnProgress, previous: asyncio.Task | None
    ) -> None:
        if previous is not None and not previous.done():
            # The previous answer's memory writes land first, so this turn recalls them.
            await asyncio.wait([previous])
            # Waiting took time: the sign-in is asked again before memory is read.
            if (user := await self._user_now()) is None:
                return
        try:
            turn = turn_run(user=user, request=request, progress=progress)
            async with aclosing(turn):
                async for event in turn:
                    await self.send_event(event)
                    # The writes come after `done`: a sign-in that ended while the answer
                    # streamed leaves them unwritten (closing the turn skips them).
                    if isinstance(event, events.Done) and await self._user_now() is None:
                        break
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
