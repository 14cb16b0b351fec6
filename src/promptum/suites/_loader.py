"""Load suites from files: a YAML suite (with `cases_from`), or a folder of TOML case files."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from promptum.cases import CopiedRow, HeldCases, JudgeConfig, TestCase
from promptum.checks import FOLDER, PYTHON, SHARED, CheckDefinition, CheckTable, module_name
from promptum.errors import ConfigError
from promptum.foundations.user_code import python_module_file
from promptum.providers import (
    DEFAULT_MODEL,
    EndpointConfig,
    Price,
    Target,
    model_id_problem,
    unpriced_problem,
)
from promptum.suites._build import (
    InvalidCaseError,
    build_case,
    settings_problems,
    unused_tag_problems,
)
from promptum.suites._build_judge import judge_problems, merged_judge
from promptum.suites._case_files import case_source, source_paths
from promptum.suites._cases import CaseStats, RowCases, SuiteCases
from promptum.suites._columns import ColumnChecks
from promptum.suites._data_files import CaseFilesError, RawCase, RowFile
from promptum.suites._file_reading import resolved
from promptum.suites._file_vars import FileVars
from promptum.suites._format import CaseFields, DefaultsSpec, SuiteSpec
from promptum.suites._locate import (
    Loc,
    Locator,
    problem,
    problems_error,
    raise_problems,
    validation_problems,
)
from promptum.suites._missing_context import WithoutContext
from promptum.suites._redteam import redteam_cases
from promptum.suites._row_build import RowCopier
from promptum.suites._row_texts import RowTexts
from promptum.suites._suite_context import SuiteContext
from promptum.suites._target import TargetSpec, suite_target
from promptum.suites._tools import choice_json, tools_json
from promptum.suites._turns import row_problems
from promptum.suites._variants import suite_variants
from promptum.suites._yaml_reader import YAML_SUFFIXES, read_yaml, unpacked
from promptum.values.asr_bounds import AsrBounds, bounds_of, unknown_goals


@dataclass(frozen=True, slots=True)
class PythonImport:
    """A Python module a suite imports (a `module:Class` reference): code, like a conftest.py."""

    module: str
    path: Path | None
    """The file it runs from; None when it has none (a namespace or built-in module)."""


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded, validated suite: its cases are ready to run."""

    name: str
    path: Path
    cases: Sequence[TestCase]
    """Its cases in order; those of CSV and JSONL files are built from their rows when read."""
    endpoints: Mapping[str, EndpointConfig] = field(default_factory=dict)
    pricing: Mapping[str, Price] = field(default_factory=dict)
    python_imports: tuple[PythonImport, ...] = ()
    """Every Python module loading the suite imported, in the order first used."""
    variants: Mapping[str, str] = field(default_factory=dict)
    """Its prompt variants (`prompts:`), name -> a short hash of the variant's text."""
    inputs: tuple[Path, ...] = ()
    """The files it was read from besides `path`: data, prompt files (what `--watch` watches)."""
    max_asr: AsrBounds = field(default_factory=AsrBounds)
    """Its `gate.max_asr`: the highest attack success rates of its red-team cases."""


