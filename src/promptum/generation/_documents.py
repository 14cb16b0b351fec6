"""Documents cases are generated from: read as text, cut into passages a case can cite."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from promptum.generation._errors import GenerationError

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
"""The largest document read: a generator reads passages, not books."""
PASSAGE_CHARS = 1_200
"""A passage's length at most (more when one paragraph is longer): about 300 tokens, what a
small generator model can still quote from."""


@dataclass(frozen=True, slots=True)
class Passage:
    """A span of a document: the lines a generated case was written from."""

    source: str
    """The document's path, as given."""
    first_line: int
    last_line: int
    text: str

    @property
    def span(self) -> str:
        """``docs/faq.md:3-9``: where the passage is, for a case's tags."""
        return f"{self.source}:{self.first_line}-{self.last_line}"


def read_documents(paths: Sequence[Path]) -> list[Passage]:
    """Every passage of the documents at `paths`; a file that is not text is an error naming it."""
    passages: list[Passage] = []
    for path in paths:
        passages += passages_of(str(path), _text(path))
    return passages


def _text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise GenerationError(
                f"{path}: {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,} a document may have; "
                "give the part the cases should come from"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise GenerationError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if b"\0" in data:
        raise GenerationError(
            f"{path}: a binary file, not text; give documents as text (convert a PDF first)"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GenerationError(
            f"{path}: byte {exc.start} is not UTF-8; give documents as UTF-8 text"
        ) from None


def passages_of(source: str, text: str) -> list[Passage]:
    """`text` cut at blank lines into passages of at most `PASSAGE_CHARS`, with line numbers.

    A paragraph longer than that stays whole: a passage never cuts one.
    """
    passages: list[Passage] = []
    held: list[tuple[int, str]] = []
    for paragraph in _paragraphs(text):
        if held and sum(len(text) + 2 for _, text in held) + len(paragraph[1]) > PASSAGE_CHARS:
            passages.append(_passage(source, held))
            held = []
        held.append(paragraph)
    if held:
        passages.append(_passage(source, held))
    return passages


def _paragraphs(text: str) -> Iterable[tuple[int, str]]:
    """Each paragraph of `text` with the number of its first line."""
    start, paragraph = 0, list[str]()
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not paragraph:
                start = number
            paragraph.append(line.rstrip())
        elif paragraph:
            yield start, "\n".join(paragraph)
            paragraph = []
    if paragraph:
        yield start, "\n".join(paragraph)


def _passage(source: str, paragraphs: list[tuple[int, str]]) -> Passage:
    """One passage of consecutive `paragraphs` (first line, text)."""
    last_start, last_text = paragraphs[-1]
    last_line = last_start + last_text.count("\n")
    text = "\n\n".join(text for _, text in paragraphs)
    return Passage(source, paragraphs[0][0], last_line, text)
