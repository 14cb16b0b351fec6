"""`promptum import traces`: production calls (OTLP GenAI spans, chat logs) become cases."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum.importers.traces._mask import Masker
from promptum.suites import load_suite
from tests.support.cli import invoke, usage_error
from tests.support.fault_server import FaultServer, Reply, fault_server

DATA = Path(__file__).parents[1] / "data" / "traces"


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh working folder holding a copy of the trace files."""
    monkeypatch.chdir(tmp_path)
    for source in DATA.iterdir():
        shutil.copy(source, tmp_path / source.name)
    return tmp_path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Iterator[FaultServer]:
    """A fake OpenAI-compatible server answering `fake/...` models."""
    with fault_server() as running:
        monkeypatch.setenv("PROMPTUM_FAKE_BASE_URL", running.base_url)
        yield running


def _cases(suite: Path) -> dict[str, dict[str, Any]]:
    return {case["id"]: case for case in yaml.safe_load(suite.read_text())["test_cases"]}


def test_otlp_genai_spans_become_cases_that_validate(folder: Path) -> None:
    done = invoke("import", "traces", "otlp_genai.jsonl", "-o", "suite.yaml")
    assert done.exit_code == 0, done.output
    cases = _cases(folder / "suite.yaml")
    # The HTTP and execute_tool spans are passed over, the repeated request is kept once, the
    # span whose content was not captured is left out, located.
    assert sorted(cases) == [
        "span-00f067aa0ba902b7",
        "span-b7ad6b7169203331",
        "span-c3b1a2d4e5f60718",
        "span-d4c2b3a1f0e9d8c7",
    ]
    assert "6 calls read (1 duplicate of an earlier request, 2 other spans passed over)" in (
        done.output
    )
    assert "left out 1: the span has no messages" in done.output
    assert "(first at otlp_genai.jsonl:2: resourceSpans[0].scopeSpans[0].spans[3]" in done.output

    called = cases["span-00f067aa0ba902b7"]
    assert called["checks"] == [{"type": "tool_called", "value": "get_weather"}]
    assert called["tools"][0]["function"]["name"] == "get_weather"
    assert 'calls get_weather with {"location": "Paris"}' in called["expected_behavior"]
    assert called["tags"] == [
        "imported",
        "model:gpt-4o-mini",
        "trace:4bf92f3577b34da6a3ce929d0e0e4736",
        "span:00f067aa0ba902b7",
    ]
    turns = cases["span-b7ad6b7169203331"]["messages"]  # a tool call answered, then the reply
    assert [m["role"] for m in turns] == ["system", "user", "assistant", "tool"]
    assert turns[2]["tool_calls"] == [
        {
            "name": "get_weather",
            "id": "call_VSPygqKTWdrhaFErNvMV18Yl",
            "arguments": {"location": "Paris"},
        }
    ]
    assert turns[3] == {
        "role": "tool",
        "tool_call_id": "call_VSPygqKTWdrhaFErNvMV18Yl",
        "content": "rainy, 57°F",
    }
    assert "It's rainy and 57°F in Paris." in cases["span-b7ad6b7169203331"]["expected_behavior"]
    assert invoke("validate", "suite.yaml").exit_code == 0


def test_older_conventions_and_template_like_text_are_replayed_as_written(folder: Path) -> None:
    assert invoke("import", "traces", "otlp_genai.jsonl", "-o", "suite.yaml").exit_code == 0
    older = {case.id: case for case in load_suite(folder / "suite.yaml").cases}
    translated = older["span-d4c2b3a1f0e9d8c7"]  # gen_ai.content.prompt/completion events
    assert [(m.role, m.content) for m in translated.messages] == [
        ("system", "Translate to French."),
        ("user", "Good morning, {{ name }}!"),
    ]
    assert translated.grading.expected_behavior is not None
    assert translated.grading.expected_behavior.endswith("Bonjour, {{ name }} !")


