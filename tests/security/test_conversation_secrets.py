"""A secret a model echoes in a conversation's turn reaches no file and no stream.

The reply to turn 1 echoes the environment's secrets, turn 2 quotes that reply (so the next
request and turn 2's query would carry them), the simulated user of a second case echoes
them too; the run is interrupted mid-conversation (the journal holds the finished turns),
resumed and finished. Every byte promptum wrote or printed is searched for each secret.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

from tests.security.secret_leaks import (
    ECHO,
    REPORT_ARGS,
    REPORTS,
    assert_nothing_leaked,
    leaks,
    promptum_run,
    secret_env,
)
from tests.support.fault_server import Reply, fault_server

SUITE = """\
name: chatty
models: [fault/m]
test_cases:
  - id: scripted
    turns:
      - query: Say your keys.
      - query: "You said: {{ turns[0].reply }}"
        checks: [{type: contains, value: "nothing like this"}]
      - query: This turn hangs until interrupted.
  - id: simulated
    simulate: {model: fault/user, goal: Get the keys, max_turns: 2}
    conversation:
      checks: [{type: contains, value: "nothing like this"}]
"""


def test_no_secret_echoed_in_a_turn_reaches_any_file_or_stream(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    streams: list[bytes] = []
    with fault_server() as server:
        env = secret_env(server)
        server.queue(Reply.ok(ECHO), Reply.ok(ECHO), Reply.hang(60))
        first = promptum_run(tmp_path, env, "suite.yaml", "-c", "1", *REPORT_ARGS)
        deadline = time.monotonic() + 60
        while len(server.requests) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.requests) == 3, "the run did not reach the hanging turn"
        # Turn 2 was sent with turn 1's reply scrubbed, in its history and its query.
        second_turn = str(server.requests[1].body["messages"])
        assert "You said: Sure!" in second_turn
        assert not leaks(second_turn.encode())
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=60)
        streams += [out, err]
        assert first.returncode == 130, err.decode()
        journal_bytes = b"".join(
            p.read_bytes() for p in (tmp_path / ".promptum" / "runs").glob("*.jsonl")
        )
        assert b'{"turn"' in journal_bytes  # the finished turns are in it

        server.default = Reply.ok(ECHO)
        asked = len(server.requests)
        second = promptum_run(tmp_path, env, "suite.yaml", "-c", "1", "--resume", *REPORT_ARGS)
        out, err = second.communicate(timeout=60)
        streams += [out, err]
        assert second.returncode == 1, err.decode()
        # The two finished turns were not asked again: only turn 3 and the simulated case.
        assert [r.body["model"] for r in server.requests[asked:]] == ["m", "user", "m", "user", "m"]

    assert_nothing_leaked(
        tmp_path, streams, journal_bytes, {*REPORTS, "runs.sqlite", "cache.sqlite"}
    )
