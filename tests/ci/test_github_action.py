"""The GitHub Action's script, run locally: a fake event, a fake GitHub API, the fault server."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum.ci.github import MARKER, Inputs, failed
from tests.support.cli import write
from tests.support.fault_server import FaultServer, Reply, fault_server

ROOT = Path(__file__).parents[2]
SUITE = """\
name: demo
models: [fault/m]
test_cases:
  - id: greet
    query: Say hello
    checks: [{type: contains, value: Hello}]
  - id: capital
    query: Capital of France?
    must_pass: true
    checks: [{type: contains, value: Paris}]
"""
TOKEN = "ghs_test_token_1234567890"


@dataclass
class Call:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    """Artifacts, a pull request's comments, and every request received."""

    url: str = ""
    calls: list[Call] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    zips: dict[int, bytes] = field(default_factory=dict)
    refuse_comments: bool = False

    def add_baseline(
        self, results: Path, *, artifact_id: int, branch: str, fork: bool = False, **extra: Any
    ) -> None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.write(results, "results.json")
        self.zips[artifact_id] = buffer.getvalue()
        self.artifacts.append(
            {
                "id": artifact_id,
                "name": "promptum-baseline",
                "expired": False,
                "created_at": f"2026-01-0{artifact_id}T00:00:00Z",
                "archive_download_url": f"{self.url}/repos/o/r/actions/artifacts/{artifact_id}/zip",
                "workflow_run": {
                    "head_branch": branch,
                    "repository_id": 1,
                    "head_repository_id": 2 if fork else 1,
                },
                **extra,
            }
        )


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _reply(self, status: int, payload: Any, **headers: str) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method: str) -> None:
        github = self.server.github
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        headers = {k.lower(): v for k, v in self.headers.items()}
        github.calls.append(Call(method, self.path, headers, body))
        path = self.path.split("?")[0]
        if path == "/repos/o/r/actions/artifacts":
            self._reply(200, {"total_count": len(github.artifacts), "artifacts": github.artifacts})
        elif path.startswith("/repos/o/r/actions/artifacts/") and path.endswith("/zip"):
            artifact_id = int(path.split("/")[-2])
            self._reply(302, b"", Location=f"{github.url}/storage/{artifact_id}.zip")
        elif path.startswith("/storage/"):
            self._reply(200, github.zips[int(path.split("/")[-1].removesuffix(".zip"))])
        elif path == "/repos/o/r/issues/7/comments" and method == "GET":
            self._reply(200, github.comments)
        elif path == "/repos/o/r/issues/7/comments" and method == "POST":
            if github.refuse_comments:
                self._reply(403, {"message": "Resource not accessible by integration"})
                return
            comment = {"id": 100 + len(github.comments), "body": body["body"]}
            comment["html_url"] = f"https://github.example/o/r/pull/7#c{comment['id']}"
            github.comments.append(comment)
            self._reply(201, comment)
        elif path.startswith("/repos/o/r/issues/comments/") and method == "PATCH":
            (comment,) = [c for c in github.comments if c["id"] == int(path.split("/")[-1])]
            comment["body"] = body["body"]
            self._reply(200, comment)
        else:
            self._reply(404, {"message": "Not Found"})

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    github: FakeGitHub


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    server = _Server(("127.0.0.1", 0), _Handler)
    host, port = server.server_address[:2]
    server.github = FakeGitHub(url=f"http://{host!s}:{port}")
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.github
    server.shutdown()
    server.server_close()


@pytest.fixture
def fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultServer]:
    monkeypatch.chdir(tmp_path)
    with fault_server() as running:
        yield running


def action_env(
    tmp_path: Path, github: FakeGitHub, fault: FaultServer, **inputs: str
) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"ref": "main"}}}))
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GITHUB_", "INPUT_", "PROMPTUM_"))
    }
    env.update(
        {
            "PROMPTUM_FAULT_BASE_URL": fault.base_url,
            "PYTHONPATH": str(ROOT / "src"),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_API_URL": github.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_RUN_ID": "42",
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.txt"),
            "INPUT_SUITES": "prompts/*.yaml",
            "INPUT_COMMENT": "true",
        }
    )
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return env


