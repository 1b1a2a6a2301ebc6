"""Memory the run hands back to the system, and texts it holds once.

A history run builds its tables with pandas and Arrow, then renders its publications in worker
processes beside itself. Two allocators would each keep what the other freed: Arrow's default
pool (mimalloc) holds freed pages for later Arrow buffers, where numpy and Python cannot use
them. The run therefore gives Arrow the C library's allocator, the one numpy uses, and returns
the freed heap to the system before the workers start (measured in README, "Benchmarks").

A history holds every row of the night from its rule system to the lake, and many of a row's
texts are its event's (file, digest, event, run): `texts_held_once` keeps those as Arrow
dictionaries until each partition is written.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os

import pandas as pd
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


def texts_held_once(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The text columns whose values repeat row after row (an event's file, digest and run on each
    of its result rows) held once per distinct value: Arrow dictionaries of 4-byte codes. They pass
    their model's text type at validation (pipelines/core/validation.py) and are written to the
    lake as plain text, one partition at a time (`StagedRun.write`)."""
    return frame.assign(**{
        c: pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.array(frame[c], type=pa.string())]).dictionary_encode()),
                     index=frame.index)
        for c in columns
    })


def is_held_once(dtype) -> bool:
    """A column of `texts_held_once`: an Arrow dictionary of texts."""
    return isinstance(dtype, pd.ArrowDtype) and pa.types.is_dictionary(dtype.pyarrow_dtype) \
        and pa.types.is_string(dtype.pyarrow_dtype.value_type)
