"""Remember every account given staff or superuser rights; keep each product's meaning.

A signal, because rights are granted in many places (the admin's user form,
`createsuperuser`, a shell) and the demo sign-in must know about all of them, including
after a demotion. A bulk `QuerySet.update(is_staff=True)` sends no signal; the sign-in
also refuses any account that holds the rights at the time.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from shop.meaning import vectors_store
from shop.models import Product
from shop.services import account_privilege_record


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="shop.privileged_account")
def privileged_account_mark(sender, instance, raw: bool = False, **kwargs) -> None:
    if not raw:  # loaddata: the fixture's own rows say what they say
        account_privilege_record(user=instance)


@receiver(post_save, sender=Product, dispatch_uid="shop.product_meaning")
def product_meaning_store(sender, instance: Product, raw: bool = False, **kwargs) -> None:
    # After the commit, so a rolled-back edit never leaves its vector behind; a fixture
    # load (raw) is met by the first search instead, or by `catalog_meaning`.
    if not raw:
        transaction.on_commit(lambda: vectors_store([instance]))
