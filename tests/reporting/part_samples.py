"""A run whose case carries content parts: a real receipt image, one too large, a PDF, a URL."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from promptum.reporting._part_views import THUMBNAIL_MAX_BYTES
from promptum.values.content import ContentPart, PartKind
from promptum.values.run_result import Message, RunResult
from tests.store.samples import make_run
from tests.support.media import PDF, PNG, media

RECEIPT = Path(__file__).parents[2] / "examples" / "receipts" / "images" / "001.png"
"""A real PNG (drawn by the receipts example), so a browser shows it at its own size."""
REMOTE = "https://images.example.com/receipt.jpg"
MODEL = "openai/gpt-4o"
RUN = "run-parts"


def file_part(path: Path, kind: PartKind, media_type: str) -> ContentPart:
    """The part of a file, as loading a suite makes it."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return ContentPart(type=kind, media_type=media_type, file=str(path), sha256=digest)


def receipt_parts(folder: Path) -> tuple[ContentPart, ...]:
    """A small image, an image over the thumbnail cap, a PDF and an image by URL, in `folder`."""
    small = folder / "receipts" / "001.png"
    small.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RECEIPT, small)
    large = media(folder / "receipts" / "scan.png", PNG, THUMBNAIL_MAX_BYTES + 1)
    terms = media(folder / "terms.pdf", PDF, 3000)
    return (
        file_part(small, "image", "image/png"),
        file_part(large, "image", "image/png"),
        file_part(terms, "document", "application/pdf"),
        ContentPart(type="image", media_type="image/jpeg", url=REMOTE),
    )


def parts_run(folder: Path) -> RunResult:
    """A run of one case whose user message carries `receipt_parts`."""
    message = Message(role="user", content="What is the total?", parts=receipt_parts(folder))
    run = make_run(RUN, {("receipt-001", MODEL): ["pass"]}, suite="receipts")
    run.results[0] = run.results[0].model_copy(update={"messages": [message]})
    return run
