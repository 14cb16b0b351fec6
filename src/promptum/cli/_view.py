"""`promptum view`: the local web viewer of the run history."""

from __future__ import annotations

from pathlib import Path

import click

from promptum.cli._console import exit_on_user_error
from promptum.cli._runs import db_option, open_store


@click.command("view")
@db_option
@click.option(
    "--host", default="127.0.0.1", show_default=True,
    help="The address to serve on. Anything but loopback shares your runs (prompts and "
    "responses included) with whoever can reach it, without a password.",
)  # fmt: skip
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
def view_command(db: Path | None, host: str, port: int) -> None:
    """Serve a web UI of the run store: runs, results, comparisons and case histories.

    Exit codes: 0 stopped, 1 the address is unavailable, 2 no run store.
    """
    from promptum.viewer import LOCAL_HOSTS, require_web_stack, serve

    with exit_on_user_error():
        require_web_stack()
        store = open_store(db)
    if host not in LOCAL_HOSTS:
        click.echo(
            f"warning: serving on {host}: anyone who can reach it can read every run", err=True
        )
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"promptum viewer of {store.path} on http://{shown}:{port}/ (Ctrl-C stops it)")
    try:
        serve(store, host=host, port=port)
    except SystemExit as exc:  # uvicorn exits 3 when it cannot bind
        if exc.code in (0, None):
            raise
        click.echo(
            f"error: cannot serve on {host}:{port}: the port is in use or the address is not "
            "this machine's; pick another with --port or --host",
            err=True,
        )
        raise SystemExit(1) from None
