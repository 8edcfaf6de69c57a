from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from config.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/assistant/", include("assistant.urls")),
    path("api/memory/", include("memoryapp.urls")),
    path("", include("shop.urls")),
]