@dataclass(slots=True)
class _Load:
    """What loading one suite finds besides its cases: problems and Python imports."""

    check_models: bool
    name: str | None = None
    """The suite's name unless it has its own `name:`; None: its file or folder name."""
    endpoints: tuple[str, ...] = ()
    problems: list[str] = field(default_factory=list)
    imports: dict[str, Path | None] = field(default_factory=dict)
    variants: list[SuiteContext] = field(default_factory=list)
    """One context per prompt variant; empty: the suite has none."""
    columns: ColumnChecks | None = None
    checks: CheckTable = field(default_factory=CheckTable)
    stats: CaseStats = field(default_factory=CaseStats)
    ids: set[int] = field(default_factory=set)
    """The hash of each case's (id, variant): about 70 MB for 1,000,000 cases, while loading."""
    collided: set[int] = field(default_factory=set)
    """Hashes two cases have: a duplicate id, or (rarely) two ids with one hash."""
    file_vars: FileVars | None = None
    """The files the suite's vars read (`{file: ...}`), once its folder is known."""
    without_context: WithoutContext = field(default_factory=WithoutContext)
    """The suite's templates reading {{ context }} that cases do not give: said once each."""

    def files(self, folder: Path) -> FileVars:
        """The reader of the suite's file vars, relative to its `folder`."""
        if self.file_vars is None:
            self.file_vars = FileVars(folder, self.problems)
        return self.file_vars

    def built(self, case: TestCase) -> None:
        """Count in a case loaded without problems."""
        self.stats.add(case, DEFAULT_MODEL)
        key = hash((case.id, case.variant))
        if key in self.ids:
            self.collided.add(key)
        self.ids.add(key)

    def copied(self, prototype: TestCase, case_id: str) -> None:
        """Count in a case copied from `prototype` with id `case_id`, without making it."""
        self.stats.again(prototype, DEFAULT_MODEL)
        key = hash((case_id, prototype.variant))
        if key in self.ids:
            self.collided.add(key)
        self.ids.add(key)

    @property
    def where(self) -> str:
        """The suite's folder within a folder run (``team-a/``), from its path-given name."""
        folder, _, _ = (self.name or "").rpartition("/")
        return folder + "/" if folder else ""

    def validation(self, folder: Path) -> dict[str, Any]:
        """The validation context of a case in `folder`: checks compiled once for the load."""
        return {FOLDER: folder, SHARED: self.checks}

    def check_model_ids(self, written: Any, locator: Locator, loc: Loc) -> None:
        """Report each unroutable model id at `loc` (one id or a list), when asked to."""
        if not self.check_models:
            return
        if isinstance(written, str):
            ids: list[tuple[Loc, str]] = [(loc, written)]
        elif isinstance(written, list):  # anything else is a type error reported elsewhere
            ids = [((*loc, i), item) for i, item in enumerate(written) if isinstance(item, str)]
        else:
            return
        for item_loc, model_id in ids:
            message = model_id_problem(model_id, self.endpoints)
            if message is not None:
                self.problems.append(problem(locator, item_loc, message))

    def imported(
        self,
        response_model: str | dict[str, Any] | type[Any] | None,
        checks: Iterable[CheckDefinition],
        folder: Path,
    ) -> None:
        """Note the modules of a case's `module:Class` response model and `python` checks.

        Called once the case is built, so they were imported.
        """
        # Looked up once per module: a million rows may name the same one.
        if isinstance(response_model, str):
            module = response_model.partition(":")[0]
            if module not in self.imports:
                self.imports[module] = python_module_file(response_model, folder)
        for check in checks:
            if check.type == PYTHON.name and isinstance(check.value, str):
                module = module_name(check.value)
                if module not in self.imports:
                    self.imports[module] = python_module_file(module, folder)

    def imported_target(self, written: object, folder: Path) -> None:
        """Note the module of a `target: module:function` (once imported)."""
        reference = written.function if isinstance(written, TargetSpec) else written
        if isinstance(reference, str):
            module = reference.partition(":")[0].removesuffix(".py").replace("/", ".")
            self.imports.setdefault(module, python_module_file(module + ":", folder))

    def python_imports(self) -> tuple[PythonImport, ...]:
        """The modules imported, for the Suite."""
        return tuple(PythonImport(module, path) for module, path in self.imports.items())


def _cases(
    raw_cases: Iterable[RawCase],
    context: SuiteContext,
    load: _Load,
    rows: RowCopier | None = None,
) -> Iterator[TestCase]:
    """The cases of `raw_cases`, validated and counted.

    With `rows` (a data file's), the rows copied from its prototype are counted, not made:
    they are made when run. Written cases that differ from the one before only as data rows
    do (id, prompt, vars, check values) are copied from it too, and made now.
    """
    validation = load.validation(context.folder)
    files = load.files(context.folder)
    # A data row is read again when it runs, so it holds its values, never files to read.
    raw_cases = files.refused(raw_cases) if rows else files.cases(raw_cases)
    copier = rows if rows is not None else RowCopier(context, load.variants or [context])
    for raw in raw_cases:
        if rows and (refused := row_problems(raw.data)):
            load.problems += [problem(raw.locator, loc, text) for loc, text in refused]
            continue
        if rows is not None and rows.case is not None and (copied := rows.checked(raw)):
            load.copied(rows.case, copied)  # a data row, built again when run: not made here
            continue
        if rows is None and (made := copier.build(raw)) is not None:
            load.built(made)
            yield made
            continue
        built = _built_in_full(raw, context, load, validation)
        if len(built) == 1:
            copier.built(raw, built[0])
        yield from built


