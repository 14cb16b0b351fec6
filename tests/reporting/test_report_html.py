"""The HTML report as text: escaping, self-containment and the policy that backs them."""

from __future__ import annotations

import base64
import hashlib
import html as html_module
import re

from report_samples import IMG, MODELS, SCRIPT, completion, result, sample_run

from promptum.reporting import render_report
from promptum.values.run_result import RunResult


def test_hostile_strings_are_escaped(sample: RunResult) -> None:
    html = render_report(sample, "html")
    # Results reach the page in its JSON data block, with the characters of markup escaped.
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in html
    assert '\\"\\u003e\\u003cimg src=x onerror=alert(1)\\u003e' in html
    assert SCRIPT not in html
    assert IMG not in html
    assert "<img" not in html
    assert "<b>bad gateway" not in html
    assert "\\u003cb\\u003ebad gateway\\u003c/b\\u003e" in html
    # only the page's own two script elements: the data block and the code
    assert len(re.findall(r"<script\b", html)) == 2
    assert re.search(r"<script\b[^>]*src=", html) is None


def test_control_characters_are_shown_not_sent(sample: RunResult) -> None:
    html = render_report(sample, "html")
    assert re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", html) is None
    # shown as typed: the backslash is doubled inside the JSON data block
    assert "ok\\\\x00 then \\\\x1b[31mred\\\\x1b[0m" in html


def test_self_contained_with_a_strict_policy(sample: RunResult) -> None:
    html = render_report(sample, "html")
    assert re.search(r"<(link|img|iframe|object|embed)\b", html) is None
    assert re.search(r"<[^<>]*\s(src|href)=", html) is None
    assert "@import" not in html
    assert "url(" not in html
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None
    content = html_module.unescape(policy.group(1))
    directives = dict(d.strip().split(" ", 1) for d in content.split(";"))
    assert directives["default-src"] == "'none'"
    # the hashes allow exactly the page's own style and script, nothing injected
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    script = re.search(r"<script>(.*?)</script>", html, re.S)
    assert style is not None
    assert script is not None
    for directive, body in (("style-src", style.group(1)), ("script-src", script.group(1))):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert directives[directive] == f"'sha256-{digest}'"


def test_header_facts_and_chart(sample: RunResult) -> None:
    html = render_report(sample, "html")
    assert "<h1>geography &amp; safety &lt;demo&gt;</h1>" in html
    assert "20261130-091000-ab12" in html
    assert "2026-11-30 09:10 UTC" in html
    assert "42.5 s" in html
    assert html.count('class="bar-pass"') == len(MODELS)
    assert ">50.0%</text>" in html  # local/smollm2: 3 of 6 passed
    assert 'id="incomplete"' not in html


def test_incomplete_run_is_marked() -> None:
    run = sample_run(complete=False)
    html = render_report(run, "html")
    assert 'id="incomplete"' in html
    assert "holds the 7 results that did" in html
    run.planned_results = 18
    assert "holds the 7 of 18 results that did" in render_report(run, "html")


def test_text_that_utf8_cannot_hold_still_renders() -> None:
    model = MODELS[0]
    run = RunResult(
        run_id="r",
        models=[model],
        results=[result("c", model, completion("bad \ud800 half", model), prompt="\udfff")],
    )
    html = render_report(run, "html")
    html.encode("utf-8")
    assert "bad \ufffd half" in html
