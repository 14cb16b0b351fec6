"""`{{ name }}` templating of prompts with Jinja: sandboxed, bounded, strict about undefined names.

A suite file is data: whoever edits one must not run code or read secrets on the machine
that loads it. Templates therefore render in Jinja's immutable sandbox (`_sandbox`), see only
the filters and methods that shape text and data (`_filters`, `_wordwrap`, `_methods`), have
their syntax tree checked before they run (`_guard`) and a budget of work and of text they
build (`_budget`, `_operators`), so no template can run for hours or allocate gigabytes. A plain
`{{ name }}` template is filled in without Jinja (`_plain`), any other renders in the sandbox
(`_render`); what a template reads is found without rendering it (`_template_reads`). The
`expr` checks and transforms are single expressions compiled in the same sandbox
(`_expression`), where a mapping's `.name` is its field (`_field_reads`); those that differ
only in their constants share one compiled template (`_expression_shapes`).
"""

from promptum.templating._budget import MAX_TEMPLATE_SECONDS, MAX_TEMPLATE_SIZE, MAX_TEMPLATE_STEPS
from promptum.templating._errors import TemplateError
from promptum.templating._expression import Expression, compile_expression
from promptum.templating._expression_reads import Attribute
from promptum.templating._filters import FILTERS, MAX_JSON_INDENT
from promptum.templating._operators import MAX_INT_BITS, MAX_RANGE
from promptum.templating._plain import is_template
from promptum.templating._render import render
from promptum.templating._template_reads import names_read, subscripts_read

__all__ = [
    "FILTERS",
    "MAX_INT_BITS",
    "MAX_JSON_INDENT",
    "MAX_RANGE",
    "MAX_TEMPLATE_SECONDS",
    "MAX_TEMPLATE_SIZE",
    "MAX_TEMPLATE_STEPS",
    "Attribute",
    "Expression",
    "TemplateError",
    "compile_expression",
    "is_template",
    "names_read",
    "render",
    "subscripts_read",
]
