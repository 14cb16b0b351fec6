"""Reports written from results as the store holds them are those written from the models.

After a streamed run `promptum run` writes a JSON report from the stored JSON of its results
(`write_report(..., stored=...)`) without validating it again, and every JSON report is
indented by pydantic-core instead of the standard library: both must give the same bytes.
"""

from __future__ import annotations

import json
import math
import os
import random
import struct
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conversation_samples import mixed_run
from report_samples import MODELS, STARTED, big_run, repeated_run, sample_run

from promptum.foundations.model_json import model_json
from promptum.foundations.redaction import REDACTED, environment_secrets
from promptum.reporting import REPORT_FORMATS, _json, _junit, _stored, write_report
from promptum.reporting._indented import indented
from promptum.store import RunStore
from promptum.values.completion import Completion, ToolCall
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, Message, RunResult, TurnResult

SECRET = "sk-stored-json-report-0123456789abcdef"


def _odd_run() -> RunResult:
    """Figures and text a JSON encoder may spell its own way: tiny costs, escapes, tools."""
    results = []
    costs = [4.5e-07, 1e-05, 0.0001, 3e-09, 0.0, None, 0.0006299999999999999, 1e16]
    for n, cost in enumerate(costs):
        text = f'caf\u00e9 \u2028 \x7f \x00 "q" \\ 1e-5 0.00001 {n} \ud7ff \U0001f600'
        if n == 3:
            text = f"the key is {SECRET}"
        grades = [
            Grade("check", "contains", n % 2 == 0, description="has x", reason=f"no x: {text}"),
            Grade("check", "max_cost", True, score=cost, details={"tiny": 2.5e-08, "n": n}),
        ]
        completion = Completion(
            text=text,
            model=MODELS[n % 3],
            latency_ms=359.23456789 + n,
            cost_usd=cost,
            input_tokens=2**40 + n,
            tool_calls=[ToolCall(name="lookup", arguments={"q": text, "w": 1e-7})] if n else [],
        )
        results.append(
            CaseResult(
                case_id=f"odd-{n}",
                suite="odd",
                model=completion.model,
                status="pass" if n % 2 == 0 else "fail",
                messages=[Message(role="user", content=f"say {n} \u00e9")],
                completion=completion,
                grades=grades,
                tags=["t\u00e9st"],
                turns=_noisy_turns() if n == 6 else None,
            )
        )
    return RunResult(run_id="odd", suite="odd", models=MODELS, started_at=STARTED, results=results)


def _noisy_turns() -> list[TurnResult]:
    """A conversation's turns with a float clock's latency and a product of prices as cost."""
    latency, cost = 65.18238600256154, 0.00012299999999999998
    reply = Completion(text="hi", model=MODELS[0], latency_ms=latency, cost_usd=cost)
    return [TurnResult(query="hello", completion=reply, status="pass")]


def _alike_run() -> RunResult:
    """Results graded alike, as an everyday run's are: each report makes their grades' part
    once and reads the rest of each result from its stored JSON."""
    passed = [
        Grade("check", "contains", True, description="Response contains '42'"),
        Grade("check", "max_length", True, description="Response is at most 500 characters"),
        Grade("check", "regex", True, description="Response matches /\\d+/", details={"x": 1e-7}),
    ]
    failed = [*passed[:2], Grade("check", "regex", False, description="d", reason="no <digit>")]
    seen = [Grade("check", "contains", True, description="c", details={"transformed": "4 & 2"})]
    errored = [Grade("check", "contains", False, description="c", error="check raised")]
    results = []
    for n in range(48):
        grades = [passed, failed, seen, errored][n % 4] if n % 5 else passed
        status = {0: "pass", 1: "fail", 2: "pass", 3: "error"}[n % 4] if n % 5 else "pass"
        completion = Completion(
            text=f"The answer is 42 <{n}> & \x1b[1m\u2028" if n % 7 else "",
            model=MODELS[n % 2],
            latency_ms=120.04999 + n,
            cost_usd=5.4e-06 * (n % 3),
            cached=n % 6 == 0,
            error="Rate limited" if n % 11 == 10 else None,
        )
        results.append(
            CaseResult(
                case_id=f"case-{n // 2}",
                suite="alike" if n % 9 else None,
                model=completion.model,
                variant="v2" if n % 8 == 3 else None,
                repeat=n % 2 + 1,
                status="error" if completion.error else status,
                messages=[Message(role="user", content=f"Question {n}")],
                completion=completion,
                grades=[] if completion.error else grades,
                source=["alike.yaml:3", "alike.yaml", None, "C:\\s.yaml:x"][n % 4],
                threshold=0.5 if n == 20 else None,
                score=0.75 if n == 20 else None,
            )
        )
    return RunResult(
        run_id="alike", suite="alike", models=MODELS[:2], started_at=STARTED, results=results
    )


