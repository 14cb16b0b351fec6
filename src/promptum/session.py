"""`Session` and `Prompt`: the Python API, running the same cases a suite file describes.

::

    session = Session()
    session.add_test(Prompt(name="capital", prompt="What is the capital of France?",
                            validator=Contains("Paris")))
    result = session.run()
"""

from __future__ import annotations

import asyncio
import uuid
from array import array
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from promptum.cases import (
    Cases,
    Grading,
    JudgeConfig,
    Mapped,
    Selected,
    TestCase,
    grades_something,
    judged_criteria,
)
from promptum.checks import SHARED, CheckDefinition, CheckTable, is_built_in
from promptum.errors import ConfigError, ProviderUnavailableError
from promptum.foundations.problems import first_problem
from promptum.foundations.version import promptum_version
from promptum.providers import repeated_model
from promptum.runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_GRACE_S,
    DEFAULT_GRADE_TIMEOUT_S,
    Journal,
    Runner,
    Survey,
)
from promptum.sinks import ResultSink
from promptum.suites import (
    CaseFields,
    InvalidCaseError,
    JudgeSpec,
    Locator,
    Suite,
    SuiteContext,
    build_case,
    context_problem,
    duplicate_ids,
    judge_problems,
    load_suite,
    merged_judge,
)
from promptum.validation import Validator
from promptum.values.asr_bounds import AsrBounds, run_bounds
from promptum.values.run_result import CaseResult, Message, RunResult

if TYPE_CHECKING:
    from promptum.providers import ClientOptions, HttpTarget, ModelClient
    from promptum.runner import Executor


def _default_model() -> str:
    from promptum.providers import DEFAULT_MODEL

    return DEFAULT_MODEL


_SHARED_CHECKS = {SHARED: CheckTable()}
"""Checks written alike in many `Prompt`s are compiled once and shared, as in a suite: a
check is a pure function of its definition, and compiling one costs more than a call."""


_COMPILED_FROM_OUTSIDE = frozenset({"python", "similar"})
"""Built-in types whose compiling reads more than the definition: `python` imports the
user's code, `similar` reads the environment (its endpoint, the modules installed)."""


def _sharing(check: CheckDefinition | Mapping[str, Any]) -> dict[str, CheckTable] | None:
    """The validation context that shares `check` with the `Prompt`s before, if it may be."""
    # The table lasts as long as the process: only checks that are a function of their
    # definition alone are shared. A type registered by a user or a plugin may be
    # registered again with other code, and code or environment may change meanwhile.
    kind = check.get("type") if isinstance(check, Mapping) else None
    if not isinstance(kind, str) or not is_built_in(kind) or kind in _COMPILED_FROM_OUTSIDE:
        return None
    return _SHARED_CHECKS


