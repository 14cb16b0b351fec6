"""HTML: one self-contained page (inline CSS, JS and SVG) with a cases × models matrix.

The run's figures are rendered by jinja2; its results go into one JSON data block, written
a result at a time, from which the page's script shows a page of rows at a time (failures
and errors first), so a report of 100,000 results opens quickly and stays searchable.

Every string from a model or a suite reaches the page in one of two ways, both inert:
through jinja2 with autoescape, or inside the JSON data block (``<``, ``>``, ``&`` and
``'`` escaped as ``tojson`` does), which the page's script only ever writes with
``textContent``. A Content-Security-Policy allows no network and no script but the page's
own (by hash), so even a bug in that escaping could not run injected code or fetch anything.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import shutil
from importlib import resources
from typing import IO, TYPE_CHECKING, Any, TextIO

from promptum.gate import decide
from promptum.reporting import _format as fmt
from promptum.reporting._asr import detector_corrections, html_context, html_css
from promptum.reporting._conversation import failing_where
from promptum.reporting._leads import leads
from promptum.reporting._metrics import label
from promptum.reporting._part_views import part_views
from promptum.reporting._source import ReportSource, rendered, spool
from promptum.reporting._text import shorten, visible
from promptum.reporting._transformed import transformed_texts
from promptum.values.case_result import TURN, Message
from promptum.values.completion import Completion
from promptum.values.grade import CHECK_KINDS, Grade, samples_note
from promptum.values.metrics import score_line
from promptum.values.reviews import Review, ReviewsOf
from promptum.values.run_result import CaseResult, RunResult
from promptum.values.stats import total_spent

if TYPE_CHECKING:
    import jinja2

_PREVIEW = 140
"""Characters of a response shown in its matrix cell; the rest is one click away."""
_REASON = 200
"""Characters of a reason shown in a cell; the full text is in the detail view."""
_DATA = "<!--promptum:data-->"
"""Where the page's JSON data goes; written after the template, one result at a time."""
_THUMBNAILS_MAX_CHARS = 20 * 1024 * 1024
"""How much of a report its thumbnails may take: later images are named, so a run of 10,000
image cases still makes a page a browser opens (the viewer's result page shows any of them)."""
_SPENT = "not shown: the report's 20 MB of thumbnails are used up (open it in the viewer)"
_JSON_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027"))
"""What jinja2's ``tojson`` escapes, so no string can end the script element or open a tag."""


