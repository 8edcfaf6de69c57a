from __future__ import annotations

app_name = "memoryapp"

urlpatterns: list = []
