"""examples/receipts: its images are what its script draws, and its suite sends them.

Run against the fault server (a model reading every receipt as the café's): the café's
case passes on the total within a cent and the date, the others fail, and each request
carries its receipt's PNG, byte for byte.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.cli import invoke
from tests.support.fault_server import FaultServer, Reply

EXAMPLE = Path(__file__).parents[2] / "examples" / "receipts"


def test_the_images_are_what_the_script_draws(tmp_path: Path) -> None:
    copy = shutil.copytree(EXAMPLE, tmp_path / "receipts", ignore=shutil.ignore_patterns("images"))
    done = subprocess.run(
        [sys.executable, str(copy / "make_receipts.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    drawn = sorted(path.name for path in (copy / "images").iterdir())
    assert drawn == ["001.png", "002.png", "003.png"]
    for name in drawn:
        assert (copy / "images" / name).read_bytes() == (EXAMPLE / "images" / name).read_bytes()


def test_the_suite_sends_each_receipt_and_grades_what_is_read(server: FaultServer) -> None:
    shutil.copytree(EXAMPLE, "receipts")
    server.default = Reply.ok(
        json.dumps({"merchant": "Corner Cafe", "date": "2026-03-14", "total": 6.251})
    )
    result = invoke("run", "receipts/suite.yaml", "--model", "fault/m", "-c", "1", "-o", "r.json")
    assert result.exit_code == 1, result.output
    results = json.loads(Path("r.json").read_text())["results"]
    statuses = {r["case_id"]: r["status"] for r in results}
    assert statuses == {"cafe": "pass", "hardware": "fail", "grocer": "fail"}
    [part] = results[0]["messages"][-1]["parts"]  # the result keeps the path, for reports
    assert part["file"].endswith("receipts/images/001.png")
    sent = []
    for request in server.requests:
        content = request.body["messages"][-1]["content"]
        url = content[-1]["image_url"]["url"]
        sent.append(base64.b64decode(url.removeprefix("data:image/png;base64,")))
    expected = [(EXAMPLE / "images" / f"{n}.png").read_bytes() for n in ("001", "002", "003")]
    assert sent == expected
