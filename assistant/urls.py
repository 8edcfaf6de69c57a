from __future__ import annotations

from django.urls import path

from assistant.api import TurnsView

app_name = "assistant"

urlpatterns = [
    path("turns", TurnsView.as_view(), name="turns"),
]
