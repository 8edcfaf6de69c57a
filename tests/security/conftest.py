"""The assistant tests' fixtures: a scripted model and a memory server that is down."""

from tests.assistant.conftest import fake_openai, memory_down  # noqa: F401
