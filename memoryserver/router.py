"""Keep the embedded server's models in their own database, and nothing else there."""

from __future__ import annotations

APP_LABEL = "agentmemory_server"
DB_ALIAS = "agentmemory"


class AgentMemoryRouter:
    def db_for_read(self, model, **hints):
        return DB_ALIAS if model._meta.app_label == APP_LABEL else None

    def db_for_write(self, model, **hints):
        return DB_ALIAS if model._meta.app_label == APP_LABEL else None

    def allow_relation(self, obj1, obj2, **hints):
        labels = {obj1._meta.app_label, obj2._meta.app_label}
        if APP_LABEL in labels:
            return labels == {APP_LABEL}
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        if app_label == APP_LABEL:
            return db == DB_ALIAS
        return db != DB_ALIAS