def _built_in_full(
    raw: RawCase, context: SuiteContext, load: _Load, validation: dict[str, Any]
) -> list[TestCase]:
    """Case `raw` validated and built once per prompt variant; none when it has problems."""
    try:
        fields = CaseFields.model_validate(raw.data, context=validation)
    except ValidationError as exc:
        load.problems += validation_problems(raw.locator, CaseFields, raw.data, exc)
        return []
    load.check_model_ids(raw.data.get("models"), raw.locator, ("models",))
    _check_case_judge_model(load, raw)
    if fields.simulate is not None:
        load.check_model_ids(fields.simulate.model, raw.locator, ("simulate", "model"))
    built, failed = _per_variant(fields, raw, load.variants or [context])
    if failed:
        # The case's own mistakes are the same in every variant: said once.
        load.problems += dict.fromkeys(p for exc in failed for p in exc.problems)
        lacking = tuple(loc for exc in failed for loc in exc.without_context)
        if lacking:
            load.without_context.add(lacking, raw.locator.line())
        return []
    load.imported(
        fields.response_model or context.defaults.response_model,
        [*context.defaults.checks, *fields.checks],
        context.folder,
    )
    load.imported_target(fields.target, context.folder)
    for case in built:
        load.built(case)
    return built


def _per_variant(
    fields: CaseFields, raw: RawCase, variants: Sequence[SuiteContext]
) -> tuple[list[TestCase], list[InvalidCaseError]]:
    """Case `raw` built once per prompt variant, and each failed variant's error.

    Each variant's template may fail on its own: the matrix's variant dimension.
    """
    built, failed = [], []
    for variant in variants:
        try:
            built.append(build_case(fields, raw.locator, raw.default_id, variant))
        except InvalidCaseError as exc:
            failed.append(exc)
    return built, failed


class _RowBuilder:
    """Builds a row's cases again, as loading did: once per variant, with its column checks.

    With `change` (a run's overrides, the same for every row), each case is changed: the
    rows copied from a prototype get it once, through the prototype. Holds nothing of the
    load (its ids take megabytes).
    """

    def __init__(
        self,
        context: SuiteContext,
        variants: list[SuiteContext],
        columns: ColumnChecks | None,
        validation: dict[str, Any],
        change: Callable[[TestCase], TestCase] | None = None,
    ) -> None:
        self.variants, self.columns, self.validation = variants, columns, validation
        self.change = change
        self.prototype = RowCopier(context, variants)

    def __call__(self, raw: RawCase) -> list[TestCase]:
        """Row `raw`'s cases."""
        raw = self._with_columns(raw)
        if (copied := self.prototype.build(raw)) is not None:
            return [copied]
        return self._built(raw)

    def plan(self, raw: RawCase) -> list[TestCase] | CopiedRow:
        """Row `raw`'s cases, or what a plan reads of its copy of the prototype (not made)."""
        raw = self._with_columns(raw)
        if (copied := self.prototype.plan_copy(raw)) is not None:
            return copied
        if (made := self.prototype.build(raw)) is not None:  # a copy with checks of its own
            return [made]
        return self._built(raw)

    def copying(self, keys: frozenset[str]) -> TestCase | None:
        """The case rows setting `keys` are copied from; None while they are built in full."""
        return self.prototype.copying(keys)

    def _with_columns(self, raw: RawCase) -> RawCase:
        return raw if self.columns is None else self.columns.with_checks(raw, set())

    def _built(self, raw: RawCase) -> list[TestCase]:
        try:
            fields = CaseFields.model_validate(raw.data, context=self.validation)
            built, failed = _per_variant(fields, raw, self.variants)
            if failed:
                raise failed[0]
            if self.change is not None:
                built = [self.change(case) for case in built]
            if len(built) == 1:
                self.prototype.built(raw, built[0])
            return built
        except (ValidationError, InvalidCaseError) as exc:  # it loaded: something changed
            raise ConfigError(f"{raw.locator.at(())}: the row no longer loads: {exc}") from None


