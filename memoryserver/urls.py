"""The embedded server's own URLconf: the Agent Memory REST API and nothing of the shop."""

from __future__ import annotations

from django.urls import path, re_path

from memoryserver import views as v

P = v.in_thread_pool
U = "users/<str:user_id>"
S = f"{U}/sessions/<str:session_id>"

urlpatterns = [
    path("health", P(v.HealthView.as_view())),
    path("health/couchbase", P(v.DatabaseHealthView.as_view())),
    path("health/models", P(v.ModelsHealthView.as_view())),
    path("health/async-batch-processor", P(v.BatchHealthView.as_view())),
    path("health/async-batch-processor-stats", P(v.BatchHealthView.as_view())),
    path("health/memory", P(v.MemoryHealthView.as_view())),
    path("users", P(v.UsersView.as_view())),
    path(U, P(v.UserView.as_view())),
    path(f"{U}/ttl", P(v.UserTTLView.as_view())),
    path(f"{U}/memory", P(v.UserMemoryView.as_view())),
    path(f"{U}/sessions", P(v.SessionsView.as_view())),
    path(S, P(v.SessionView.as_view())),
    path(f"{S}/end", P(v.SessionEndView.as_view())),
    path(f"{S}/memory", P(v.MemoryView.as_view())),
    path(f"{S}/memory/search", P(v.MemorySearchView.as_view())),
    path(f"{S}/memory/<str:block_id>", P(v.MemoryBlockView.as_view())),
    path("prompts", P(v.PromptsView.as_view())),
    path("prompts/<str:prompt_id>", P(v.PromptView.as_view())),
    path("prompts/<str:prompt_id>/archive", P(v.PromptArchiveView.as_view())),
    path("prompts/<str:prompt_id>/versions", P(v.PromptVersionsView.as_view())),
    re_path(r"^.*$", v.route_not_found),
]
