from __future__ import annotations

import re

from report_samples import MODELS, completion, result

from promptum.reporting import render_report
from promptum.reporting._markdown import MAX_FAILURES
from promptum.values.run_result import RunResult


def test_summary_has_a_table_per_model_and_the_failures(sample: RunResult) -> None:
    text = render_report(sample, "md")
    assert text.startswith("## ❌ geography & safety \\<demo\\>: 8 of 18 passed\n")
    assert "**gate: FAIL — 10 of 18 results did not pass (7 failed, 3 errors)**" in text
    assert "| local/smollm2 | 50.0% | 3 | 3 | 0 | 8/9 | 2/3 | 0.62 | 420 ms | $0.0000 |" in text
    assert "### Failures (10)" in text
    assert (
        '- ❌ **json-profile** on local/smollm2: assertion role: "admin" matches the attack '
        "target, the injection succeeded"
    ) in text
    assert "- ⚠️ **control-chars** on anthropic/claude-3-5-haiku: error: upstream said:" in text
    assert "Incomplete" not in text


def test_model_text_cannot_inject_markdown_or_html(sample: RunResult) -> None:
    text = render_report(sample, "md")
    assert re.search(r"(?<!\\)[<>`\[\]]", text) is None  # nothing unescaped that makes HTML/links
    assert "\\<img src=x onerror=alert(1)\\>" in text
    assert "\x00" not in text
    # one line per failure: a newline in a reason cannot break out of the list
    model = MODELS[0]
    run = RunResult(
        run_id="r", models=[model],
        results=[result("x", model, completion("no", model), prompt="p",
                        checks=[{"type": "contains", "value": "a\n# heading | @everyone"}])],
    )  # fmt: skip
    failure = render_report(run, "md").split("### Failures (1)\n\n")[1]
    assert failure.count("\n") == 1
    assert "\\| \\@\u2060everyone" in failure


def test_model_text_cannot_become_a_link_without_markdown() -> None:
    model = MODELS[0]
    said = "Log in at https://evil.example/login, WWW.evil.example or ops@evil.example"
    run = RunResult(
        run_id="r", models=[model],
        results=[result("x", model, completion(said, model), prompt="p",
                        checks=[{"type": "contains", "value": "Paris"}])],
    )  # fmt: skip
    text = render_report(run, "md")
    # GitHub links a scheme's ://, www. and an email's @ in plain text: none is left whole
    assert re.search(r"://|www\.|@(?!\u2060)", text, re.IGNORECASE) is None
    assert "https:\u2060//evil.example/login" in text  # reads the same


def test_incomplete_run_is_marked(sample: RunResult) -> None:
    sample.complete = False
    sample.results = [r for r in sample.results if r.status == "pass"]
    sample.planned_results = 18
    text = render_report(sample, "md")
    assert text.startswith("## ❌ geography & safety \\<demo\\>: 8 of 8 passed, 10 of 18 not run\n")
    assert (
        "**Incomplete run**: interrupted before every case finished; 8 of 18 results kept." in text
    )
    sample.planned_results = None  # results alone (a JSONL file): not said to be interrupted
    text = render_report(sample, "md")
    assert text.startswith("## ❌ geography & safety \\<demo\\>: 8 of 8 passed (incomplete)\n")
    assert "**Incomplete run**: not every case is known to have finished; 8 results kept." in text


def test_long_failure_lists_are_cut(sample: RunResult) -> None:
    failing = [r for r in sample.results if r.status != "pass"]
    sample.results = [
        r.model_copy(update={"case_id": f"{r.case_id}-{i}"}) for i in range(10) for r in failing
    ]
    text = render_report(sample, "md")
    assert text.count("\n- ") == MAX_FAILURES
    assert f"…and {len(sample.results) - MAX_FAILURES} more" in text


def test_all_passed() -> None:
    model = MODELS[0]
    run = RunResult(
        run_id="r", suite="ok", models=[model],
        results=[result("x", model, completion("yes", model), prompt="p")],
    )  # fmt: skip
    text = render_report(run, "md")
    assert text.startswith("## ✅ ok: 1 of 1 passed")
    assert "Failures" not in text


def test_every_failure_of_a_repeated_run_names_its_repeat() -> None:
    model = MODELS[0]
    run = RunResult(
        run_id="r", models=[model],
        results=[
            result("x", model, completion("no", model), prompt="p", repeat=repeat,
                   checks=[{"type": "contains", "value": "yes"}])
            for repeat in range(1, 3)
        ],
    )  # fmt: skip
    failures = render_report(run, "md").split("### Failures (2)\n\n")[1].splitlines()
    assert failures[0].startswith("- ❌ **x** (repeat 1) on local/smollm2")
    assert failures[1].startswith("- ❌ **x** (repeat 2) on local/smollm2")


def test_a_model_without_a_price_shows_no_cost_not_zero() -> None:
    model = "acme/m1"  # no price: its calls report no cost
    run = RunResult(
        run_id="r", suite="s", models=[model],
        results=[result("x", model, completion("yes", model, cost_usd=None), prompt="p")],
    )  # fmt: skip
    [stats] = run.stats().values()
    assert stats.spent is None
    text = render_report(run, "md")
    assert "| 420 ms | – |" in text
    assert " · cost –" in text
    html = render_report(run, "html")
    assert "<dt>Cost</dt><dd>–" in html
    assert "$0" not in text + html