def _source_cases(
    source: Path, context: SuiteContext, load: _Load, locator: Locator
) -> Sequence[TestCase]:
    """The cases of one CSV, JSONL or TOML source; raise ConfigError if it cannot be read.

    A CSV or JSONL file is validated row by row and kept as its row index, its cases built
    again when read: a million rows cost megabytes, not gigabytes.
    """
    if source.suffix.lower() in (".csv", ".jsonl") and source.is_file():
        rows = RowFile(source)
        raw_cases: Iterable[RawCase] = rows.scan()
        if load.columns is not None:
            raw_cases = load.columns.rows(raw_cases, source, load.problems, locator)
        texts = RowTexts(rows)  # the copied rows' fingerprint texts, for the plan
        prototype = RowCopier(context, load.variants or [context], texts)
        for _ in _cases(raw_cases, context, load, prototype):
            pass  # validated and counted; built again when run
        if not len(rows):
            raise _no_rows(rows)
        builder = partial(
            _RowBuilder,
            context,
            load.variants or [context],
            load.columns,
            load.validation(context.folder),
        )
        per_row = len(load.variants or [context])
        return RowCases(rows, builder(), per_row, builder, texts.finished())
    try:
        return HeldCases(_cases(case_source(source), context, load))
    except CaseFilesError as exc:  # broken files of a folder: its other files were read
        load.problems += exc.problems
        return []


def _no_rows(rows: RowFile) -> ConfigError:
    """The error for a data file without a case: it would add nothing, silently."""
    if rows.csv:
        what = f"CSV file has no rows below its header ({', '.join(rows.header)})"
        if not rows.header:
            what = "CSV file is empty: no header, no rows"
        add = "a header line naming the columns, then one row per case"
        add = "one row per case below the header" if rows.header else add
    else:
        what, add = "JSONL file has no cases: every line is blank", "one JSON object per line"
    return ConfigError(f"{rows.path}: the {what}; add {add}, or remove it from `cases_from`")


def _judge(spec: SuiteSpec, locator: Locator, problems: list[str]) -> JudgeConfig | None:
    """The suite's judge (cases merge their own `judge` over it); its mistakes located."""
    if spec.judge is None:
        return None
    config = merged_judge(spec.judge, None)
    for loc, message in judge_problems(config):
        problems.append(problem(locator, ("judge", *loc), message))
    return config


def _check_case_judge_model(load: _Load, raw: RawCase) -> None:
    judge = raw.data.get("judge")
    if isinstance(judge, dict):
        load.check_model_ids(judge.get("model"), raw.locator, ("judge", "model"))


def _inline_cases(data: dict[str, Any], locator: Locator, problems: list[str]) -> Iterator[RawCase]:
    cases = data.get("test_cases") or []
    if not isinstance(cases, list):
        problems.append(problem(locator, ("test_cases",), "must be a list of cases (`- id: ...`)"))
        return iter(())
    return _taken(cases, locator)


def _taken(cases: list[Any], locator: Locator) -> Iterator[RawCase]:
    """Each case as a RawCase, no longer held by `cases` once taken: read once, then built."""
    for index in range(len(cases)):
        case, cases[index] = cases[index], None
        yield RawCase(unpacked(case), locator.within(("test_cases", index)), None)


