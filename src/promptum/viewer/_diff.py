"""A word-level diff of two answers, as runs of equal, deleted and inserted text."""

from __future__ import annotations

import re
from typing import Literal

Op = Literal["equal", "delete", "insert"]
_TOKENS = re.compile(r"\s+|[^\s]+")
_OPS: dict[int, Op] = {-1: "delete", 0: "equal", 1: "insert"}
TIMEOUT_S = 1.0
"""Seconds the diff may search for the shortest edit; then it returns a correct, coarser one."""


def word_diff(before: str, after: str) -> list[tuple[Op, str]]:
    """`before` turned into `after` word by word (whitespace kept), adjacent runs merged."""
    # Imported when a diff is asked for, not with the viewer; the package ships no types.
    import diff_match_patch  # type: ignore[import-untyped]

    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    # Each distinct word becomes one character, so Myers' diff (bounded in time, unlike
    # difflib's matching, which took minutes on a long repetitive answer) runs on words.
    vocabulary = list(dict.fromkeys(a + b))
    if len(vocabulary) > 0x10FFFF:
        whole: list[tuple[Op, str]] = [("delete", before), ("insert", after)]
        return [(op, text) for op, text in whole if text]
    code = {word: chr(number) for number, word in enumerate(vocabulary)}
    matcher = diff_match_patch.diff_match_patch()
    matcher.Diff_Timeout = TIMEOUT_S
    encoded = ("".join(code[w] for w in a), "".join(code[w] for w in b))
    return _merged(matcher.diff_main(*encoded, False), vocabulary)


def _merged(diffs: list[tuple[int, str]], vocabulary: list[str]) -> list[tuple[Op, str]]:
    """The diff of the words' characters read back as words, adjacent runs of one op merged."""
    runs: list[tuple[Op, str]] = []
    for number, chars in diffs:
        op, text = _OPS[number], "".join(vocabulary[ord(char)] for char in chars)
        if runs and runs[-1][0] == op:
            runs[-1] = (op, runs[-1][1] + text)
        elif text:
            runs.append((op, text))
    return runs
