"""`promptum redteam generate`: what its summary says, and the requests it refuses to build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from tests.support.suites import ACME_BOT

# A system prompt and nothing else: `field`, `tool` and `policy` cannot be supported.
PLAIN = "name: plain\n" + ACME_BOT


def _suite(tmp_path: Path, section: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(PLAIN + section, encoding="utf-8")
    return path


def _generate(suite: Path, *extra: str) -> tuple[int, str]:
    out = suite.with_name("attacks.yaml")
    done = CliRunner().invoke(main, ["redteam", "generate", str(suite), "-o", str(out), *extra])
    return done.exit_code, done.output


def test_goals_the_user_did_not_name_are_not_said_to_lack_anything(tmp_path: Path) -> None:
    code, output = _generate(_suite(tmp_path, "redteam: {goals: [exfiltration], per_goal: 4}\n"))
    assert code == 0, output
    assert "exfiltration 4" in output
    assert "lacks" not in output
    for goal in ("field", "tool", "policy", "prompt_leak", "secret_leak"):
        assert goal not in output


def test_the_summary_says_how_alike_each_goals_attacks_are(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    code, output = _generate(_suite(tmp_path, "redteam: {goals: [exfiltration], per_goal: 6}\n"))
    assert code == 0, output
    found = re.search(r"diversity: mean nearest-neighbour similarity within a goal (\S+)", output)
    assert found is not None, output
    assert 0.0 < float(found.group(1)) < 1.0  # six attacks, neither all alike nor unrelated


def test_a_default_goal_the_suite_cannot_support_is_named_with_its_reason(tmp_path: Path) -> None:
    code, output = _generate(_suite(tmp_path, "redteam: {per_goal: 2}\n"))
    assert code == 0, output
    left_out = {
        line.split(":")[0].removeprefix("  no attacks for "): line
        for line in output.splitlines()
        if line.startswith("  no attacks for ")
    }
    assert set(left_out) == {"field", "tool", "policy"}  # each with why
    assert "response model" in left_out["field"]
    assert "offers none: add `tools:`" in left_out["tool"]
    assert "`policy: <your rule>`" in left_out["policy"]
    assert "lacks what" not in output


def test_a_request_too_large_to_load_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "redteam: {seed: 1}\n")
    code, output = _generate(suite, "--per-goal", "100000")
    assert code == 2, output
    assert not suite.with_name("attacks.yaml").exists()
    assert "redteam.per_goal" in output
    assert "16,777,216 bytes" in output  # the suite loader's limit, PROMPTUM_MAX_SUITE_BYTES
    (most,) = re.findall(r"at most ([\d,]+) per goal", output)
    assert 100 < int(most.replace(",", "")) < 100_000
    assert "Traceback" not in output


def test_the_most_it_offers_is_written_and_loads_under_the_machines_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMPTUM_MAX_SUITE_BYTES", "300000")
    suite = _suite(tmp_path, "redteam: {goals: [exfiltration, prompt_leak]}\n")
    code, output = _generate(suite, "--per-goal", "5000")
    assert code == 2, output
    assert "300,000 bytes" in output
    (most,) = re.findall(r"at most ([\d,]+) per goal", output)
    code, output = _generate(suite, "--per-goal", most.replace(",", ""))
    assert code == 0, output  # written, then loaded back as `promptum validate` does
    assert suite.with_name("attacks.yaml").stat().st_size <= 300_000


def test_a_capped_request_is_not_refused_for_cases_the_templates_cannot_make(
    tmp_path: Path,
) -> None:
    # `direct` has a few dozen distinct exfiltration attacks on this suite, not 100,000.
    suite = _suite(tmp_path, "redteam: {goals: [exfiltration], strategies: [direct]}\n")
    code, output = _generate(suite, "--per-goal", "100000")
    assert code == 0, output
    (count,) = re.findall(r"exfiltration (\d+)", output)
    assert 10 < int(count) < 200
