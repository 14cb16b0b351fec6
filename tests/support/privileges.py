"""Running a child process as an ordinary user would, when the tests run as root."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable


def without_root_powers() -> None:
    """In the child: drop the capabilities that let root read any file, so EACCES is real."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP: lost at exec
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def as_a_user() -> Callable[[], None] | None:
    """The `preexec_fn` that makes a child's permission errors real: none unless root."""
    return without_root_powers if os.geteuid() == 0 else None
