"""Masking secrets and personal data in imported text, each kind counted for the report."""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Any

# Each kind, the shape that finds it, and what a text holds when it may be there (so most
# texts are searched for few shapes). They are searched in this order. The names are what
# the suite shows in place of the text: [MASKED:<kind>].
_SHAPES: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "private-key": (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
        ("PRIVATE KEY",),
    ),
    "bearer-token": (re.compile(r"\b(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}"), ("earer", "EARER")),
    "jwt": (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), ("eyJ",)),
    "api-key": (
        re.compile(r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[A-Za-z0-9_-]{16,}"),
        ("sk", "pk", "rk"),
    ),
    "aws-access-key": (
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    "github-token": (
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
        ("gh",),
    ),
    "google-api-key": (re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), ("AIza",)),
    "slack-token": (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), ("xox",)),
    "email": (
        re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
        ("@",),
    ),
    # 9 to 15 digits in groups (an optional +country code and (area)), as phone numbers are
    # written; a date (8 digits) or a long id without separators is not one.
    "phone": (
        re.compile(
            r"(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?"
            r"\d{2,5}(?:[ .-]\d{2,5}){1,4}(?![\w.-]*\d)"
        ),
        tuple("0123456789"),
    ),
}
_PHONE_DIGITS = range(9, 16)

# Secrets known by the label before them, searched after the shapes: the label stays, the
# value is masked, unless a shape masked it already. Each has what a text holds, lower-cased,
# when it may be there. A keyword is found where it ends a name (`DB_PASSWORD`, `x_api_key`,
# `user.password`, `apiKey`, `accessToken`, a JSON key `"client_secret"`): no `\b` before it,
# since `_` and camelCase join the words of a name. It must end the name, right before the
# `=` or `:` (`tokens: 42`, `token_count=7` are no labels), and a value in quotes is masked
# within them.
_LABELLED: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "aws-secret-key": (
        re.compile(r"(?i)(aws_secret_access_key\W{1,4})([A-Za-z0-9/+=]{40})\b"),
        ("aws_secret",),
    ),
    # HTTP Basic credentials (base64 of `user:password`): "Basic" alone is a common word,
    # so only after an Authorization label. A Bearer token is a shape of its own, above.
    "basic-auth": (
        re.compile(
            r"(?i)((?=[aA])authorization[\"']?\s*[:=]\s*[\"']?basic\s+)(?!\[MASKED:)"
            r"([A-Za-z0-9+/]{6,}={0,2})"
        ),
        ("basic",),
    ),
    # Without `\b` the keywords are tried at every character: the lookahead for their first
    # letters, one test, keeps that as fast as `\b` was (twice as fast as without it).
    "password": (
        re.compile(
            r"(?i)((?=[aApPsStT])(?:passw(?:or)?d|secret(?:[_-]?key)?|(?:api|private)[_-]?key|token)"
            r"[\"']?\s*[:=]\s*[\"']?)(?!\[MASKED:)([^\s\"',;]{6,})"
        ),
        ("passw", "secret", "key", "token"),
    ),
}


class Masker:
    """Replaces secrets and e-mail/phone-like text with `[MASKED:<kind>]`, counting each kind."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def text(self, text: str) -> str:
        """`text` with what it holds of each kind masked."""
        if not text:
            return text
        masked, kinds = _masked(text)
        self.counts.update(kinds)
        return masked

    def value(self, value: Any) -> Any:
        """Every text within a JSON value masked (a mapping's keys stay)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.value(item) for item in value)
        return value


# A product sends the same instructions and tool descriptions call after call: each is
# searched once.
@functools.lru_cache(maxsize=4096)
def _masked(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` masked, and the kind of each text masked."""
    kinds: list[str] = []
    for kind, (pattern, hints) in _SHAPES.items():
        if any(hint in text for hint in hints):
            text = pattern.sub(functools.partial(_shape, kind=kind, kinds=kinds), text)
    lowered = text.lower()
    for kind, (pattern, labels) in _LABELLED.items():
        if any(label in lowered for label in labels):
            text = pattern.sub(functools.partial(_labelled, kind=kind, kinds=kinds), text)
    return text, tuple(kinds)


def _labelled(found: re.Match[str], kind: str, kinds: list[str]) -> str:
    kinds.append(kind)
    return f"{found[1]}[MASKED:{kind}]"


def _shape(found: re.Match[str], kind: str, kinds: list[str]) -> str:
    if kind == "phone" and sum(char.isdigit() for char in found[0]) not in _PHONE_DIGITS:
        return found[0]
    kinds.append(kind)
    return f"[MASKED:{kind}]"
