"""The obfuscations a strategy applies to its payload; each is seeded, so it is repeatable."""

from __future__ import annotations

import base64
import codecs
import random

_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7", "l": "1", "g": "9"}
# Latin letters and the Cyrillic or Greek letters drawn the same (Boucher et al. 2022).
_HOMOGLYPHS = {
    "a": "\u0430",
    "c": "\u0441",
    "e": "\u0435",
    "i": "\u0456",
    "o": "\u043e",
    "p": "\u0440",
    "x": "\u0445",
    "y": "\u0443",
    "A": "\u0391",
    "B": "\u0392",
    "E": "\u0395",
    "H": "\u0397",
    "K": "\u039a",
    "M": "\u039c",
    "O": "\u039f",
    "T": "\u03a4",
}
_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060")
_TAG_BASE = 0xE0000  # Unicode tag characters mirror ASCII at U+E0000 + code point.


def _swapped(text: str, table: dict[str, str], rng: random.Random, share: float) -> str:
    return "".join(table[char] if char in table and rng.random() < share else char for char in text)


def leetspeak(text: str, rng: random.Random) -> str:
    """Most letters that have a digit look-alike replaced by it."""
    return _swapped(text, _LEET, rng, 0.8)


def homoglyphs(text: str, rng: random.Random) -> str:
    """About half the letters that have a look-alike from another script replaced by it."""
    return _swapped(text, _HOMOGLYPHS, rng, 0.5)


def zero_width(text: str, rng: random.Random) -> str:
    """Invisible characters inside the words, which split them for a filter but not a reader."""
    out = []
    for char in text:
        out.append(char)
        if char.isalpha() and rng.random() < 0.4:
            out.append(rng.choice(_ZERO_WIDTH))
    return "".join(out)


def unicode_tags(text: str) -> str:
    """The text as invisible Unicode tag characters (ASCII only; others dropped)."""
    return "".join(chr(_TAG_BASE + ord(char)) for char in text if 0x20 <= ord(char) < 0x7F)


def encode_base64(text: str) -> str:
    """Base64 of the UTF-8 text."""
    return base64.b64encode(text.encode()).decode("ascii")


def rot13(text: str) -> str:
    """ROT13 of the text."""
    return codecs.encode(text, "rot13")


def split_three(text: str, rng: random.Random) -> tuple[str, str, str]:
    """The text cut in three at word boundaries (payload splitting)."""
    words = text.split(" ")
    if len(words) < 3:
        words += [""] * (3 - len(words))
    first, second = sorted(rng.sample(range(1, len(words)), 2))
    return (
        " ".join(words[:first]),
        " ".join(words[first:second]),
        " ".join(words[second:]),
    )
