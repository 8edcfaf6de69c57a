from __future__ import annotations

app_name = "assistant"

urlpatterns: list = []
