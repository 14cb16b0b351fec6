"""The judge is sent a case's images and documents when its model reads them, else says so."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from promptum.cases import JudgeConfig
from promptum.providers import ClientOptions
from promptum.runner import judge_request
from promptum.runner._judge import JUDGED_FROM, judged_from
from promptum.session import Session
from promptum.suites import load_suite
from tests.support.cli import write
from tests.support.fault_server import FaultServer, Reply
from tests.support.media import MP3, PDF, PNG, media

SUITE = """\
models: [fault/model]
judge: {model: fault/judge}
test_cases:
  - id: receipt
    query: {text: What is the total?, images: [r.png], documents: [terms.pdf]}
    expected_behavior: The total matches the receipt.
"""


def _judge_bodies(server: FaultServer) -> list[dict[str, object]]:
    return [r.body for r in server.requests if r.body.get("model") == "judge"]


def _data(url: str) -> bytes:
    return base64.b64decode(url.split(";base64,", 1)[1], validate=True)


def test_the_judges_request_carries_the_cases_parts_byte_for_byte(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    png = media(tmp_path / "r.png", PNG, 4000)
    pdf = media(tmp_path / "terms.pdf", PDF, 2500)
    suite = write(tmp_path / "suite.yaml", SUITE)
    server.queue(Reply.ok("The total is 6.25."), Reply.ok(json.dumps({"score": 9, "reason": "ok"})))
    session = Session(client_options=options, concurrency=1)
    session.add_suite(suite)

    [result] = session.run().results

    [body] = _judge_bodies(server)
    [message] = body["messages"]  # type: ignore[index]
    text, image, document = message["content"]
    assert "What is the total?" in text["text"]
    assert (
        "Attached: what the assistant was given besides its text (1 image, 1 document)"
        in (text["text"])
    )
    assert _data(image["image_url"]["url"]) == png.read_bytes()
    assert _data(document["file"]["file_data"]) == pdf.read_bytes()
    [grade] = result.of_kind("judge")
    assert grade.passed
    assert grade.details[JUDGED_FROM] == "text and 1 image, 1 document"


def test_a_text_only_judge_is_sent_no_part_and_its_grade_says_so(tmp_path: Path) -> None:
    media(tmp_path / "r.png", PNG, 100)
    media(tmp_path / "terms.pdf", PDF, 100)
    [case] = load_suite(write(tmp_path / "suite.yaml", SUITE)).cases
    local = JudgeConfig(model="local/smollm2")

    [message] = judge_request(local, case, "6.25").messages

    assert message.parts is None
    assert "Attached" not in message.content
    assert judged_from("local/smollm2", case) == "text only: 1 image, 1 document not shown"


def test_an_anthropic_judge_is_sent_the_image_but_not_the_audio(tmp_path: Path) -> None:
    media(tmp_path / "r.png", PNG, 100)
    media(tmp_path / "note.mp3", MP3, 100)
    text = SUITE.replace("documents: [terms.pdf]", "audio: [note.mp3]")
    [case] = load_suite(write(tmp_path / "suite.yaml", text)).cases
    claude = JudgeConfig(model="anthropic/claude-sonnet-4-5")

    [message] = judge_request(claude, case, "6.25").messages

    assert [part.type for part in message.parts or ()] == ["image"]
    assert judged_from(claude.model, case) == "text and 1 image: 1 audio clip not shown"


def test_a_case_of_text_alone_is_judged_as_before(tmp_path: Path) -> None:
    plain = SUITE.replace(
        "{text: What is the total?, images: [r.png], documents: [terms.pdf]}", "Hi"
    )
    [case] = load_suite(write(tmp_path / "suite.yaml", plain)).cases

    [message] = judge_request(JudgeConfig(model="fault/judge"), case, "Hello").messages

    assert message.parts is None
    assert "Attached" not in message.content
    assert judged_from("fault/judge", case) is None
