from django.apps import AppConfig


class AgentMemoryServerConfig(AppConfig):
    name = "memoryapp.server"
    label = "agentmemory_server"
    verbose_name = "Embedded Agent Memory server"