def _check_without_settings(
    path: Path, settings: dict[str, Any], inline: Iterable[RawCase], locator: Locator, load: _Load
) -> None:
    """Check the model ids and case keys of a suite whose settings are invalid."""
    # Cases cannot be built without valid settings, but their own mistakes can still be found.

    def check(raw_cases: Iterable[RawCase]) -> None:
        for raw in raw_cases:
            try:
                CaseFields.model_validate(raw.data, context=load.validation(path.parent))
            except ValidationError as exc:
                load.problems += validation_problems(raw.locator, CaseFields, raw.data, exc)
            else:
                load.check_model_ids(raw.data.get("models"), raw.locator, ("models",))
                _check_case_judge_model(load, raw)

    endpoints = settings.get("endpoints")
    load.endpoints = tuple(map(str, endpoints)) if isinstance(endpoints, dict) else ()
    load.check_model_ids(settings.get("models"), locator, ("models",))
    judge = settings.get("judge")
    if isinstance(judge, dict):
        load.check_model_ids(judge.get("model"), locator, ("judge", "model"))
    check(inline)
    sources = settings.get("cases_from") or []
    if not isinstance(sources, list):  # anything but a list or a path: reported with the settings
        sources = [sources] if isinstance(sources, str) else []
    for index, source in enumerate(sources):
        if not isinstance(source, str):
            continue  # reported with the settings
        try:
            for file in source_paths(path, source):
                check(case_source(file))
        except CaseFilesError as exc:
            load.problems += exc.problems
        except ConfigError as exc:
            load.problems.append(problem(locator, ("cases_from", index), str(exc)))


def _no_cases(data: dict[str, Any], locator: Locator) -> str:
    """The problem of a suite without cases, at its `test_cases:` when it has one, empty."""
    if "test_cases" in data:
        message = "`test_cases` holds no case: add one under it (`- id: ...`, `query: ...`)"
        return problem(locator, ("test_cases",), message)
    return problem(locator, (), "the suite has no cases: add `test_cases:`")


def _yaml_suite(path: Path, load: _Load) -> Suite:
    data, locator = read_yaml(path, packed=True)  # its cases: see `_taken`
    if data is None:
        raise ConfigError(f"{path}: the file is empty; `promptum init` writes a starter suite")
    if not isinstance(data, dict):
        # A list of cases is a case file, read through a suite's `cases_from`.
        also = "; a list of cases is a YAML case file: name it in a suite's `cases_from`"
        raise ConfigError(
            f"{locator.at(())}: a suite is a mapping with `test_cases:` (and optionally "
            f"`models:`, `defaults:`, `judge:`...), not a {type(data).__name__}"
            + (also if isinstance(data, list) else "")
        )
    return _data_suite(data, locator, path, load)


def _data_suite(data: dict[str, Any], locator: Locator, path: Path, load: _Load) -> Suite:
    """The suite `data` describes, read from `path` (its cases are taken from `data`)."""
    problems = load.problems
    inline = _inline_cases(data, locator, problems)
    settings = {key: value for key, value in data.items() if key != "test_cases"}
    try:
        spec = SuiteSpec.model_validate(settings, context=load.validation(path.parent))
    except ValidationError as exc:
        # Still check every case on its own, so one report lists every problem in the file.
        problems += validation_problems(locator, SuiteSpec, settings, exc)
        _check_without_settings(path, settings, inline, locator, load)
        raise problems_error(problems) from None
    load.endpoints = tuple(spec.endpoints)
    load.check_model_ids(settings.get("models"), locator, ("models",))
    if spec.judge is not None:
        load.check_model_ids(spec.judge.model, locator, ("judge", "model"))
    context = SuiteContext(
        suite=spec.name or load.name or path.stem,
        folder=path.parent,
        models=tuple(spec.models or ()),
        system=spec.system,
        prompt=spec.prompt,
        variables=load.files(path.parent).suite_vars(spec.vars, locator),
        tags=tuple(spec.tags),
        defaults=spec.defaults or DefaultsSpec(),
        repeat=spec.repeat,
        judge=_judge(spec, locator, problems),
        must_pass_tags=frozenset(spec.gate.must_pass_tags),
        target=_suite_target(spec, path.parent, locator, load),
        where=load.where,
        tools=tools_json(spec.tools),
        tool_choice=choice_json(spec.tool_choice),
        checks=load.checks,
    )
    problems += [problem(locator, loc, text) for loc, text in settings_problems(spec, context)]
    variants = suite_variants(spec.prompts, path, locator, context, problems)
    load.variants = variants.contexts
    load.columns = ColumnChecks(spec.columns) if spec.columns else None
    # Read before the cases are built: building drops each written case once taken.
    written = data.get("test_cases")
    if spec.redteam is not None and isinstance(written, list):
        written = [unpacked(case) for case in written]  # attacks ride on the cases written
    attacks = redteam_cases(spec, written, variants, locator, problems)
    parts: list[Sequence[TestCase]] = [HeldCases(_cases(inline, context, load))]
    if attacks:
        parts.append(HeldCases(_cases(iter(attacks), context, load)))
    inputs = list(variants.files)
    for index, source in enumerate(spec.cases_from):
        try:
            for file in source_paths(path, source):  # a glob: each file it matches, sorted
                inputs.append(file)
                parts.append(_source_cases(file, context, load, locator))
        except ConfigError as exc:
            problems.append(problem(locator, ("cases_from", index), str(exc)))
    inputs += load.files(path.parent).files
    problems += [problem(locator, loc, text) for loc, text in load.without_context.problems()]
    if not any(parts) and not problems:
        problems.append(_no_cases(data, locator))
    if not problems:  # a case that did not build leaves its tags unknown
        found = unused_tag_problems(spec.gate.must_pass_tags, load.stats.tags)
        problems += [problem(locator, loc, text) for loc, text in found]
        if load.check_models:  # a run may bound other models (-m): its results say why
            problems += _unpriced_problems(load.stats.cost_bounded, spec)
        unbounded = unknown_goals(bounds_of(spec.gate.max_asr), load.stats.tags)
        problems += [problem(locator, loc, text) for loc, text in unbounded]
    raise_problems(problems)
    return Suite(
        context.suite,
        path,
        _suite_cases(parts, load, context.suite, path),
        spec.endpoints,
        spec.pricing,
        load.python_imports(),
        variants.hashes,
        tuple(inputs),
        bounds_of(spec.gate.max_asr),
    )


