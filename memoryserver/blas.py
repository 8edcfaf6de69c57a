"""Keep numpy's OpenBLAS on one thread inside the server process.

Measured through the SDK at 10k blocks, a search took 16 ms with OpenBLAS's default of one
thread per core and 7 ms with one: the matrix-vector product is memory-bound, and OpenBLAS's
worker threads fought the request threads, the event loop and the other searches for the
two cores. Parallelism comes from the request thread pool instead (numpy releases the GIL).
An operator's explicit OPENBLAS_NUM_THREADS is left alone.
"""

from __future__ import annotations

import ctypes
import glob
import logging
import os

import numpy as np

logger = logging.getLogger(__name__)

# Entry points of the OpenBLAS builds numpy wheels bundle (scipy-openblas), then plain ones.
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def single_threaded_blas() -> bool:
    """Ask the OpenBLAS numpy uses for one thread; return whether it was found."""
    if os.environ.get("OPENBLAS_NUM_THREADS"):
        return False
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "*openblas*.so*"))):
        try:
            lib = ctypes.CDLL(path)  # already loaded by numpy: this returns the same library
        except OSError:
            continue
        for name in _SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(ctypes.c_int(1))
                return True
    logger.debug("no OpenBLAS found next to numpy; leaving BLAS threading as it is")
    return False
