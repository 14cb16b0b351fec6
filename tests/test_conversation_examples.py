"""The conversation examples run offline on the embedded model, turn by turn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run

EXAMPLES = Path(__file__).parents[1] / "examples"

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


def test_the_scripted_and_the_simulated_examples_run(tmp_path: Path) -> None:
    suites = [str(EXAMPLES / "conversation.yaml"), str(EXAMPLES / "simulated_user.yaml")]
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", *suites, "--no-store", "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    by_id = {r.case_id: r for r in load_run(tmp_path / "run.json").results}
    scripted, simulated = by_id["remembers-the-name"], by_id["late-order"]
    for result in (scripted, simulated):
        assert result.status != "error", result.reasons
        assert result.turns
        assert all(turn.completion.text for turn in result.turns)  # the model's real replies
    assert scripted.turns is not None
    assert len(scripted.turns) == 4
    # Turn 3 quoted turn 2's actual reply, filled in when its turn came.
    assert scripted.turns[2].query == (
        f'You said: "{scripted.turns[1].completion.text}" Say that again in other words.'
    )
    assert scripted.turns[0].query == "Hi, my name is Ada and I live in Paris."
    assert simulated.turns is not None
    assert 1 <= len(simulated.turns) <= 3  # max_turns, or earlier at a stop
    assert simulated.turns[0].query == "Hi, my order 123 has not arrived yet."  # the opening
    if done.returncode == 1:  # what failed is named by its turn
        failing = [r for r in by_id.values() if r.status == "fail"]
        assert all(
            reason.startswith(("turn ", "conversation: ")) for r in failing for reason in r.reasons
        )
