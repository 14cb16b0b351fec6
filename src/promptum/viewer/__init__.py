"""The local web viewer of the run store: runs, a run, comparisons and case histories."""

from promptum.viewer._app import LOCAL_HOSTS, create_app
from promptum.viewer._security import WriteAccess
from promptum.viewer._serve import DEFAULT_HOST, DEFAULT_PORT, require_web_stack, serve

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "LOCAL_HOSTS",
    "WriteAccess",
    "create_app",
    "require_web_stack",
    "serve",
]
