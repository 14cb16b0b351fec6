"""A click group that imports a command's module only when that command is used or listed."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

import click


class LazyGroup(click.Group):
    """Commands named as ``module:attribute``: `promptum validate` imports no other command.

    A command's module imports what the command needs (the runner, the store, reports), so
    loading every command to run one would make each start pay for all of them.
    """

    def __init__(self, *args: Any, lazy_commands: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, sorted as click sorts them, without importing any."""
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command `cmd_name`, its module imported the first time it is asked for."""
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            module, attribute = self.lazy_commands[cmd_name].split(":")
            command = getattr(import_module(module), attribute)
            if not isinstance(command, click.Command):  # a wrong row is a bug, not a user's error
                raise TypeError(f"{self.lazy_commands[cmd_name]} is not a click command")
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click resolves it; an unknown name first loads every command for "did you mean"."""
        if click.utils.make_str(args[0]) not in self.lazy_commands:
            # click suggests from the loaded commands only: load them all, on this error path.
            for name in self.lazy_commands:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)
