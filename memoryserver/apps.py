from django.apps import AppConfig


class AgentMemoryServerConfig(AppConfig):
    name = "memoryserver"
    label = "agentmemory_server"
    verbose_name = "Embedded Agent Memory server"
