"""Writes through the viewer over real HTTP: a review, save as case, and every refusal."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode
from urllib.request import urlopen

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore
from promptum.suites import load_suite
from promptum.viewer import WriteAccess
from tests.reporting.report_samples import PWN
from tests.viewer.review_support import RUN, Served, make_project, post, serving, target

pytestmark = pytest.mark.slow  # a real uvicorn server on loopback


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, RunStore]:
    root = tmp_path / "project"
    root.mkdir()
    suite, store = make_project(root)
    return root, suite, store


@pytest.fixture
def served(project: tuple[Path, Path, RunStore]) -> Iterator[Served]:
    root, _, store = project
    with serving(store, root, WriteAccess("ada")) as served:
        yield served


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_review_is_stored_and_shows_in_runs_show(served: Served) -> None:
    status, body = post(
        served, "/api/reviews", {**target(), "verdict": "bad", "score": 0.1, "comment": PWN}
    )
    assert status == 201, body
    assert body["review"]["reviewer"] == "ada"
    [review] = served.store.reviews(RUN)
    assert (review.case_key, review.verdict, review.score, review.comment) == (
        "support/capital", "bad", 0.1, PWN,
    )  # fmt: skip
    shown = CliRunner().invoke(
        main, ["runs", "show", RUN, "--json", "--db", str(served.store.path)]
    )
    assert shown.exit_code == 0, shown.output
    [reviewed] = json.loads(shown.output)["reviewed"]
    assert (reviewed["case_id"], reviewed["repeat"]) == ("support/capital", 1)
    assert reviewed["reviews"][0]["comment"] == PWN


def test_a_criterion_override_is_stored(served: Served) -> None:
    body = {**target(), "criterion": "judge", "override": "fail", "reason": "names Lyon"}
    status, answer = post(served, "/api/reviews", body)
    assert status == 201, answer
    [review] = served.store.reviews(RUN)
    assert (review.criterion, review.override, review.reason) == ("judge", "fail", "names Lyon")


REFUSED = [
    ("no token", {"token": ""}, 403, "no X-Promptum-Token"),
    ("wrong token", {"token": "guess"}, 403, "a wrong X-Promptum-Token"),
    ("other origin", {"headers": {"Origin": "http://evil.example"}}, 403, "another origin"),
    ("other port", {"headers": {"Origin": "http://127.0.0.1:1"}}, 403, "another origin"),
    ("cross-site", {"headers": {"Sec-Fetch-Site": "cross-site"}}, 403, "another site"),
    ("same-site", {"headers": {"Sec-Fetch-Site": "same-site"}}, 403, "another site"),
    ("a form", {"headers": {"Content-Type": "text/plain"}}, 415, "must be JSON"),
    (
        "a urlencoded form",
        {"headers": {"Content-Type": "application/x-www-form-urlencoded"}},
        415,
        "must be JSON",
    ),
]


@pytest.mark.parametrize(("why", "how", "code", "says"), REFUSED, ids=[r[0] for r in REFUSED])
@pytest.mark.parametrize("path", ["/api/reviews", "/api/save-case"])
def test_a_write_that_is_not_the_viewers_own_is_refused(
    served: Served,
    project: tuple[Path, Path, RunStore],
    path: str,
    why: str,
    how: dict[str, object],
    code: int,
    says: str,
) -> None:
    _, suite, _ = project
    before = suite.read_bytes()
    body = {**target(), "verdict": "good", "sha256": _sha(suite), "kind": "contains",
            "value": "Paris"}  # fmt: skip
    status, answer = post(served, path, body, **how)  # type: ignore[arg-type]
    assert status == code, answer
    assert says in answer["error"]
    assert served.store.reviews(RUN) == []
    assert suite.read_bytes() == before


def test_the_own_origin_with_the_token_may_write(served: Served) -> None:
    own = {"Origin": served.url, "Sec-Fetch-Site": "same-origin"}
    status, answer = post(served, "/api/reviews", {**target(), "verdict": "good"}, headers=own)
    assert status == 201, answer


def test_a_read_only_viewer_writes_nothing(project: tuple[Path, Path, RunStore]) -> None:
    root, suite, store = project
    before = suite.read_bytes()
    with serving(store, root) as served:
        for path in ("/api/reviews", "/api/save-case"):
            status, answer = post(served, path, {**target(), "verdict": "good"}, token="x")
            assert status == 403, answer
            assert "read-only" in answer["error"]
            assert post(served, path, b"", method="GET")[0] == 405
        query = urlencode({k: v for k, v in target().items() if k != "run_id"})
        with urlopen(f"{served.url}/runs/{RUN}/result?{query}", timeout=10) as response:
            page = response.read().decode()
        assert 'id="answer-text"' in page
        assert "review-panel" not in page  # nothing to write with
        assert "<script>" not in page.split("</style>")[1].split("</main>")[1]
    assert store.reviews(RUN) == []
    assert suite.read_bytes() == before


BAD_REVIEWS = [
    ("no such result", {"case": "support/nope"}, 404, "has no result of case 'support/nope'"),
    ("no such repeat", {"repeat": 9}, 404, "repeat 9"),
    ("no such run", {"run_id": "run-nope"}, 404, "run-nope"),
    ("score above 1", {"score": 1.5}, 422, "score must be from 0 to 1"),
    ("score below 0", {"score": -0.1}, 422, "score must be from 0 to 1"),
    ("score not a number", {"score": "high"}, 422, "score must be a number"),
    ("comment too long", {"comment": "x" * 4001}, 422, "at most 4000"),
    ("override without reason", {"verdict": None, "override": "pass"}, 422, "needs a reason"),
    ("neither mark", {"verdict": None}, 422, "marks the result good or bad"),
    ("bad verdict", {"verdict": "meh"}, 422, "verdict must be"),
    ("unknown criterion", {"criterion": "tone"}, 422, "criterion 'tone' was not graded"),
    ("bad repeat", {"repeat": "two"}, 422, "repeat must be a whole number"),
]


@pytest.mark.parametrize(
    ("why", "change", "code", "says"), BAD_REVIEWS, ids=[r[0] for r in BAD_REVIEWS]
)
def test_a_bad_review_is_a_clear_4xx_and_writes_nothing(
    served: Served, why: str, change: dict[str, object], code: int, says: str
) -> None:
    status, answer = post(served, "/api/reviews", {**target(), "verdict": "good", **change})
    assert status == code, answer
    assert says in answer["error"]
    assert served.store.reviews(RUN) == []


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        (b"{not json", 400, "not JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (json.dumps({"comment": "x" * 70_000}).encode(), 413, "at most"),
    ],
)
def test_a_body_that_is_not_a_review_is_refused(
    served: Served, body: bytes, code: int, says: str
) -> None:
    status, answer = post(served, "/api/reviews", body)
    assert status == code, answer
    assert says in answer["error"]
    assert served.store.reviews(RUN) == []


def _save(served: Served, suite: Path, **change: object) -> tuple[int, dict[str, object]]:
    body = {**target(), "sha256": _sha(suite), "kind": "contains", "value": "Paris", **change}
    return post(served, "/api/save-case", body)


def test_save_as_case_appends_only_the_new_case(
    served: Served, project: tuple[Path, Path, RunStore]
) -> None:
    _, suite, _ = project
    before = suite.read_text()
    status, answer = _save(served, suite, id="capital-names-paris", value="Paris")
    assert status == 201, answer
    after = suite.read_text()
    cut = before.index("    tags: [smoke]\n") + len("    tags: [smoke]\n")  # the last case's end
    line = before[:cut].count("\n") + 1  # where the new case starts
    assert answer == {
        "id": "capital-names-paris", "file": os.path.join("suites", "support.yaml"), "line": line
    }  # fmt: skip
    assert after[:cut] == before[:cut]  # every byte before the new case is the file's own
    assert after[cut:].startswith(
        '  - id: capital-names-paris\n    query: "What is the capital of France?"\n    checks:\n'
    )
    assert after.endswith(before[cut:])  # and every byte after it
    done = CliRunner().invoke(main, ["validate", str(suite)])
    assert done.exit_code == 0, done.output
    loaded = {case.id: case for case in load_suite(suite).cases}
    checks = [(c.type, c.value) for c in loaded["capital-names-paris"].grading.checks]
    assert checks.count(("contains", "Paris")) == 2  # the case's own, and the reviewer's


def test_save_as_case_as_a_judge_rubric(
    served: Served, project: tuple[Path, Path, RunStore]
) -> None:
    _, suite, _ = project
    status, answer = _save(
        served, suite, case="support/greeting", kind="expected_behavior", value="Greets warmly."
    )
    assert status == 201, answer
    text = suite.read_text()
    assert "  - id: greeting-reviewed\n    query: |\n      Say hello\n      politely.\n" in text
    assert "    expected_behavior: Greets warmly.\n" in text
    done = CliRunner().invoke(main, ["validate", str(suite)])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    ("change", "code", "says"),
    [
        ({"sha256": "0" * 64}, 409, "changed since the page read it"),
        ({"id": "greeting"}, 409, "already has a case 'greeting'"),
        ({"case": "support/elsewhere"}, 403, "outside"),
        ({"case": "support/from-csv"}, 422, "YAML suites and case files only"),
        ({"case": "support/from-toml"}, 422, "YAML suites and case files only"),
        ({"case": "support/nope"}, 404, "has no result"),
        ({"kind": "regex"}, 422, "kind must be one of"),
        ({"value": " "}, 422, "give the expected text"),
        ({"id": "a\nb: c"}, 422, "id 'a\\nb: c'"),
    ],
)
def test_a_refused_save_writes_nothing(
    served: Served,
    project: tuple[Path, Path, RunStore],
    change: dict[str, object],
    code: int,
    says: str,
) -> None:
    root, suite, _ = project
    before = suite.read_bytes()
    status, answer = _save(served, suite, **change)
    assert status == code, answer
    assert says in str(answer["error"])
    assert suite.read_bytes() == before
    assert not (root.parent / "project-outside.yaml").exists()


def test_a_file_changed_after_the_page_read_it_is_not_overwritten(
    served: Served, project: tuple[Path, Path, RunStore]
) -> None:
    _, suite, _ = project
    shown = _sha(suite)
    suite.write_text(suite.read_text() + "# edited in the editor meanwhile\n")
    edited = suite.read_bytes()
    status, answer = _save(served, suite, sha256=shown)
    assert status == 409, answer
    assert suite.read_bytes() == edited


def test_save_as_case_into_a_new_suite_beside_it(
    served: Served, project: tuple[Path, Path, RunStore]
) -> None:
    _, suite, _ = project
    before = suite.read_bytes()
    status, answer = _save(served, suite, new_file="reviewed.yaml", kind="not_contains",
                           value="Lyon")  # fmt: skip
    assert status == 201, answer
    new = suite.parent / "reviewed.yaml"
    line = new.read_text().splitlines().index("  - id: capital-reviewed") + 1
    assert answer == {
        "id": "capital-reviewed", "file": os.path.join("suites", "reviewed.yaml"), "line": line
    }  # fmt: skip
    assert suite.read_bytes() == before  # the suite it came from is not touched
    done = CliRunner().invoke(main, ["validate", str(new)])
    assert done.exit_code == 0, done.output
    loaded = load_suite(new)
    assert loaded.name == "reviewed"  # its own name: both suites can run together
    [case] = loaded.cases
    assert [(c.type, c.value) for c in case.grading.checks][-1] == ("not_contains", "Lyon")
    assert "# the embedded model" in new.read_text()  # the settings' comments came along
    again, refused = _save(served, suite, new_file="reviewed.yaml")
    assert again == 409, refused
    assert "exists already" in str(refused["error"])


@pytest.mark.parametrize("name", ["../escape.yaml", "sub/dir.yaml", "notes.txt", "/tmp/x.yaml"])
def test_a_new_file_name_with_a_folder_or_another_suffix_is_refused(
    served: Served, project: tuple[Path, Path, RunStore], name: str
) -> None:
    _, suite, _ = project
    status, answer = _save(served, suite, new_file=name)
    assert status == 422, answer
    assert "without a folder" in str(answer["error"])
    assert sorted(p.name for p in suite.parent.iterdir()) == ["support.yaml"]
