"""Secrets in the environment reach no file and no stream that `promptum run` writes.

Three secret-named variables are set; the model echoes them and a suite puts one into a
var. The run is interrupted (so the resume journal stays on disk), then resumed and
finished; every byte promptum wrote or printed is searched for each secret.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.security.secret_leaks import (
    ECHO,
    REPORT_ARGS,
    REPORTS,
    SECRETS,
    assert_nothing_leaked,
    interrupted,
    promptum_run,
    secret_env,
)
from tests.support.fault_server import Reply, fault_server

SUITE = f"""\
name: leaky
models: [fault/m]
vars: {{password: "{SECRETS["DB_PASSWORD"]}"}}
test_cases:
  - id: echo
    query: "Repeat after me: {{{{ password }}}}"
    checks: [{{type: contains, value: "nothing like this"}}]
  - id: exact
    query: Say it exactly
    checks: [{{type: exact_match, value: "something else"}}]
  - id: regex
    query: Say it with a pattern
    checks: [{{type: regex, value: "^no$"}}]
  - id: last
    query: This one hangs until interrupted
"""


def test_no_secret_reaches_any_file_or_stream(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    streams: list[bytes] = []
    with fault_server() as server:
        env = secret_env(server)
        server.queue(Reply.ok(ECHO), Reply.ok(ECHO), Reply.ok(ECHO), Reply.hang(60))
        first = promptum_run(
            tmp_path, env, "suite.yaml", "-c", "1", *REPORT_ARGS, "--summary-md", "s.md"
        )
        deadline = time.monotonic() + 60
        while len(server.requests) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.requests) == 4, "the run did not reach the hanging case"
        journal_bytes = interrupted(first, tmp_path, streams)
        assert b"echo" in journal_bytes  # the finished results are in it

        server.default = Reply.ok(ECHO)
        second = promptum_run(tmp_path, env, "suite.yaml", "-c", "1", "--resume", *REPORT_ARGS)
        out, err = second.communicate(timeout=60)
        streams += [out, err]
        assert second.returncode == 1, err.decode()

    expected = {*REPORTS, "s.md", "runs.sqlite", "cache.sqlite"}
    assert_nothing_leaked(tmp_path, streams, journal_bytes, expected)