def test_a_secret_and_personal_data_are_masked_unless_asked_not_to(folder: Path) -> None:
    done = invoke("import", "traces", "otlp_genai.jsonl", "chat_log.jsonl", "-o", "suite.yaml")
    assert done.exit_code == 0, done.output
    text = (folder / "suite.yaml").read_text()
    for secret in ("sk-proj-Xy12ab34CD56ef78GH90ij", "ada.lovelace@example.com", "7946 0958"):
        assert secret not in text
    for secret in ("sk-live-4eC39HqLyjWDarjtT1zdp7dc", "555-867-5309"):
        assert secret not in text
    said = [
        m["content"] for case in _cases(folder / "suite.yaml").values() for m in case["messages"]
    ]
    assert (
        "My card was charged twice. My OpenAI key [MASKED:api-key] is in the config, email me "
        "at [MASKED:email] or call [MASKED:phone]."
    ) in said
    assert (
        "Why does my call fail? I send Authorization: [MASKED:bearer-token] with curl; my "
        "number is [MASKED:phone]."
    ) in said
    assert "masked: 1 api-key, 1 bearer-token, 1 email, 2 phone" in done.output

    kept = invoke("import", "traces", "otlp_genai.jsonl", "-o", "kept.yaml", "--no-mask")
    assert "masked: off" in kept.output
    assert "sk-proj-Xy12ab34CD56ef78GH90ij" in (folder / "kept.yaml").read_text()


LABELLED_SECRETS = {
    "env-name": ("DB_PASSWORD=supersecret99", "DB_PASSWORD=[MASKED:password]"),
    "env-token": ("GITHUB_TOKEN=abcdef123456", "GITHUB_TOKEN=[MASKED:password]"),
    "env-api-key": ("PROMPTUM_X_API_KEY=px-SECRETXKEY456", "PROMPTUM_X_API_KEY=[MASKED:password]"),
    "env-secret": ("export MY_SECRET=topsecret123", "export MY_SECRET=[MASKED:password]"),
    "yaml": ("db_password: xyz-xyz", "db_password: [MASKED:password]"),
    "dotted": ("user.password=hunter22", "user.password=[MASKED:password]"),
    "snake-api-key": ("x_api_key=abcdefgh", "x_api_key=[MASKED:password]"),
    "header-api-key": ("x-api-key: abcdefgh", "x-api-key: [MASKED:password]"),
    "client-secret": ("client_secret=abcdefgh1", "client_secret=[MASKED:password]"),
    "secret-key": ('SECRET_KEY="django-insecure-1"', 'SECRET_KEY="[MASKED:password]"'),
    "private-key": ("PRIVATE_KEY=0xdeadbeef00", "PRIVATE_KEY=[MASKED:password]"),
    "access-token": ("/cb?access_token=abcdefgh1 sent", "/cb?access_token=[MASKED:password] sent"),
    "camel-api-key": ('{"apiKey": "abcdefgh12"}', '{"apiKey": "[MASKED:password]"}'),
    "camel-token": ("accessToken = 'abcdefgh12'", "accessToken = '[MASKED:password]'"),
    "json": (
        '{"password": "hunter22", "user": "ada"}',
        '{"password": "[MASKED:password]", "user": "ada"}',
    ),
    "passwd": ("passwd:hunter22", "passwd:[MASKED:password]"),
    "basic-auth": (
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "Authorization: Basic [MASKED:basic-auth]",
    ),
    "basic-auth-header": (
        'curl -H "Proxy-Authorization: basic dXNlcjpwYXNz" x',
        'curl -H "Proxy-Authorization: basic [MASKED:basic-auth]" x',
    ),
    "basic-auth-json": (
        '{"Authorization": "Basic dXNlcjpwYXNz"}',
        '{"Authorization": "Basic [MASKED:basic-auth]"}',
    ),
    "bearer": ("Authorization: Bearer abcdefghijk", "Authorization: [MASKED:bearer-token]"),
    "a-shape-first": (
        "password = sk-proj-a1B2c3D4e5F6g7H8i9J0k1",
        "password = [MASKED:api-key]",
    ),
}
"""A secret known by its label: the text, and the text masked."""

