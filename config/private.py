"""Local state stays readable by its owner only, whatever the umask.

`<AISLE_VAR_DIR>` holds the shop's SQLite database (with its session table), the memory
server's (with every memory's text) and the memory server's token: another local account
must not read any of it. The folder is made 0700 and each database file 0600 before SQLite
opens it; SQLite creates a database's `-wal`, `-shm` and `-journal` files with the mode of
the database file itself, so they follow. Files that already exist with wider modes (an
older checkout) are narrowed on the next start.

Standard library only: the settings import it before Django is set up.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
# The files SQLite keeps beside a database.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_dir_ensure(path: Path) -> Path:
    """Create `path` (and its parents) if needed, and make it 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=DIRECTORY_MODE)
    if path.stat().st_mode & 0o777 != DIRECTORY_MODE:
        path.chmod(DIRECTORY_MODE)
    return path


def private_file_narrow(path: Path) -> None:
    """Make an existing file 0600; a missing one is left missing."""
    try:
        if path.stat().st_mode & 0o777 != FILE_MODE:
            path.chmod(FILE_MODE)
    except FileNotFoundError:
        pass


def sqlite_files_private(path: Path) -> None:
    """Create the database file at `path` empty with mode 0600 unless it exists (an empty
    file is an empty SQLite database), and narrow it and its companions to 0600.

    A missing folder is created 0700; an existing one is left as its owner made it (the
    settings make `<AISLE_VAR_DIR>` itself private).
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=DIRECTORY_MODE)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    for candidate in (path, *(path.with_name(path.name + s) for s in SQLITE_COMPANIONS)):
        private_file_narrow(candidate)