def _json(value: object) -> str:
    """`value` as compact JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for character, escape in _JSON_ESCAPES:
        text = text.replace(character, escape)
    return text


def _message(message: Message, thumbnails: bool) -> list[Any]:
    """A message as the ``prompts`` table holds it: role, text, and its parts when it has any.

    Without `thumbnails` (the report's share of them is used up) its images are only named.
    """
    entry: list[Any] = [message.role, visible(message.content)]
    if message.parts:
        views = part_views(message.parts)
        if not thumbnails:
            views = [view._replace(src="", note=_SPENT) if view.src else view for view in views]
        entry.append([[visible(s) for s in view] for view in views])
    return entry


def _thumbnail_chars(message: list[Any]) -> int:
    """How much of the page the thumbnails of a message (as `_message` makes it) take."""
    return sum(len(part[4]) for part in message[2]) if len(message) > 2 else 0


def _figures(result: CaseResult) -> str:
    parts = _call_figures(result.completion)
    if result.turns is not None:
        parts.append(f"{len(result.turns)} turns")
    weighed = score_line(result)  # why a thresholded case passed, a grade failed or not
    if weighed is not None:
        parts.append(weighed)
    return " · ".join(parts)


def _call_figures(completion: Completion) -> list[str]:
    """A call's latency, tokens, cost and attempts (a conversation's: summed over turns)."""
    parts = []
    if completion.latency_ms is not None:
        parts.append(fmt.milliseconds(completion.latency_ms))
    if completion.input_tokens is not None or completion.output_tokens is not None:
        parts.append(f"{completion.input_tokens or 0}→{completion.output_tokens or 0} tok")
    if completion.cost_usd is not None:
        parts.append(fmt.cost(completion.cost_usd))
    if completion.attempts > 1:
        parts.append(f"{completion.attempts} attempts")
    return parts


def _checks(result: CaseResult) -> list[list[Any]]:
    """Per check: its name, passed, custom, and the text its pill shows on hover."""
    checks = []
    for g in result.grades:
        if g.kind not in CHECK_KINDS:
            continue
        tip = visible(g.description + label(g))
        if g.error:
            tip += f": error: {visible(shorten(g.error, _REASON))}"
        elif g.reason:
            tip += f": {visible(shorten(g.reason, _REASON))}"
        checks.append([visible(g.name), int(g.passed), int(g.kind == "custom"), tip])
    return checks


def _judges(result: CaseResult) -> list[list[Any]]:
    """Per judge grade, ``[line]`` if it could not grade, else its parts as the cell shows them.

    The parts: passed, label and score, threshold, samples note, reason, rubric.
    """
    lines: list[list[Any]] = []
    for g in result.of_kind("judge"):
        if g.error is not None:
            lines.append([f"{visible(g.label)} error: {visible(shorten(g.error, _REASON))}"])
            continue
        rubric = g.details.get("rubric")
        lines.append(
            [
                int(g.passed),
                f"{visible(g.label)} {fmt.score(g.score)}",
                fmt.score(g.details.get("threshold")),
                visible(samples_note(g.details)),
                visible(shorten(g.reason or "", _REASON)),
                visible(shorten(rubric, _REASON)) if rubric else "",
            ]
        )
    return lines


def _turn_pill(grade: Grade) -> list[Any]:
    """A conversation turn's grade as a pill, in the shape of `_checks`' (its kind's name)."""
    if grade.kind in CHECK_KINDS:
        name = grade.name
    elif grade.kind == "judge":
        name = f"{grade.label} {fmt.score(grade.score)}" if grade.error is None else grade.label
    else:
        name = grade.kind
    tip = visible(grade.description + label(grade)) if grade.description else ""
    why = f"error: {grade.error}" if grade.error else grade.reason or ""
    if why:
        tip += (": " if tip else "") + visible(shorten(why, _REASON))
    return [visible(name), int(grade.passed), int(grade.kind == "custom"), tip]


def _answer_keys(
    result: CaseResult, turns: list[list[Any]] | None, reviews: ReviewsOf
) -> dict[str, Any]:
    """The optional cell keys about the answer and what was said of it, None when absent."""
    output = result.completion.output
    return {
        "o": None
        if output is None
        else json.dumps(output, indent=2, ensure_ascii=False, default=str),
        "e": result.completion.error,
        "x": result.expected_behavior,
        "w": [visible(reason) for reason in result.reasons] or None,
        "v": [visible(text) for text in transformed_texts(result)] or None,
        "d": turns,
        "z": failing_where(result),
        "h": [_review_line(review) for review in reviews] or None,
    }


def _assertion_lines(result: CaseResult) -> list[list[Any]]:
    """Per field assertion: whether it passed, and its shortened reason."""
    return [
        [int(g.passed), visible(shorten(g.reason or "", _REASON))]
        for g in result.of_kind("assertion")
    ]


def _judge_reasons(result: CaseResult, judges: list[list[Any]]) -> str | None:
    """The judge's reasons for ``j``, or None when the script joins the same from ``g``."""
    reasons = visible("; ".join(g.reason for g in result.of_kind("judge") if g.reason))
    if reasons == "; ".join(line[4] for line in judges if len(line) > 1 and line[4]):
        return None
    return reasons


def _brief(completion: Completion, cell: dict[str, Any]) -> str | None:
    """The shortened response or error for ``b``, or None when the script shortens the same."""
    if completion.error is None:
        brief = visible(shorten(completion.text, _PREVIEW))
        return None if brief == shorten(cell["r"], _PREVIEW) else brief
    brief = visible(shorten(completion.error, _REASON))
    return None if brief == shorten(cell["e"], _REASON) else brief


def _review_line(review: Review) -> list[str]:
    """A person's review as the page lists it: who said what, then their comment or reason."""
    about = f" on {review.criterion}" if review.criterion else ""
    when = review.created_at.strftime("%Y-%m-%d %H:%M UTC")
    head = f"{review.label}{about} · {review.reviewer} · {when}"
    text = "\n".join(t for t in (review.reason, review.comment) if t)
    return [visible(head), visible(text)]


class _Table:
    """Distinct values of the data block, each written once (to `out`) and known by digest."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._index: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self._index)

    def index(self, value: object) -> int:
        """Where `value` is in the table, adding it the first time."""
        # A digest, not the text, is kept: a run of many distinct values costs little memory.
        text = _json(value)
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self._index)
            self.out.write(("," if index else "") + text)
        return index


class _Data:
    """Writes the JSON block the page's script reads, one result (a cell) at a time.

    Keys are one letter because a large run repeats them thousands of times. Per cell:
    ``i`` case id, ``m`` column, ``s`` status, ``f`` figures, ``r`` response, ``p`` index
    into ``prompts`` (each message: role, text, and its parts if any, each a `PartView`'s fields),
    and when present ``n`` repeat (if not 1), ``u`` source, ``t`` tags,
    ``c`` cached, ``k`` indexes into ``checks``, ``a`` field assertions, ``g`` judge lines,
    ``o`` parsed output, ``e`` error, ``x`` expected behaviour, ``w`` reasons it did not
    pass, ``v`` the texts its checks saw after a transform; ``j`` the judge's reasons and
    ``b`` the shortened response or error the cell shows, when the script cannot derive them
    from the rest. A conversation's cell has ``d``, its turns (each: status, the user's
    message, the reply, the error or "", indexes into ``checks`` of the turn's grades, its
    figures) and
    ``z``, what failed first (``turn N`` or ``conversation``); its ``k``, ``a`` and ``g``
    are then the grades over the whole conversation. ``h``: people's reviews from the run
    store (each: who said what, their reason or comment). The script groups cells into rows, one
    per case and repeat. Every model usually gets the same messages for a case, and most
    checks pass alike: prompts and checks are tables, each distinct one written once.
    """

    def __init__(self, out: TextIO, prompts: _Table, checks: _Table, columns: list[str]) -> None:
        self._out = out
        self._prompts = prompts
        self._checks = checks
        self._column = {column: index for index, column in enumerate(columns)}
        self._cells = 0
        self._thumbnails_left = _THUMBNAILS_MAX_CHARS
        self.tags: set[str] = set()

    def add(self, result: CaseResult, reviews: ReviewsOf = ()) -> None:
        """Write one result's cell."""
        turns, shown = None, result
        if result.turns is not None:
            turns = self._turns(result)
            # The turns' grades are beside each turn: the cell's own are the conversation's.
            whole = [grade for grade in result.grades if TURN not in grade.details]
            shown = result.model_copy(update={"grades": whole})
        tags = [visible(tag) for tag in result.tags]
        self.tags.update(tags)
        judges = _judges(shown)
        cell: dict[str, Any] = {
            "i": visible(result.key),
            "m": self._column[result.column],
            "s": result.status,
            "f": _figures(result),
            "r": visible(fmt.with_tool_calls(result.completion)),
            "p": self._prompt(result),
        }
        cell.update(self._optional(result, shown, tags, judges, turns, reviews))
        # What the script derives as the page shows it is left out, unless it would differ.
        reasons = _judge_reasons(shown, judges)
        if reasons is not None:
            cell["j"] = reasons
        brief = _brief(result.completion, cell)
        if brief is not None:
            cell["b"] = brief
        self._out.write(("," if self._cells else "") + _json(cell))
        self._cells += 1

    def _prompt(self, result: CaseResult) -> int:
        """The index of the result's messages in ``prompts``, written if new."""
        prompt = [_message(m, self._thumbnails_left > 0) for m in result.messages]
        known = len(self._prompts)
        index = self._prompts.index(prompt)
        if len(self._prompts) > known:  # written now: its thumbnails count against the share
            self._thumbnails_left -= sum(_thumbnail_chars(message) for message in prompt)
        return index

    def _optional(
        self,
        result: CaseResult,
        shown: CaseResult,
        tags: list[str],
        judges: list[list[Any]],
        turns: list[list[Any]] | None,
        reviews: ReviewsOf,
    ) -> dict[str, Any]:
        """The cell's keys that are written only when they have a value, in their order."""
        optional: dict[str, Any] = {
            "n": None if result.repeat == 1 else result.repeat,
            "u": result.source or None,
            "t": tags or None,
            "c": 1 if result.completion.cached else None,
            "k": [self._checks.index(check) for check in _checks(shown)] or None,
            "a": _assertion_lines(shown) or None,
            "g": judges or None,
            **_answer_keys(result, turns, reviews),
        }
        return {
            key: visible(value) if isinstance(value, str) else value
            for key, value in optional.items()
            if value is not None
        }

    def _turns(self, result: CaseResult) -> list[list[Any]]:
        """Each turn of a conversation as its cell's ``d`` holds it."""
        graded: dict[int, list[int]] = {}
        for grade in result.grades:
            number = grade.details.get(TURN)
            if number is not None:
                graded.setdefault(number, []).append(self._checks.index(_turn_pill(grade)))
        return [
            [
                turn.status,
                visible(turn.query),
                visible(fmt.with_tool_calls(turn.completion)),
                visible(turn.completion.error or ""),
                graded.get(number, []),
                " · ".join(_call_figures(turn.completion)),
            ]
            for number, turn in enumerate(result.turns or (), start=1)
        ]


@functools.cache
def template_asset(package: str, name: str) -> str:
    """A file from a package's ``templates`` folder (the report's CSS and JS, for instance)."""
    return resources.files(package).joinpath("templates", name).read_text("utf-8")


def _asset(name: str) -> str:
    return template_asset("promptum.reporting", name)


def csp_hash(text: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline script or style."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _finalize(value: Any) -> Any:
    """Applied by jinja2 to every ``{{ }}`` before escaping: control characters made visible."""
    if isinstance(value, str) and not hasattr(value, "__html__"):  # Markup is already safe
        return visible(value)
    return value


@functools.cache
def _environment() -> jinja2.Environment:
    """The template environment, built once: compiling the template outweighs a small render."""
    import jinja2  # Heavy; imported only when an HTML report is written.

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("promptum.reporting", "templates"),
        autoescape=True,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        cost=fmt.cost,
        ms=fmt.milliseconds,
        number=lambda n: f"{n:,}",
        percent=fmt.percent,
        score=fmt.score,
        short=shorten,
    )
    return env


def write_html(source: ReportSource, out: TextIO) -> None:
    """Write the run as one self-contained HTML page, one result at a time."""
    from markupsafe import Markup

    run = source.run
    tally = run.tally()
    models = tally.columns()
    stats = tally.stats()
    attacks = tally.asr()
    css, script = _asset("report.css") + html_css(attacks), _asset("report.js")
    page = (
        _environment()
        .get_template("report.html.j2")
        .render(
            run=run,
            count=tally.count,
            models=models,
            stats=stats,
            flaky=tally.flaky(),
            metrics=tally.metric_figures(),
            leads=[lead.line for lead in leads(source)],
            **html_context(
                attacks,
                leads(source) if attacks else [],
                detector_corrections(attacks, source),
            ),
            gate=decide(run),
            total_cost=total_spent(stats.values()),
            cached_cost=sum(s.cached_cost_usd for s in stats.values()),
            planned=run.planned_results,
            started=fmt.timestamp(run.started_at),
            duration=fmt.seconds(run.duration_s),
            data=Markup(_DATA),
            # The assets are the project's own files, inserted verbatim so their hashes match.
            css=Markup(css),
            script=Markup(script),
            # Images only as data: URLs (thumbnails of a case's parts): still nothing is fetched.
            csp=f"default-src 'none'; style-src {csp_hash(css)}; script-src {csp_hash(script)}; "
            "img-src data:",
        )
    )
    # Escaped text cannot hold the marker's "<", so its first occurrence is the template's.
    before, _, after = page.partition(_DATA)
    head = {"repeated": tally.repeated, "preview": _PREVIEW, "reason": _REASON}
    out.write(f'{before}{_json(head)[:-1]},"cells":[')
    with spool() as prompts, spool() as checks:
        data = _Data(out, _Table(prompts), _Table(checks), models)
        for result in source.results():
            data.add(result, source.reviews_of(result))
        for name, table in (("prompts", prompts), ("checks", checks)):
            out.write(f'],"{name}":[')
            table.seek(0)
            shutil.copyfileobj(table, out)
    out.write(f'],"tags":{_json(sorted(data.tags))}}}{after}')


def render_html(run: RunResult) -> str:
    """The run as one self-contained HTML page."""
    return rendered(write_html, run)
