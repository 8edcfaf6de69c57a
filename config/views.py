from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from llm.factory import model_mode
from memoryapp.clients import memory_health_status


@require_GET
def healthz(request):
    """Report the app, the memory server and which model answers, for people and probes."""
    return JsonResponse(
        {"app": "ok", "memory": memory_health_status(), "model": model_mode()},
    )
