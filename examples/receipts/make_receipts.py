"""Draw the example's receipts as PNG files, so the truth of every amount is known.

Standard library only (a 5x7 bitmap font, zlib and the PNG format), so it runs wherever
Python does: ``python examples/receipts/make_receipts.py`` rewrites ``images/*.png`` from
the receipts below, which the suite's expected fields repeat.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

RECEIPTS = {
    "001": ("CORNER CAFE", "2026-03-14", [("COFFEE", "3.50"), ("CROISSANT", "2.75")], "6.25"),
    "002": (
        "HARDWARE BARN",
        "2026-04-02",
        [("NAILS", "4.99"), ("HAMMER", "18.50"), ("TAPE", "3.20")],
        "26.69",
    ),
    "003": (
        "GREEN GROCER",
        "2026-05-21",
        [("APPLES", "2.40"), ("BREAD", "3.10"), ("MILK", "1.25"), ("CHEESE", "7.80")],
        "14.55",
    ),
}
"""By receipt number: the merchant, the date, the items with their prices, and the total."""

# Each glyph is 7 rows of 5 pixels, a row written as a 5-bit number (left pixel high).
FONT = {
    " ": (0, 0, 0, 0, 0, 0, 0),
    ".": (0, 0, 0, 0, 0, 12, 12),
    ":": (0, 12, 12, 0, 12, 12, 0),
    "-": (0, 0, 0, 31, 0, 0, 0),
    "$": (4, 15, 20, 14, 5, 30, 4),
    "0": (14, 17, 19, 21, 25, 17, 14),
    "1": (4, 12, 4, 4, 4, 4, 14),
    "2": (14, 17, 1, 2, 4, 8, 31),
    "3": (31, 2, 4, 2, 1, 17, 14),
    "4": (2, 6, 10, 18, 31, 2, 2),
    "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14),
    "7": (31, 1, 2, 4, 8, 8, 8),
    "8": (14, 17, 17, 14, 17, 17, 14),
    "9": (14, 17, 17, 15, 1, 2, 12),
    "A": (14, 17, 17, 31, 17, 17, 17),
    "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14),
    "D": (28, 18, 17, 17, 17, 18, 28),
    "E": (31, 16, 16, 30, 16, 16, 31),
    "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15),
    "H": (17, 17, 17, 31, 17, 17, 17),
    "I": (14, 4, 4, 4, 4, 4, 14),
    "K": (17, 18, 20, 24, 20, 18, 17),
    "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17),
    "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14),
    "P": (30, 17, 17, 30, 16, 16, 16),
    "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30),
    "T": (31, 4, 4, 4, 4, 4, 4),
    "U": (17, 17, 17, 17, 17, 17, 14),
    "W": (17, 17, 17, 21, 21, 21, 10),
    "Y": (17, 17, 10, 4, 4, 4, 4),
}

SCALE = 3
"""Pixels per font dot: glyphs 15x21, readable by a vision model."""
WIDTH = 32
"""Characters per line."""


def receipt_lines(merchant: str, date: str, items: list[tuple[str, str]], total: str) -> list[str]:
    """The receipt's text, line by line, each price right-aligned."""

    def priced(name: str, price: str) -> str:
        return name + " " * (WIDTH - len(name) - len(price) - 1) + "$" + price

    rule = "-" * WIDTH
    lines = [merchant.center(WIDTH), f"DATE: {date}".center(WIDTH), rule]
    return [*lines, *(priced(n, p) for n, p in items), rule, priced("TOTAL", total)]


def png(lines: list[str]) -> bytes:
    """A grey-scale PNG of `lines` in the bitmap font, black on white."""
    cell_w, cell_h, margin = 6 * SCALE, 10 * SCALE, 4 * SCALE
    width, height = WIDTH * cell_w + 2 * margin, len(lines) * cell_h + 2 * margin
    rows = [bytearray(b"\xff" * width) for _ in range(height)]
    for line_number, line in enumerate(lines):
        for column, char in enumerate(line):
            for dy, bits in enumerate(FONT[char]):
                for dx in range(5):
                    if bits & (16 >> dx):
                        x = margin + column * cell_w + dx * SCALE
                        y = margin + line_number * cell_h + dy * SCALE
                        for row in rows[y : y + SCALE]:
                            row[x : x + SCALE] = b"\x00" * SCALE
    raw = b"".join(b"\x00" + bytes(row) for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    """Write images/<number>.png for every receipt."""
    folder = Path(__file__).parent / "images"
    folder.mkdir(exist_ok=True)
    for number, receipt in RECEIPTS.items():
        (folder / f"{number}.png").write_bytes(png(receipt_lines(*receipt)))
        print(f"wrote {folder / number}.png")


if __name__ == "__main__":
    main()