@dataclass(frozen=True, slots=True)
class Prompt:
    """One test written in Python: a prompt, the model(s) and how to grade the response.

    Give `prompt` (one user message) or `messages` (a conversation). `checks` take the
    suite format (`{"type": "contains", "value": "Paris"}`) or `CheckDefinition`s.
    """

    name: str
    prompt: str | None = None
    model: str | None = None
    validator: Validator | None = None
    system: str | None = None
    messages: Sequence[Message | Mapping[str, str]] = ()
    models: Sequence[str] = ()
    checks: Sequence[CheckDefinition | Mapping[str, Any]] = ()
    expected_behavior: str | None = None
    response_model: type[BaseModel] | Mapping[str, Any] | None = None
    expected: Mapping[str, Any] | None = None
    attack_target: Mapping[str, Any] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    top_p: float | None = None
    tags: Sequence[str] = ()
    repeat: int = 1
    must_pass: bool = False
    """Any failure or error of this test fails the run's gate, whatever the pass rate."""
    threshold: float | None = None
    """Pass at this weighted score (0-1) of the grades, a grade failed or not; None: every
    grade must pass (docs/metrics.md)."""
    context: str | Sequence[str] | None = None
    """Retrieved documents the response should rest on; judge prompts see ``{{ context }}``.
    Not sent to the model: put them in `prompt` as the application would."""
    judge: JudgeConfig | Mapping[str, Any] | str | Literal[False] | None = None
    """This test's judge: a mapping of a suite's `judge` keys (``criteria``, ``threshold``,
    ``samples``...) merged over the session's judge, a judge model, a whole `JudgeConfig`,
    or False for none; None: the session's judge."""
    target: Callable[..., Any] | str | Mapping[str, Any] | HttpTarget | None = None
    """Your application answers instead of a model: a function (sync or async), a
    ``module:function``, an HTTP service mapping or an `HttpTarget` (docs/targets.md)."""
    tools: Sequence[Mapping[str, Any]] | None = None
    """Tools the model may call, as OpenAI function schemas; graded by tool checks."""
    tool_choice: str | Mapping[str, Any] | None = None
    turns: Sequence[str | Mapping[str, Any]] = ()
    """A scripted conversation instead of `prompt`: each turn its user message, or a mapping
    of a suite's turn keys (``query``, ``checks``, ``expected``, ``attack_target``,
    ``criteria``); ``{{ turns[0].reply }}`` in a query reads an earlier reply
    (docs/conversations.md)."""
    simulate: Mapping[str, Any] | None = None
    """A simulated user instead of `prompt`: a suite's `simulate:` keys (``model``, ``goal``,
    ``max_turns``, ``persona``, ``stop``...)."""
    conversation: Mapping[str, Any] | None = None
    """Grades over the whole conversation: ``checks`` (every reply) and ``criteria``."""
    images: Sequence[str] = ()
    """Image files (or URLs) sent with `prompt`, after its text (docs/multimodal.md)."""
    documents: Sequence[str] = ()
    """PDF files sent with `prompt`."""
    audio: Sequence[str] = ()
    """Audio files (.wav, .mp3) sent with `prompt`."""

    def _fail(self, message: str) -> ConfigError:
        return ConfigError(f"Prompt {self.name!r}: {message}")

    def _context(self) -> tuple[str, ...] | None:
        if self.context is None:
            return None
        documents = (self.context,) if isinstance(self.context, str) else tuple(self.context)
        if not all(isinstance(document, str) for document in documents):
            raise self._fail("context must be a string or a list of strings")
        return documents

    def _judge(self, session: JudgeConfig | None) -> JudgeConfig | None:
        """The session's judge with this test's own over it."""
        own = self.judge
        if own is None:
            config = session
        elif own is False:
            return None
        elif isinstance(own, JudgeConfig):
            config = own
        elif isinstance(own, str):
            config = replace(session, model=own) if session else JudgeConfig(own)
        elif isinstance(own, Mapping):
            config = merged_judge(self._judge_spec(own), session)
        else:
            raise self._fail("judge must be a mapping of judge settings, a model, or False")
        if config is not None:
            problems = judge_problems(config)
            if problems:
                loc, message = problems[0]
                where = ".".join(str(part) for part in ("judge", *loc))
                raise self._fail(f"{where}: {message}")
        return config

    def _judge_spec(self, own: Mapping[str, Any]) -> JudgeSpec:
        """The test's own `judge` mapping, read as the suite's `judge:` settings."""
        try:
            return JudgeSpec.model_validate(own)
        except ValidationError as exc:
            where, message = first_problem(exc)
            raise self._fail(f"judge.{where}: {message}") from None

    def _conversation(self) -> dict[str, Any]:
        """`query` or `messages` in the suite's case format; the builder orders the system."""
        if self.turns or self.simulate is not None:
            return self._turns()
        if (self.prompt is None) == (not self.messages):
            raise self._fail("give exactly one of `prompt` (text) or `messages` (a conversation)")
        attached = {
            key: [str(item) for item in items]
            for key, items in (
                ("images", self.images),
                ("documents", self.documents),
                ("audio", self.audio),
            )
            if items
        }
        if attached and self.prompt is None:
            raise self._fail("images, documents and audio go with `prompt`: give one")
        if self.prompt is not None:
            return {"query": {"text": self.prompt, **attached} if attached else self.prompt}
        try:
            turns = [Message.model_validate(m).model_dump() for m in self.messages]
        except ValidationError as exc:
            raise self._fail(f"invalid `messages`: {first_problem(exc)[1]}") from None
        return {"messages": turns}

    def _turns(self) -> dict[str, Any]:
        """`turns`, `simulate` and `conversation` in the suite's case format."""
        if self.prompt is not None or self.messages:
            raise self._fail(
                "a conversation's user messages are its `turns` (or its simulated user): "
                "remove `prompt`/`messages` (`system` may open the conversation)"
            )
        fields: dict[str, Any] = {}
        if self.turns:
            if isinstance(self.turns, str):
                raise self._fail("turns must be a list of turns, not one text")
            fields["turns"] = [
                {"query": turn} if isinstance(turn, str) else dict(turn) for turn in self.turns
            ]
        if self.simulate is not None:
            fields["simulate"] = dict(self.simulate)
        return fields

    def _checks(self) -> tuple[CheckDefinition, ...]:
        checks = []
        for index, check in enumerate(self.checks):
            try:
                checks.append(CheckDefinition.model_validate(check, context=_sharing(check)))
            except ValidationError as exc:
                raise self._fail(f"checks[{index}]: {first_problem(exc)[1]}") from None
        return tuple(checks)

    def _has_criteria(self) -> bool:
        """Whether a turn or the conversation has judge criteria of its own."""
        grades = [t for t in self.turns if isinstance(t, Mapping)]
        grades += [self.conversation] if self.conversation is not None else []
        return any(grade.get("criteria") for grade in grades)

    def _structured(self) -> tuple[dict[str, Any] | None, type[BaseModel] | None]:
        spec = self.response_model
        if spec is None:
            if (self.expected or self.attack_target) and self.target is None:
                raise self._fail("field assertions (expected/attack_target) need response_model")
            return None, None
        if isinstance(spec, type) and issubclass(spec, BaseModel):
            return spec.model_json_schema(), spec
        if isinstance(spec, Mapping):
            import jsonschema

            from promptum.validation import compiled_schema

            schema = dict(spec)
            try:
                compiled_schema(schema)
            except jsonschema.SchemaError as exc:
                raise self._fail(
                    f"response_model is not a valid JSON Schema: {exc.message}"
                ) from None
            return schema, None
        raise self._fail("response_model must be a pydantic model class or a JSON Schema dict")

    def to_case(self, models: Sequence[str], judge: JudgeConfig | None) -> TestCase:
        """The runnable case, with the session's models and judge where the prompt has none."""
        self._check_settings()
        own_models = ((self.model,) if self.model else ()) + tuple(self.models)
        schema, model_class = self._structured()
        documents = self._context()
        judge = self._grading_judge(self._judge(judge))
        if judge is not None and documents is None:
            problem = context_problem(judge, self.expected_behavior, "`Prompt(context=...)`")
            if problem is not None:
                raise self._fail(problem)
        return self._built(own_models or tuple(models), judge, schema, model_class)

    def _check_settings(self) -> None:
        """Raise ConfigError if the name, repeat count or validator cannot make a case."""
        if not self.name:
            raise ConfigError("every Prompt needs a non-empty `name`")
        if self.repeat < 1:
            raise self._fail(f"repeat must be at least 1, got {self.repeat}")
        if self.validator is not None and not isinstance(self.validator, Validator):
            raise self._fail("validator must have validate(response) and describe() methods")

    def _grading_judge(self, judge: JudgeConfig | None) -> JudgeConfig | None:
        """The judge, if it has something to grade: no judge model to check or call otherwise."""
        if judge is None:
            return None
        if judged_criteria(judge, self.expected_behavior) or self._has_criteria():
            return judge
        return None

    def _built(
        self,
        models: tuple[str, ...],
        judge: JudgeConfig | None,
        schema: dict[str, Any] | None,
        model_class: type[BaseModel] | None,
    ) -> TestCase:
        """The case as the suite loader builds it: one set of rules for both."""
        fields = self._case_fields(models, judge, model_class or schema)
        try:
            spec = CaseFields.model_validate({k: v for k, v in fields.items() if v is not None})
        except ValidationError as exc:
            where, message = first_problem(exc)
            raise self._fail(f"{where}: {message}") from None
        context = SuiteContext(folder=Path.cwd(), judge=judge, literal=True)
        try:
            case = build_case(spec, Locator(_PYTHON), self.name, context)
        except InvalidCaseError as exc:
            raise self._fail(exc.problems[0].removeprefix(f"{_PYTHON}: ")) from None
        return replace(case, grading=replace(case.grading, validator=self.validator), source=None)

    def _case_fields(
        self, models: tuple[str, ...], judge: JudgeConfig | None, response_model: Any
    ) -> dict[str, Any]:
        """The test's settings as the fields of a suite's case (None: not given)."""
        return {
            "id": self.name,
            **self._conversation(),
            "system": self.system,
            "expected_behavior": self.expected_behavior,
            "context": self.context if self.context is None else list(self._context() or ()),
            "judge": False if judge is None else None,
            "checks": list(self._checks()),
            "tags": list(self.tags),
            "models": list(models),
            "params": {
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "seed": self.seed,
                "top_p": self.top_p,
            },
            "response_model": response_model,
            "expected": None if self.expected is None else dict(self.expected),
            "attack_target": None if self.attack_target is None else dict(self.attack_target),
            "repeat": self.repeat,
            "must_pass": self.must_pass,
            "threshold": self.threshold,
            "target": self.target,
            "tools": None if self.tools is None else [dict(t) for t in self.tools],
            "tool_choice": self.tool_choice,
            "conversation": None if self.conversation is None else dict(self.conversation),
        }


