"""The cache key and the resume fingerprint hold each part's digest, never its path.

The same image under two paths is one cache entry (one call); changed bytes are a miss; a
plan's fingerprint moves with the bytes, not the file's name; a run of image cases stopped
by Ctrl-C resumes sending only what did not finish.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from promptum.providers import ModelRequest, cache_key
from promptum.runner import plan_fingerprint
from promptum.suites import load_suite
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply
from tests.support.interrupts import interrupt_once, wait_for_requests
from tests.support.media import PNG, media

CHECK = "[{type: contains, value: total}]"
SUITE = """\
name: receipts
models: [fault/m]
test_cases:
  - id: first
    query: {text: What is the total?, images: a/receipt.png}
    checks: [{type: contains, value: total}]
  - id: second
    query: {text: What is the total?, images: b/same.png}
    checks: [{type: contains, value: total}]
"""


def _user_messages(server: FaultServer) -> int:
    return sum(1 for request in server.requests if request.path.endswith("/chat/completions"))


def test_the_same_image_under_two_paths_is_one_call_and_changed_bytes_miss(
    server: FaultServer,
) -> None:
    server.default = Reply.ok("The total is 12.50")
    media(Path("a/receipt.png"), PNG, 3000)
    media(Path("b/same.png"), PNG, 3000)
    write("suite.yaml", SUITE)
    first = invoke("run", "suite.yaml", "-c", "1")
    assert first.exit_code == 0, first.output
    assert _user_messages(server) == 1  # the second case is the first's cache entry

    media(Path("b/same.png"), PNG + b"changed", 3000)
    again = invoke("run", "suite.yaml", "-c", "1")
    assert again.exit_code == 0, again.output
    assert _user_messages(server) == 2  # only the changed image is sent again


def test_keys_and_fingerprints_follow_the_bytes_not_the_path(project: Path) -> None:
    media(project / "a/receipt.png", PNG, 3000)
    media(project / "b/same.png", PNG, 3000)
    suite = write(project / "suite.yaml", SUITE)
    first, second = load_suite(suite).cases
    requests = [ModelRequest(model="fault/m", messages=case.messages) for case in (first, second)]
    assert first.messages != second.messages  # each keeps its own path, for display
    assert cache_key(requests[0], "e") == cache_key(requests[1], "e")
    assert plan_fingerprint([first]) == plan_fingerprint([replace(second, id="first")])

    media(project / "b/same.png", PNG + b"changed", 3000)
    changed = load_suite(suite).cases[1]
    changed_request = ModelRequest(model="fault/m", messages=changed.messages)
    assert cache_key(changed_request, "e") != cache_key(requests[1], "e")
    assert plan_fingerprint([changed]) != plan_fingerprint([second])


def _run_in_process(*extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "promptum", "run", "suite.yaml", "-c", "1", "--no-cache"]
    return subprocess.Popen(
        [*command, *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _sent_image(server: FaultServer, index: int) -> bytes:
    url = server.requests[index].body["messages"][-1]["content"][-1]["image_url"]["url"]
    return base64.b64decode(url.split(",", 1)[1])


def test_a_stopped_run_of_images_resumes_sending_only_the_unfinished(
    server: FaultServer,
) -> None:
    images = [media(Path(f"r/{n}.png"), PNG + bytes([n]), 500) for n in range(3)]
    cases = "".join(
        f"  - {{id: r{n}, query: {{text: Total?, images: r/{n}.png}}, checks: {CHECK}}}\n"
        for n in range(3)
    )
    write("suite.yaml", f"models: [fault/m]\ntest_cases:\n{cases}")
    server.queue(Reply.ok("total"), Reply.ok("total"))
    server.default = Reply.hang(60)
    process = _run_in_process()
    wait_for_requests(server, 3, process)  # two answered, the third hangs
    interrupt_once(process)

    server.default = Reply.ok("total")
    resumed = _run_in_process("--resume")
    output, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, output
    assert len(server.requests) == 4  # only the unfinished case, sent again
    assert _sent_image(server, 3) == images[2].read_bytes()
