"""Flaky cases (passed on some repeats, failed on others) are named in every report."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

from report_samples import repeated_run

from promptum.reporting import render_report


def test_the_sample_case_is_flaky() -> None:
    statuses = [r.status for r in repeated_run().results]
    assert statuses == ["pass", "pass", "fail"]


def test_markdown_lists_flaky_cases() -> None:
    text = render_report(repeated_run(), "md")
    assert "### Flaky cases (1)" in text
    assert "**math** on local/smollm2: passed 2 of 3 repeats" in text


def test_html_lists_flaky_cases() -> None:
    page = render_report(repeated_run(), "html")
    assert '<section id="flaky">' in page
    assert "passed 2 of 3 repeats" in page


def test_csv_marks_every_row_of_a_flaky_case() -> None:
    rows = list(csv.DictReader(io.StringIO(render_report(repeated_run(), "csv"))))
    assert [row["flaky"] for row in rows] == ["2/3", "2/3", "2/3"]


def test_junit_names_flaky_cases_in_the_suite_properties() -> None:
    root = ET.fromstring(render_report(repeated_run(), "xml"))
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["flaky_cases"] == "math (2/3)"


def test_a_run_without_repeats_has_no_flaky_section() -> None:
    run = repeated_run()
    run.results = run.results[:1]
    assert "Flaky cases" not in render_report(run, "md")
    assert 'id="flaky"' not in render_report(run, "html")
