"""What crosses the wire: the events sent, the frames parsed, who a socket speaks for, and
the notices pushed to open panels over the channel layer (docs/protocol.md)."""