def _unpriced_problems(cost_bounded: Mapping[str, str], spec: SuiteSpec) -> list[str]:
    """Each model a cost bound applies to that has no price, at the case that first bounds it."""
    found = (
        (where, unpriced_problem(model, spec.pricing, spec.endpoints))
        for model, where in cost_bounded.items()
    )
    return [f"{where}: {text}" for where, text in found if text is not None]


def _suite_target(spec: SuiteSpec, folder: Path, locator: Locator, load: _Load) -> Target | None:
    """The suite's own `target`, imported once for all its cases."""
    if spec.target is None:
        return None
    try:
        target = suite_target(spec.target, folder, load.where)
    except ValueError as exc:
        load.problems.append(problem(locator, ("target",), str(exc)))
        return None
    load.imported_target(spec.target, folder)
    return target


def _folder_suite(path: Path, load: _Load) -> Suite:
    name = load.name or path.name
    context = SuiteContext(folder=path, suite=name, checks=load.checks)
    cases = _source_cases(path, context, load, Locator(path))
    raise_problems(load.problems)
    suite_cases = _suite_cases([cases], load, name, path)
    inputs = tuple(load.files(path).files)
    return Suite(name, path, suite_cases, python_imports=load.python_imports(), inputs=inputs)


def _suite_cases(parts: list[Sequence[TestCase]], load: _Load, name: str, path: Path) -> SuiteCases:
    cases = SuiteCases(parts, load.stats)
    if load.collided:  # rare: only then are the cases read again, to say which and where
        load.stats.duplicates = _duplicates(cases, name, path, load.collided)
    return cases


def _duplicates(
    cases: Iterable[TestCase], name: str, path: Path, among: set[int] | None = None
) -> list[tuple[str, str, str]]:
    """Each case whose id an earlier case has: (key, variant, problem).

    With `among`, only cases whose hash of (id, variant) is in it are compared.
    """
    found = []
    seen: dict[tuple[str, str], str] = {}
    for case in cases:
        if among is not None and hash((case.id, case.variant)) not in among:
            continue
        where = case.source or str(path)
        first = seen.get((case.id, case.variant))
        if first is None:
            seen[(case.id, case.variant)] = where
            continue
        also = f" (read twice through {path})" if first == where else ""
        found.append(
            (
                case.key,
                case.variant,
                f"{where}: duplicate case id {case.id!r} in suite {name!r}, first defined at "
                f"{first}{also}; ids must be unique within a suite: rename one",
            )
        )
    return found


