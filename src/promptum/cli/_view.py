"""`promptum view`: the local web viewer of the run history."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from functools import partial
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
    "--review", metavar="[FILE]", is_flag=False, flag_value="", default=None,
    help="Let the viewer write: reviews of results into the store and \"save as case\" into "
    "suite files under the current folder. With a FILE of proposed cases (`generate cases`, "
    "`import traces`), review those instead: keep, edit or drop each. Writes need the token "
    "printed at start.",
)  # fmt: skip
@click.option(
    "--reviewer", metavar="NAME",
    help="Who the reviews are by (default: the OS user); implies --review.",
)  # fmt: skip
@click.option(
    "--into", type=click.Path(path_type=Path, dir_okay=False), metavar="SUITE",
    help="With --review FILE: the suite the kept cases are appended to (default: FILE "
    "itself, minus the dropped cases).",
)  # fmt: skip
def view_command(
    db: Path | None, host: str, port: int, review: str | None, reviewer: str | None,
    into: Path | None,
) -> None:  # fmt: skip
    """Serve a web UI of the run store: runs, results, comparisons and case histories.

    Read-only unless --review. Exit codes: 0 stopped, 1 the address is unavailable, 2 no
    run store, no reviewer name, or a FILE (or SUITE) to review that is not valid.
    """
    from promptum.viewer import WriteAccess, require_web_stack, serve

    if review:
        _review_file(Path(review), into, host, port, reviewer)
        return
    with exit_on_user_error():
        if into is not None:
            raise PromptumError("--into names where reviewed cases go: give --review FILE too")
        require_web_stack()
        store = open_store(db)
        access = WriteAccess(_reviewer(reviewer)) if review is not None or reviewer else None
    shown = _announce(host, port, f"promptum viewer of {store.path}")
    if access is not None:
        click.echo(
            f"review mode as {access.reviewer}: writes need the token {access.token}\n"
            f"open http://{shown}:{port}/review#token={access.token} to review in your browser"
        )
    _serving(partial(serve, store, host=host, port=port, access=access), host, port)


def _review_file(path: Path, into: Path | None, host: str, port: int, reviewer: str | None) -> None:
    """`view --review FILE`: serve the review of FILE's proposed cases."""
    from promptum.viewer import WriteAccess, open_review_file, require_web_stack, serve_review

    with exit_on_user_error():
        require_web_stack()
        review = open_review_file(path, into)
        access = WriteAccess(_reviewer(reviewer))
    shown = _announce(host, port, f"promptum review of {path}", shared=str(path))
    click.echo(
        f"kept cases go into {review.target}; writes need the token {access.token}\n"
        f"open http://{shown}:{port}/#token={access.token} to review in your browser"
    )
    _serving(partial(serve_review, review, host=host, port=port, access=access), host, port)


def _announce(host: str, port: int, what: str, shared: str = "every run") -> str:
    """Say what is served where (warning when beyond loopback); the host as a URL shows it."""
    from promptum.viewer import LOCAL_HOSTS

    if host not in LOCAL_HOSTS:
        click.echo(
            f"warning: serving on {host}: anyone who can reach it can read {shared}", err=True
        )
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"{what} on http://{shown}:{port}/ (Ctrl-C stops it)")
    return shown


def _serving(run: Callable[[], None], host: str, port: int) -> None:
    """Run the server; exit 1, said why, when it cannot bind the address."""
    try:
        run()
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
