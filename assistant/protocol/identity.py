"""Who a chat socket speaks for, checked again on every frame.

The auth middleware reads the session cookie once, when the socket connects; a socket can
stay open for hours after that, across a sign-out in another tab, someone else signing in
in the same browser, or staff deactivating or deleting the account. So the consumer keeps
what the sign-in was (the session key, the user's id and the session's auth hash) and asks
the session store and the user table before each frame and before a turn's memory writes:
the same checks Django makes of a page request, against the state of now, not of connect.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare

from assistant.protocol.panels import EndReason


@dataclass(frozen=True)
class SocketSignIn:
    """The sign-in a socket connected with."""

    session_key: str
    user_id: str
    username: str


@dataclass(frozen=True)
class SignInCheck:
    """The user as of now, or why the socket no longer speaks for them."""

    user: Any = None
    ended: EndReason | None = None


def socket_sign_in(scope: dict[str, Any]) -> SocketSignIn | None:
    """The sign-in of a connecting socket; None when it is signed out."""
    user = scope.get("user")
    session = scope.get("session")
    if user is None or not user.is_authenticated or session is None or not session.session_key:
        return None
    return SocketSignIn(
        session_key=session.session_key,
        user_id=str(session.get(SESSION_KEY, "")),
        username=user.get_username(),
    )


@database_sync_to_async
def sign_in_check(sign_in: SocketSignIn) -> SignInCheck:
    """Whether the socket's sign-in still holds: its session, its user, that user active."""
    # A fresh store: the scope's session object cached its data at connect time.
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=sign_in.session_key)
    if str(session.get(SESSION_KEY, "")) != sign_in.user_id:
        return SignInCheck(ended="signed_out")  # signed out, expired, or someone else now
    user = get_user_model()._default_manager.filter(pk=sign_in.user_id).first()
    if user is None:
        return SignInCheck(ended="deleted")
    session_hash = session.get(HASH_SESSION_KEY) or ""
    if not constant_time_compare(session_hash, user.get_session_auth_hash()):
        return SignInCheck(ended="signed_out")  # the password changed: every sign-in ends
    if not user.is_active:
        return SignInCheck(ended="deactivated")
    return SignInCheck(user=user)
