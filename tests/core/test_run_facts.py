"""A run's facts (planned results, resumed, warnings, git) are typed fields, not `config` keys."""

from __future__ import annotations

from promptum.values.run_result import RunResult


def test_a_run_written_with_its_facts_in_config_reads_them_into_fields() -> None:
    old = {
        "run_id": "r1",
        "config": {
            "concurrency": 8,
            "planned_results": 12,
            "resumed": True,
            "warnings": ["a sink failed"],
            "git_commit": "abc123",
            "git_dirty": False,
        },
    }
    run = RunResult.model_validate(old)
    assert (run.planned_results, run.resumed, run.warnings) == (12, True, ["a sink failed"])
    assert (run.git_commit, run.git_dirty) == ("abc123", False)
    assert run.config == {"concurrency": 8}


def test_a_run_round_trips_through_json_with_its_facts() -> None:
    run = RunResult(run_id="r2", planned_results=3, warnings=["w"], config={"fail_under": 0.9})
    again = RunResult.model_validate_json(run.model_dump_json())
    assert again == run
    assert again.config == {"fail_under": 0.9}


def test_a_fact_given_as_a_field_wins_over_a_stale_copy_in_config() -> None:
    run = RunResult.model_validate(
        {"run_id": "r3", "planned_results": 5, "config": {"planned_results": 4}}
    )
    assert (run.planned_results, run.config) == (5, {})
