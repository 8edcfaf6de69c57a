"""The embedded Agent Memory server: a stand-in speaking the Agent Memory REST API."""
