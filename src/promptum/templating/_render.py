"""Rendering a prompt's template: plain text as is, `{{ name }}` filled in, the rest by Jinja."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from promptum.foundations.suggestions import did_you_mean
from promptum.templating._budget import FreshBudget
from promptum.templating._errors import TemplateError
from promptum.templating._guard import guarded
from promptum.templating._plain import is_template, plain, substituted
from promptum.templating._sandbox import template_environment

if TYPE_CHECKING:
    import jinja2

_UNDEFINED_NAME = re.compile(r"'(\w+)' is undefined")
"""Jinja's word for a name no variable has: the name is what a did-you-mean is of."""


@functools.lru_cache(maxsize=1024)
def compiled(source: str) -> jinja2.Template:
    """`source` compiled in the sandbox, refused where it does what a template may not."""
    environment = template_environment()
    return environment.from_string(guarded(environment, environment.parse(source), source))


def _runtime_line(exc: BaseException, source: str) -> str:
    """Where in a multi-line template a runtime error happened, from Jinja's traceback."""
    line = None
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return f" (line {line} of the template)" if line and "\n" in source else ""


def render(text: str, variables: Mapping[str, Any]) -> str:
    """Render `text` with `variables`; raise TemplateError saying what to fix."""
    if not is_template(text):
        return text
    parts = plain(text)
    if parts is not None:
        done = substituted(parts, variables)
        if done is not None:
            return done
    import jinja2
    from jinja2.exceptions import SecurityError

    try:
        with FreshBudget():
            return compiled(text).render(variables)
    except TemplateError:
        raise
    except SecurityError as exc:
        raise TemplateError(f"{exc}{_runtime_line(exc, text)}") from exc
    except jinja2.UndefinedError as exc:
        defined = ", ".join(sorted(variables)) or "none"
        name = _UNDEFINED_NAME.match(exc.message or "")
        hint = did_you_mean(name.group(1), list(variables)) if name else ""
        raise TemplateError(
            f"template variable error: {exc.message}; define it under `vars` "
            f"(defined here: {defined}).{hint}"
        ) from exc
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"template syntax error on line {exc.lineno} of the template: {exc.message}"
        ) from exc
    except Exception as exc:  # a filter or expression failed on this case's values
        raise TemplateError(f"template failed: {type(exc).__name__}: {exc}") from exc