def duplicate_ids(suite: Suite) -> list[tuple[str, str, str]]:
    """Each case of `suite` whose id an earlier one has: (key, variant, problem)."""
    if isinstance(suite.cases, SuiteCases):  # found while loading
        return suite.cases.stats.duplicates
    return _duplicates(suite.cases, suite.name, suite.path)


def case_stats(suite: Suite) -> CaseStats:
    """The suite's check count and model ids (tallied while loading, when it was loaded)."""
    if isinstance(suite.cases, SuiteCases):
        return suite.cases.stats
    stats = CaseStats()
    for case in suite.cases:
        stats.add(case, DEFAULT_MODEL)
    return stats


def load_suite(path: Path | str, *, check_models: bool = False, name: str | None = None) -> Suite:
    """Load and validate one suite: a `.yaml` file or a folder of `.toml` case files.

    With `check_models`, a model id no provider or endpoint can serve is a problem too
    (`promptum validate`); `promptum run` leaves that to the run, which may override models.
    `name` names a suite without its own `name:` (`Discovery.names`); by default it is the
    file's name without its extension, or the folder's name.
    """
    path = Path(path)
    load = _Load(check_models=check_models, name=name)
    if path.is_dir():
        suite = _folder_suite(path, load)
    elif not os.path.lexists(path):  # a link that leads nowhere is read, to say why
        raise ConfigError(f"{path}: no such file or folder")
    elif path.suffix.lower() not in YAML_SUFFIXES:
        raise ConfigError(
            f"{path}: not a suite; give a .yaml/.yml suite or a folder of .toml case files "
            "(CSV and JSONL files are read through a suite's `cases_from`)"
        )
    else:
        suite = _yaml_suite(path, load)
    check_unique_ids([suite])
    return suite


def suite_from_data(data: Mapping[str, Any], path: Path | str, *, name: str | None = None) -> Suite:
    """A suite given as data, loaded as the suite file `path` holding it would be.

    Nothing is read from `path` itself: it places the suite (relative paths, its name).
    `data` is not changed.
    """
    path = Path(path)
    given = dict(data)
    cases = given.get("test_cases")
    if isinstance(cases, list):
        given["test_cases"] = list(cases)  # each case is let go of once built
    suite = _data_suite(given, Locator(path), path, _Load(check_models=False, name=name))
    check_unique_ids([suite])
    return suite


def load_suites(
    paths: Iterable[Path | str], names: Mapping[Path, str] | None = None
) -> list[Suite]:
    """Load several suites (a path given twice is loaded once); ids are namespaced by suite.

    `names` names the suites found by searching folders (`Discovery.names`).
    """
    first: dict[Path, Path] = {}
    for path in map(Path, paths):
        first.setdefault(_identity(path), path)
    named = names or {}
    suites: list[Suite] = []
    failed: list[str] = []
    for path in first.values():  # every suite is loaded: one broken file hides no other
        try:
            suites.append(load_suite(path, name=named.get(path)))
        except ConfigError as exc:
            message = str(exc)
            failed.append(message if message.startswith(f"{path}:") else f"{path}: {message}")
    if len(failed) > 1:
        raise ConfigError(f"{len(failed)} suites are invalid:\n" + "\n".join(failed))
    if failed:
        raise ConfigError(failed[0])
    check_unique_ids(suites)
    return suites


def _identity(path: Path) -> Path:
    """What tells two paths of one suite apart from two suites: `path` with links followed."""
    try:
        return resolved(path)
    except ConfigError:  # a loop of links: loading it says so
        return path.absolute()


def check_unique_ids(suites: Iterable[Suite]) -> None:
    """Raise a ConfigError naming each id twice in a suite, and each name two suites share."""
    problems = []
    names: dict[str, Suite] = {}
    for suite in suites:
        other = names.setdefault(suite.name, suite)
        if other is not suite and other.path != suite.path:
            problems.append(
                f"{suite.path}: suite name {suite.name!r} is also the name of {other.path}; "
                "case ids are namespaced by suite name, so give one of them its own `name:` "
                "(without one, a suite found in a folder run is named by its path there, "
                "one given as a file by its file name)"
            )
            continue
        if other is not suite:
            continue  # the same file given twice: its own duplicates were reported once
        problems += [message for _, _, message in duplicate_ids(suite)]
    raise_problems(problems)
