from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.views import favicon, healthz

handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"

admin.site.site_header = "Aisle administration"
admin.site.site_title = "Aisle admin"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/assistant/", include("assistant.urls")),
    path("api/memory/", include("memoryapp.urls")),
    # The OpenAPI schema (a file) and Swagger UI over it, served from the pinned sidecar
    # package (no CDN); DRF's browsable API is at each endpoint too.
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    # Pages outside base.html (the admin, the API docs) still get the shop's icon.
    path("favicon.ico", favicon),
    path("", include("shop.urls")),
]
