"""The `promptum` command line: the only package that knows argv, exit codes and the terminal."""

from promptum.cli._app import main

__all__ = ["main"]
