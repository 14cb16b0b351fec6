"""Images, documents and audio in suites: `query:` mappings and `content` lists, checked as loaded.

Each part's file obeys the rules of every suite file and must be the type its extension
says; a part the named model or target cannot take is refused at load, located, exit 2.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from promptum.suites import load_suite
from promptum.values.content import ContentPart
from tests.support.cli import run_promptum, write
from tests.support.media import MP3, PDF, PNG, WAV, media
from tests.support.suites import load_error

HEAD = "models: [openai/gpt-4o]\n"


def _parts(path: Path) -> list[tuple[ContentPart, ...] | None]:
    """The parts of the last message of each case of the suite at `path`."""
    return [case.messages[-1].parts for case in load_suite(path).cases]


def test_a_query_mapping_sends_its_text_then_each_file(folder: Path) -> None:
    png, pdf = media(folder / "r/001.png", PNG), media(folder / "docs/terms.pdf", PDF)
    wav, mp3 = media(folder / "a.wav", WAV), media(folder / "b.mp3", MP3)
    suite = write(
        folder / "s.yaml",
        HEAD + "test_cases:\n  - id: one\n    query: {text: 'Total?', images: r/001.png, "
        "documents: [docs/terms.pdf], audio: [a.wav, b.mp3]}\n",
    )
    [case] = load_suite(suite).cases
    [message] = case.messages
    assert (message.role, message.content) == ("user", "Total?")
    assert message.parts is not None
    kinds = [(p.type, p.media_type, Path(p.file or "").name) for p in message.parts]
    assert kinds == [
        ("image", "image/png", "001.png"),
        ("document", "application/pdf", "terms.pdf"),
        ("audio", "audio/wav", "a.wav"),
        ("audio", "audio/mpeg", "b.mp3"),
    ]
    digests = [p.sha256 for p in message.parts]
    assert digests == [hashlib.sha256(f.read_bytes()).hexdigest() for f in (png, pdf, wav, mp3)]


def test_a_content_list_in_the_providers_shape_with_templated_files_and_urls(
    folder: Path,
) -> None:
    media(folder / "r/007.png", PNG)
    suite = write(
        folder / "s.yaml",
        HEAD + "test_cases:\n"
        "  - id: one\n"
        "    vars: {n: '007'}\n"
        "    messages:\n"
        "      - role: user\n"
        "        content:\n"
        "          - {type: text, text: 'Receipt {{ n }}:'}\n"
        "          - {type: image, file: 'r/{{ n }}.png'}\n"
        "          - {type: image, url: 'https://example.com/r.jpg'}\n",
    )
    [case] = load_suite(suite).cases
    [message] = case.messages
    assert message.content == "Receipt 007:"
    assert message.parts is not None
    first, second = message.parts
    assert first.file is not None
    assert first.file.endswith("007.png")
    assert (second.url, second.media_type, second.sha256) == (
        "https://example.com/r.jpg",
        "image/jpeg",
        None,
    )


def test_jsonl_rows_carry_their_own_files(folder: Path) -> None:
    for n in ("1", "2"):
        media(folder / f"r/{n}.png", PNG + n.encode())
    rows = [{"id": n, "query": {"text": "Total?", "images": [f"r/{n}.png"]}} for n in "12"]
    write(folder / "rows.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    suite = write(folder / "s.yaml", HEAD + "cases_from: rows.jsonl\n")
    digests = [parts[0].sha256 for parts in _parts(suite) if parts]
    assert len(set(digests)) == 2


def test_inline_base64_data_is_decoded_and_checked(folder: Path) -> None:
    import base64

    data = base64.b64encode(PNG + b"inline").decode()
    suite = write(
        folder / "s.yaml",
        HEAD + "test_cases:\n  - id: one\n    messages:\n      - role: user\n"
        f"        content: [{{type: image, data: '{data}', media_type: image/png}}]\n",
    )
    [parts] = _parts(suite)
    assert parts is not None
    assert parts[0].sha256 == hashlib.sha256(PNG + b"inline").hexdigest()
    assert parts[0].data == data


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("images: [missing.png]", "missing.png: cannot read the file: no such file or folder"),
        ("images: [fake.jpg]", "'fake.jpg': its bytes are PNG data, not JPEG as its type says"),
        ("images: [doc.pdf]", "'doc.pdf' is a document file, not an image"),
        ("images: [notes.txt]", "'notes.txt': an image part is a .jpg, .jpeg, .png, .gif"),
        ("documents: [fake.pdf]", "'fake.pdf': its bytes are not of a type a part may be"),
        ("documents: ['https://x.org/a.pdf']", "only an image may be a URL; give a `file`"),
        ("images: [out.png]", "outside the suite's folder and the working directory"),
        ("images: ['{{ nope }}.png']", "'nope' is undefined"),
    ],
)
def test_bad_files_are_located_errors(
    folder: Path, tmp_path_factory: pytest.TempPathFactory, query: str, expected: str
) -> None:
    media(folder / "fake.jpg", PNG)
    media(folder / "doc.pdf", PDF)
    media(folder / "fake.pdf", b"not a pdf")
    media(folder / "notes.txt", b"text")
    outside = media(tmp_path_factory.mktemp("elsewhere") / "x.png", PNG)
    (folder / "out.png").symlink_to(outside)
    suite = write(folder / "s.yaml", HEAD + f"test_cases:\n  - id: one\n    query: {{{query}}}\n")
    message = load_error(suite)
    assert "s.yaml:4:" in message
    assert "test_cases[0].query" in message
    assert expected in message


def test_a_file_over_the_limit_is_refused_until_the_machine_raises_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    media(folder / "big.png", PNG + bytes(2000))
    suite = write(
        folder / "s.yaml", HEAD + "test_cases:\n  - {id: one, query: {images: big.png}}\n"
    )
    monkeypatch.setenv("PROMPTUM_MAX_PART_BYTES", "1000")
    message = load_error(suite)
    assert "the file has 2,008 bytes, over the limit of 1,000" in message
    assert "PROMPTUM_MAX_PART_BYTES" in message
    monkeypatch.setenv("PROMPTUM_MAX_PART_BYTES", "4000")
    assert _parts(suite)[0] is not None


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("models: [local/smollm2]\n", "local/smollm2 (the embedded model) reads text only"),
        ("target: app.py:f\n", "a target is called with the messages' text only"),
        (
            "models: [anthropic/claude-sonnet-4-5]\n",
            "a.wav: anthropic/claude-sonnet-4-5 takes no audio",
        ),
    ],
    ids=["embedded-model", "target", "anthropic-audio"],
)
def test_parts_for_what_reads_text_only_are_refused_at_load(
    folder: Path, head: str, expected: str
) -> None:
    media(folder / "r.png", PNG)
    media(folder / "a.wav", WAV)
    query = "{images: r.png, audio: a.wav}"
    suite = write(folder / "s.yaml", head + f"test_cases:\n  - {{id: one, query: {query}}}\n")
    message = load_error(suite)
    assert "test_cases[0].query" in message
    assert expected in message


def test_only_a_user_message_carries_parts(folder: Path) -> None:
    media(folder / "r.png", PNG)
    suite = write(
        folder / "s.yaml",
        HEAD + "test_cases:\n  - id: one\n    messages:\n      - role: system\n"
        "        content: [{type: image, file: r.png}]\n      - {role: user, content: hi}\n",
    )
    assert "only a user message carries images, documents or audio" in load_error(suite)


def test_validate_exits_2_without_a_traceback(folder: Path) -> None:
    write(folder / "s.yaml", HEAD + "test_cases:\n  - {id: one, query: {images: gone.png}}\n")
    done = run_promptum("validate", "s.yaml", cwd=folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "s.yaml:3:" in done.stdout + done.stderr


def test_variants_chat_templates_carry_parts_per_row_and_a_query_brings_its_files(
    folder: Path,
) -> None:
    for n in ("001", "002", "003"):
        media(folder / f"r/{n}.png", PNG + n.encode())
    write(folder / "rows.csv", "id,n\none,001\ntwo,002\n")
    suite = write(
        folder / "s.yaml",
        HEAD + "prompts:\n"
        "  plain: 'Total of receipt {{ n }}?'\n"
        "  chat:\n"
        "    - role: user\n"
        "      content:\n"
        "        - {type: text, text: 'Receipt {{ n }}'}\n"
        "        - {type: image, file: 'r/{{ n }}.png'}\n"
        "cases_from: rows.csv\n"
        "test_cases:\n"
        "  - {id: q, vars: {n: '003'}, query: {text: this, images: r/001.png}}\n",
    )
    sent = {
        (case.id, case.variant): [Path(p.file or "").name for p in case.messages[-1].parts or ()]
        for case in load_suite(suite).cases
    }
    assert sent == {
        ("q", "plain"): ["001.png"],
        ("q", "chat"): ["003.png", "001.png"],
        ("one", "plain"): [],
        ("one", "chat"): ["001.png"],
        ("two", "plain"): [],
        ("two", "chat"): ["002.png"],
    }
