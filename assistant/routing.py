from __future__ import annotations

from django.urls import path

from assistant.consumers import AssistantConsumer

websocket_urlpatterns = [
    path("ws/assistant/", AssistantConsumer.as_asgi()),
]
