"""A conversation's turn, and a Python `Prompt`, may attach an image: it is sent with that
message only, its digest is in the resume fingerprint, and a part a text-only model cannot
read is refused."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from promptum import Prompt, Session
from promptum.errors import ConfigError
from promptum.runner import plan_fingerprint
from promptum.suites import load_suite
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply
from tests.support.media import PNG, media

SUITE = """\
name: receipts
models: [{model}]
test_cases:
  - id: two-receipts
    turns:
      - query: Hello, I have receipts to check.
        checks: [{{type: contains, value: total}}]
      - query: {{text: "What is this one's total?", images: receipts/second.png}}
        checks: [{{type: contains, value: total}}]
"""


def _sent_parts(body: dict[str, object]) -> list[dict[str, object]]:
    """The non-text items of the last user message of an OpenAI chat request."""
    messages = body["messages"]
    assert isinstance(messages, list)
    content = messages[-1]["content"]
    return [item for item in content if item["type"] != "text"] if isinstance(content, list) else []


def test_a_turn_sends_its_image_with_its_own_message_only(server: FaultServer) -> None:
    server.default = Reply.ok("The total is 12.50")
    image = media(Path("receipts/second.png"), PNG, 500)
    write("suite.yaml", SUITE.format(model="fault/m"))
    result = invoke("run", "suite.yaml", "-c", "1")
    assert result.exit_code == 0, result.output
    first, second = (request.body for request in server.requests)
    assert _sent_parts(first) == []
    (sent,) = _sent_parts(second)
    url = sent["image_url"]["url"]  # type: ignore[index]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()
    # the first turn's message is replayed as it was sent: text alone
    assert second["messages"][0] == first["messages"][-1]  # type: ignore[index]


def test_a_turns_image_is_in_the_fingerprint_by_its_bytes(server: FaultServer) -> None:
    media(Path("receipts/second.png"), PNG, 500)
    write("suite.yaml", SUITE.format(model="fault/m"))
    before = plan_fingerprint(load_suite(Path("suite.yaml")).cases)
    media(Path("receipts/second.png"), PNG + b"other", 500)
    assert plan_fingerprint(load_suite(Path("suite.yaml")).cases) != before


def test_a_turns_image_for_the_embedded_model_is_a_located_error(server: FaultServer) -> None:
    media(Path("receipts/second.png"), PNG, 500)
    write("suite.yaml", SUITE.format(model="local/smollm2"))
    result = invoke("validate", "suite.yaml")
    assert result.exit_code == 2
    assert "turns[1].query" in result.output or "turns.1.query" in result.output
    assert "reads text only" in result.output


def test_a_python_prompt_sends_its_images_after_its_text(server: FaultServer) -> None:
    server.default = Reply.ok("The total is 3.90")
    image = media(Path("receipts/first.png"), PNG, 300)
    session = Session()
    session.add_test(
        Prompt(
            name="total",
            prompt="What is the total?",
            model="fault/m",
            images=["receipts/first.png"],
            checks=[{"type": "contains", "value": "total"}],
        )
    )
    run = session.run()
    assert [result.status for result in run.results] == ["pass"]
    ((sent,),) = [_sent_parts(request.body) for request in server.requests]
    url = sent["image_url"]["url"]  # type: ignore[index]
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()


def test_a_python_prompt_with_images_and_no_text_is_refused() -> None:
    with pytest.raises(ConfigError, match="images, documents and audio go with `prompt`"):
        Session().add_test(
            Prompt(name="x", messages=[{"role": "user", "content": "hi"}], images=["a.png"])
        )


def test_a_paths_glob_makes_one_case_per_image(server: FaultServer) -> None:
    server.default = Reply.ok("The total is 1")
    images = [media(Path(f"receipts/{n}.png"), PNG, 100 + n) for n in (1, 2)]
    write(
        "suite.yaml",
        """\
        name: receipts
        models: [fault/m]
        test_cases:
          - id: total
            vars: {receipt: {paths: "receipts/*.png"}}
            query: {text: What is the total?, images: "{{ receipt }}"}
            checks: [{type: contains, value: total}]
        """,
    )
    result = invoke("run", "suite.yaml", "-c", "1")
    assert result.exit_code == 0, result.output
    assert [case.id for case in load_suite(Path("suite.yaml")).cases] == ["total-1", "total-2"]
    sent = [_sent_parts(request.body)[0]["image_url"]["url"] for request in server.requests]  # type: ignore[index]
    decoded = sorted(base64.b64decode(url.split(",", 1)[1]) for url in sent)
    assert decoded == sorted(image.read_bytes() for image in images)
