"""A case attaching an image runs on Ray and sends the image as is, with no network but loopback.

The run (driver, Ray and the fault server answering it) happens in a network namespace of its
own holding only a loopback interface: whatever Ray does, no packet can leave the machine. The
fault server lives in there too, so the namespace's program prints the requests it recorded.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.media import PNG, media

pytest.importorskip("ray")  # the ray extra: skipped without it, run where it is installed

pytestmark = pytest.mark.slow

QUERY = '{text: "What is the total?", images: [receipts/001.png]}'
SUITE = "models: [fault/m]\ndefaults: {checks: [{type: contains, value: total}]}\n" + (
    f"test_cases:\n  - {{id: total, query: {QUERY}}}\n"
)

SERVE_AND_RUN = """\
import json, os, subprocess, sys
from tests.support.fault_server import Reply, fault_server

with fault_server() as server:
    server.default = Reply.ok("The total is 12.50")
    env = {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url}
    command = [sys.executable, "-m", "promptum", "run", "receipts.yaml", "--executor", "ray",
               "--no-store", "--no-cache", "-o", "run.json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    sys.stderr.write(done.stdout + done.stderr)
    json.dump([request.body for request in server.requests], sys.stdout)
sys.exit(done.returncode)
"""
"""Serve, run the suite on Ray against the server, print the request bodies it recorded."""

ROOT = Path(__file__).parents[2]


def test_a_cases_image_reaches_the_model_from_a_ray_worker_byte_for_byte(tmp_path: Path) -> None:
    for tool in ("unshare", "ip"):
        assert shutil.which(tool), f"{tool} is needed: scripts/setup dev installs it"
    (tmp_path / "receipts.yaml").write_text(SUITE, encoding="utf-8")
    image = media(tmp_path / "receipts" / "001.png", PNG, 5000)
    isolated = ["unshare", "--map-root-user", "--net", "sh", "-c", 'ip link set lo up && "$@"']
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    done = subprocess.run(
        [*isolated, "sh", sys.executable, "-c", SERVE_AND_RUN],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r.status for r in load_run(tmp_path / "run.json").results] == ["pass"]
    (body,) = json.loads(done.stdout)
    text, sent = body["messages"][-1]["content"]
    assert text == {"type": "text", "text": "What is the total?"}
    url = sent["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()
