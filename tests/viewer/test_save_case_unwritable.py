"""Save as case into a suite file the viewer's user may not write: a 403 saying so, not a 500."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.support.privileges import as_a_user
from tests.viewer.review_support import Served, make_project, post, target
from tests.viewer.serving import first_page, free_port, promptum_view


@pytest.mark.slow
def test_a_read_only_suite_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    suite, store = make_project(root)
    before = suite.read_bytes()
    suite.chmod(0o444)
    port = free_port()
    server = promptum_view(store.path, port, "--review", cwd=root, preexec_fn=as_a_user())
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline(), server.stdout.readline()]
        token = lines[1].split("writes need the token ")[1].split()[0]
        first_page(port)
        served = Served(f"http://127.0.0.1:{port}", port, store, token=token)
        sha = hashlib.sha256(before).hexdigest()
        body = {**target(), "sha256": sha, "kind": "contains", "value": "Paris"}
        status, answer = post(served, "/api/save-case", body)
        suite.parent.chmod(0o555)  # and a new file beside it: the folder is not writable
        try:
            beside = post(served, "/api/save-case", {**body, "new_file": "reviewed.yaml"})
        finally:
            suite.parent.chmod(0o755)
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=15)
    assert status == 403, answer
    assert answer["error"] == "cannot save into support.yaml: Permission denied"
    assert beside == (403, {"error": "cannot save into reviewed.yaml: Permission denied"})
    assert suite.read_bytes() == before
    assert sorted(path.name for path in suite.parent.iterdir()) == ["support.yaml"]
    assert "Traceback" not in errors
