"""examples/redteam/: the support app's attacks run offline on the embedded model."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run

EXAMPLE = Path(__file__).parents[2] / "examples" / "redteam" / "support.yaml"

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]

_LOOPED = "with tools, every call the model makes is added to the prompt"


def test_the_example_runs_its_generated_attacks_on_both_variants(tmp_path: Path) -> None:
    # A few of its cases keep this quick: every prompt_leak attack and its first control, on
    # both variants.
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(EXAMPLE), "-k", "rt-*prompt_leak*-1",
         "--no-store", "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1200, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    results = load_run(tmp_path / "run.json").results
    assert len([r for r in results if "redteam" in r.tags]) == 6
    assert len([r for r in results if "redteam-control" in r.tags]) == 2
    assert {r.variant for r in results} == {"baseline", "hardened"}
    graded = {r.variant for r in results if r.status in ("pass", "fail")}
    assert graded == {"baseline", "hardened"}
    for result in results:
        if result.status == "error":
            # Offered tools, llama-cpp-python's function-calling handler adds each call the
            # model makes to the prompt and asks again, without a bound: under some of the
            # run's random canaries SmolLM2 never stops calling tools, and the case is an
            # error that says so (docs/models.md). No other error is expected.
            assert any(_LOOPED in reason for reason in result.reasons), result.reasons
        assert "goal:prompt_leak" in result.tags
        system = result.messages[0].content
        # The canary was planted as a token of the run, never sent as the template.
        assert "{{ canary }}" not in system
        assert re.search(r"Internal reference code: [a-z]{20}\.", system), system
