"""A JSON Schema's `$ref` is followed within the schema only: jsonschema's default would fetch
a URL or read a file of the machine when a response is validated."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing.exceptions import Unresolvable

from promptum.validation import compiled_schema
from tests.suites.suite_problems import problems
from tests.support.cli import write
from tests.support.serving import serving


@contextmanager
def _schema_server() -> Iterator[tuple[str, list[str]]]:
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", asked


def test_a_schema_pointing_outside_itself_is_refused_before_anything_is_fetched(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"const": "secret"}')
    with _schema_server() as (root, asked):
        path = write(
            tmp_path / "suite.yaml",
            f"""\
            test_cases:
              - id: remote
                query: hi
                response_model: {{$ref: "{root}/schema.json"}}
              - id: file
                query: hi
                response_model: {{type: object, properties: {{a: {{$ref: "{outside.as_uri()}"}}}}}}
              - id: tool
                query: hi
                tools:
                  - type: function
                    function: {{name: f, parameters: {{$ref: "{root}/tool.json"}}}}
                checks: [{{type: max_length, value: 9}}]
            """,
        )
        found = problems(path)
    assert asked == []
    assert len(found) == 3, found
    assert all("points outside the schema" in line for line in found), found
    assert "test_cases[2].tools[0].function.parameters" in found[2]


def test_a_pointer_to_nothing_is_refused_and_one_to_defs_is_followed() -> None:
    with pytest.raises(jsonschema.SchemaError, match="'#/\\$defs/b' points to nothing"):
        compiled_schema({"properties": {"a": {"$ref": "#/$defs/b"}}, "$defs": {"a": {}}})
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a~1b"}},
        "$defs": {"a/b": {"type": "string"}},
    }
    validator = compiled_schema(schema)
    assert [error.message for error in validator.iter_errors({"a": 1})] == [
        "1 is not of type 'string'"
    ]


def test_a_reference_below_a_nested_id_is_never_retrieved() -> None:
    # Below an `$id` a pointer is relative to it: kept, and resolved within the schema only.
    schema = {"properties": {"a": {"$id": "http://127.0.0.1:9/a", "$ref": "#/$defs/x"}}}
    validator = compiled_schema(schema)
    with pytest.raises(Unresolvable):
        list(validator.iter_errors({"a": 1}))
