"""`promptum view --review` as a user starts it: the token printed, writes need it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.viewer.review_support import RUN, Served, make_project, post, target
from tests.viewer.serving import first_page, free_port, promptum_view


@pytest.mark.slow
@pytest.mark.parametrize("review", [True, False])
def test_view_prints_a_token_that_writes_need(tmp_path: Path, review: bool) -> None:
    root = tmp_path / "project"
    root.mkdir()
    _, store = make_project(root)
    port = free_port()
    flags = ["--review", "--reviewer", "bob"] if review else []
    server = promptum_view(store.path, port, *flags, cwd=root)
    try:
        first_page(port)
        served = Served(f"http://127.0.0.1:{port}", port, store, token="")
        refused, _ = post(served, "/api/reviews", {**target(), "verdict": "good"}, token="guess")
        assert refused == 403
        if not review:
            server.terminate()
            out, _ = server.communicate(timeout=15)
            assert "writes need the token" not in out
            assert store.reviews(RUN) == []
            return
        assert server.stdout is not None
        lines = [server.stdout.readline(), server.stdout.readline(), server.stdout.readline()]
        token = lines[1].split("writes need the token ")[1].split()[0]
        assert lines[1].startswith("review mode as bob:")
        assert f"/review#token={token}" in lines[2]
        served = Served(f"http://127.0.0.1:{port}", port, store, token=token)
        assert post(served, "/api/reviews", {**target(), "verdict": "good"})[0] == 201
        assert [review.reviewer for review in store.reviews(RUN)] == ["bob"]
    finally:
        if server.poll() is None:
            server.terminate()
            server.communicate(timeout=15)
    # The token of a process that stopped writes nothing in the next one: a fresh token each.
    again = promptum_view(store.path, port, "--review", cwd=root)
    try:
        first_page(port)
        served = Served(f"http://127.0.0.1:{port}", port, store, token=token)
        assert post(served, "/api/reviews", {**target(), "verdict": "good"})[0] == 403
    finally:
        again.terminate()
        out, _ = again.communicate(timeout=15)
    fresh = out.split("writes need the token ")[1].split()[0]
    assert fresh != token
    assert len(store.reviews(RUN)) == 1  # bob's only
