from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from config.views import healthz

admin.site.site_header = "Aisle administration"
admin.site.site_title = "Aisle admin"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/assistant/", include("assistant.urls")),
    path("api/memory/", include("memoryapp.urls")),
    # The OpenAPI schema; the browsable API at each endpoint is the offline-friendly docs page.
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("shop.urls")),
]
