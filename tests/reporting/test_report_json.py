from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_samples import MODELS, completion, result, sample_run

from promptum.errors import ConfigError
from promptum.reporting import JsonlSink, load_run, write_report
from promptum.values.run_result import CaseResult, RunResult


def test_json_round_trip(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_report(sample, path)
    loaded = load_run(path)
    expected = sample.model_copy(update={"config": {**sample.config, "api_key": "[redacted]"}})
    assert loaded.model_dump() == expected.model_dump()
    assert loaded.stats() == sample.stats()
    assert loaded.get_check_stats() == sample.get_check_stats()
    assert loaded.complete is True


def test_json_round_trip_keeps_every_reason(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_report(sample, path)
    loaded = load_run(path)
    assert [r.reasons for r in loaded.results] == [r.reasons for r in sample.results]


def test_json_holds_check_results(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_report(sample, path)
    data = json.loads(path.read_text())
    checks = data["results"][2]["check_results"]
    assert checks[0] == {
        "type": "contains",
        "passed": False,
        "description": "Response contains 'Paris'",
        "reason": (
            "expected to contain 'Paris', got \"France's capital city is Lyon, famous for food.\""
        ),
    }


def test_api_keys_never_reach_the_report(sample: RunResult, tmp_path: Path) -> None:
    sample.config["provider"] = {"Authorization": "Bearer sk-nested", "api_base": "http://x"}
    path = tmp_path / "results.json"
    write_report(sample, path)
    text = path.read_text()
    assert "sk-test-DO-NOT-LEAK" not in text
    assert "sk-nested" not in text
    assert json.loads(text)["config"]["max_tokens"] == 64
    assert json.loads(text)["config"]["provider"]["api_base"] == "http://x"


@given(st.text())
def test_any_response_text_round_trips(text: str) -> None:
    model = MODELS[0]
    run = RunResult(
        run_id="r",
        models=[model],
        results=[result("c", model, completion(text, model), prompt=text)],
    )
    from promptum.reporting import render_report

    loaded = RunResult.model_validate_json(render_report(run, "json"))
    # UTF-8 cannot hold a lone surrogate: that one character becomes U+FFFD, nothing else moves.
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert loaded.results[0].completion.text == expected
    lines = render_report(run, "jsonl").split("\n")
    assert CaseResult.model_validate_json(lines[0]).completion.text == expected


def test_jsonl_sink_writes_each_result_as_it_arrives(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "out" / "results.jsonl"
    sink = JsonlSink(path)
    sink.start(sample.model_copy(update={"results": []}))
    for count, case in enumerate(sample.results[:3], start=1):
        sink.add(case)
        # readable by another process before the run ends
        assert len(path.read_text().splitlines()) == count
    sink.finish(sample)
    assert [CaseResult.model_validate_json(line) for line in path.read_text().splitlines()] == (
        sample.results[:3]
    )


def test_jsonl_survives_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    program = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from report_samples import sample_run
from promptum.reporting import JsonlSink
run = sample_run()
sink = JsonlSink({str(path)!r})
sink.start(run)
for case in run.results[:4]:
    sink.add(case)
os._exit(9)  # dies without closing the file or running any cleanup
"""
    done = subprocess.run([sys.executable, "-c", program], check=False)
    assert done.returncode == 9
    loaded = load_run(path)
    assert loaded.results == sample_run().results[:4]
    assert loaded.complete is False
    assert loaded.models == MODELS


def test_jsonl_sink_add_before_start_is_a_bug(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="before start"):
        JsonlSink(tmp_path / "x.jsonl").add(sample_run().results[0])


def test_jsonl_report_matches_the_sink(sample: RunResult, tmp_path: Path) -> None:
    written, streamed = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_report(sample, written)
    sink = JsonlSink(streamed)
    sink.start(sample)
    for case in sample.results:
        sink.add(case)
    sink.finish(sample)
    assert written.read_text() == streamed.read_text()
    assert len(written.read_text().splitlines()) == len(sample.results)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.json: no such file"):
        load_run(tmp_path / "nope.json")


def test_load_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"run_id": "x",')
    with pytest.raises(ConfigError, match=r"results\.json: not a promptum results file: .*JSON"):
        load_run(path)


def test_load_wrong_shape_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"run_id": "x", "results": [{"case_id": "a"}]}')
    with pytest.raises(ConfigError, match=r"results\.0\.model: Field required"):
        load_run(path)


def test_load_bad_jsonl_line_names_the_line(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    write_report(sample, path)
    with path.open("a") as file:
        file.write('{"case_id": "half a line\n')
    with pytest.raises(ConfigError, match=rf"results\.jsonl:{len(sample.results) + 1}: "):
        load_run(path)


def test_jsonl_sink_keeps_loadable_when_a_secret_equals_a_field_name(
    sample: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_TOKEN", "expected_behavior")
    path = tmp_path / "streamed.jsonl"
    sink = JsonlSink(path)
    sink.start(sample)
    for item in sample.results:
        sink.add(item)
    sink.finish(sample)
    assert [r.model_dump() for r in load_run(path).results] == [
        r.model_dump() for r in sample.results
    ]
