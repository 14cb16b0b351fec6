"""promptfoo's `defaultTest` and `tests` (inline, YAML/JSON/JSONL/CSV files, globs) as cases."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.foundations.environment import positive_int
from promptum.importers._assertions import ANSWER_TRANSFORM, convert_assertion
from promptum.importers._context import FILE_PREFIX, Context, is_glob, slug
from promptum.importers._csv_tests import csv_tests, jsonl_tests
from promptum.importers._javascript import Expr, UntranslatableError, translate
from promptum.importers._source import READ_AS_YAML, Document, Node
from promptum.importers._writer import Commented

_TEST_KEYS = {
    "description",
    "vars",
    "assert",
    "options",
    "threshold",
    "metadata",
    "provider",
    "providers",
    "prompts",
    "providerOutput",
    "assertScoringFunction",
    "__unknown",
}
_CODE_VARS = (".py", ".js", ".ts", ".mjs", ".cjs")
_ANSWERED = "no assertions: promptfoo passes the test when the provider answered without error"
_DATA_TRANSFORM = (
    "checks see a mapping or list it gives as data (`answer`), but a number or bool as its "
    "JSON text, where promptfoo's assertions see the number or bool"
)
_CONTEXT_FILE = "context_file"
"""The var holding a `file://` context's text, which the case's `context` renders."""
_MEDIA_VARS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".mp3", ".wav")
"""Files promptum sends as content parts: such a var holds the file's path."""
_BINARY_VARS = (".mp4",)
MAX_CASES = 100_000
"""The most cases an import writes, unless `PROMPTUM_MAX_IMPORTED_CASES` says otherwise.

A test's list vars multiply: a few lines of lists would make billions of cases, and building
them exhausted the memory. At about 200 bytes a case (a few vars and a check), 100,000 cases
are more than the 16 MiB a suite file may have. The suites' own limits count bytes and the
values aliases add, not cases, so none of them bounds this.
"""
CASES_VARIABLE = "PROMPTUM_MAX_IMPORTED_CASES"
_LENGTHS_SHOWN = 8


@dataclass(slots=True)
class Defaults:
    """What `defaultTest` gives every case: suite vars, default checks, judge criteria."""

    vars: dict[str, Any] = field(default_factory=dict)
    checks: list[Commented] = field(default_factory=list)
    criteria: dict[str, Commented] = field(default_factory=dict)
    transform: Expr | None = None
    threshold: float | None = None
    judge_model: str | None = None
    context: Any = None


def convert_default_test(node: Node | None, context: Context) -> Defaults:
    """`defaultTest` (inline, or a file://) as the suite's vars and defaults."""
    defaults = Defaults()
    node = _default_test_node(node, context)
    if node is None:
        return defaults
    _default_vars(node, context, defaults)
    names: set[str] = set()
    defaults.transform = _transform(node, context)
    with _assertions_seeing(defaults.transform, context):
        for item in _asserts(node):
            converted = convert_assertion(item, context, names)
            defaults.checks.extend(converted.checks)
            defaults.criteria.update(converted.criteria)
    if defaults.transform is not None:
        _seen_through_transform(defaults.checks)
    defaults.judge_model = _grader(node, context)
    threshold = node.get("threshold")
    if threshold is not None and isinstance(threshold.value, int | float):
        defaults.threshold = threshold.value
    for key in sorted(set(node.value) - {"vars", "assert", "options", "threshold"}):
        if key != "metadata":
            context.skip(
                node.get(key) or node, f"defaultTest `{key}`", "promptum has no default for it"
            )
    return defaults


def _default_test_node(node: Node | None, context: Context) -> Node | None:
    """The mapping `defaultTest` holds or names, or None (noted) when there is none."""
    if node is None:
        return None
    if isinstance(node.value, str) and node.value.startswith(FILE_PREFIX):
        try:
            node = context.yaml(node.value).root()
        except ConfigError as exc:
            context.skip(node, "defaultTest", str(exc))
            return None
    if not isinstance(node.value, dict):
        context.skip(node, "defaultTest", "it is a mapping of test settings")
        return None
    return node


