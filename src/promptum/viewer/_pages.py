"""Rendering the workbench pages (matrix, trends): the report's look, our own script only.

The pages' Content-Security-Policy allows their own stylesheet and script by hash and
requests to this server only (`connect-src 'self'`), so nothing from the data can run and no
page reaches another host; every string from the data is escaped by jinja2 here, and the
script writes data with ``textContent`` only.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from promptum.reporting import csp_hash, template_asset

if TYPE_CHECKING:
    import jinja2
    from starlette.responses import Response

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2  # Heavy; imported only when a page is rendered.

    return jinja2.Environment(
        loader=jinja2.PackageLoader("promptum.viewer", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


@functools.cache
def _assets(script: str) -> tuple[str, str, str]:
    """The stylesheet, the script and the policy allowing exactly those two."""
    css = template_asset("promptum.reporting", "report.css")
    css += template_asset("promptum.compare", "extra.css")
    css += template_asset("promptum.viewer", "workbench.css")
    js = template_asset("promptum.viewer", script) if script else ""
    policy = (
        f"default-src 'none'; style-src {csp_hash(css)}; "
        + (f"script-src {csp_hash(js)}; connect-src 'self'; " if js else "")
        # Images only as data: URLs (thumbnails of a case's parts): still nothing is fetched.
        + "img-src data:; form-action 'self'; base-uri 'none'"
    )
    return css, js, policy


def workbench_page(template: str, *, script: str = "", **context: Any) -> Response:
    """`template` rendered with the workbench's stylesheet and `script` (a templates file)."""
    from markupsafe import Markup
    from starlette.responses import HTMLResponse

    css, js, policy = _assets(script)
    html = (
        _environment()
        .get_template(template)
        .render(css=Markup(css), script=Markup(js), csp=policy, **context)
    )
    # frame-ancestors works only as a header (a <meta> policy ignores it, with a warning).
    header = policy + "; frame-ancestors 'none'"
    return HTMLResponse(html, headers={**HEADERS, "Content-Security-Policy": header})
