"""One promptfoo assertion as promptum checks or judge criteria, with how faithful it is."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from promptum.errors import ConfigError
from promptum.importers._context import FILE_PREFIX, Context, slug
from promptum.importers._javascript import UntranslatableError, literal, string_literal, translate
from promptum.importers._outcome import Fidelity, Note
from promptum.importers._source import Node
from promptum.importers._writer import Commented
from promptum.providers import price_for
from promptum.validation import compiled_schema

_KNOWN_KEYS = {"type", "value", "threshold", "weight", "metric", "transform", "provider", "config"}
_RUBRIC = "a different grader prompt and judge model than promptfoo's"
_NOT_NEGATABLE = "promptum cannot negate it (`not-`)"
_READS_NO_TEXT = {
    "tool_called",
    "tool_not_called",
    "tool_order",
    "tool_args",
    "max_latency_ms",
    "max_cost_usd",
}
"""Check types that read the call, not the response text: no `answer` transform for them."""
ANSWER_TRANSFORM = "answer"
"""A check's transform showing it promptfoo's output of a data answer (tool calls, JSON)."""


class _SkipError(Exception):
    """An assertion with no promptum form; the message says why."""


@dataclass(slots=True)
class Converted:
    """What one assertion became: checks and judge criteria, and how faithfully."""

    checks: list[Commented] = field(default_factory=list)
    criteria: dict[str, Commented] = field(default_factory=dict)


@dataclass(slots=True)
class _Result:
    checks: list[dict[str, Any]] = field(default_factory=list)
    criteria: list[tuple[str, Any]] = field(default_factory=list)
    fidelity: Fidelity = Fidelity.EXACT
    why: str = ""

    def approximately(self, why: str) -> _Result:
        self.fidelity = Fidelity.APPROXIMATE
        self.why = "; ".join(filter(None, (self.why, why)))
        return self


@dataclass(frozen=True, slots=True)
class _Assertion:
    node: Node
    type: str
    base: str
    inverse: bool
    value: Any
    threshold: float | None
    raw: dict[str, Any]


def convert_assertion(node: Node, context: Context, names: set[str]) -> Converted:
    """Convert one assertion (counted in the outcome); `names` are the criteria taken."""
    raw = node.value
    converted = Converted()
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        _count(context, node, "assertion", Fidelity.NONE, "an assertion is {type, value, ...}")
        return converted
    kind = raw["type"]
    inverse = kind.startswith("not-")
    base = kind.removeprefix("not-")
    threshold = raw.get("threshold")
    if not (threshold is None or isinstance(threshold, int | float)):
        threshold = None
    assertion = _Assertion(node, kind, base, inverse, raw.get("value"), threshold, raw)
    if base == "assert-set":
        return _assert_set(assertion, context, names)
    handler = _HANDLERS.get(base)
    try:
        if handler is None:
            raise _SkipError(_UNSUPPORTED.get(base, "promptum has no such assertion"))
        result = handler(assertion, context)
        _decorate(assertion, result, context)
    except _SkipError as exc:
        _count(context, node, f"assertion `{kind}`", Fidelity.NONE, str(exc))
        return converted
    comment = [str(node.where)]
    if result.fidelity is Fidelity.APPROXIMATE:
        comment.append(f"approximately: {result.why}")
    tag = ("assertion", str(node.where), kind)
    for check in result.checks:
        converted.checks.append(Commented(check, tuple(comment), tag=tag))
    metric = raw.get("metric")
    for name, criterion in result.criteria:
        name = slug(metric, name) if isinstance(metric, str) else name
        unique, number = name, 1
        while unique in names or unique == "judge":
            number += 1
            unique = f"{name}-{number}"
        names.add(unique)
        converted.criteria[unique] = Commented(criterion, tuple(comment), tag=tag)
    note = Note(node.where, f"assertion `{kind}`", result.why) if result.why else None
    context.outcome.assertion(result.fidelity, note)
    return converted


def _count(context: Context, node: Node, what: str, fidelity: Fidelity, why: str) -> None:
    context.outcome.assertion(fidelity, Note(node.where, what, why))


def _assert_set(assertion: _Assertion, context: Context, names: set[str]) -> Converted:
    """An `assert-set` without a threshold is its assertions, each on its own."""
    raw = assertion.raw
    inner = assertion.node.get("assert")
    if raw.get("threshold") is not None or assertion.inverse or inner is None:
        why = "promptum has no group of checks with a threshold of its own"
        _count(context, assertion.node, "assertion `assert-set`", Fidelity.NONE, why)
        return Converted()
    merged = Converted()
    for item in inner.elements():
        part = convert_assertion(item, context, names)
        merged.checks.extend(part.checks)
        merged.criteria.update(part.criteria)
    return merged


def _decorate(assertion: _Assertion, result: _Result, context: Context) -> None:
    """Carry `metric`, `weight` and `transform` onto what the assertion became."""
    raw = assertion.raw
    metric = raw.get("metric")
    weight = raw.get("weight")
    transform = raw.get("transform")
    expression = None
    if isinstance(transform, str):
        try:
            translated = translate(transform, context.assertion_subject)
        except UntranslatableError as exc:
            raise _SkipError(f"its transform's JavaScript {exc}") from exc
        expression = translated.text
        for caveat in translated.caveats:
            result.approximately(f"its transform: {caveat}")
    for check in result.checks:
        if isinstance(metric, str) and metric:
            check["metric"] = metric
        if isinstance(weight, int | float) and weight != 1:
            check["weight"] = weight
        if expression is not None:
            check["transform"] = expression
        elif context.data_answers and not _reads_answer(assertion, check):
            # promptfoo's text assertions see a tool-calling or JSON answer as its JSON.
            check["transform"] = ANSWER_TRANSFORM
    if context.data_answers and result.criteria:
        result.approximately(
            "promptfoo's grader reads a tool-calling or JSON-schema answer as its JSON; "
            "promptum's judge reads the answer's text"
        )
    for index, (name, criterion) in enumerate(result.criteria):
        if isinstance(metric, str) and metric:
            spec = criterion if isinstance(criterion, dict) else {"rubric": criterion}
            result.criteria[index] = (name, {**spec, "metric": metric})
        if isinstance(weight, int | float) and weight != 1:
            result.approximately("a judge criterion has no weight in promptum")
        if expression is not None:
            result.approximately("the judge grades the output before its transform")
    for key in sorted(set(raw) - _KNOWN_KEYS):
        result.approximately(f"`{key}` is not carried over")
    if "provider" in raw and result.criteria:
        result.approximately("graded by the suite's judge model, not this assertion's provider")


def _reads_answer(assertion: _Assertion, check: dict[str, Any]) -> bool:
    """Whether a converted check reads the call or `answer` itself, not the response text."""
    return check["type"] in _READS_NO_TEXT or assertion.base == "javascript"


def _text(assertion: _Assertion, context: Context, what: str = "text") -> str:
    value = assertion.value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value:
        raise _SkipError(f"its value must be {what}")
    if value.startswith(FILE_PREFIX):
        try:
            return context.text(value)
        except ConfigError as exc:
            raise _SkipError(str(exc)) from exc
    return value


def _texts(assertion: _Assertion) -> list[str]:
    value = assertion.value
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise _SkipError("its value must be a list of texts")
    texts = [str(item) for item in value if str(item)]
    if not texts:
        raise _SkipError("its value must be a list of texts")
    return texts


def _fixed(text: str) -> str:
    """`text` as a literal in an expression, which renders no template."""
    if "{{" in text or "{%" in text:
        raise _SkipError("its value is a template, which an `expr` check would read literally")
    return string_literal(text)


def _operand(text: str) -> str | None:
    """`text` as an expression: a literal, or the var a whole `{{ var }}` names; else None."""
    whole = _WHOLE_VAR.fullmatch(text)
    if whole is not None:
        return f"vars[{string_literal(whole.group(1))}]"
    if "{{" in text or "{%" in text:
        return None
    return string_literal(text)


_WHOLE_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_FOLDS = (
    "promptum's case_insensitive folds case (ß matches SS); promptfoo lower-cases (toLowerCase)"
)
_NOT_JSON = "(output | from_json(tool_calls)) is sameas tool_calls"
"""Whether the whole response is not JSON: from_json gives back its default, a fresh list."""


def _ci(assertion: _Assertion) -> bool:
    return assertion.base.startswith("i")


def _equals(a: _Assertion, context: Context) -> _Result:
    if isinstance(a.value, dict | list):
        expression = f"json {'!=' if a.inverse else '=='} {literal(a.value)}"
        return _Result([{"type": "expr", "value": expression}]).approximately(
            "promptum's json also reads a fenced code block"
        )
    text = _text(a, context)
    if not _templated(text):  # the whole output, whitespace included
        return _Result([_anchored(a, rf"\A{re.escape(text)}\Z")])
    operand = _operand(text)
    if operand is not None:
        return _Result(
            [{"type": "expr", "value": f"output {'!=' if a.inverse else '=='} {operand}"}]
        )
    if a.inverse:
        raise _SkipError("its value is a template, which an `expr` check would read literally")
    return _Result([{"type": "exact_match", "value": text}]).approximately(
        "promptum's exact_match ignores whitespace around the response; equals does not"
    )


def _templated(text: str) -> bool:
    return "{{" in text or "{%" in text


def _anchored(a: _Assertion, pattern: str) -> dict[str, Any]:
    """A search for escaped text at the start (and end) of the response, exactly.

    As exact as an `expr` comparison, and compiled in microseconds where an expression takes
    milliseconds (a config of a thousand `equals` has a thousand different values).
    """
    return {"type": "not_regex" if a.inverse else "regex", "value": pattern}


def _contains(a: _Assertion, context: Context) -> _Result:
    text = _text(a, context)
    if _ci(a):
        operand = _operand(text)
        if operand is not None:  # lower() and toLowerCase() map case alike; casefold() does not
            found = f"({operand} | lower) in (output | lower)"
            return _Result([{"type": "expr", "value": f"not ({found})" if a.inverse else found}])
    check: dict[str, Any] = {"type": "not_contains" if a.inverse else "contains", "value": text}
    if not _ci(a):
        return _Result([check])
    check["case_insensitive"] = True
    return _Result([check]).approximately(_FOLDS)


def _contains_many(a: _Assertion, context: Context) -> _Result:
    texts = _texts(a)
    every = a.base.endswith("-all")
    templated = any("{{" in text or "{%" in text for text in texts)
    if not a.inverse and (templated or not _ci(a)):
        check: dict[str, Any] = {
            "type": "contains_all" if every else "contains_any",
            "value": texts,
        }
        if not _ci(a):
            return _Result([check])
        check["case_insensitive"] = True
        return _Result([check]).approximately(_FOLDS)
    subject = "(output | lower)" if _ci(a) else "output"
    tests = [f"{_fixed(t.lower() if _ci(a) else t)} in {subject}" for t in texts]
    joined = (" and " if every else " or ").join(tests)
    return _Result([{"type": "expr", "value": f"not ({joined})" if a.inverse else joined}])


def _starts_with(a: _Assertion, context: Context) -> _Result:
    text = _text(a, context)
    if not _templated(text):  # whitespace before the output counts
        return _Result([_anchored(a, rf"\A{re.escape(text)}")])
    operand = _operand(text)
    if operand is not None:
        starts = f"output.startswith({operand})"
        return _Result([{"type": "expr", "value": f"not {starts}" if a.inverse else starts}])
    if a.inverse:
        raise _SkipError("its value is a template, which an `expr` check would read literally")
    return _Result([{"type": "starts_with", "value": text}]).approximately(
        "promptum's starts_with ignores whitespace before the response; promptfoo's does not"
    )


def _regex(a: _Assertion, context: Context) -> _Result:
    return _Result([{"type": "not_regex" if a.inverse else "regex", "value": _text(a, context)}])


def _is_json(a: _Assertion, context: Context) -> _Result:
    schema = a.value
    if isinstance(schema, str) and schema.startswith(FILE_PREFIX):
        try:
            schema = context.yaml(schema).value
        except ConfigError as exc:
            raise _SkipError(str(exc)) from exc
    if a.inverse:
        if schema not in (None, ""):
            raise _SkipError(_NOT_NEGATABLE + " with a schema")
        return _Result([{"type": "expr", "value": _NOT_JSON}])
    if isinstance(schema, dict):
        try:
            compiled_schema(schema)
        except jsonschema.SchemaError as exc:
            raise _SkipError(f"its schema: {exc.message}") from None
    if a.base == "contains-json":
        name = context.adapter.json_check(a.base, schema or {}, str(a.node.where))
        return _Result([_python_check(context, name)]).approximately(
            "finds JSON as Python's decoder reads it from each `{` or `[`"
        )
    if schema in (None, ""):  # JSON.parse of the whole output: no fenced block
        return _Result([{"type": "expr", "value": f"not ({_NOT_JSON})"}])
    if not isinstance(schema, dict | bool):
        raise _SkipError("its value must be a JSON schema")
    name = context.adapter.json_check(a.base, schema, str(a.node.where))
    return _Result([_python_check(context, name)])


def _python_check(context: Context, function: str) -> dict[str, Any]:
    adapter = context.output.with_name(context.output.stem + "_adapter.py").name
    return {"type": "python", "value": f"{adapter}:{function}"}


def _javascript(a: _Assertion, context: Context) -> _Result:
    if not isinstance(a.value, str):
        raise _SkipError("its value must be JavaScript code")
    try:
        translated = translate(a.value, context.assertion_subject)
    except UntranslatableError as exc:
        raise _SkipError(f"the JavaScript {exc}; write an `expr` check by hand") from exc
    expression, kind = translated.text, translated.kind
    result = _Result()
    for caveat in translated.caveats:
        result.approximately(caveat)
    if kind == "number" and a.threshold is None:
        expression = f"({expression}) {'<=' if a.inverse else '>'} 0"  # promptfoo: score > 0
    elif kind == "number":
        expression = f"({expression}) {'<' if a.inverse else '>='} {a.threshold}"
    elif a.inverse:
        if kind != "bool":
            raise _SkipError(_NOT_NEGATABLE + " when the value may be a number")
        expression = f"not ({expression})"
    else:
        if kind != "bool":
            result.approximately(
                "if the value is a number, promptum scores it against `threshold` (0.5 by "
                "default) where promptfoo passes any number above 0"
            )
        if a.threshold is not None:
            result.checks.append({"type": "expr", "value": expression, "threshold": a.threshold})
            return result
    result.checks.append({"type": "expr", "value": expression})
    return result


def _python(a: _Assertion, context: Context) -> _Result:
    value = a.value
    if not isinstance(value, str) or not value.strip():
        raise _SkipError("its value must be Python code or a file:// path")
    config = a.raw.get("config")
    where = str(a.node.where)
    if value.startswith(FILE_PREFIX):
        path, _, function = value.removeprefix(FILE_PREFIX).partition(":")
        if not path.endswith(".py"):
            raise _SkipError("only .py files are Python")
        if not context.path(path).is_file():
            raise _SkipError(f"{path}: no such file")
        try:
            name = context.adapter.file_assert(
                path, function or "get_assert", config, a.threshold, a.inverse, where
            )
        except ValueError as exc:  # a function name that is no Python name
            raise _SkipError(str(exc)) from None
    else:
        name = context.adapter.inline_assert(value, config, a.threshold, a.inverse, where)
    return _Result([_python_check(context, name)])


def _similar(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    value = a.value
    if isinstance(value, list):
        if len(value) != 1:
            raise _SkipError("promptum's similar compares with one reference, not any of several")
        value = value[0]
    text = _text(_Assertion(a.node, a.type, a.base, False, value, a.threshold, a.raw), context)
    check: dict[str, Any] = {"type": "similar", "value": text, "threshold": a.threshold or 0.75}
    result = _Result([check]).approximately(
        "another embedding model scores similarity; measure the threshold for yours"
    )
    provider = a.raw.get("provider")
    if isinstance(provider, str):
        prefix, _, rest = provider.partition(":")
        model = rest.split(":")[-1]
        if prefix in ("openai", "ollama", "openrouter") and model:
            check["model"] = f"{prefix}/{model}"
        else:
            result.approximately(f"the embedding provider {provider} is not carried over")
    return result


def _levenshtein(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    # promptfoo passes when the distance is at most `threshold || 5`: a fraction (a CSV
    # column's default 0.75) allows only the whole edits below it.
    distance = math.floor(a.threshold) if a.threshold else 5
    value = {"expected": _text(a, context), "max_distance": distance}
    return _Result([{"type": "levenshtein", "value": value}]).approximately(
        "promptum measures the distance from the trimmed response; promptfoo from the output"
    )


def _rouge(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    check = {"type": "rouge", "value": _text(a, context), "threshold": a.threshold or 0.75}
    return _Result([check]).approximately("another ROUGE implementation (tokenising differs)")


def _bleu(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    value: Any = a.value if isinstance(a.value, list) else _text(a, context)
    check = {"type": "bleu", "value": value, "threshold": a.threshold or 0.5}
    return _Result([check]).approximately("another BLEU implementation (smoothing differs)")


def _budget(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    if a.threshold is None:
        raise _SkipError("it needs a threshold")
    if a.base == "latency":
        return _Result([{"type": "max_latency_ms", "value": a.threshold}])
    unpriced = [model for model in context.models if price_for(model, {}) is None]
    if not unpriced:
        return _Result([{"type": "max_cost_usd", "value": a.threshold}])
    # promptum refuses a max_cost_usd on a model without a price; promptfoo errors on such
    # a model's answers and bounds the others': the expression fails where promptfoo errs.
    bound = f"cost_usd is not none and cost_usd <= {a.threshold!r}"
    return _Result([{"type": "expr", "value": bound}]).approximately(
        f"promptum has no price for {', '.join(unpriced)}, so the bound fails on every "
        "answer of theirs (promptfoo errors); give their prices under `pricing:` (USD per "
        "million tokens) and write `max_cost_usd`"
    )


def _word_count(a: _Assertion, context: Context) -> _Result:
    words = "(output | word_count)"
    value = a.value
    if isinstance(value, int) and not isinstance(value, bool):
        expression = f"{words} == {value}"
    elif isinstance(value, dict) and set(value) <= {"min", "max"} and value:
        bounds = [f"{words} >= {value['min']}"] if "min" in value else []
        bounds += [f"{words} <= {value['max']}"] if "max" in value else []
        expression = " and ".join(bounds)
    else:
        raise _SkipError("its value must be a number or {min, max}")
    return _Result([{"type": "expr", "value": f"not ({expression})" if a.inverse else expression}])


def _rubric(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE + ": a judge criterion passes on a high score only")
    base = a.base
    if base == "context-faithfulness":
        spec: dict[str, Any] = {"prompt": "faithfulness"}
        name = "faithful"
        why = "promptum's faithfulness prompt grades against the case's `context`"
    elif base == "answer-relevance":
        spec = {"rubric": "Answers the question that was asked, and nothing else"}
        name, why = "relevant", _RUBRIC
    else:
        text = _text(a, context, "a rubric")
        templates = {
            "factuality": "Is factually consistent with this reference answer: {}",
            "model-graded-factuality": "Is factually consistent with this reference answer: {}",
            "model-graded-closedqa": "Meets this criterion: {}",
        }
        spec = {"rubric": templates.get(base, "{}").format(text)}
        name, why = slug(base.replace("llm-", "").replace("model-graded-", ""), "rubric"), _RUBRIC
    if a.threshold is not None:
        spec["threshold"] = a.threshold
    criterion: Any = spec["rubric"] if list(spec) == ["rubric"] else spec
    return _Result(criteria=[(name, criterion)]).approximately(why)


def _tools_valid(a: _Assertion, context: Context) -> _Result:
    if a.inverse:
        raise _SkipError(_NOT_NEGATABLE)
    return _Result([{"type": "expr", "value": "tool_calls | length > 0"}]).approximately(
        "promptum checks every tool call against its tool's schema on its own; this check "
        "asks that there is one"
    )


def _tool_used(a: _Assertion, context: Context) -> _Result:
    names = a.value if isinstance(a.value, list) else [a.value]
    if not names or not all(isinstance(name, str) and name for name in names):
        raise _SkipError("its value must be a tool name or a list of them")
    kind = "tool_not_called" if a.inverse else "tool_called"
    return _Result([{"type": kind, "value": name} for name in names]).approximately(
        "promptum reads the response's tool calls, not a trace"
    )


def _tool_sequence(a: _Assertion, context: Context) -> _Result:
    value = a.value.get("steps") if isinstance(a.value, dict) else a.value
    if a.inverse or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _SkipError("only a list of tool names, in order, converts")
    return _Result([{"type": "tool_order", "value": value}]).approximately(
        "promptum reads the response's tool calls, not a trace"
    )


def _tool_args(a: _Assertion, context: Context) -> _Result:
    value = a.value
    if a.inverse or not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise _SkipError("only {name, args} converts")
    check_value = {"tool": value["name"], "expected": value.get("args") or {}}
    return _Result([{"type": "tool_args", "value": check_value}]).approximately(
        "promptum reads the response's tool calls, not a trace; a list in `expected` means 'one of'"
    )


_HANDLERS: dict[str, Callable[[_Assertion, Context], _Result]] = {
    "equals": _equals,
    "contains": _contains,
    "icontains": _contains,
    "contains-any": _contains_many,
    "icontains-any": _contains_many,
    "contains-all": _contains_many,
    "icontains-all": _contains_many,
    "starts-with": _starts_with,
    "regex": _regex,
    "is-json": _is_json,
    "contains-json": _is_json,
    "javascript": _javascript,
    "python": _python,
    "similar": _similar,
    "similar:cosine": _similar,
    "levenshtein": _levenshtein,
    "rouge-n": _rouge,
    "bleu": _bleu,
    "latency": _budget,
    "cost": _budget,
    "word-count": _word_count,
    "llm-rubric": _rubric,
    "g-eval": _rubric,
    "model-graded-closedqa": _rubric,
    "factuality": _rubric,
    "model-graded-factuality": _rubric,
    "answer-relevance": _rubric,
    "context-faithfulness": _rubric,
    "is-valid-openai-tools-call": _tools_valid,
    "is-valid-openai-function-call": _tools_valid,
    "is-valid-function-call": _tools_valid,
    "trajectory:tool-used": _tool_used,
    "trajectory:tool-sequence": _tool_sequence,
    "trajectory:tool-args-match": _tool_args,
}

_UNSUPPORTED = {
    # promptfoo 0.123.1 stops such a test with "Unknown assertion type": converting it to
    # promptum's ends_with would pass what promptfoo never graded.
    "ends-with": "promptfoo has no such assertion (it errors: Unknown assertion type); "
    "write an `ends_with` check if that is what was meant",
    "webhook": "it calls a web service to grade; write a python check that calls it",
    "moderation": "promptum has no moderation API check",
    "perplexity": "promptum does not receive log-probabilities",
    "perplexity-score": "promptum does not receive log-probabilities",
    "classifier": "promptum runs no HuggingFace classifier",
    "is-refusal": "promptum has no refusal detector; a judge criterion can ask for one",
    "finish-reason": "promptum does not record why the model stopped",
    "select-best": "promptum grades each response on its own, not against the others",
    "max-score": "promptum grades each response on its own, not against the others",
    "human": "promptum has no human grading",
    "context-recall": "it grades the retrieved context, which promptum's judge does not",
    "context-relevance": "it grades the retrieved context, which promptum's judge does not",
    "tool-call-f1": "promptum has no F1 score of tool calls",
    "is-sql": "promptum has no SQL check",
    "contains-sql": "promptum has no SQL check",
    "is-xml": "promptum has no XML check",
    "contains-xml": "promptum has no XML check",
    "is-html": "promptum has no HTML check",
    "contains-html": "promptum has no HTML check",
    "meteor": "promptum has no METEOR score",
    "gleu": "promptum has no GLEU score",
    "f-score": "promptum has no derived F-score",
    "ruby": "promptum runs Python, not Ruby",
    "guardrails": "promptum has no guardrail provider check",
    "pi": "promptum has no prompt-injection classifier check",
}