def _default_vars(node: Node, context: Context, defaults: Defaults) -> None:
    """`defaultTest`'s vars as the suite's vars; a `context` var is the suite's context."""
    variables = node.get("vars")
    if variables is None:
        return
    for name, item in variables.items():
        value = _var(item, context)
        if isinstance(value, list):
            context.skip(
                item,
                f"defaultTest var {name}",
                "a list in defaultTest's vars would multiply every test; give it to the tests",
            )
        elif name == "context" and isinstance(value, str):
            defaults.context = value
        elif name == "context" and isinstance(value, dict) and "file" in value:
            defaults.context = "{{ " + _CONTEXT_FILE + " }}"
            defaults.vars[_CONTEXT_FILE] = value
        elif value is not None:
            defaults.vars[name] = value


def convert_tests(node: Node | None, context: Context, defaults: Defaults) -> list[Commented]:
    """Every test the config names, as cases in order (a list var makes one case per value)."""
    cases: list[Commented] = []
    if node is None:
        case = {"id": context.unique("test-1"), "checks": [{"type": "answered"}]}
        return [Commented(case, (f"no tests: the prompts run once; {_ANSWERED}",))]
    limit = max_cases()
    for item in node.elements():
        reference = _file_reference(item)
        if reference is not None:
            for document in _files(reference, context):
                for test in document.root().elements():
                    cases.extend(_case(test, context, defaults, len(cases), limit))
        elif isinstance(item.value, dict):
            cases.extend(_case(item, context, defaults, len(cases), limit))
        else:
            context.skip(item, "test", "a test is a mapping or a file:// path")
    return cases


def _file_reference(item: Node) -> Node | None:
    """The file a tests entry names: a path, or promptfoo's `{path: ..., config: ...}`."""
    if isinstance(item.value, str):
        return item
    if isinstance(item.value, dict) and isinstance(item.value.get("path"), str):
        return item.get("path")  # a generator's `config` is for code, which is not run
    return None


def _files(node: Node, context: Context) -> list[Document]:
    reference = str(node.value)
    if not reference.startswith(FILE_PREFIX) and "://" in reference:
        context.skip(node, f"tests {reference}", "promptum reads tests from files only")
        return []
    bare = reference.removeprefix(FILE_PREFIX)
    paths = context.glob(bare) if is_glob(bare) else [context.path(bare)]
    if not paths:
        context.skip(node, f"tests {reference}", "the pattern matches no file")
    documents = []
    for path in paths:
        try:
            document = _tests_file(node, context, path)
        except ConfigError as exc:
            context.skip(node, f"tests {context.shown(path)}", str(exc))
            continue
        if document is not None:
            documents.append(document)
    return documents


def _tests_file(node: Node, context: Context, path: Path) -> Document | None:
    """The tests of one file as a list document, or None (noted) for a kind not read."""
    shown = context.shown(path)
    suffix = path.suffix.lower().partition(":")[0]  # `tests.py:generate` names a function
    if suffix in READ_AS_YAML:
        document = context.yaml(str(path))
        if isinstance(document.value, dict):  # a file holding one test
            return Document(
                [document.value], document.file, {(0, *k): v for k, v in document.lines.items()}
            )
        return document
    if suffix == ".csv":
        return csv_tests(context.text(str(path)), shown)
    if suffix == ".jsonl":
        return jsonl_tests(context.text(str(path)), shown)
    why = (
        "tests written by code run no code in promptum: write them out as YAML"
        if suffix in _CODE_VARS
        else f"promptum does not read {suffix} test files"
    )
    context.skip(node, f"tests {shown}", why)
    return None


def _asserts(node: Node) -> list[Node]:
    asserts = node.get("assert")
    return [] if asserts is None else list(asserts.elements())


