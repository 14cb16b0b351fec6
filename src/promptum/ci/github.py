"""The GitHub Action's logic: run the suites, compare with the base branch, comment, decide.

Run by ``action.yml`` as ``python -P -m promptum.ci.github``; its inputs arrive as ``INPUT_*``
environment variables, GitHub's facts as the usual ``GITHUB_*`` ones. Steps:

1. ``promptum run`` the suites, writing results.json, report.html, junit.xml, summary.md;
2. find the baseline: the ``baseline`` input, else the newest ``promptum-baseline``
   artifact uploaded by a run on the pull request's base branch;
3. ``promptum compare BASELINE results.json --fail-on-regression`` into compare.md;
4. write the job summary and create or update one sticky pull request comment;
5. set the step outputs, and exit 1 when the gate chosen by ``fail-on`` failed.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shlex
import subprocess
import sys
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from promptum.ci._github_api import GitHubClient, GitHubError

MARKER = "<!-- promptum-report -->"
"""Hidden in the sticky comment's body: how the next run finds the comment to update."""
RESULTS_IN_ARTIFACT = "results.json"
FAIL_ON = ("regression", "run", "any", "never")
_COMMENT_LIMIT = 60_000
"""GitHub refuses comments over 65,536 characters."""


@dataclass(frozen=True, slots=True)
class Inputs:
    """The action's inputs."""

    suites: list[str]
    args: list[str]
    reports: Path
    baseline: Path | None
    baseline_artifact: str
    fail_on: str
    max_regressed: str
    comment: bool

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Inputs:
        """Read the ``INPUT_*`` variables action.yml sets; a bad value stops the step."""

        def get(name: str, default: str = "") -> str:
            return env.get(f"INPUT_{name}", "").strip() or default

        fail_on = get("FAIL_ON", "regression")
        if fail_on not in FAIL_ON:
            raise SystemExit(
                f"::error::fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}"
            )
        suites = get("SUITES").split()
        if not suites:
            raise SystemExit("::error::give the suites to run: `with: suites: prompts/*.yaml`")
        max_regressed = get("MAX_REGRESSED")
        if max_regressed and not max_regressed.isdigit():  # compare would refuse it, ungated
            raise SystemExit(
                f"::error::max-regressed must be a whole number of cases, not {max_regressed!r}"
            )
        baseline = get("BASELINE")
        return cls(
            suites=suites,
            args=shlex.split(get("ARGS")),
            reports=Path(get("REPORTS_DIR", "promptum-reports")),
            baseline=Path(baseline) if baseline else None,
            baseline_artifact=get("BASELINE_ARTIFACT", "promptum-baseline"),
            fail_on=fail_on,
            max_regressed=max_regressed,
            comment=get("COMMENT", "true").lower() not in ("false", "no", "0", "off"),
        )


def _promptum(*args: str) -> int:
    """Run a promptum command, its output going to the job's log."""
    sys.stdout.flush()
    # -P: the working directory (the pull request's files) stays off the Python path.
    command = [sys.executable, "-P", "-m", "promptum", *args]
    return subprocess.run(command, check=False).returncode


def _suite_paths(patterns: Sequence[str]) -> list[str]:
    """The suites the inputs name: globs expanded, other paths kept for promptum to judge."""
    paths: list[str] = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True))
        paths += matches or [pattern]
    return paths


def _event(env: Mapping[str, str]) -> dict[str, object]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _pull_request(event: Mapping[str, object]) -> tuple[int, str] | None:
    """The pull request's number and base branch, when the event is about one."""
    pull = event.get("pull_request")
    if not isinstance(pull, dict):
        return None
    base = pull.get("base")
    branch = base.get("ref") if isinstance(base, dict) else None
    return int(pull["number"]), str(branch or "")


def _fetch_baseline(
    client: GitHubClient, artifact: str, branch: str, target: Path
) -> tuple[Path | None, str]:
    """The base branch's last results, downloaded; or None, with why, for the comment."""
    try:
        found = client.latest_artifact(artifact, branch)
        if found is None:
            return None, f"no `{artifact}` artifact from a run on `{branch}` was found"
        archive = zipfile.ZipFile(io.BytesIO(client.download(found.download_url)))
        names = [n for n in archive.namelist() if Path(n).name == RESULTS_IN_ARTIFACT]
        if not names:
            return None, f"the `{artifact}` artifact holds no {RESULTS_IN_ARTIFACT}"
        target.write_bytes(archive.read(names[0]))
    except (GitHubError, zipfile.BadZipFile, OSError) as exc:
        print(f"::warning::promptum: the baseline could not be fetched: {exc}")
        return None, f"the baseline could not be fetched: {exc}"
    return target, f"the last run on `{branch}` (artifact {found.id}, {found.created_at})"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _comment_body(
    summary: str, comparison: str, baseline_note: str, run_url: str, run_code: int
) -> str:
    parts = [MARKER]
    if summary:
        parts.append(summary.strip())
    elif run_code == 2:
        parts.append("## ❌ promptum could not run the suites\n\nSee the job's log.")
    if comparison:
        parts.append(f"<details open><summary>Compared with {baseline_note}</summary>\n")
        parts.append(comparison.strip().replace("## promptum compare", "### promptum compare"))
        parts.append("</details>")
    else:
        parts.append(f"_No comparison: {baseline_note}._")
    if run_url:
        parts.append(f"[The HTML report and the results]({run_url}) are the run's artifacts.")
    body = "\n\n".join(parts) + "\n"
    if len(body) > _COMMENT_LIMIT:
        body = body[:_COMMENT_LIMIT] + "\n\n… cut short: see the HTML report.\n"
    return body


