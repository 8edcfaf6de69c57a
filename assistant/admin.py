"""Chat records and the demo settings row."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from assistant import admin_shoppers  # noqa: F401 - registers the shopper admin with memory pages
from assistant.demo import demo_settings_get
from assistant.models import ChatSession, ChatTurn, DemoSettings
from memoryapp.public import MemoryUnavailable, ShopperMemory

# What a chat record shows of a turn whose text cannot be read.
TEXT_GONE = "not in memory any more (deleted or expired): the shop keeps no copy"


def _ids(values: Any) -> str:
    return ", ".join(str(v) for v in values) if values else "—"


class ChatTurnInline(admin.TabularInline):
    """What each turn recalled and saved, and its exchange as memory holds it.

    The records keep block ids, never text: the exchange is read live from Agent Memory by
    its block id (`texts`, set per request by ChatSessionAdmin), so a memory deleted there
    is gone from this page too.
    """

    model = ChatTurn
    extra = 0
    can_delete = False
    show_change_link = False
    # Block id -> text for the session shown, or None when memory could not be read.
    texts: dict[str, str] | None = None

    fields = (
        "index",
        "created_at",
        "model",
        "exchange",
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

    @admin.display(description="exchange (read from memory)")
    def exchange(self, turn: ChatTurn) -> str:
        saved = turn.saved if isinstance(turn.saved, dict) else {}
        ids = [i for kind in ("turn", "fact") for i in saved.get(kind) or [] if isinstance(i, str)]
        if not ids:
            return "stopped: nothing was saved" if turn.stopped else "— (nothing saved)"
        if self.texts is None:
            return "Agent Memory is unavailable: the text cannot be shown right now"
        return format_html_join(
            "\n",
            '<p style="white-space: pre-line">{}</p>',
            ((self.texts.get(block_id, f"{block_id}: {TEXT_GONE}"),) for block_id in ids),
        ) or format_html("—")

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
        parts = [
            f"{kind}: {_ids(saved[kind])}"
            for kind in kinds
            if isinstance(saved[kind], list) and kind != "failed"
        ]
        # A lost write is not a turn with nothing to save; what the screen dropped is a count.
        if saved.get("failed"):
            parts.append(f"not saved — memory unavailable: {_ids(saved['failed'])}")
        if saved.get("screened_out"):
            parts.append(f"screened out: {saved['screened_out']}")
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
        "close_requested_at",
        "closed_at",
        "close_note",
        "turn_count",
    )
    inlines = [ChatTurnInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # sessions are opened by the chat panel, never by hand

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        inlines = super().get_inline_instances(request, obj)
        if obj is not None:
            texts = _session_texts(request, obj)
            for inline in inlines:
                if isinstance(inline, ChatTurnInline):
                    inline.texts = texts
        return inlines


def _session_texts(request: HttpRequest, session: ChatSession) -> dict[str, str] | None:
    """The session's block texts from memory, read once per request; None on an outage."""
    cache = request.__dict__.setdefault("_chat_record_texts", {})
    if session.pk not in cache:
        try:
            cache[session.pk] = ShopperMemory(account=session.shopper).session_texts(
                session_id=session.memory_session_id
            )
        except MemoryUnavailable:
            cache[session.pk] = None
    return cache[session.pk]


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
