"""A run whose parts cannot be sent stops before any call: located error, exit 2, no request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer
from tests.support.media import JPEG, PNG, media


@pytest.mark.parametrize(
    ("images", "expected"),
    [
        ("[receipts/gone.png]", "suite.yaml:6:"),
        ("[receipts/photo.png]", "its bytes are JPEG data, not PNG as its type says"),
        ("[receipts/ok.png, receipts/photo.png]", "receipts/photo.png"),
    ],
)
def test_bad_parts_exit_2_and_send_nothing(server: FaultServer, images: str, expected: str) -> None:
    media(Path("receipts/ok.png"), PNG, 10)
    media(Path("receipts/photo.png"), JPEG, 10)
    write(
        "suite.yaml",
        "models: [fault/m]\ntest_cases:\n"
        "  - {id: fine, query: Hello?, checks: [{type: contains, value: o}]}\n"
        "  - id: receipt\n"
        "    checks: [{type: contains, value: o}]\n"
        f"    query: {{text: Total?, images: {images}}}\n",
    )
    result = invoke("run", "suite.yaml")
    assert result.exit_code == 2, result.output
    assert "test_cases[1].query.images" in result.output
    assert expected in result.output
    assert server.requests == []
