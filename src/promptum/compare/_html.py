"""A comparison as a self-contained HTML page; the viewer renders its pages the same way.

Every string from a model or a suite goes through jinja2 with autoescape, and the pages run
no script at all: their Content-Security-Policy allows only their own stylesheet (by hash).
The stylesheet is the HTML report's, so a comparison looks like a report.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from promptum.compare import _text as text
from promptum.compare._asr import pair_asr_lines
from promptum.comparison_figures import Comparison
from promptum.reporting import csp_hash, template_asset, visible

if TYPE_CHECKING:
    import jinja2

    from promptum.gate import GateDecision

PREVIEW = 400
"""Characters of a response shown side by side; enough to see what changed."""
LIMIT = 200
"""Cases listed per kind on one page."""


def _cut(value: str, limit: int) -> str:
    shown = visible(value)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


@functools.cache
def _environment(packages: tuple[str, ...]) -> jinja2.Environment:
    """One environment per template search path: the viewer then compiles each template once."""
    import jinja2  # Heavy; imported only when a page is rendered.

    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.PackageLoader(p, "templates") for p in (*packages, "promptum.compare")]
        ),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(short=_cut, percent=text.percent)
    return env


def render_page(
    template: str, *, packages: Sequence[str] = (), viewer: bool = False, **context: Any
) -> str:
    """Render `template` (looked up in `packages`, then here) with the report's stylesheet."""
    from markupsafe import Markup

    css = template_asset("promptum.reporting", "report.css")
    css += template_asset("promptum.compare", "extra.css")
    csp = f"default-src 'none'; style-src {csp_hash(css)}; form-action 'self'; base-uri 'none'"
    return (
        _environment(tuple(packages))
        .get_template(template)
        .render(
            css=Markup(css),  # the project's own file, inserted verbatim so its hash matches
            csp=csp,
            viewer=viewer,
            figures=text.figure_rows,
            verdict_line=text.verdict_line,
            asr_lines=pair_asr_lines,
            preview=PREVIEW,
            limit=LIMIT,
            **context,
        )
    )


def comparison_html(
    comparison: Comparison, *, viewer: bool = False, gate: GateDecision | None = None
) -> str:
    """The comparison as one HTML page; `viewer` adds links into the local viewer."""
    return render_page("compare.html.j2", viewer=viewer, comparison=comparison, gate=gate)
