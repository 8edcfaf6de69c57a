from django.apps import AppConfig


class MemoryappConfig(AppConfig):
    name = "memoryapp"
    verbose_name = "Shopper memory"
