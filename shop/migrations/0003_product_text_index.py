"""The catalog's full-text index on SQLite: FTS5 over each product's words, porter-stemmed.

An external-content FTS5 table reads `shop_product` itself and triggers keep it in step, so
every write reaches it: the admin, the seed's bulk writes, fixture loads, a test's flush.
A later migration that rebuilds `shop_product` on SQLite (Django does so for most column
changes) drops the triggers with the old table: it must recreate them, and
`tests/shop/test_search.py` fails if a product's words stop being found.

PostgreSQL needs no table: `shop.search` reads the same columns with its own full-text
search.
"""

from django.db import migrations

COLUMNS = "name, brand, category, description"
CREATE = [
    f"CREATE VIRTUAL TABLE shop_product_text USING fts5({COLUMNS}, content='shop_product', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER shop_product_text_insert AFTER INSERT ON shop_product BEGIN "
    f"INSERT INTO shop_product_text(rowid, {COLUMNS}) "
    "VALUES (new.id, new.name, new.brand, new.category, new.description); END",
    "CREATE TRIGGER shop_product_text_delete AFTER DELETE ON shop_product BEGIN "
    f"INSERT INTO shop_product_text(shop_product_text, rowid, {COLUMNS}) "
    "VALUES ('delete', old.id, old.name, old.brand, old.category, old.description); END",
    "CREATE TRIGGER shop_product_text_update AFTER UPDATE ON shop_product BEGIN "
    f"INSERT INTO shop_product_text(shop_product_text, rowid, {COLUMNS}) "
    "VALUES ('delete', old.id, old.name, old.brand, old.category, old.description); "
    f"INSERT INTO shop_product_text(rowid, {COLUMNS}) "
    "VALUES (new.id, new.name, new.brand, new.category, new.description); END",
    "INSERT INTO shop_product_text(shop_product_text) VALUES ('rebuild')",
]
DROP = [
    "DROP TRIGGER IF EXISTS shop_product_text_update",
    "DROP TRIGGER IF EXISTS shop_product_text_delete",
    "DROP TRIGGER IF EXISTS shop_product_text_insert",
    "DROP TABLE IF EXISTS shop_product_text",
]


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in CREATE:
            schema_editor.execute(statement)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in DROP:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_privilegedaccount")]

    operations = [migrations.RunPython(create, drop)]