RUNS: dict[str, Callable[[], RunResult]] = {
    "alike": _alike_run,
    "sample": sample_run,  # field assertions (one missing) and judge criteria
    "repeated": repeated_run,
    "big": lambda: big_run(60),
    "conversations": mixed_run,
    "odd": _odd_run,
}


def _recorded(run: RunResult, folder: Path) -> tuple[RunStore, RunResult]:
    """`run` recorded in a run store, and the run as `promptum run` holds it afterwards."""
    store = RunStore(folder / "runs.sqlite")
    recorder = store.recorder()
    recorder.start(run)
    for position, result in enumerate(run.results):
        recorder.add_at(result, position)
    recorder.finish(run)
    # The facts as recorded (the recorder adds the git commit), without the results.
    shell = store.load(run.run_id).model_copy(update={"results": []})
    shell.streamed(run.tally())
    return store, shell


def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if environment_secrets({name: os.environ[name]}):
            monkeypatch.delenv(name)


def _written_from_stored(
    run: RunResult, path: Path, reader: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], RunStore]:
    """`run` recorded, then its report written at `path` from the stored JSON alone.

    Returns the JSON texts the module `reader` validated as models on the way, and the store.
    """
    _clean_environment(monkeypatch)
    store, shell = _recorded(run, path.parent)
    validated: list[str] = []
    real = CaseResult.model_validate_json

    def counting(text: Any, **options: Any) -> CaseResult:
        validated.append(text)
        return real(text, **options)

    monkeypatch.setattr(reader.CaseResult, "model_validate_json", counting)
    write_report(
        shell,
        path,
        results=lambda: iter(()),  # not read: the report comes from what was stored
        stored=lambda: store.iter_result_json(run.run_id),
    )
    return validated, store


