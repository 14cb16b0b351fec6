"""`promptum judge calibrate` on a labelled set: a real run judged through a local server,
120 answers reviewed by a script standing in for people, figures worked out by hand."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.support.fault_server import FaultServer, Recorded, Reply, fault_server

CASES = 120
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def group(index: int) -> str:
    """The labelled set's four groups: the judge's score and what people say differ by group.

    A (0-49): judge 9/10, people: good. B (50-59): judge 7/10 (passes at 0.7), people: bad.
    C (60-69): judge 6/10 (fails), people: good. D (70-119): judge 2/10, people: bad.
    """
    return "A" if index < 50 else "B" if index < 60 else "C" if index < 70 else "D"


JUDGE_SCORE = {"A": 9, "B": 7, "C": 6, "D": 2}


def scripted(server: FaultServer) -> None:
    """The answerer says ``answer N`` to ``question N``; the judge scores answer N by group."""

    def reply(recorded: Recorded) -> Reply:
        server.requests.append(recorded)
        body = recorded.body
        text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        if body.get("model") == "judge":
            index = int(re.findall(r"answer (\d+)", text)[-1])
            score = JUDGE_SCORE[group(index)]
            return Reply.ok(json.dumps({"score": score, "reason": f"scored {score}"}))
        return Reply.ok("answer " + re.findall(r"question (\d+)", text)[-1])

    server._next = reply  # type: ignore[method-assign]


def write_suite(path: Path, base_url: str) -> Path:
    cases = "".join(
        f'  - {{id: q{i:03d}, query: "question {i}", expected_behavior: "Answers {i}."}}\n'
        for i in range(CASES)
    )
    path.write_text(
        "name: labelled\n"
        f"endpoints:\n  stub: {{base_url: '{base_url}', max_concurrency: 8}}\n"
        "models: [stub/answerer]\n"
        "judge: {model: stub/judge, threshold: 0.7}\n"
        f"test_cases:\n{cases}",
        encoding="utf-8",
    )
    return path


def review_like_people(store: RunStore, run_id: str) -> int:
    """The script standing in for reviewers: every answer reviewed, in the forms people use."""
    written = 0
    for result in store.load(run_id).results:
        index = int(result.case_id[1:])
        when = T0 + timedelta(minutes=index)
        about = partial(Review, run_id, result.key, None, result.model, 1, created_at=when)
        kind = group(index)
        if kind == "A" and index % 2:  # a review of the criterion itself
            reviews = [about(criterion="judge", verdict="good", reviewer="ada")]
        elif kind == "A":
            reviews = [about(verdict="good", score=0.9, reviewer="bob")]
        elif kind == "B":  # first marked good, then overridden: the later review counts
            reviews = [
                about(verdict="good", reviewer="ada"),
                about(override="fail", reason="cites nothing", reviewer="bob"),
            ]
        elif kind == "C":
            reviews = [about(override="pass", reason="good enough", reviewer="ada")]
        else:
            reviews = [about(verdict="bad", comment="wrong", reviewer="bob")]
        for review in reviews:
            store.add_review(review)
            written += 1
    return written


@dataclass
class Labelled:
    db: Path
    suite: Path
    run_id: str
    server: FaultServer


def invoke(*args: str, db: Path | None = None) -> tuple[int, str]:
    env = {"PROMPTUM_DB": str(db)} if db is not None else None
    done = CliRunner().invoke(main, list(args), env=env)
    return done.exit_code, done.output


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Labelled]:
    root = tmp_path_factory.mktemp("labelled")
    with fault_server() as server, pytest.MonkeyPatch.context() as patch:
        scripted(server)
        patch.chdir(root)
        db = root / "runs.sqlite"
        suite = write_suite(root / "suite.yaml", server.base_url)
        code, out = invoke("run", str(suite), "--no-cache", db=db)
        assert code == 1, out  # groups C and D fail the judge
        store = RunStore(db)
        run_id = store.resolve("latest")
        assert review_like_people(store, run_id) == 130  # group B twice
        yield Labelled(db, suite, run_id, server)


def test_calibrate_gives_the_kappa_and_threshold_worked_by_hand(labelled: Labelled) -> None:
    code, out = invoke("judge", "calibrate", "--json", "--db", str(labelled.db))
    assert code == 0, out
    (row,) = json.loads(out)["calibration"]
    # Judge verdicts at threshold 0.7 against people: A both pass (50); B judge pass, people
    # fail (10); C judge fail, people pass (10); D both fail (50). n = 120.
    # p_o = (50 + 50)/120 = 0.8333; judge passes 60, people pass 60:
    # p_e = (60*60 + 60*60)/120^2 = 0.5; kappa = (0.8333 - 0.5)/(1 - 0.5) = 0.6667.
    # SE = sqrt(p_o(1 - p_o)/(n(1 - p_e)^2)) = sqrt((5/36)/30) = 0.0680414;
    # 95%: 0.6667 -+ 1.959964*0.0680414 (= 0.1333587) = [0.5333, 0.8000].
    # Thresholds (pass when score >= t): t=0.2 agrees on A+C = 60; t=0.6 on A+C+D = 110;
    # t=0.7 on A+D = 100; t=0.9 on A+B+D = 110. 0.6 and 0.9 tie; 0.6 is nearer the
    # judge's 0.7: threshold 0.6, agreement 110/120 = 0.9167.
    assert row == {
        "judge_model": "stub/judge",
        "criterion": "judge",
        "n": 120,
        "agreement": 0.8333,
        "kappa": 0.6667,
        "kappa_ci95": [0.5333, 0.8],
        "confusion": {
            "judge_pass_human_pass": 50,
            "judge_pass_human_fail": 10,
            "judge_fail_human_pass": 10,
            "judge_fail_human_fail": 50,
        },
        "threshold": 0.6,
        "threshold_agreement": 0.9167,
        "scored": 120,
    }
    code, table = invoke("judge", "calibrate", labelled.run_id[:8], "--db", str(labelled.db))
    assert code == 0
    assert "stub/judge" in table
    assert "0.67 [0.53, 0.80]" in table
    assert "50 10 10 50" in table
    assert "0.6 (0.92)" in table


def test_filters_and_nothing_to_calibrate(labelled: Labelled, tmp_path: Path) -> None:
    db = str(labelled.db)
    code, out = invoke("judge", "calibrate", "--suite", "labelled", "--json", "--db", db)
    assert code == 0
    assert json.loads(out)["calibration"][0]["n"] == 120
    code, out = invoke("judge", "calibrate", "--criterion", "polite", "--db", db)
    assert code == 2
    assert "error: no reviews of answers the judge graded on 'polite'" in out
    code, out = invoke("judge", "calibrate", "--suite", "other", "--db", db)
    assert code == 2
    assert "error: no reviewed results of suite 'other'" in out
    code, out = invoke("judge", "calibrate", "nope", "--db", db)
    assert code == 2
    assert "no run 'nope'" in out
    assert "Traceback" not in out
    empty = tmp_path / "empty.sqlite"
    RunStore(empty)
    code, out = invoke("judge", "calibrate", "--db", str(empty))
    assert code == 2
    assert "review answers with `promptum view --review`" in out


def test_the_run_summary_warns_when_people_disagree_with_the_judge(
    labelled: Labelled, tmp_path: Path
) -> None:
    code, out = invoke("run", str(labelled.suite), "--no-cache", db=labelled.db)
    assert code == 1
    assert "agrees with people" not in out  # kappa 0.67: no warning
    disagreeing = tmp_path / "runs.sqlite"
    shutil.copy(labelled.db, disagreeing)
    store = RunStore(disagreeing)
    # People now call every answer of group A bad. The odd ones keep their review of the
    # criterion itself (good), which counts before a review of the whole result: 25 of A
    # turn bad. a=25, b=25+10=35, c=10, d=50; p_o = 75/120 = 0.625; people pass 35:
    # p_e = (60*35 + 60*85)/120^2 = 0.5; kappa = (0.625 - 0.5)/0.5 = 0.25 < 0.4, n >= 20;
    # SE = sqrt(0.625*0.375/(120*0.25)) = 0.0883883; 0.25 -+ 0.173238 = [0.08, 0.42].
    for result in store.load(labelled.run_id).results:
        if group(int(result.case_id[1:])) == "A":
            store.add_review(
                Review(labelled.run_id, result.key, None, result.model, 1, verdict="bad",
                       reviewer="cy", created_at=T0 + timedelta(days=1))
            )  # fmt: skip
    code, out = invoke("run", str(labelled.suite), "--no-cache", db=disagreeing)
    assert code == 1
    flat = " ".join(out.split())
    assert "warning: judge stub/judge agrees with people only at kappa 0.25 [0.08, 0.42]" in flat
    assert "(120 reviewed answers of suite 'labelled')" in flat