def _write_outputs(env: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        for name, value in outputs.items():
            out.write(f"{name}={value}\n")


def _pass_rate(results: Path) -> str:
    if not results.is_file():
        return ""
    from promptum.reporting import load_run

    return f"{load_run(results).pass_rate:.4f}"


def failed(fail_on: str, run_code: int, compare_code: int | None) -> bool:
    """Whether the job fails, by `fail_on`; a run that could not start (exit 2) always fails.

    ``regression``: the comparison's gate (without a baseline, the run's own); ``run``: the
    run's gate; ``any``: either; ``never``.
    """
    if run_code not in (0, 1):
        return True
    regressed = compare_code == 1
    if fail_on == "regression":
        return regressed if compare_code is not None else run_code == 1
    if fail_on == "run":
        return run_code == 1
    if fail_on == "any":
        return run_code == 1 or regressed
    return False


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the action's steps; the exit status of the job step."""
    env = os.environ if env is None else env
    inputs = Inputs.from_env(env)
    reports = inputs.reports
    results, summary, comparison = (
        reports / "results.json",
        reports / "summary.md",
        reports / "compare.md",
    )
    run_code = _run(inputs, results, summary, comparison)
    pull = _pull_request(_event(env))
    client = GitHubClient(
        env.get("GITHUB_API_URL", "https://api.github.com"),
        env.get("GITHUB_REPOSITORY", ""),
        env.get("GITHUB_TOKEN") or None,
    )
    baseline, note = _baseline(inputs, client, pull)
    compare_code, note = _compare(inputs, baseline, results, comparison, note)
    body = _comment_body(_read(summary), _read(comparison), note, _run_url(env), run_code)
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as out:
            out.write(body.replace(MARKER + "\n\n", "", 1))
    comment_url = _comment(client, pull[0], body) if pull is not None and inputs.comment else ""
    _write_outputs(
        env,
        {
            "exit-code": str(run_code),
            "pass-rate": _pass_rate(results),
            "regressed": "true" if compare_code == 1 else "false",
            "baseline": str(baseline or ""),
            "results": str(results) if results.is_file() else "",
            "comment-url": comment_url,
            "report-dir": str(reports),
        },
    )
    return 1 if failed(inputs.fail_on, run_code, compare_code) else 0


def _run(inputs: Inputs, results: Path, summary: Path, comparison: Path) -> int:
    """Step 1: `promptum run` the suites into the reports folder, cleared of a past run's files."""
    inputs.reports.mkdir(parents=True, exist_ok=True)
    for stale in (results, summary, comparison):
        stale.unlink(missing_ok=True)
    return _promptum(
        "run",
        *_suite_paths(inputs.suites),
        "-o", str(results),
        "-o", str(inputs.reports / "report.html"),
        "-o", str(inputs.reports / "junit.xml"),
        "--summary-md", str(summary),
        *inputs.args,
    )  # fmt: skip


def _baseline(
    inputs: Inputs, client: GitHubClient, pull: tuple[int, str] | None
) -> tuple[Path | None, str]:
    """Step 2: the baseline's results, or None; and how the comment names it (or why none)."""
    baseline = inputs.baseline
    if baseline is not None and not baseline.is_file():
        print(f"::warning::promptum: the baseline {baseline} does not exist")
        return None, f"the baseline file {baseline} does not exist"
    if baseline is not None:
        return baseline, "the baseline given"
    if pull is None:
        return None, "no baseline for a run outside a pull request"
    target = inputs.reports / "baseline.json"
    return _fetch_baseline(client, inputs.baseline_artifact, pull[1], target)


def _compare(
    inputs: Inputs, baseline: Path | None, results: Path, comparison: Path, note: str
) -> tuple[int | None, str]:
    """Step 3: the comparison's gate (None without one), and the baseline's note updated."""
    if baseline is None or not results.is_file():
        return None, note
    gate = ["--fail-on-regression"]
    if inputs.max_regressed:
        gate += ["--max-regressed", inputs.max_regressed]
    code = _promptum("compare", str(baseline), str(results), *gate, "-o", str(comparison))
    if code in (0, 1):
        return code, note
    print("::warning::promptum: the comparison with the baseline failed (see above)")
    comparison.unlink(missing_ok=True)
    return None, f"{note}: the comparison failed (see the job's log)"


def _run_url(env: Mapping[str, str]) -> str:
    """The page of this workflow run, or "" when GitHub's variables do not say it."""
    server, repository, run_id = (
        env.get("GITHUB_SERVER_URL", "https://github.com"),
        env.get("GITHUB_REPOSITORY", ""),
        env.get("GITHUB_RUN_ID", ""),
    )
    return f"{server}/{repository}/actions/runs/{run_id}" if repository and run_id else ""


def _comment(client: GitHubClient, number: int, body: str) -> str:
    """Step 4: create or update the pull request's sticky comment; its URL, or "" if refused."""
    try:
        action, comment_url = client.upsert_comment(number, MARKER, body)
    except GitHubError as exc:
        # A pull request from a fork gets a read-only token: the job summary remains.
        print(f"::warning::promptum: the pull request comment was not written: {exc}")
        return ""
    print(f"promptum: {action} the pull request comment {comment_url}")
    return comment_url


if __name__ == "__main__":
    raise SystemExit(main())