@pytest.mark.parametrize("secret", [False, True], ids=["no secret", "a secret"])
@pytest.mark.parametrize("name", list(RUNS))
def test_every_report_from_the_stored_json_is_that_from_the_models(
    name: str, secret: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_environment(monkeypatch)
    run = RUNS[name]()
    store, shell = _recorded(run, tmp_path)
    if secret:  # set after recording: the store holds it, the report must not
        monkeypatch.setenv("PROMPTUM_STORED_API_KEY", SECRET)
    loaded = store.load(run.run_id)

    def results() -> Any:
        return store.iter_results(run.run_id, batch=7)

    def stored() -> Any:
        return store.iter_result_json(run.run_id, batch=7)

    for fmt in REPORT_FORMATS:
        fast, models, kept = (tmp_path / f"{side}.{fmt}" for side in ("fast", "models", "kept"))
        write_report(shell, fast, results=results, stored=stored)
        write_report(shell, models, results=results)
        write_report(loaded, kept)
        assert fast.read_bytes() == models.read_bytes(), fmt
        assert models.read_bytes() == kept.read_bytes(), fmt
    text = (tmp_path / "fast.json").read_text(encoding="utf-8")
    if name == "odd":
        assert ("the key is " + SECRET in text) is not secret
        assert (f"the key is {REDACTED}" in text) is secret
        assert '"cost_usd": 4.5e-07' in text  # spelt as Python spells it
        assert '"tiny": 2.5e-08' in text
        # A turn's figures are rounded as its result's are.
        assert '"latency_ms": 65.2,' in text
        assert '"cost_usd": 0.000123,' in text


@pytest.mark.parametrize("name", list(RUNS))
def test_the_json_report_is_that_of_the_standard_library(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The encoder the JSON report used before: json.dumps(indent=2), dataclasses.asdict.
    _clean_environment(monkeypatch)
    run = RUNS[name]()
    store, shell = _recorded(run, tmp_path)

    def stored() -> Any:
        return store.iter_result_json(run.run_id)

    write_report(shell, tmp_path / "new.json", results=lambda: iter(run.results), stored=stored)
    monkeypatch.setattr(
        _json, "indented", lambda data: json.dumps(data, ensure_ascii=False, indent=2)
    )
    write_report(store.load(run.run_id), tmp_path / "old.json")
    assert (tmp_path / "new.json").read_bytes() == (tmp_path / "old.json").read_bytes()


def test_the_stored_json_is_not_validated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = sample_run()  # checks, field assertions and judge criteria
    assert {g.kind for r in run.results for g in r.grades} >= {"check", "assertion", "judge"}
    validated, store = _written_from_stored(run, tmp_path / "r.json", _stored, monkeypatch)
    assert validated == []
    write_report(store.load(run.run_id), tmp_path / "kept.json")
    assert (tmp_path / "r.json").read_bytes() == (tmp_path / "kept.json").read_bytes()


def test_the_junit_report_validates_only_what_its_grades_do_not_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _alike_run()
    validated, store = _written_from_stored(run, tmp_path / "r.xml", _junit, monkeypatch)
    # A single answer's testcase is made from its grades and status; a column's name from
    # its first result. Errors and the thresholded result are validated each.
    read = [json.loads(text) for text in validated]
    plain = [r for r in read if r["completion"]["error"] is None and "threshold" not in r]
    columns = {(r.model, r.variant) for r in run.results}
    assert len(plain) <= len(columns) < len(run.results) / 4
    errors = [r for r in run.results if r.completion.error is not None]
    assert len(read) - len(plain) == len(errors) + 1  # the thresholded one
    write_report(store.load(run.run_id), tmp_path / "kept.xml")
    assert (tmp_path / "r.xml").read_bytes() == (tmp_path / "kept.xml").read_bytes()


def _json_counting_blocks(
    run: RunResult, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """The grades texts whose item blocks the JSON report of `run`, from its store, made."""
    made: list[str] = []
    real = _stored._grades_blocks

    def counted(grades_text: str) -> tuple[str, str]:
        made.append(grades_text)
        return real(grades_text)

    monkeypatch.setattr(_stored, "_grades_blocks", counted)
    validated, store = _written_from_stored(run, folder / "r.json", _stored, monkeypatch)
    assert validated == []
    write_report(store.load(run.run_id), folder / "kept.json")
    assert (folder / "r.json").read_bytes() == (folder / "kept.json").read_bytes()
    return made


def _grades_texts(run: RunResult) -> list[str]:
    return [json.dumps(json.loads(r.model_dump_json())["grades"]) for r in run.results]


def test_the_json_report_makes_each_repeated_grades_part_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _alike_run()
    made = _json_counting_blocks(run, tmp_path, monkeypatch)
    texts = _grades_texts(run)
    repeated = {text for text in texts if texts.count(text) > 1}
    assert len(made) == len(set(made)) == len(repeated) < len(run.results) / 4


def test_a_run_whose_grades_hardly_repeat_is_written_whole_after_a_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_stored._GradesBlocks, "TRIAL", 8)
    looked: list[str] = []
    real = _stored.grades_span

    def counted(text: str) -> tuple[int, int] | None:
        looked.append(text)
        return real(text)

    monkeypatch.setattr(_stored, "grades_span", counted)
    run = big_run(30)  # a judge's reasons differ from result to result
    texts = _grades_texts(run)
    assert len(set(texts[:8])) == 8
    assert _json_counting_blocks(run, tmp_path, monkeypatch) == []
    assert len(looked) == 8 < len(run.results)


def test_a_stored_row_of_another_shape_takes_the_models_path() -> None:
    # An older promptum's row (no `description` in its grades, say): validated, not refused.
    result = sample_run().results[1]
    data = json.loads(result.model_dump_json())
    for grade in data["grades"]:
        del grade["description"]
    items = list(_stored.stored_items([json.dumps(data)], _json._item))
    assert items == [_json._item(CaseResult.model_validate_json(json.dumps(data)))]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    chars = 'ab\u00e9\u20ac\u2028\x00\x1f\x7f"\\0123456789.e-+ '
    pick = rng.random()
    if depth > 3 or pick < 0.5:
        kind = rng.random()
        if kind < 0.3:
            if rng.random() < 0.4:
                value = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
                return 0.0 if math.isnan(value) or math.isinf(value) else value
            return 10 ** rng.uniform(-12, 20) * rng.choice([1, -1])
        if kind < 0.5:
            return "".join(rng.choice(chars) for _ in range(rng.randint(0, 12)))
        if kind < 0.6:
            return rng.choice([True, False, None, float("nan"), float("inf"), -float("inf")])
        if kind < 0.7:
            return rng.choice(["1e-5", "0.00001 x", 'a"1e-7"', "case-1"])
        return rng.randint(-(2**70), 2**70)
    if pick < 0.75:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {
        "".join(rng.choice(chars) for _ in range(rng.randint(0, 5))): _random_value(rng, depth + 1)
        for _ in range(rng.randint(0, 4))
    }


def test_indented_writes_what_json_dumps_writes() -> None:
    rng = random.Random(28)
    for _ in range(3000):
        value = _random_value(rng)
        assert indented(value) == json.dumps(value, ensure_ascii=False, indent=2), repr(value)
    lone = {"text": "\ud800 alone"}  # pydantic-core refuses it: the standard library writes it
    assert indented(lone) == json.dumps(lone, ensure_ascii=False, indent=2)


@pytest.mark.parametrize("name", list(RUNS))
def test_the_earlier_views_are_those_the_results_make(name: str) -> None:
    # The JSON report writes them from each result's grades as JSON, on both of its paths.
    for result in RUNS[name]().results:
        views = _stored.legacy_views(json.loads(model_json(result))["grades"])
        assert views["check_results"] == [asdict(check) for check in result.check_results]
        evaluation, judge = result.eval_result, result.judge
        assert views["eval_result"] == (evaluation and evaluation.model_dump(mode="json"))
        assert views["judge"] == (judge and judge.model_dump(mode="json"))


def test_a_secret_no_result_holds_leaves_the_runs_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key in the environment that no result holds: nothing to replace, nothing to count
    # again, and the report is still that of the run kept.
    _clean_environment(monkeypatch)
    monkeypatch.setenv("PROMPTUM_UNUSED_API_KEY", "sk-held-by-no-result-0123456789")
    run = big_run(40)
    store, shell = _recorded(run, tmp_path)
    reads: list[int] = []

    def results() -> Any:
        reads.append(1)
        return store.iter_results(run.run_id)

    stored = lambda: store.iter_result_json(run.run_id)  # noqa: E731
    write_report(shell, tmp_path / "fast.json", results=results, stored=stored)
    assert reads == []  # the figures are the run's: the results were not read to count them
    write_report(store.load(run.run_id), tmp_path / "kept.json")
    assert (tmp_path / "fast.json").read_bytes() == (tmp_path / "kept.json").read_bytes()


def test_results_scrubbed_when_recorded_are_counted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run counted a column whose model's name held a key; the store holds it replaced.
    # The figures (each model's) must be those of the results as written.
    _clean_environment(monkeypatch)
    monkeypatch.setenv("PROMPTUM_STORED_API_KEY", SECRET)
    run = _odd_run()
    leaky = f"acme/{SECRET}"
    run.models.append(leaky)
    first = run.results[0]
    run.results[0] = first.model_copy(
        update={"model": leaky, "completion": first.completion.model_copy(update={"model": leaky})}
    )
    store, _ = _recorded(run, tmp_path)
    shell = store.load(run.run_id).model_copy(update={"results": []})
    shell.streamed(run.tally())  # counted from the results before they were recorded
    assert leaky in run.tally().columns()
    loaded = store.load(run.run_id)
    for fmt in REPORT_FORMATS:
        fast, kept = tmp_path / f"fast.{fmt}", tmp_path / f"kept.{fmt}"
        write_report(
            shell,
            fast,
            results=lambda: store.iter_results(run.run_id),
            stored=lambda: store.iter_result_json(run.run_id),
        )
        write_report(loaded, kept)
        assert fast.read_bytes() == kept.read_bytes(), fmt
        assert SECRET.encode() not in fast.read_bytes()
    assert "redacted" in (tmp_path / "fast.md").read_text(encoding="utf-8")


def test_a_results_grades_are_found_whatever_its_output_holds() -> None:
    grades = '[{"kind":"check","name":"contains"}]'
    tail = ',"expected_behavior":null,"tags":[]}'
    output = '{"grades":"A","x":"\\"grades\\":[1]"}'
    text = '{"completion":{"output":' + output + '},"grades":' + grades + tail
    found = _stored.split(text)
    assert found is not None
    assert found[0] == grades
    assert found[1]["completion"]["output"] == {"grades": "A", "x": '"grades":[1]'}
    assert found[1]["grades"] == []
    # A key of its output written as the result's own: not told apart, so not cut at all.
    twice = '{"completion":{"output":{"grades":[1]}},"grades":' + grades + tail
    assert _stored.split(twice) is None
