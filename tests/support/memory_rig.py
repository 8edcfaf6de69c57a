"""The fault rig's memory: the embedded server in its own process, behind a loopback proxy
that can make it slow, killed with SIGKILL and started again on the same data."""

from __future__ import annotations

from agentmemory import AgentMemoryClient

from harness.memoryserver import MemoryServerProcess, agentmemory_process_start
from tests.support.memory_proxy import MemoryProxy


class MemoryRig:
    """One memory server at a time on one data directory, reached through `proxy`."""

    def __init__(self, data_dir, **env: str) -> None:
        self.data_dir = data_dir
        self.env = env
        self.server: MemoryServerProcess | None = None
        self.proxy: MemoryProxy | None = None
        self.restarts = 0

    def start(self) -> None:
        self.server = agentmemory_process_start(self.data_dir, **self.env)
        if self.proxy is None:
            self.proxy = MemoryProxy(upstream_port=self.server.port).start()
        self.proxy.upstream_port = self.server.port

    def alive(self) -> bool:
        return self.server is not None and self.server.process.poll() is None

    def kill9(self) -> None:
        assert self.server is not None
        self.server.kill()

    def restart(self) -> None:
        if self.alive():
            self.kill9()
        self.start()
        self.restarts += 1

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.proxy is not None:
            self.proxy.stop()

    def block_ids(self, user_id: str) -> set[str]:
        """Every block the server holds for the shopper, straight from the server."""
        assert self.server is not None
        with AgentMemoryClient(base_url=self.server.base_url, max_retries=0, timeout=10) as client:
            user = client.get_user(user_id)
            ids: set[str] = set()
            offset = 0
            while True:
                page = user.list_memories(limit=200, offset=offset)
                ids.update(b.block_id for b in page.memory_blocks)
                offset += page.count
                if page.count == 0 or offset >= (page.total or 0):
                    return ids

    def session_ids(self, user_id: str) -> list[str]:
        assert self.server is not None
        with AgentMemoryClient(base_url=self.server.base_url, max_retries=0, timeout=10) as client:
            user = client.get_user(user_id)
            return [s.session_id for s in user.list_sessions().sessions]
