"""`{{ name }}` templating of prompts with Jinja, strict about undefined variables."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


def is_template(text: str) -> bool:
    """Whether `text` uses Jinja syntax; plain text is used as is, without loading Jinja."""
    return "{{" in text or "{%" in text or "{#" in text


@lru_cache(maxsize=1024)
def _compile(source: str) -> jinja2.Template:
    import jinja2

    environment = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    return environment.from_string(source)


class TemplateError(ValueError):
    """A template does not parse, or uses a variable that is not defined."""


def render(text: str, variables: Mapping[str, Any]) -> str:
    """Render `text` with `variables`; raise TemplateError saying what to fix."""
    if not is_template(text):
        return text
    import jinja2

    try:
        return _compile(text).render(variables)
    except jinja2.UndefinedError as exc:
        defined = ", ".join(sorted(variables)) or "none"
        raise TemplateError(
            f"template variable error: {exc.message}; define it under `vars` "
            f"(defined here: {defined})"
        ) from exc
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"template syntax error on line {exc.lineno} of the template: {exc.message}"
        ) from exc
    except Exception as exc:  # a filter or expression failed on this case's values
        raise TemplateError(f"template failed: {type(exc).__name__}: {exc}") from exc
