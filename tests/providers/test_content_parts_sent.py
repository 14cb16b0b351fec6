"""Content parts reach each provider in its documented shape, byte for byte after base64.

The fault server on 127.0.0.1 records every request body; the parts are project files read
as the request is sent, URLs passed through, and inline data sent as given.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.values.case_result import Message
from promptum.values.completion import Completion
from promptum.values.content import ContentPart, PartKind
from tests.support.fault_server import FaultServer, fault_server
from tests.support.media import MP3, PDF, PNG, WAV, media

OPENAI, ANTHROPIC = "faulty/m", "faultyclaude/claude-x"


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def _file_part(path: Path, kind: PartKind, media_type: str) -> ContentPart:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return ContentPart(type=kind, media_type=media_type, file=str(path), sha256=digest)


def _send(server: FaultServer, model: str, *parts: ContentPart) -> tuple[Completion, Any]:
    """Send "Read this." with `parts` to `model`; the completion and the body the server got."""
    endpoints = {
        "faulty": EndpointConfig(base_url=server.base_url),
        "faultyclaude": EndpointConfig(kind="anthropic", base_url=server.root_url, api_key="k"),
    }
    client = ModelClient(ClientOptions(endpoints=endpoints, cache=False, max_retries=0))
    message = Message(role="user", content="Read this.", parts=parts)
    completion = _completed(client, ModelRequest(model=model, messages=(message,), max_tokens=10))
    return completion, server.requests[-1].body if server.requests else None


def _completed(client: ModelClient, request: ModelRequest) -> Completion:
    """The completion of `request`, the client closed after it (a call fails as a value)."""

    async def run() -> Completion:
        completion = await client.complete(request)
        await client.aclose()
        return completion

    return asyncio.run(run())


def _openai_bytes(item: dict[str, Any]) -> bytes:
    """The bytes an OpenAI content item carries, decoded from its data URL or base64."""
    if item["type"] == "input_audio":
        return base64.b64decode(item["input_audio"]["data"], validate=True)
    url = item["image_url"]["url"] if item["type"] == "image_url" else item["file"]["file_data"]
    return base64.b64decode(url.split(";base64,", 1)[1], validate=True)


def test_openai_gets_image_url_input_audio_and_file_items(
    server: FaultServer, tmp_path: Path
) -> None:
    png = media(tmp_path / "r.png", PNG, 5000)
    pdf = media(tmp_path / "terms.pdf", PDF, 3000)
    wav, mp3 = media(tmp_path / "a.wav", WAV, 700), media(tmp_path / "b.mp3", MP3, 900)
    completion, body = _send(
        server,
        OPENAI,
        _file_part(png, "image", "image/png"),
        _file_part(pdf, "document", "application/pdf"),
        _file_part(wav, "audio", "audio/wav"),
        _file_part(mp3, "audio", "audio/mpeg"),
    )
    assert completion.ok, completion.error
    text, image, document, audio, audio2 = body["messages"][0]["content"]
    assert text == {"type": "text", "text": "Read this."}
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert document["file"]["filename"] == "terms.pdf"
    assert document["file"]["file_data"].startswith("data:application/pdf;base64,")
    assert (audio["input_audio"]["format"], audio2["input_audio"]["format"]) == ("wav", "mp3")
    sent = [_openai_bytes(item) for item in (image, document, audio, audio2)]
    assert sent == [path.read_bytes() for path in (png, pdf, wav, mp3)]


def test_anthropic_gets_image_and_document_blocks_with_base64_sources(
    server: FaultServer, tmp_path: Path
) -> None:
    png, pdf = media(tmp_path / "r.png", PNG, 4000), media(tmp_path / "t.pdf", PDF, 2000)
    image, document = (
        _file_part(png, "image", "image/png"),
        _file_part(pdf, "document", "application/pdf"),
    )
    completion, body = _send(server, ANTHROPIC, image, document)
    assert completion.ok, completion.error
    text, image_block, document_block = body["messages"][0]["content"]
    assert text == {"type": "text", "text": "Read this."}
    assert (image_block["type"], document_block["type"]) == ("image", "document")
    for block, path, media_type in (
        (image_block, png, "image/png"),
        (document_block, pdf, "application/pdf"),
    ):
        source = block["source"]
        assert (source["type"], source["media_type"]) == ("base64", media_type)
        assert base64.b64decode(source["data"], validate=True) == path.read_bytes()


def test_an_image_url_is_passed_on_not_fetched(server: FaultServer) -> None:
    url = "https://example.com/receipt.jpg"
    part = ContentPart(type="image", media_type="image/jpeg", url=url)
    _, openai_body = _send(server, OPENAI, part)
    assert openai_body["messages"][0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": url},
    }
    _, anthropic_body = _send(server, ANTHROPIC, part)
    assert anthropic_body["messages"][0]["content"][1] == {
        "type": "image",
        "source": {"type": "url", "url": url},
    }


def test_inline_data_is_sent_as_given(server: FaultServer) -> None:
    data = base64.b64encode(PNG + b"inline").decode()
    digest = hashlib.sha256(PNG + b"inline").hexdigest()
    part = ContentPart(type="image", media_type="image/png", data=data, sha256=digest)
    _, body = _send(server, OPENAI, part)
    assert body["messages"][0]["content"][1]["image_url"]["url"] == f"data:image/png;base64,{data}"


def test_a_file_changed_since_loading_fails_its_call_naming_it(
    server: FaultServer, tmp_path: Path
) -> None:
    png = media(tmp_path / "r.png", PNG, 100)
    part = _file_part(png, "image", "image/png")
    png.write_bytes(PNG + b"other bytes")
    completion, body = _send(server, OPENAI, part)
    assert body is None  # nothing sent
    assert completion.error is not None
    assert f"image {png}: the file changed since the suite was loaded" in completion.error


def test_audio_to_anthropic_is_an_error_naming_the_part(
    server: FaultServer, tmp_path: Path
) -> None:
    wav = media(tmp_path / "note.wav", WAV, 100)
    completion, body = _send(server, ANTHROPIC, _file_part(wav, "audio", "audio/wav"))
    assert body is None
    assert completion.error is not None
    assert f"audio {wav}: Anthropic's models take no audio" in completion.error


def test_the_embedded_model_refuses_parts_rather_than_drop_them(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    png = media(tmp_path / "r.png", PNG, 100)
    client = ModelClient(ClientOptions(cache=False, max_retries=0))
    part = _file_part(png, "image", "image/png")
    message = Message(role="user", content="Read this.", parts=(part,))
    completion = _completed(client, ModelRequest(model="local/smollm2", messages=(message,)))
    assert completion.error is not None
    assert f"image {png}: the embedded model reads text only" in completion.error
