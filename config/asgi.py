"""ASGI entry point: HTTP goes to Django; websockets pass the origin check, then auth."""

from __future__ import annotations

import logging
import os
import threading

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
# Django must be set up before anything imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402

from assistant.routing import websocket_urlpatterns  # noqa: E402
from config.origins import WebsocketOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Scheme, host and port, exactly as the REST API checks them (config/origins.py).
        "websocket": WebsocketOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)


def _meaning_warm() -> None:
    """Load the meaning encoder, the catalog's vectors and the offline model's examples now.

    Each loads on first use: the first shoppers after a start (a burst of them, after a
    deploy) would wait behind a second of CPU for the encoder's weights, the catalog's
    vector matrix and the act examples' vectors, one turn after another.
    """
    try:
        from shop.meaning import meaning_warm

        meaning_warm()
        from llm.factory import model_mode

        if model_mode() == "offline":
            from llm.offline.assistant.acts import act_by_meaning

            act_by_meaning("a warm coat for the rain")
    except Exception:  # the turns load what they need themselves; a warm-up never stops a start
        logging.getLogger(__name__).warning("warming the meaning encoder failed", exc_info=True)
    finally:
        connections.close_all()  # this thread's own, back to the pool or closed


if settings.MEANING_WARM_AT_START:
    threading.Thread(target=_meaning_warm, name="meaning-warm", daemon=True).start()
