"""Chat records and the demo settings row."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from assistant import admin_shoppers  # noqa: F401 - registers the shopper admin with memory pages
from assistant.demo import demo_settings_get
from assistant.models import ChatSession, ChatTurn, DemoSettings


def _ids(values: Any) -> str:
    return ", ".join(str(v) for v in values) if values else "—"


class ChatTurnInline(admin.TabularInline):
    """What each turn recalled and saved (ids only: the text lives in Agent Memory)."""

    model = ChatTurn
    extra = 0
    can_delete = False
    show_change_link = False
    fields = (
        "index",
        "created_at",
        "model",
        "timing_summary",
        "recalled_ids",
        "saved_ids",
        "tool_names",
        "error",
        "stopped",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="timings (ms)")
    def timing_summary(self, turn: ChatTurn) -> str:
        timings = turn.timings if isinstance(turn.timings, dict) else {}
        parts = [
            f"{span.get('name')} {span.get('duration_ms')}"
            for span in timings.get("spans") or []
            if isinstance(span, dict)
        ]
        if isinstance(timings.get("total_ms"), int | float):
            parts.append(f"total {timings['total_ms']}")
        return ", ".join(parts) or "—"

    @admin.display(description="recalled (block · scope · score)")
    def recalled_ids(self, turn: ChatTurn) -> str:
        rows = [r for r in turn.recalled or [] if isinstance(r, dict)]
        return _ids(
            f"{r.get('block_id')} · {r.get('scope')}"
            + (f" · {r['score']:.2f}" if isinstance(r.get("score"), int | float) else "")
            for r in rows
        )

    @admin.display(description="saved block ids")
    def saved_ids(self, turn: ChatTurn) -> str:
        saved = turn.saved if isinstance(turn.saved, dict) else {}
        # PostgreSQL's jsonb keeps keys in an order of its own: say the turn first, always.
        kinds = sorted(saved, key=lambda kind: (kind != "turn", kind != "fact", kind))
        parts = [f"{kind}: {_ids(saved[kind])}" for kind in kinds if isinstance(saved[kind], list)]
        return "; ".join(parts) or "—"

    @admin.display(description="tools")
    def tool_names(self, turn: ChatTurn) -> str:
        names = [t.get("name") for t in turn.tools or [] if isinstance(t, dict)]
        return _ids(n for n in names if n)


@admin.register(ChatSession)
class ChatSessionAdmin(admin.ModelAdmin):
    list_display = (
        "shopper",
        "memory_session_id",
        "session_date",
        "retention",
        "turn_count",
        "opened_at",
        "closed_at",
    )
    list_filter = ("retention", ("closed_at", admin.EmptyFieldListFilter), "opened_at")
    search_fields = (
        "shopper__username",
        "shopper__demo_shopper__display_name",
        "memory_session_id",
    )
    list_select_related = ("shopper",)
    date_hierarchy = "opened_at"
    readonly_fields = (
        "shopper",
        "memory_session_id",
        "session_date",
        "retention",
        "retention_seconds",
        "opened_at",
        "closed_at",
        "turn_count",
    )
    inlines = [ChatTurnInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # sessions are opened by the chat panel, never by hand


class DemoSettingsForm(forms.ModelForm):
    presets_offered = forms.MultipleChoiceField(
        choices=DemoSettings.RETENTION_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="Retention presets offered in the chat panel; none ticked offers them all.",
    )

    class Meta:
        model = DemoSettings
        fields = ("memory_enabled", "default_retention", "presets_offered", "signin_note")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        offered = cleaned.get("presets_offered") or []
        default = cleaned.get("default_retention")
        if offered and default and default not in offered:
            self.add_error(
                "default_retention", "The default retention must be one of the presets offered."
            )
        return cleaned


@admin.register(DemoSettings)
class DemoSettingsAdmin(admin.ModelAdmin):
    """One row: the list page opens it, it can be neither added twice nor deleted."""

    form = DemoSettingsForm

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not DemoSettings.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict | None = None
    ) -> HttpResponse:
        row = demo_settings_get()
        return HttpResponseRedirect(reverse("admin:assistant_demosettings_change", args=[row.pk]))
