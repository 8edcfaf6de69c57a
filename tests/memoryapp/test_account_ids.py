"""The id an account's memory is filed under: minted once per account, kept through a
rename, and, for accounts that existed before ids were minted, the username their memory
was already filed under."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memoryapp.accounts import account_memory_user_id
from memoryapp.models import MemoryAccount

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_account_gets_its_own_id_kept_through_a_rename():
    User = get_user_model()
    ann, other = User.objects.create_user("ann-ids"), User.objects.create_user("ben-ids")
    first = account_memory_user_id(account=ann)
    assert first.startswith("acct-") and "ann" not in first
    assert account_memory_user_id(account=other) != first
    ann.username = "ann-renamed"
    ann.save()
    assert account_memory_user_id(account=User.objects.get(pk=ann.pk)) == first
    # The name taken again is another account with another id.
    assert account_memory_user_id(account=User.objects.create_user("ann-ids")) != first


def test_accounts_from_before_the_ids_keep_the_username_their_memory_is_under():
    executor = MigrationExecutor(connection)
    executor.migrate([("memoryapp", None)])  # as before the table existed
    get_user_model().objects.create_user("zoë-from-before")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    account = MemoryAccount.objects.get(user__username="zoë-from-before")
    assert account.memory_user_id == "zoë-from-before"
    # Migrating again (make run migrates on every start) changes nothing.
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    assert MemoryAccount.objects.filter(user__username="zoë-from-before").count() == 1
