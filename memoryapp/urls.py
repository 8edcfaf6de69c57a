from __future__ import annotations

from django.urls import path

from memoryapp.api import RecordDeleteView, RecordListView

app_name = "memoryapp"

urlpatterns = [
    path("records", RecordListView.as_view(), name="records"),
    path("records/<str:block_id>/delete", RecordDeleteView.as_view(), name="record-delete"),
]
