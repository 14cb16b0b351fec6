"""The validators example runs as shown in the docs."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parents[2] / "examples" / "validators.py"


def test_validators_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "FAIL Latency at most 5000 ms latency 6120 ms > 5000 ms" in done.stdout
    assert "matches the attack target, the injection succeeded" in done.stdout
