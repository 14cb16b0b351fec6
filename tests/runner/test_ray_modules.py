"""Ray workers import the modules beside a suite as the driver does; a local Ray stays local.

The user's modules (a target, a `checks.py`) are imported on the workers under the driver's
names, from a copy of their folder shipped with the job: classes, decorators such as
`functools.cache`, and imports of their neighbours work there. The network test runs the
whole `promptum run --executor ray` in a network namespace of its own (loopback only) under
strace, and asserts that no process Ray started tried to reach another address.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run

pytest.importorskip("ray")  # the ray extra: skipped without it, run where it is installed

pytestmark = pytest.mark.slow

APP = """\
import json
import os
from dataclasses import dataclass
from functools import cache

from helpers import shout


@dataclass(frozen=True)
class Reply:
    text: str


@cache
def _prefix() -> str:
    return shout("answer")


def answer(query: str) -> str:
    reply = Reply(f"{_prefix()}: {query}")
    return json.dumps({"text": reply.text, "file": __file__, "home": os.environ.get("HOME")})
"""

HELPERS = """\
def shout(text: str) -> str:
    return text.upper()
"""

CHECKS = """\
from functools import cache


@cache
def _expected() -> str:
    return "ANSWER"


def answered(response) -> bool:
    return _expected() in response.text
"""

PLAIN_SUITE = """\
name: plain
target: plain.py:answer
defaults:
  checks: [{type: contains, value: ANSWER}]
test_cases:
  - {id: one, query: question one}
  - {id: two, query: question two}
"""
"""Nothing but a plain function: a run the code before this change could make too."""

SUITE = """\
name: app
target: app.py:answer
defaults:
  checks:
    - {type: python, value: "checks.py:answered"}
test_cases:
"""


def _project(folder: Path, cases: int) -> Path:
    suites = folder / "suites"
    suites.mkdir()
    (suites / "app.py").write_text(APP)
    (suites / "helpers.py").write_text(HELPERS)
    (suites / "checks.py").write_text(CHECKS)
    cases_text = "".join(f"  - {{id: case-{i}, query: question {i}}}\n" for i in range(cases))
    (suites / "app.yaml").write_text(SUITE + cases_text)
    return suites / "app.yaml"


def _run(suite: Path, cwd: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    command = [*prefix, sys.executable, "-m", "promptum", "run", str(suite)]
    return subprocess.run(
        [*command, "--executor", "ray", "--no-store", "--no-cache", "-o", "run.json"],
        cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_workers_import_the_suites_modules_with_their_caches_classes_and_neighbours(
    tmp_path: Path,
) -> None:
    suite = _project(tmp_path, 4)
    done = _run(suite, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert [r.status for r in run.results] == ["pass"] * 4, [r.reasons for r in run.results]
    for result in run.results:
        answer = json.loads(result.completion.text)
        assert answer["text"].startswith("ANSWER: question")
        # The worker imported its own copy of the folder, shipped with the job...
        shipped = Path(answer["file"])
        assert shipped.name == "app.py"
        assert shipped.parent != suite.parent
        assert shipped.read_text() == (suite.parent / "app.py").read_text()
        # ...and runs the user's code with the user's HOME, not the one Ray's processes get.
        assert answer["home"] == os.environ["HOME"]


_CONNECT = re.compile(r"connect\(\d+, \{sa_family=AF_INET6?, ")
_ADDRESS = re.compile(r'inet_addr\("(?P<v4>[^"]+)"\)|inet_pton\(AF_INET6, "(?P<v6>[^"]+)"')
_LOOPBACK = re.compile(r"^(127\.|::1$|::ffff:127\.)")


def _addresses(trace: str) -> list[str]:
    """Every IP address a traced process called connect() on."""
    found = []
    for line in trace.splitlines():
        if _CONNECT.search(line) and (address := _ADDRESS.search(line)):
            found.append(address["v4"] or address["v6"])
    return found


def test_a_local_ray_run_connects_to_nothing_but_loopback(tmp_path: Path) -> None:
    for tool in ("strace", "unshare", "ip"):
        assert shutil.which(tool), f"{tool} is needed: scripts/setup dev installs it"
    suite = tmp_path / "plain.yaml"
    suite.write_text(PLAIN_SUITE)
    (tmp_path / "plain.py").write_text('def answer(query):\n    return "ANSWER: " + query\n')
    trace = tmp_path / "connect.trace"
    # A network namespace with only a loopback interface: no packet could leave anyway,
    # and strace (following every process Ray starts) records where each tried to go.
    isolated = ["unshare", "--map-root-user", "--net", "sh", "-c", 'ip link set lo up && "$@"']
    strace = ["strace", "-f", "-qq", "-e", "trace=connect", "-e", "signal=none", "-o", str(trace)]
    done = _run(suite, tmp_path, *isolated, "sh", *strace)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r.status for r in load_run(tmp_path / "run.json").results] == ["pass"] * 2
    addresses = _addresses(trace.read_text())
    assert any(_LOOPBACK.match(address) for address in addresses)  # the trace saw Ray talk
    assert [a for a in addresses if not _LOOPBACK.match(a)] == []
