"""The local web viewer of the run store: runs, a run, comparisons and case histories."""

from promptum.viewer._app import LOCAL_HOSTS, create_app
from promptum.viewer._proposals import ReviewFile, open_review_file
from promptum.viewer._review_file import create_review_app
from promptum.viewer._security import WriteAccess
from promptum.viewer._serve import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    require_web_stack,
    serve,
    serve_review,
)

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "LOCAL_HOSTS",
    "ReviewFile",
    "WriteAccess",
    "create_app",
    "create_review_app",
    "open_review_file",
    "require_web_stack",
    "serve",
    "serve_review",
]
