"""Import a large package on a thread of its own, so its cost does not depend on the caller.

CPython 3.11 keeps a thread's frames in 16 KiB chunks and frees a chunk as soon as the stack
unwinds below it. A package of hundreds of modules imported deep in a call stack (an SDK,
first needed inside the event loop) can cross a chunk's edge thousands of times: each an
mmap/munmap pair and fresh page faults. Measured for ``openai``: 0.32 s of CPU imported from a
shallow stack, up to 0.40 s from some depths (5,000-11,000 more pairs). A new thread's stack
starts empty, so the import costs the same wherever it is first asked for.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import ModuleType


def import_fresh(name: str) -> ModuleType:
    """Module `name`, imported (if it is not yet) on a new thread, which this waits for."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"import {name}") as pool:
        return pool.submit(import_module, name).result()
