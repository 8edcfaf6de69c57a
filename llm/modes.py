"""The memory modes a turn runs in, named once for the protocol and the prompts.

`assistant.protocol.events` sends them in `session` and `welcome`; `llm.transcript` tells the model
what each means, and the offline model answers by them.
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["remembering", "stateless", "memory_off", "memory_unavailable"]
MODES: tuple[Mode, ...] = get_args(Mode)
