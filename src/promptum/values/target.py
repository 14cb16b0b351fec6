"""What a target is: the user's own Python function or HTTP service, answering like a model.

A target's id is ``target:<name>``; it is a column of a run like a model id. The function
or service is code or a URL the team owns: nothing a suite names runs without being listed
by ``promptum validate``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from promptum.foundations.redaction import declare_secret_variables

TARGET_PREFIX = "target:"
MAX_TIMEOUT_S = 7 * 24 * 3600.0
"""The longest time limit of a call: a week (longer ones overflow the OS's socket and thread
timers; a run that may wait longer has no limit worth the name)."""
_NAME = re.compile(r"[\w.:/-]+")

History = Literal["client", "server"]
"""Who keeps a conversation's history: promptum (sent whole each turn) or the target.

Also how ``--resume`` continues the conversation: ``client`` at its first unfinished turn,
the journal replaying the others; ``server`` from turn 1 again under a new id, as the journal
cannot give the target back what it kept."""


@dataclass(frozen=True, slots=True)
class PythonTarget:
    """A Python function (sync or async) called with the case's rendered inputs."""

    name: str
    """Shown as ``target:<name>``: ``app.py:answer`` or the name the suite gave it."""
    function: Callable[..., Any]
    max_concurrency: int = 8
    """Calls in flight at once; sync functions run in worker threads."""
    module_file: str | None = field(default=None, compare=False)
    """The file the function was imported from, for ``promptum validate``."""
    timeout_s: float | None = None
    """Seconds one call may take; None: the run's (``--timeout``, `ClientOptions.timeout_s`)."""
    retries: int | None = None
    """Retries of a call that timed out; None: none (what the function raises never is)."""
    history: History = "client"
    """In a conversation: ``client`` sends the whole history each turn; ``server``, only the
    new user message (the function keeps the history, keyed by its ``conversation_id``)."""

    def __post_init__(self) -> None:
        # Checked here as HttpTarget's fields are by pydantic: a dataclass built in Python.
        if self.timeout_s is not None and not 0 < self.timeout_s <= MAX_TIMEOUT_S:
            raise ValueError(
                f"timeout_s must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds, "
                f"not {self.timeout_s!r}"
            )
        if self.retries is not None and self.retries < 0:
            raise ValueError(f"retries must be 0 or more, not {self.retries!r}")

    @property
    def id(self) -> str:
        """The target's id in a run: ``target:<name>``."""
        return TARGET_PREFIX + self.name


def http_url(url: str) -> str:
    """`url`, when it is an ``http://`` or ``https://`` URL with a host; else ValueError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{url!r} is not an http:// or https:// URL: write it whole, with its scheme "
            "(http://127.0.0.1:8000/v1)"
        )
    return url


HttpUrlText = Annotated[str, AfterValidator(http_url)]
"""An ``http://`` or ``https://`` URL, kept as written."""


class HttpTarget(BaseModel):
    """An HTTP endpoint of the team's own service; the body is a sandboxed Jinja template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    url: HttpUrlText
    method: Literal["GET", "POST", "PUT", "PATCH"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict)
    """Header values written out: never secrets (a suite file is data others read)."""
    headers_env: dict[str, str] = Field(default_factory=dict)
    """Header name → environment variable holding its value. A suite may name only
    ``PROMPTUM_<NAME>_*`` variables of this target; Python code may name any."""
    body: Any = None
    """JSON to send: strings in it are Jinja templates of ``query``, ``messages``, ``vars``
    ``context`` and ``conversation_id``; None sends ``{"query": ..., "vars": ..., "context":
    ...}`` (in a conversation ``messages`` and ``conversation_id`` too)."""
    output: str | None = None
    """Where the answer is in the JSON response, e.g. ``answer`` or ``$.choices[0].text``;
    None: the whole body (text, or a JSON object as structured output)."""
    max_concurrency: int = Field(default=4, ge=1)
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds one call may take; None: the run's (``--timeout``, `ClientOptions.timeout_s`)."""
    retries: int | None = Field(default=None, ge=0)
    """Retries of a failed call, timeouts included; None: a timeout is not retried (429, 5xx
    and dropped connections follow the run's ``max_retries``). A 2xx answer never is, even
    one without the `output`: the service took the request, which may have acted."""
    history: History = "client"
    """In a conversation: ``client`` sends the whole history each turn; ``server``, only the
    new user message (the service keeps the history, keyed by ``conversation_id``)."""

    def model_post_init(self, context: Any, /) -> None:
        """Make the values of `headers_env` secrets of the process as soon as the target exists."""
        # Their names need not look secret (PROMPTUM_SUPPORT_AUTH), and a service may echo
        # them in its answer: from here on they are scrubbed from answers, errors, reports,
        # the cache, the store and the journal like API keys. Declared at once, not at the
        # first call, because sinks and reports take the secrets before any call is made.
        declare_secret_variables(self.headers_env.values())

    @property
    def id(self) -> str:
        """The target's id in a run: ``target:<name>``."""
        return TARGET_PREFIX + self.name


Target = PythonTarget | HttpTarget


def target_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a target, or None."""
    if not _NAME.fullmatch(name):
        return f"target name {name!r} may use only letters, digits and . : / _ -"
    return None