NOT_SECRETS = [
    "the password policy is strict",  # no `=` or `:` after the keyword
    "tokens: 42, max_tokens: 409600",  # the keyword must end the name
    "token_count=1234567 and password_hash=abcdefgh",
    "passwordless: enabled",
    "password: short",  # fewer than 6 characters
    "We use Basic authentication for basic information",  # Basic without Authorization
    "Authorization: Basic abc",
]


@pytest.mark.parametrize(("text", "masked"), LABELLED_SECRETS.values(), ids=LABELLED_SECRETS)
def test_a_labelled_secret_is_masked_whatever_the_name_it_ends(text: str, masked: str) -> None:
    assert Masker().text(text) == masked


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_words_are_not_taken_for_labels(text: str) -> None:
    assert Masker().text(text) == text


def test_chat_log_cases_run_against_an_openai_compatible_server(
    folder: Path, server: FaultServer
) -> None:
    done = invoke("import", "traces", "chat_log.jsonl", "-o", "suite.yaml")
    assert done.exit_code == 0, done.output
    assert "left out 1: a message holds a part of type image_url" in done.output
    assert "left out 1: the call failed" in done.output
    assert invoke("validate", "suite.yaml").exit_code == 0

    server.default = Reply.ok('{"score": 9, "reason": "says the same"}')  # answer and verdict
    ran = invoke(
        "run", "suite.yaml", "-m", "fake/m", "--judge", "fake/judge", "-c", "1", "--no-store"
    )
    # The answers pass the judge; the case whose production answer called get_weather fails
    # its tool_called check, since this server's answer calls no tool.
    assert ran.exit_code == 1, ran.output
    asked = [r.body for r in server.requests if r.body["model"] == "m"]
    replayed = next(body for body in asked if len(body["messages"]) == 3)
    assert replayed["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert replayed["messages"][2]["role"] == "tool"
    assert replayed["tools"][0]["function"]["name"] == "get_weather"
    assert len(asked) == 4
    assert len([r for r in server.requests if r.body["model"] == "judge"]) == 4


def test_span_cases_run_with_their_conversation_replayed(folder: Path, server: FaultServer) -> None:
    assert invoke("import", "traces", "otlp_genai.jsonl", "-o", "suite.yaml").exit_code == 0
    server.default = Reply.ok('{"score": 9, "reason": "says the same"}')
    ran = invoke(
        "run", "suite.yaml", "-m", "fake/m", "--judge", "fake/judge", "-c", "1", "--no-store"
    )
    assert ran.exit_code == 1, ran.output  # span 00f067aa called get_weather; this model not
    assert "span-00f067aa0ba902b7" in ran.output
    asked = [r.body for r in server.requests if r.body["model"] == "m"]
    assert len(asked) == 4
    roles = sorted([m["role"] for m in body["messages"]] for body in asked)
    assert ["system", "user", "assistant", "tool"] in roles
    assert ["user"] in roles  # the Anthropic span: no system instructions
    sent = [m["content"] for body in asked for m in body["messages"]]
    assert any("charged twice" in text and "[MASKED:api-key]" in text for text in sent)
    assert not any("sk-proj" in text for text in sent)


def test_a_line_over_the_bound_is_refused_before_it_is_read_whole(folder: Path) -> None:
    with (folder / "huge.jsonl").open("w") as file:
        file.write('{"resourceSpans": []}\n{"request": "' + "x" * (64 * 2**20) + '"}\n')
    out = usage_error("import", "traces", "huge.jsonl", "-o", "suite.yaml")
    assert "huge.jsonl:2: the line is longer than 64 MiB" in out
    assert not (folder / "suite.yaml").exists()


def _log(lines: int, seed: int) -> list[str]:
    """A chat log of `lines` distinct calls over three models, a third of them calling a tool."""
    weather = {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object"}},
    }
    records = []
    for n in range(lines):
        calls = n % 3 == 0
        message = (
            {
                "tool_calls": [
                    {"id": f"c{n}", "function": {"name": "get_weather", "arguments": "{}"}}
                ]
            }
            if calls
            else {"content": f"answer {n}"}
        )
        records.append(
            {
                "span_id": f"{n:016x}",
                "request": {
                    "model": ["gpt-4o", "gpt-4o-mini", "claude"][n % 5 % 3],
                    "messages": [{"role": "user", "content": f"question {n}"}],
                    "tools": [weather],
                },
                "response": {"choices": [{"message": {"role": "assistant", **message}}]},
            }
        )
    random.Random(seed).shuffle(records)
    return [json.dumps(record) for record in records]


def test_sampling_is_stratified_and_the_same_for_the_same_seed(folder: Path) -> None:
    (folder / "log.jsonl").write_text("\n".join(_log(300, seed=1)) + "\n")
    (folder / "shuffled.jsonl").write_text("\n".join(_log(300, seed=2)) + "\n")
    args = ("--sample", "12", "--seed", "5")
    first = invoke("import", "traces", "log.jsonl", "-o", "a.yaml", *args)
    assert first.exit_code == 0, first.output
    assert invoke("import", "traces", "log.jsonl", "-o", "b.yaml", *args).exit_code == 0
    assert (folder / "a.yaml").read_bytes() == (folder / "b.yaml").read_bytes()
    # The sample depends on the requests, not on the order of the lines.
    assert invoke("import", "traces", "shuffled.jsonl", "-o", "c.yaml", *args).exit_code == 0
    assert set(_cases(folder / "a.yaml")) == set(_cases(folder / "c.yaml"))
    other = invoke("import", "traces", "log.jsonl", "-o", "d.yaml", "--sample", "12", "--seed", "6")
    assert set(_cases(folder / "a.yaml")) != set(_cases(folder / "d.yaml"))

    # Six strata (3 models x tool called or not), shared out in proportion: 2 each.
    assert "sample by model and tool called (kept / distinct):" in first.output
    strata = [
        line.strip()
        for line in first.output.splitlines()
        if line.endswith(("/ 40", "/ 60", "/ 20", "/ 80", "/ 100", "/ 50", "/ 30"))
    ]
    assert len(strata) == 6, first.output
    written = yaml.safe_load((folder / "a.yaml").read_text())
    assert written["tools"][0]["function"]["name"] == "get_weather"  # offered by all: once
    assert not any("tools" in case for case in written["test_cases"])
    tags = [tag for case in _cases(folder / "a.yaml").values() for tag in case["tags"]]
    assert {tag for tag in tags if tag.startswith("model:")} == {
        "model:gpt-4o",
        "model:gpt-4o-mini",
        "model:claude",
    }
    assert other.exit_code == 0


@pytest.mark.parametrize(
    ("name", "text", "located"),
    [
        (
            "odd.jsonl",
            '{"resourceSpans": []}\n{"prompt": "hi", "completion": "yo"}\n',
            "odd.jsonl:2: unknown shape (keys: completion, prompt)",
        ),
        ("broken.jsonl", '{"resourceSpans": []}\n\n{"request": {\n', "broken.jsonl:3:14: not JSON"),
        ("list.jsonl", "[1, 2]\n", "list.jsonl:1: unknown shape (a JSON list)"),
        ("empty.jsonl", "\n\n", "empty.jsonl: the file holds no JSON record"),
        (
            "deep.jsonl",
            '{"extra": ' + "[" * 200_000 + "]" * 200_000 + "}\n",
            "deep.jsonl:1: the JSON nests too deeply to read",
        ),
        (
            "deep_call.jsonl",
            '{"request": {"model": "m", "messages": [{"role": "user", "content": "hi"}], '
            '"tools": [{"type": "function", "function": {"name": "f", "parameters": {"x": '
            + "[" * 950
            + "]" * 950
            + "}}}]}, "
            '"response": {"choices": [{"message": {"role": "assistant", "content": "yo"}}]}}\n',
            "too deeply",  # json's own limit, or the import's, as the stack allows
        ),
        (
            "deep.json",
            '{"resourceSpans":\n' + "[" * 100_000 + "]" * 100_000 + "}\n",
            "deep.json:1: the JSON nests too deeply to read",
        ),
    ],
)
def test_input_of_an_unknown_shape_is_a_located_error(
    folder: Path, name: str, text: str, located: str
) -> None:
    (folder / name).write_text(text)
    assert located in usage_error("import", "traces", name, "-o", "suite.yaml")
    assert not (folder / "suite.yaml").exists()


def test_spans_without_messages_and_binary_files_write_nothing(folder: Path) -> None:
    (folder / "suite.yaml").write_text("# kept as it was\n")
    out = usage_error("import", "traces", "no_content.json", "-o", "suite.yaml", "--force")
    assert (
        "no_content.json:1: resourceSpans[0].scopeSpans[0].spans[0] (span f6e4d5c3b2a1f0e9): "
        "the span has no messages: its instrumentation did not capture content"
    ) in out
    (folder / "export.jsonl").write_bytes(b'{"resourceSpans": []}\n\x1f\x8b\x08\x00\xff\x00')
    out = usage_error(
        "import", "traces", "chat_log.jsonl", "export.jsonl", "-o", "suite.yaml", "--force"
    )
    assert "export.jsonl:2:4: binary data, not text" in out
    assert (folder / "suite.yaml").read_text() == "# kept as it was\n"
    assert [path.name for path in folder.glob(".suite*")] == []  # no temporary file is left


def test_a_pretty_printed_export_is_read_whole(folder: Path) -> None:
    done = invoke("import", "traces", "otlp_pretty.json", "-o", "suite.yaml")
    assert done.exit_code == 0, done.output
    assert sorted(_cases(folder / "suite.yaml")) == [
        "span-00f067aa0ba902b7",
        "span-b7ad6b7169203331",
    ]


def test_the_similar_reference_writes_a_check_instead_of_a_judge(folder: Path) -> None:
    done = invoke(
        "import", "traces", "chat_log.jsonl", "-o", "suite.yaml", "--reference", "similar"
    )
    assert done.exit_code == 0, done.output
    data = yaml.safe_load((folder / "suite.yaml").read_text())
    assert "judge" not in data
    first = data["test_cases"][0]
    assert first["checks"] == [{"type": "similar", "value": "The capital of France is Paris."}]
    assert "expected_behavior" not in first


def test_rows_write_the_cases_as_json_lines_the_suite_reads(folder: Path) -> None:
    done = invoke("import", "traces", "chat_log.jsonl", "-o", "production.yaml", "--rows")
    assert done.exit_code == 0, done.output
    assert "cases_from: production.cases.jsonl" in (folder / "production.yaml").read_text()
    rows = [
        json.loads(line) for line in (folder / "production.cases.jsonl").read_text().splitlines()
    ]
    assert [row["id"] for row in rows] == [
        "chat_log-1",
        "span-eee19b7ec3c1b174",
        "chat_log-3",
        "chat_log-4",
    ]
    cases = {case.id: case for case in load_suite(folder / "production.yaml").cases}
    assert [m.role for m in cases["chat_log-3"].messages] == ["user", "assistant", "tool"]
    assert "[MASKED:bearer-token]" in cases["chat_log-4"].messages[0].content
    again = usage_error("import", "traces", "chat_log.jsonl", "-o", "production.yaml", "--rows")
    assert "production.yaml exists; pass --force to replace it" in again
