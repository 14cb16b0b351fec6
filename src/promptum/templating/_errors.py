"""What a template or expression fails with: `TemplateError`, and the sandbox's refusals."""

from __future__ import annotations


class TemplateError(ValueError):
    """A template does not parse, uses an undefined variable, or does what a suite may not."""


def security_error(message: str) -> Exception:
    """Jinja's SecurityError: raised inside a rendering, it says what the sandbox refused."""
    from jinja2.exceptions import SecurityError

    return SecurityError(message)


def shortened(text: str, limit: int = 200) -> str:
    """An error message cut to `limit` characters: it may quote a long value."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