_PYTHON = Path("<python>")
"""The locator's file for a `Prompt`: its problems are reported under the Prompt's name."""


_KEEP = object()
"""Marks an override argument that was not given."""

_T = TypeVar("_T")


def _judged(case: TestCase, judge: JudgeConfig | str | None) -> Grading:
    """The case's grading with `judge`; the same object when it already is so.

    A model judges as the case's judge did (its threshold and rubric kept); None: no judging.
    """
    grading = case.grading
    if isinstance(judge, str):
        config = replace(grading.judge, model=judge) if grading.judge else JudgeConfig(judge)
        return replace(grading, judge=config)
    if grading.judge == judge:
        return grading
    if judge is None and grades_something(case):
        # Should its judge have been all that grades it, its ungraded error says so.
        return replace(grading, judge=None, judge_off=True)
    return replace(grading, judge=judge)


def _check_models(models: Sequence[str]) -> None:
    """Raise ConfigError if `models` names a model twice."""
    problem = repeated_model(models)
    if problem is not None:
        raise ConfigError(f"models: {problem}")


@dataclass(slots=True)
class Session:
    """A set of tests and how to run them; `run()` or `await arun()` returns a `RunResult`.

    `models` and `judge` apply to Prompts without their own; a suite file's cases keep
    the suite's settings unless `override()` replaces them.
    """

    models: Sequence[str] = ()
    judge: str | JudgeConfig | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    client_options: ClientOptions | None = None
    name: str = "session"
    tests: Sequence[TestCase] = field(default_factory=list)
    """Every test in order; a suite's are its `cases`, which may be built only when read."""
    suites: list[Suite] = field(default_factory=list)
    fail_under: float | None = None
    target: Callable[..., Any] | str | Mapping[str, Any] | HttpTarget | None = None
    """Answers every Prompt without its own model or target (a function or service)."""
    """The least pass rate the gate accepts (`promptum.gate.decide`); None: every result."""
    max_asr: AsrBounds | None = None
    """The highest attack success rates of red-team cases the gate accepts
    (`promptum.values.asr_bounds`); per bound, it replaces a suite's `gate.max_asr`."""
    executor: Executor | None = None
    """Where the units run: None in this process, or e.g. `promptum.executors.RayExecutor`."""
    grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S
    """Seconds grading one response may take (checks, validator, field assertions; not the
    judge); past it the result is an error naming what was still grading. None: no limit."""
    _ids: set[tuple[str, str]] = field(default_factory=set, init=False, repr=False)
    """The ids of the tests added one by one, so adding 10,000 cases stays linear; a suite's
    own ids were checked when it was loaded, and are not held."""
    _added: list[TestCase] = field(default_factory=list, init=False, repr=False)
    """The part of `tests` that `add_test` appends to."""

    def __post_init__(self) -> None:
        from promptum.providers import MAX_TIMEOUT_S  # as _default_model: not at import

        limit = self.grade_timeout_s
        if limit is not None and not (
            isinstance(limit, int | float) and 0 < limit <= MAX_TIMEOUT_S  # false for nan
        ):
            raise ConfigError(
                f"grade_timeout_s must be a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT_S:g}, or None for no limit; got {limit!r}"
            )
        _check_models(self.models)
        given, self.tests = self.tests, Cases()
        for test in given:
            self.add_test(test)

    def _cases(self) -> Cases:
        """`tests` as parts to append to (a list given in its place becomes one)."""
        if not isinstance(self.tests, Cases):
            self.tests = Cases([self.tests])
        return self.tests

    def _held(self, ident: tuple[str, str]) -> bool:
        """Whether a test with this (key, variant) is in `tests`."""
        if ident in self._ids:
            return True
        # Only a key `suite/...` of a suite in the session can be among its cases: then look.
        prefixes = [f"{suite.name}/" if suite.name else "" for suite in self.suites]
        if not any(ident[0].startswith(prefix) for prefix in prefixes):
            return False
        return any((case.key, case.variant) == ident for case in self.tests)

    def _judge_config(self) -> JudgeConfig | None:
        if isinstance(self.judge, str):
            return JudgeConfig(model=self.judge)
        return self.judge

    def add_test(self, test: Prompt | TestCase) -> None:
        """Add one test; its name must be unique in the session."""
        if isinstance(test, Prompt):
            if self.target is not None and not (test.target or test.model or test.models):
                test = replace(test, target=self.target)
            test = test.to_case(self.models, self._judge_config())
        if self._held((test.key, test.variant)):
            raise ConfigError(f"a test named {test.key!r} is already in the session")
        self._ids.add((test.key, test.variant))
        cases = self._cases()
        if not cases.parts or cases.parts[-1] is not self._added:
            self._added = []
            cases.parts.append(self._added)
        self._added.append(test)

    def add_suite(self, suite: Suite | Path | str) -> Suite:
        """Add a suite's cases; a path is loaded first (a suite file or a TOML case folder)."""
        if not isinstance(suite, Suite):
            suite = load_suite(suite)
        duplicates = duplicate_ids(suite)
        if duplicates:
            raise ConfigError(f"a test named {duplicates[0][0]!r} is already in the session")
        self._check_clash(suite)
        self._cases().parts.append(suite.cases)
        self.suites.append(suite)
        return suite

    def _check_clash(self, suite: Suite) -> None:
        """Raise ConfigError if a case of `suite` has the key of a test already held."""
        prefix = f"{suite.name}/" if suite.name else ""
        clash = any(other.name == suite.name for other in self.suites) or any(
            key.startswith(prefix) for key, _ in self._ids
        )
        if clash:  # rare: a suite of the same name, or a test named like one of its cases
            held = {(c.key, c.variant) for c in self.tests if c.key.startswith(prefix)}
            for case in suite.cases:
                if (case.key, case.variant) in held:
                    raise ConfigError(f"a test named {case.key!r} is already in the session")

    def override(
        self,
        *,
        models: Sequence[str] | None = None,
        judge: JudgeConfig | str | object | None = _KEEP,
        repeat: int | None = None,
    ) -> None:
        """Replace the models, judge (None: no judging) or repeat count of every test.

        A target is not a model: the cases a target answers keep it when `models` is given.
        Applied to each test as it is read, so a suite's cases are not copied.
        """
        changes: dict[str, Any] = {}
        if models:
            _check_models(models)
            changes["models"] = tuple(models)
        if repeat is not None:
            changes["repeat"] = repeat
        judging = judge is None or isinstance(judge, JudgeConfig | str)
        if not changes and not judging:
            return
        given = judge if isinstance(judge, JudgeConfig | str) else None  # when `judging`

        def changed(case: TestCase) -> TestCase:
            own = changes
            if case.target is not None and "models" in changes:
                own = {name: value for name, value in changes.items() if name != "models"}
            if judging:
                grading = _judged(case, given)
                if grading is not case.grading:
                    own = {**own, "grading": grading}
            # A case already as asked (`--no-judge` on cases without a judge) is not copied:
            # each is read twice per run, and a copy costs more than the comparison.
            if all(getattr(case, name) == value for name, value in own.items()):
                return case
            return replace(case, **own)

        # It reads and changes only what a data file's rows share: they get it once.
        self.tests = Cases([Mapped(self.tests, changed, uniform=True)])

    def select(self, keep: Iterable[TestCase] | Callable[[TestCase], bool]) -> None:
        """Keep only the given tests, or those `keep` accepts (the CLI's --filter and --tag).

        With a function, the tests kept are a view (8 bytes a test), not a copy.
        """
        if not callable(keep):
            self.tests = Cases([list(keep)])
            self._ids = {(test.key, test.variant) for test in self.tests}
            return
        positions: array[int] = array("q")
        ids: set[tuple[str, str]] = set()
        for position, case in enumerate(self.tests):
            if keep(case):
                positions.append(position)
                if (case.key, case.variant) in self._ids:
                    ids.add((case.key, case.variant))
        self._ids = ids
        if len(positions) < len(self.tests):
            self.tests = Cases([Selected(self.tests, positions)])

    def planned_cases(self) -> Sequence[TestCase]:
        """The tests as they will run: every case with its models resolved (when read)."""
        default = tuple(self.models) or (_default_model(),)
        return Mapped(
            self.tests,
            lambda case: case if case.models else replace(case, models=default),
            uniform=True,
        )

    def _config(self, survey: Survey) -> dict[str, Any]:
        judges, params = survey.judges, survey.params
        return {
            "suites": [str(suite.path) for suite in self.suites],
            # Each variant's text hash: `compare` across runs says when a prompt changed.
            "prompts": {s.name: dict(s.variants) for s in self.suites if s.variants},
            "judge": [{"model": m, "threshold": t} for m, t in sorted(judges)],
            "params": [dict(sampling) for sampling in sorted(params, key=repr)],
            "concurrency": self.concurrency,
            "fail_under": self.fail_under,
            "promptum_version": promptum_version(),
            # Only when bounded: the config of every other run stays as it was, byte for byte.
            **run_bounds((s.max_asr for s in self.suites), self.max_asr),
        }

    def _client_options(self, survey: Survey) -> ClientOptions:
        """The session's client options, with the endpoints and prices its suites declare."""
        from promptum.providers import ClientOptions

        options = self.client_options or ClientOptions()
        endpoints: dict[str, Any] = {}
        pricing: dict[str, Any] = {}
        for suite in self.suites:
            for kind, mine, theirs in (
                ("endpoint", endpoints, suite.endpoints),
                ("price", pricing, suite.pricing),
            ):
                for name, value in theirs.items():
                    if name in mine and mine[name] != value:
                        raise ConfigError(
                            f"{suite.path}: {kind} {name!r} differs from another suite's; "
                            "suites run together must agree"
                        )
                    mine[name] = value
        return options.model_copy(
            update={
                "targets": {**survey.targets, **options.targets},
                "endpoints": {**endpoints, **options.endpoints},
                "pricing": {**pricing, **options.pricing},
            }
        )

    def _check_models(self, client: ModelClient, survey: Survey) -> None:
        """Raise ProviderUnavailableError naming every model the run cannot call, if any."""
        problems = []
        for model in sorted({*survey.models, *survey.judge_models, *survey.simulator_models}):
            try:
                client.check_model(model)
            except ProviderUnavailableError as exc:
                problems.append(str(exc))
                continue
            if self.executor is None:  # else workers call the models, each with its own
                client.prepare(model)
        if len(problems) > 1:
            raise ProviderUnavailableError(
                f"{len(problems)} models cannot be called:\n" + "\n".join(problems)
            )
        if problems:
            raise ProviderUnavailableError(problems[0])

    async def arun(
        self,
        *,
        sinks: Sequence[ResultSink] = (),
        stop: asyncio.Event | None = None,
        journal_dir: Path | None = None,
        resume: bool = False,
        grace_s: float = DEFAULT_GRACE_S,
        keep_results: bool = True,
    ) -> RunResult:
        """Run every test; results stream to `sinks` as they finish.

        Setting `stop` ends the run early: no new calls start, calls in flight get `grace_s`
        seconds, and the result is marked incomplete. With `journal_dir`, finished results
        are journalled so `resume=True` can skip them later. With `keep_results=False` the
        returned run holds no results, only their figures (`RunResult.tally`): memory stays
        flat however many results there are, and `sinks` (e.g. the run store) keep them.
        """
        from promptum.providers import ModelClient, pricing_basis

        if not self.tests:
            raise ConfigError("the session has no tests: add some with add_test() or add_suite()")
        cases = self.planned_cases()
        # One pass over the cases before the first call: a suite's may be built as read.
        survey = Survey.of(cases, fingerprint=journal_dir is not None)
        client = ModelClient(self._client_options(survey))
        watcher: asyncio.Task[Any] | None = None
        try:
            self._check_models(client, survey)
            run, finished, journal = self._new_run(survey, journal_dir, resume)
            options = client.options  # how cost is priced, for the summary's word on it
            run.config.update(pricing_basis(run.models, options.pricing, options.endpoints))
            runner = Runner(
                client,
                concurrency=self.concurrency,
                sinks=[*journal, *sinks],
                grace_s=grace_s,
                executor=self.executor,
                keep_results=keep_results,
                grade_timeout_s=self.grade_timeout_s,
            )
            if stop is not None:
                watcher = asyncio.create_task(stop.wait())
                watcher.add_done_callback(lambda t: None if t.cancelled() else runner.stop())
            await runner.run(cases, run, finished, survey)
        finally:
            if watcher is not None:
                watcher.cancel()
            await client.aclose()
        run.warnings.extend(_client_warnings(client))
        return run

    def _new_run(
        self, survey: Survey, journal_dir: Path | None, resume: bool
    ) -> tuple[RunResult, Iterable[CaseResult], list[Journal]]:
        """The run's record, the results an interrupted run already has, and its journal."""
        run = RunResult(
            run_id=uuid.uuid4().hex[:12],
            suite=", ".join(s.name for s in self.suites) or self.name,
            models=list(survey.models),
            config=self._config(survey),
        )
        if journal_dir is None or survey.fingerprint is None:
            return run, [], []
        journal = Journal(journal_dir, survey.fingerprint)
        earlier = journal.load() if resume else None
        if earlier is None:
            return run, [], [journal]
        run.run_id, run.started_at, finished = earlier
        run.resumed = True
        return run, finished, [journal]

    def run(self, **options: Any) -> RunResult:
        """Run every test and wait for the result (see `arun` for the options)."""
        return run_blocking(lambda: self.arun(**options), "Session.run()", "session.arun()")