def run_action(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptum.ci.github"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def outputs(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "output.txt").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def baseline_run(tmp_path: Path, fault: FaultServer) -> Path:
    """main's last run, where both cases passed."""
    fault.default = Reply.ok("Hello! Paris.")
    path = tmp_path / "main-results.json"
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", "prompts/demo.yaml", "-o", str(path),
         "--no-store", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PROMPTUM_FAULT_BASE_URL": fault.base_url},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def test_a_regression_fails_and_the_sticky_comment_is_created_then_updated(
    tmp_path: Path, github: FakeGitHub, fault: FaultServer
) -> None:
    write(tmp_path / "prompts" / "demo.yaml", SUITE)
    main = baseline_run(tmp_path, fault)
    github.add_baseline(main, artifact_id=1, branch="feature")  # another branch: ignored
    github.add_baseline(main, artifact_id=2, branch="main")
    github.add_baseline(main, artifact_id=3, branch="main", expired=True)
    github.add_baseline(main, artifact_id=4, branch="main", fork=True)  # a fork's "main"
    fault.default = Reply.ok("Hello!")  # the pull request broke the must-pass case
    env = action_env(tmp_path, github, fault, args="--no-cache")

    first = run_action(env, tmp_path)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "promptum: created the pull request comment" in first.stdout
    (comment,) = github.comments
    body = comment["body"]
    assert body.startswith(MARKER)
    assert "## ❌ demo: 1 of 2 passed" in body
    assert "Compared with the last run on `main` (artifact 2" in body
    assert "capital" in body.split("Compared with")[1]  # the regressed case is listed
    assert "gate: FAIL" in body.split("Compared with")[1]
    assert "https://github.example/o/r/actions/runs/42" in body
    found = outputs(tmp_path)
    assert found["exit-code"] == "1"
    assert found["pass-rate"] == "0.5000"
    assert found["regressed"] == "true"
    assert found["comment-url"] == "https://github.example/o/r/pull/7#c100"
    summary = (tmp_path / "summary.txt").read_text()
    assert summary.startswith("## ❌ demo: 1 of 2 passed")
    assert MARKER not in summary
    for name in ("results.json", "report.html", "junit.xml", "summary.md", "compare.md"):
        assert (tmp_path / "promptum-reports" / name).is_file(), name

    # The token went to the API, never to the storage the download was redirected to.
    api = [c for c in github.calls if not c.path.startswith("/storage/")]
    assert all(c.headers.get("authorization") == f"Bearer {TOKEN}" for c in api)
    (storage,) = [c for c in github.calls if c.path.startswith("/storage/")]
    assert storage.path == "/storage/2.zip"
    assert "authorization" not in storage.headers

    fault.default = Reply.ok("Hello! Paris.")  # fixed
    second = run_action(env, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "promptum: updated the pull request comment" in second.stdout
    (comment,) = github.comments  # the same comment, edited
    assert "## ✅ demo: 2 of 2 passed" in comment["body"]
    assert [c.method for c in github.calls if "/comments" in c.path] == [
        "GET", "POST", "GET", "PATCH",
    ]  # fmt: skip
    assert outputs(tmp_path)["regressed"] == "false"


def test_without_a_baseline_the_runs_gate_decides(
    tmp_path: Path, github: FakeGitHub, fault: FaultServer
) -> None:
    write(tmp_path / "prompts" / "demo.yaml", SUITE)
    fault.default = Reply.ok("Hello!")
    github.refuse_comments = True  # a fork's read-only token
    done = run_action(action_env(tmp_path, github, fault), tmp_path)
    assert done.returncode == 1
    assert "::warning::promptum: the pull request comment was not written" in done.stdout
    summary = (tmp_path / "summary.txt").read_text()
    assert "_No comparison: no `promptum-baseline` artifact from a run on `main` was found._" in (
        summary
    )
    assert outputs(tmp_path)["comment-url"] == ""


def test_a_baseline_file_and_fail_on_never(
    tmp_path: Path, github: FakeGitHub, fault: FaultServer
) -> None:
    write(tmp_path / "prompts" / "demo.yaml", SUITE)
    main = baseline_run(tmp_path, fault)
    fault.default = Reply.ok("Hello!")
    env = action_env(tmp_path, github, fault, baseline=str(main), fail_on="never", comment="false")
    done = run_action(env, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs(tmp_path)["regressed"] == "true"
    assert github.calls == []  # no artifact looked up, no comment written


@pytest.mark.parametrize(
    ("fail_on", "run_code", "compare_code", "fails"),
    [
        ("regression", 1, 0, False),  # failures main has too: no regression
        ("regression", 0, 1, True),
        ("regression", 1, None, True),  # no baseline: the run's gate
        ("run", 0, 1, False),
        ("run", 1, 0, True),
        ("any", 0, 1, True),
        ("never", 1, 1, False),
        ("never", 2, None, True),  # the suites could not run at all
    ],
)
def test_which_gate_fails_the_step(
    fail_on: str, run_code: int, compare_code: int | None, fails: bool
) -> None:
    assert failed(fail_on, run_code, compare_code) is fails


def test_the_action_runs_the_script_with_its_inputs() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]
    (script,) = [s for s in steps if s.get("id") == "promptum"]
    assert script["run"] == "python -P -m promptum.ci.github"
    names = {key.removeprefix("INPUT_").lower().replace("_", "-") for key in script["env"]}
    assert names - {"github-token"} == set(action["inputs"]) - {
        "python-version", "promptum-spec", "llama-cpp-python-version", "github-token",
    }  # fmt: skip
    cached = [s["with"]["key"] for s in steps if s.get("uses", "").startswith("actions/cache")]
    assert "ImageVersion" in cached[0]
    assert "llama-cpp-python-version" in cached[0]


@pytest.mark.parametrize(("name", "value"), [("MAX_REGRESSED", "abc"), ("FAIL_ON", "often")])
def test_an_input_the_gate_cannot_use_stops_the_step(name: str, value: str) -> None:
    env = {"INPUT_SUITES": "prompts/*.yaml", f"INPUT_{name}": value}
    with pytest.raises(SystemExit) as stopped:
        Inputs.from_env(env)
    assert str(stopped.value).startswith("::error::")
    assert repr(value) in str(stopped.value)
