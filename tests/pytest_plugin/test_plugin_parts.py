"""A suite case whose query attaches an image runs under pytest and sends the image as is."""

from __future__ import annotations

import base64

import pytest

from tests.pytest_plugin.plugin_project import Servers, write_project
from tests.support.fault_server import Reply
from tests.support.media import PNG, media

RECEIPTS = """\
name: receipts
models: [fault/m]
test_cases:
  - id: total
    query: {text: "What is the total?", images: [receipts/001.png]}
    checks: [{type: contains, value: "12.50"}]
"""


def test_a_cases_image_is_sent_byte_for_byte(pytester: pytest.Pytester, servers: Servers) -> None:
    servers.ok.default = Reply.ok("The total is 12.50")
    write_project(pytester, {"receipts.yaml": RECEIPTS})
    image = media(pytester.path / "prompts" / "receipts" / "001.png", PNG, 2000)
    result = pytester.runpytest("-v", "-p", "no:randomly", "--promptum-no-store")
    result.stdout.fnmatch_lines(["prompts/receipts.yaml::receipts/total[[]fault/m[]] PASSED*"])
    result.assert_outcomes(passed=1)
    (request,) = servers.ok.requests
    text, sent = request.body["messages"][-1]["content"]
    assert text == {"type": "text", "text": "What is the total?"}
    assert sent["type"] == "image_url"
    url = sent["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()


def test_an_image_missing_fails_the_collection_with_its_place(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester, {"receipts.yaml": RECEIPTS})
    result = pytester.runpytest("-p", "no:randomly", "--promptum-no-store")
    result.stdout.fnmatch_lines(
        ["prompts/receipts.yaml:5:*: test_cases[[]0[]].query.images[[]0[]]: *cannot read the file*"]
    )
    assert result.ret != 0
    assert "Traceback" not in result.stdout.str()
    assert servers.ok.requests == []