def max_cases() -> int:
    """The most cases an import writes: `PROMPTUM_MAX_IMPORTED_CASES`, else MAX_CASES."""

    def refuse(raw: str) -> Exception:
        return ConfigError(f"{CASES_VARIABLE} must be a positive number of cases, got {raw!r}")

    return positive_int(CASES_VARIABLE, MAX_CASES, refuse)


def _case(
    node: Node, context: Context, defaults: Defaults, before: int, limit: int
) -> list[Commented]:
    """The cases of one test, after `before` cases of earlier tests; refused past `limit`."""
    raw = node.value
    if not isinstance(raw, dict):
        context.skip(node, "test", "a test is a mapping")
        return []
    variables, lists = _case_vars(node, context)
    _check_count(node, lists, before, limit)
    case = _case_settings(node, context, defaults, variables)
    _skip_unsupported_keys(node, context)
    combinations = [
        dict(zip(lists, values, strict=True)) for values in itertools.product(*lists.values())
    ]
    return _expanded(node, context, case, combinations if lists else [], before + 1)


def _check_count(node: Node, lists: dict[str, list[Any]], before: int, limit: int) -> None:
    """Refuse a test whose cases would take the import past `limit`, before building them.

    The size of a product of lists is known from their lengths: a test that would make
    billions of cases is refused in no time, not after the memory runs out.
    """
    count = math.prod(len(values) for values in lists.values())
    if before + count <= limit:
        return
    if lists:
        lengths = [f"{name}: {len(values)}" for name, values in lists.items()]
        if len(lengths) > _LENGTHS_SHOWN:
            lengths[_LENGTHS_SHOWN:] = ["..."]
        made = (
            f"this test's list vars make {count:,} cases (promptfoo runs every combination; "
            f"the lists' lengths: {', '.join(lengths)})"
        )
        remedy = "shorten the lists, or write the combinations wanted as tests, "
    else:
        made, remedy = "this test makes 1 case", ""
    if before:
        made += f" and the tests before it {before:,}"
        remedy = "split the tests over several configs, " + remedy
    raise ConfigError(
        f"{node.where}: {made}, over the limit of {limit:,} cases an import writes; "
        f"{remedy}or set {CASES_VARIABLE} on the machine that runs the import"
    )


def _case_settings(
    node: Node, context: Context, defaults: Defaults, variables: dict[str, Any]
) -> dict[str, Any]:
    """Everything of the case but its id, in the order a suite file writes it."""
    case: dict[str, Any] = {}
    if isinstance(variables.get("context"), str):
        case["context"] = variables.pop("context")
    elif isinstance(variables.get("context"), dict) and "file" in variables["context"]:
        # A var's file is read as it is, where a context is a template: it renders the var.
        variables[_CONTEXT_FILE] = variables.pop("context")
        case["context"] = "{{ " + _CONTEXT_FILE + " }}"
    transform = _transform(node, context)
    with _assertions_seeing(transform or defaults.transform, context):
        checks, criteria = _case_grading(node, context, defaults)
    if variables:
        case["vars"] = variables
    if checks:
        case["checks"] = checks
    if criteria:
        judge: dict[str, Any] = {"criteria": {**defaults.criteria, **criteria}}
        case["judge"] = judge
    if transform is not None:
        case["transform"] = transform.text
        _seen_through_transform(checks)
    _options(node, context, case)
    _threshold(node, context, case)
    tags = _metadata_tags(node.value.get("metadata"))
    if tags:
        case["tags"] = tags
    return case


def _case_grading(
    node: Node, context: Context, defaults: Defaults
) -> tuple[list[Commented], dict[str, Commented]]:
    """The test's own checks and judge criteria; a test nothing grades is noted."""
    names: set[str] = set(defaults.criteria)
    checks: list[Commented] = []
    criteria: dict[str, Commented] = {}
    for item in _asserts(node):
        converted = convert_assertion(item, context, names)
        checks.extend(converted.checks)
        criteria.update(converted.criteria)
    if not (_asserts(node) or defaults.checks or defaults.criteria):
        checks.append(Commented({"type": "answered"}, (f"{node.where}: {_ANSWERED}",)))
    return checks, criteria


