"""The loader process: `python -m memoryserver.loader USER_ID NOW WIDTH DIRECTORY`.

Reads one user's index from the server's SQLite file (AGENT_MEMORY_SERVER_DB) as the server
would, at the lowest CPU priority, writes it into DIRECTORY for the server to take in, and
prints the number of parts written (`memoryserver.index.apart`).
"""

from __future__ import annotations

import os
import sys

# Before anything heavier is imported: starting Django and numpy is CPU too, and all of it
# should go to the serving process first.
LOADER_NICENESS = 19
os.nice(LOADER_NICENESS)

from datetime import datetime  # noqa: E402

import django  # noqa: E402

from memoryserver.index.apart import index_written  # noqa: E402


def main(argv: list[str]) -> int:
    user_id, now, width, directory = argv
    os.environ["DJANGO_SETTINGS_MODULE"] = "memoryserver.settings"
    django.setup(set_prefix=False)
    # Django refuses model imports until it is set up.
    from memoryserver.selectors import user_index_read

    index = user_index_read(user_id, now=datetime.fromisoformat(now), width=int(width))
    print(index_written(index, directory))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
