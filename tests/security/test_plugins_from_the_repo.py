"""Entry points are read from installed packages, never from the directory being tested.

`python -m promptum` puts the working directory on the Python path; a pull request that
commits a `*.dist-info` there must not turn a suite's `type:` into code that runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_dist_info_committed_in_the_repo_is_not_a_plugin(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    info = tmp_path / "evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[promptum.checks]\nsneaky = evil_mod:check\n")
    (tmp_path / "evil_mod.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
        "def check(response):\n    return True\n"
    )
    (tmp_path / "suite.yaml").write_text(
        "test_cases:\n  - {id: a, query: hi, checks: [{type: sneaky}]}\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "validate", "suite.yaml"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "sneaky" in done.stderr
    assert not marker.exists()
