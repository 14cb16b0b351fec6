"""The viewer answers a run reference it cannot resolve with 404, and a comparison of runs
sharing no cases with 400, each with the reason: never a 500."""

from __future__ import annotations

import http.client
import urllib.parse

import pytest

from tests.store.samples import GPT, LOCAL
from tests.viewer.conftest import Viewer


def _get(viewer: Viewer, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


def _reason(ref: str) -> str:
    if ref.startswith("%"):
        return "no run"
    if ref in MALFORMED:
        return "a whole number 0 or more"
    return "holds 3 run(s) (latest~2 is the oldest)"


HUGE = ["latest~99999999999999999999", f"latest~{2**63}", f"latest~{2**63 - 1}", "latest~3"]
MALFORMED = ["latest~-1", "latest~abc", "latest~"]


@pytest.mark.parametrize("ref", HUGE + MALFORMED)
def test_a_run_page_past_the_store_is_404(viewer: Viewer, ref: str) -> None:
    status, body = _get(viewer, "/runs/" + urllib.parse.quote(ref))
    assert status == 404, body
    assert _reason(ref) in body


@pytest.mark.parametrize("ref", HUGE + MALFORMED + ["%FF", "%ED%B2%80"])
@pytest.mark.parametrize("side", ["a", "b"])
def test_a_comparison_with_a_run_past_the_store_is_404(viewer: Viewer, ref: str, side: str) -> None:
    value = ref if ref.startswith("%") else urllib.parse.quote(ref)
    other = "b" if side == "a" else "a"
    status, body = _get(viewer, f"/compare?{side}={value}&{other}=run-base")
    assert status == 404, body
    assert _reason(ref) in body


def test_runs_sharing_no_cases_are_a_400_that_says_so(viewer: Viewer) -> None:
    # run-xss holds other cases than run-base: no delta to show.
    status, body = _get(viewer, "/compare?a=run-base&b=run-xss")
    assert status == 400, body
    assert "the runs share no cases" in body
    assert "+0.0 pp" not in body


def test_two_models_sharing_no_cases_are_a_400_that_says_so(viewer: Viewer) -> None:
    query = urllib.parse.urlencode({"a": "run-xss", "model_a": LOCAL, "model_b": GPT})
    status, body = _get(viewer, f"/compare?{query}")
    assert status == 400, body
    assert f"models {LOCAL} and {GPT} of run run-xss share no cases" in body
