"""Memory the run hands back to the system.

A history run builds its tables with pandas and Arrow, then renders its publications in worker
processes beside itself. Two allocators would each keep what the other freed: Arrow's default
pool (mimalloc) holds freed pages for later Arrow buffers, where numpy and Python cannot use
them. The run therefore gives Arrow the C library's allocator, the one numpy uses, and returns
the freed heap to the system before the workers start (measured in README, "Benchmarks").
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os

import pyarrow as pa

_POOL_ENV = "ARROW_DEFAULT_MEMORY_POOL"  # Arrow's own switch: an explicit choice is kept


def use_system_allocator() -> None:
    if not os.environ.get(_POOL_ENV):
        pa.set_memory_pool(pa.system_memory_pool())


def give_back() -> None:
    """Collect, then hand the freed heap of Arrow and of the C library back to the system."""
    gc.collect()
    pa.default_memory_pool().release_unused()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)  # glibc only; elsewhere the memory simply stays with the process
    except (OSError, AttributeError):
        pass