@contextmanager
def _assertions_seeing(transform: Expr | None, context: Context) -> Iterator[None]:
    """Assertions converted within see what `transform` gives: data as promptum's `answer`.

    promptfoo's assertions after `JSON.parse(output)` read an object; promptum's checks read
    a transform's mapping or list as `answer`.
    """
    subject = context.subject
    if transform is not None and transform.kind in ("any", "list"):
        context.subject = "answer"
    try:
        yield
    finally:
        context.subject = subject


def _seen_through_transform(checks: list[Commented]) -> None:
    """Drop the checks' `answer` transform: the test's transform already sees promptfoo's output."""
    for check in checks:
        if check.value.get("transform") == ANSWER_TRANSFORM:
            del check.value["transform"]


def _threshold(node: Node, context: Context, case: dict[str, Any]) -> None:
    threshold = node.value.get("threshold")
    if isinstance(threshold, int | float) and not isinstance(threshold, bool):
        case["threshold"] = threshold
    elif threshold is not None:
        context.skip(node.get("threshold") or node, "threshold", "it is a number from 0 to 1")


def _metadata_tags(metadata: Any) -> list[str]:
    """The test's scalar metadata values as `key:value` tags."""
    if not isinstance(metadata, dict):
        return []
    return [
        f"{key}:{value}"
        for key, value in metadata.items()
        if isinstance(value, str | int | float) and not isinstance(value, bool)
    ]


_UNSUPPORTED_KEYS = (
    ("providerOutput", "a fixed output is not a model's answer"),
    ("assertScoringFunction", "it scores with code; use the case `threshold`"),
    ("prompts", "every prompt runs on every case in promptum"),
    ("provider", "promptum runs a case on the suite's models"),
    ("providers", "promptum runs a case on the suite's models"),
)


def _skip_unsupported_keys(node: Node, context: Context) -> None:
    """Notes each key and CSV column of the test that promptum has no equivalent for."""
    raw = node.value
    for key in sorted(set(raw) - _TEST_KEYS):
        context.skip(node.get(key) or node, f"test key `{key}`", "promptfoo has no such test key")
    for column in raw.get("__unknown", []):
        context.skip(node, f"column {column}", "promptum has no such option")
    for key, why in _UNSUPPORTED_KEYS:
        if key in raw:
            context.skip(node.get(key) or node, f"test `{key}`", why)


def _expanded(
    node: Node,
    context: Context,
    case: dict[str, Any],
    combinations: list[dict[str, Any]],
    number: int,
) -> list[Commented]:
    """The case once, or once per combination of its list vars, each with its own id."""
    description = node.value.get("description")
    base = slug(str(description), f"test-{number}") if description else f"test-{number}"
    comment = (f"{node.where}" + (f": {description}" if description else ""),)
    tag = ("case", str(node.where))
    rest = {key: value for key, value in case.items() if key not in ("context", "vars")}
    head = {key: case[key] for key in ("context",) if key in case}
    if len(combinations) <= 1:
        merged = {**case.get("vars", {}), **(combinations[0] if combinations else {})}
        one = {"id": context.unique(base), **head, **({"vars": merged} if merged else {}), **rest}
        return [Commented(one, comment, tag=tag)]
    cases = []
    for index, combination in enumerate(combinations, 1):
        merged = {**case.get("vars", {}), **combination}
        one = {"id": context.unique(f"{base}-{index}"), **head, "vars": merged, **rest}
        cases.append(Commented(one, comment, tag=(*tag, index)))
    return cases


