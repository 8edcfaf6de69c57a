"""The embedded server's own URLconf: the Agent Memory REST API and nothing of the shop."""

from __future__ import annotations

from functools import partial

from django.urls import path, re_path

from memoryserver.api import fastpath
from memoryserver.api import health as h
from memoryserver.api import views as v
from memoryserver.api.base import in_thread_pool
from memoryserver.api.errors import route_not_found

P = in_thread_pool
U = "users/<str:user_id>"
S = f"{U}/sessions/<str:session_id>"

# The recall's read routes answer their common shapes without DRF's machinery; anything else
# goes through their DRF views (api/fastpath.py).
urlpatterns = [
    path("health", P(h.HealthView.as_view())),
    path("health/couchbase", P(h.DatabaseHealthView.as_view())),
    path("health/models", P(h.ModelsHealthView.as_view())),
    path("health/async-batch-processor", P(h.BatchHealthView.as_view())),
    path("health/async-batch-processor-stats", P(h.BatchHealthView.as_view())),
    path("health/memory", P(h.MemoryHealthView.as_view())),
    path("users", P(v.UsersView.as_view())),
    path(U, P(v.UserView.as_view())),
    path(f"{U}/ttl", P(v.UserTTLView.as_view())),
    path(f"{U}/memory", P(partial(fastpath.memory_list, fallback=v.UserMemoryView.as_view()))),
    path(f"{U}/sessions", P(v.SessionsView.as_view())),
    path(S, P(v.SessionView.as_view())),
    path(f"{S}/end", P(v.SessionEndView.as_view())),
    path(f"{S}/memory", P(v.MemoryView.as_view(), embeds=frozenset({"POST"}))),
    path(
        f"{S}/memory/search",
        P(partial(fastpath.search, fallback=v.MemorySearchView.as_view())),
    ),
    path(
        f"{S}/memory/<str:block_id>",
        P(v.MemoryBlockView.as_view(), embeds=frozenset({"PUT"})),
    ),
    path("prompts", P(v.PromptsView.as_view())),
    path("prompts/<str:prompt_id>", P(v.PromptView.as_view())),
    path("prompts/<str:prompt_id>/archive", P(v.PromptArchiveView.as_view())),
    path("prompts/<str:prompt_id>/versions", P(v.PromptVersionsView.as_view())),
    re_path(r"^.*$", route_not_found),
]