def run_blocking(start: Callable[[], Coroutine[Any, Any, _T]], what: str, instead: str) -> _T:
    """The result of the coroutine `start()` makes, run to its end from code that is not async.

    Refused inside a running event loop, naming `what` was called and the `instead` to await.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(start())
    raise ConfigError(
        f"{what} cannot start inside a running event loop (async code, Jupyter); "
        f"use `await {instead}` there"
    )


def _client_warnings(client: ModelClient) -> list[str]:
    """What the run's client could not do as asked: cache, or end its calls in time."""
    warnings = []
    if client.cache_problem is not None:
        warnings.append(client.cache_problem)
    if skipped := client.cache_skipped_secret:
        warnings.append(
            f"{skipped} response{'s were' if skipped > 1 else ' was'} not cached because "
            f"{'they' if skipped > 1 else 'it'} contained a secret from the environment"
        )
    if abandoned := client.abandoned_calls:
        warnings.append(
            f"{abandoned} call{'s' if abandoned > 1 else ''} abandoned after "
            f"{'their' if abandoned > 1 else 'its'} time limit (or the run's stop); "
            f"{'they' if abandoned > 1 else 'it'} may still run in the background "
            "(Python cannot stop a thread, nor a coroutine that never awaits; neither keeps "
            "the run open)"
        )
    return warnings