def _case_vars(node: Node, context: Context) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Plain vars, and the list vars, whose cross product promptfoo runs."""
    plain: dict[str, Any] = {}
    lists: dict[str, list[Any]] = {}
    variables = node.get("vars")
    if variables is None:
        return plain, lists
    if not isinstance(variables.value, dict):
        context.skip(variables, "vars", "only a mapping of vars converts")
        return plain, lists
    for name, item in variables.items():
        value = _var(item, context)
        if isinstance(value, list) and value:
            lists[name] = value
        elif value is not None:
            plain[name] = value
    return plain, lists


def _var(node: Node, context: Context) -> Any:
    value = node.value
    if isinstance(value, list):
        items = [_var(item, context) for item in node.elements()]
        return [item for item in items if item is not None]
    if not (isinstance(value, str) and value.startswith(FILE_PREFIX)):
        return value
    return _file_var(node, context, value)


def _file_var(node: Node, context: Context, value: str) -> Any:
    """A `file://` var as promptum's `file:`/`files:` form, or None (noted) when it has none."""
    reference = value.removeprefix(FILE_PREFIX)
    suffix = Path(reference.split(":")[0]).suffix.lower()
    if suffix in _CODE_VARS:
        context.skip(node, f"var {value}", "a var computed by code; promptum's vars are data")
        return None
    if suffix in _BINARY_VARS:
        context.skip(node, f"var {value}", "promptum reads text files into vars, not video")
        return None
    if suffix in _MEDIA_VARS and not is_glob(reference):
        if not context.path(reference).is_file():
            context.skip(node, f"var {value}", "no such file")
            return None
        context.approximate(
            node,
            f"var {value}",
            "the var is the file's path: a prompt's image, document or audio item sends the "
            "file; written in a text it is the path, where promptfoo writes the file's base64",
        )
        return context.from_suite(context.path(reference))
    if suffix in READ_AS_YAML:
        context.approximate(
            node, f"var {value}", "promptum reads the file as text; promptfoo parses it"
        )
    target = context.from_suite(context.path(reference))
    if is_glob(reference):
        return {"files": target}
    if not context.path(reference).is_file():
        context.skip(node, f"var {value}", "no such file")
        return None
    return {"file": target}


def _transform(node: Node, context: Context) -> Expr | None:
    options = node.get("options")
    if options is None or not isinstance(options.value, dict):
        return None
    for key in ("transform", "postprocess"):
        item = options.get(key)
        if item is None:
            continue
        if not isinstance(item.value, str):
            context.skip(item, f"options.{key}", "a transform is JavaScript text")
            continue
        try:
            translated = translate(item.value, context.subject)
        except UntranslatableError as exc:
            context.skip(item, f"options.{key}", f"the JavaScript {exc}")
            continue
        for caveat in translated.caveats:
            context.approximate(item, f"options.{key}", caveat)
        if translated.kind == "any":
            context.approximate(item, f"options.{key}", _DATA_TRANSFORM)
        return translated
    return None


def _grader(node: Node, context: Context) -> str | None:
    options = node.get("options")
    provider = options.get("provider") if options is not None else None
    if provider is None:
        return None
    value = provider.value
    provider_id = value.get("id") if isinstance(value, dict) else value
    if isinstance(provider_id, str):
        prefix, _, rest = provider_id.partition(":")
        model = rest.removeprefix("chat:").removeprefix("messages:")
        if prefix in ("openai", "anthropic", "openrouter", "ollama") and model:
            return f"{prefix}/{model}"
    context.skip(
        provider,
        "options.provider",
        "only an openai, anthropic, openrouter or ollama grader converts to the judge's model",
    )
    return None


def _options(node: Node, context: Context, case: dict[str, Any]) -> None:
    model = _grader(node, context)
    if model is not None:
        case.setdefault("judge", {})["model"] = model
    options = node.get("options")
    if options is None or not isinstance(options.value, dict):
        return
    for key in sorted(set(options.value) - {"transform", "postprocess", "provider"}):
        context.skip(options.get(key) or options, f"options.{key}", "promptum has no such option")
