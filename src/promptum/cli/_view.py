"""`promptum view`: the local web viewer of the run history."""

from __future__ import annotations

import getpass
from pathlib import Path

import click

from promptum.cli._console import exit_on_user_error
from promptum.cli._runs import db_option, open_store
from promptum.errors import PromptumError


@click.command("view")
@db_option
@click.option(
    "--host", default="127.0.0.1", show_default=True,
    help="The address to serve on. Anything but loopback shares your runs (prompts and "
    "responses included) with whoever can reach it, without a password.",
)  # fmt: skip
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--review", is_flag=True,
    help="Let the viewer write: reviews of results into the store and \"save as case\" into "
    "suite files under the current folder. Writes need the token printed at start.",
)  # fmt: skip
@click.option(
    "--reviewer", metavar="NAME",
    help="Who the reviews are by (default: the OS user); implies --review.",
)  # fmt: skip
def view_command(db: Path | None, host: str, port: int, review: bool, reviewer: str | None) -> None:
    """Serve a web UI of the run store: runs, results, comparisons and case histories.

    Read-only unless --review. Exit codes: 0 stopped, 1 the address is unavailable, 2 no
    run store or no reviewer name.
    """
    from promptum.viewer import LOCAL_HOSTS, WriteAccess, require_web_stack, serve

    with exit_on_user_error():
        require_web_stack()
        store = open_store(db)
        access = WriteAccess(_reviewer(reviewer)) if review or reviewer else None
    if host not in LOCAL_HOSTS:
        click.echo(
            f"warning: serving on {host}: anyone who can reach it can read every run", err=True
        )
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"promptum viewer of {store.path} on http://{shown}:{port}/ (Ctrl-C stops it)")
    if access is not None:
        click.echo(
            f"review mode as {access.reviewer}: writes need the token {access.token}\n"
            f"open http://{shown}:{port}/review#token={access.token} to review in your browser"
        )
    try:
        serve(store, host=host, port=port, access=access)
    except SystemExit as exc:  # uvicorn exits 3 when it cannot bind
        if exc.code in (0, None):
            raise
        click.echo(
            f"error: cannot serve on {host}:{port}: the port is in use or the address is not "
            "this machine's; pick another with --port or --host",
            err=True,
        )
        raise SystemExit(1) from None


def _reviewer(name: str | None) -> str:
    """The reviewer's name: `--reviewer`, else the OS user."""
    from promptum.values.reviews import MAX_FIELD  # pydantic underneath: not for every `--help`

    if name is not None and name.strip():
        if len(name.strip()) > MAX_FIELD:  # else every review would be refused, one by one
            raise PromptumError(f"--reviewer: at most {MAX_FIELD} characters, please")
        return name.strip()
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name and no USER/LOGNAME variable
        raise PromptumError(
            "promptum view --review cannot tell who you are: give --reviewer NAME"
        ) from None
