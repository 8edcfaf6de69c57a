from django.apps import AppConfig


class MemoryappConfig(AppConfig):
    name = "memoryapp"
    verbose_name = "Shopper memory"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import pre_delete

        # Every way an account is deleted (the admin, a bulk action, the shell, a cascade)
        # passes here, inside the deletion's transaction: its memory is marked for erasure.
        pre_delete.connect(
            _account_deleting,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="memoryapp.account_erasure_mark",
        )


def _account_deleting(sender, instance, **kwargs) -> None:
    from memoryapp.erasure import account_erasure_mark

    account_erasure_mark(account=instance)
