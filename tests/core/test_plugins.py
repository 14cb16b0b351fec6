"""Plugins: check types, report formats and providers from user code and installed packages."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from promptum import (
    CheckInput,
    Completion,
    Grade,
    PluginError,
    evaluate_checks,
    register_check,
    register_report,
)
from promptum.checks import CHECK_TYPES, CheckDefinition, CheckResult, CheckType, ValueKind
from promptum.checks._registry import unregister_check_type
from promptum.errors import ConfigError, ProviderUnavailableError
from promptum.providers import (
    ClientOptions,
    EndpointConfig,
    ModelClient,
    ModelRequest,
    _routing,
    model_id_problem,
    resolve,
)
from promptum.reporting import REPORT_FORMATS, ReportFormat, render_report, write_report
from promptum.reporting._registry import unregister_report_format
from promptum.runner import grade
from promptum.suites import load_suite, suite_json_schema
from promptum.values.run_result import Message, RunResult
from tests.support.cli import write
from tests.support.fault_server import FaultServer, fault_server
from tests.support.plugins import install_plugin


class Installer(Protocol):
    """Installs package `name` declaring `entry_points`, with its modules' `sources`."""

    def __call__(
        self,
        name: str,
        entry_points: Mapping[str, Mapping[str, str]],
        sources: Mapping[str, str] | None = None,
    ) -> None: ...


@pytest.fixture(autouse=True)
def registries() -> Iterator[None]:
    """Whatever a test registers is gone after it: the registries are the process's."""
    checks, reports = set(CHECK_TYPES), set(REPORT_FORMATS)
    yield
    for name in set(CHECK_TYPES) - checks:
        unregister_check_type(name)
    for name in set(REPORT_FORMATS) - reports:
        unregister_report_format(name)
    _routing._plugin_providers.clear()


def max_words(response: CheckInput, value: int) -> tuple[bool, str]:
    """The response has at most N words."""
    count = len(response.text.split())
    return count <= value, f"{count} words"


def shouting(response: CheckInput) -> float:
    return sum(c.isupper() for c in response.text) / max(1, len(response.text))


def _checked_by(folder: Path, *checks: str) -> Path:
    """Write a suite whose one case has these checks (YAML mappings), from line 5 on."""
    listed = "".join(f"      - {check}\n" for check in checks)
    return write(
        folder / "suite.yaml", f"test_cases:\n  - id: a\n    query: hi\n    checks:\n{listed}"
    )


# register_check


def test_a_registered_function_is_a_check_type_a_suite_names(tmp_path: Path) -> None:
    register_check("max_words", max_words)
    register_check("shouting", shouting, description="mostly capitals")
    path = _checked_by(tmp_path, "{type: max_words, value: 3}", "{type: shouting, threshold: 0.9}")
    (case,) = load_suite(path).cases
    results = evaluate_checks(case.grading.checks, Completion(text="ONE TWO three four"))
    assert results == [
        CheckResult("max_words", False, "The response has at most N words. (3)", "4 words"),
        CheckResult("shouting", False, "mostly capitals", "score 0.333333 < 0.9"),
    ]
    grades = grade(case, Completion(text="ONE TWO three four"))
    assert [(g.kind, g.name, g.score) for g in grades] == [
        ("custom", "max_words", None),
        ("custom", "shouting", pytest.approx(6 / 18)),
    ]


def test_a_registered_type_is_in_the_schema_and_the_did_you_mean() -> None:
    register_check("max_words", max_words)
    schema = suite_json_schema()["$defs"]["CheckDefinition"]
    assert "max_words" in schema["properties"]["type"]["enum"]
    assert "max_words: The response has at most N words." in schema["description"]
    with pytest.raises(ValueError, match="Did you mean 'max_words'"):
        CheckDefinition(type="max_wrods", value=3)


def test_what_a_registered_type_takes_follows_its_signature() -> None:
    def optional(response: CheckInput, value: Any = None) -> bool:
        return value is None or str(value) in response.text

    assert register_check("max_words", max_words).value is ValueKind.ANY
    assert register_check("shouting", shouting).value is ValueKind.NONE
    assert register_check("optional", optional).value is ValueKind.OPTIONAL
    with pytest.raises(ValueError, match="check 'max_words' needs a `value`: any value"):
        CheckDefinition(type="max_words")
    with pytest.raises(ValueError, match="check 'shouting' takes no value"):
        CheckDefinition(type="shouting", value=2)
    assert CheckDefinition(type="optional").compiled(Completion(text="x")).passed
    assert not CheckDefinition(type="optional", value=7).compiled(Completion(text="x")).passed
    with pytest.raises(ValueError, match="case_insensitive applies only to string checks"):
        CheckDefinition(type="shouting", case_insensitive=True)


def test_a_registered_check_that_raises_is_an_error_grade_naming_it() -> None:
    def fragile(response: CheckInput) -> bool:
        raise KeyError("x")

    register_check("fragile", fragile)
    grade = CheckDefinition(type="fragile").compiled(Completion(text="x"))
    assert grade.error is not None
    assert grade.error.startswith("check type 'fragile' (")  # and where the function is
    assert grade.error.endswith("<locals>.fragile) raised KeyError: 'x'")


@pytest.mark.parametrize(
    ("name", "check", "reason"),
    [
        ("contains", max_words, "the name is taken (a built-in check type); choose another"),
        ("python", max_words, "the name is taken (a built-in check type)"),
        ("bad name", max_words, "a check type's name is a word"),
        ("no_args", lambda: True, "its signature is (), but a check function is called as"),
        ("three", lambda a, b, c: True, "is (a, b, c), but a check function is called as f(r"),
        ("kw", lambda a, *, b: True, "its signature is (a, *, b), but"),
        ("text", "not a function", "it is str 'not a function', not a function (or a CheckType)"),
        ("wrong", CheckType("other", "", ValueKind.NONE, lambda v, c: None), "named 'other'"),
    ],
)
def test_a_registration_that_will_not_do_says_whose_what_and_why(
    name: str, check: Any, reason: str
) -> None:
    with pytest.raises(PluginError) as raised:
        register_check(name, check)
    message = str(raised.value)
    assert message.startswith(f"check type {name!r} from register_check("), message
    assert reason in message
    assert isinstance(raised.value, ConfigError)  # shown without a traceback by the CLI


def test_registering_a_name_twice_names_the_first_registration() -> None:
    register_check("max_words", max_words)
    with pytest.raises(PluginError, match=r"registered by register_check\(\S*max_words\)"):
        register_check("max_words", shouting)
    with pytest.raises(PluginError, match="threshold must be a number from 0 to 1"):
        register_check("other", shouting, threshold=2)


def test_a_full_check_type_is_graded_as_the_users_whatever_it_answers() -> None:
    def build(value: Any, _case_insensitive: bool) -> Any:
        def run(completion: Completion) -> CheckResult:
            if completion.text == "boom":
                raise RuntimeError("bad")
            return CheckResult("begins_with", completion.text.startswith(value), f"starts {value}")

        return run

    register_check("begins_with", CheckType("begins_with", "starts so", ValueKind.STRING, build))
    compiled = CheckDefinition(type="begins_with", value="He").compiled
    assert compiled(Completion(text="Hello")) == Grade(
        "custom", "begins_with", True, None, None, "starts He"
    )
    crashed = compiled(Completion(text="boom"))
    assert crashed.error == "check type 'begins_with' raised RuntimeError: bad"


# register_report


def render_tap(run: RunResult) -> str:
    lines = [f"1..{len(run.results)}"]
    for number, result in enumerate(run.results, 1):
        verdict = "ok" if result.status == "pass" else "not ok"
        lines.append(f"{verdict} {number} - {result.case_id}")
    return "\n".join(lines) + "\n"


def test_a_registered_report_format_is_written_by_its_extension(tmp_path: Path) -> None:
    register_report("tap", render_tap, description="TAP for test harnesses", aliases=["tap13"])
    run = RunResult(run_id="r", suite="s")
    assert render_report(run, "tap13") == "1..0\n"
    write_report(run, tmp_path / "out.tap")
    assert (tmp_path / "out.tap").read_text() == "1..0\n"
    with pytest.raises(ConfigError, match=r"\.tap \(TAP for test harnesses\)"):
        render_report(run, "pdf")


@pytest.mark.parametrize(
    ("name", "render", "aliases", "reason"),
    [
        ("json", render_tap, (), "the extension .json is taken (a built-in format)"),
        ("tap", render_tap, ("junit",), "the extension .junit is taken (a built-in format)"),
        ("TAP", render_tap, (), "'TAP' is not a file extension"),
        ("tap", lambda run, extra: "", (), "it cannot be called as render(run)"),
        ("tap", ReportFormat("other", "", render_tap), (), "the ReportFormat is named 'other'"),
    ],
)
def test_a_report_format_that_will_not_do_is_refused(
    name: str, render: Any, aliases: tuple[str, ...], reason: str
) -> None:
    with pytest.raises(PluginError) as raised:
        register_report(name, render, aliases=aliases)
    assert str(raised.value).startswith(f"report format {name!r} from register_report(")
    assert reason in str(raised.value)


# entry points


PLUGIN = {
    "acme_promptum": '''
        """A plugin package: a check type, a report format and a provider."""

        from promptum import Completion

        LOADED = []
        LOADED.append("acme")


        def max_words(response, value):
            """The response has at most N words."""
            count = len(response.text.split())
            return count <= value, f"{count} words"


        def render_tap(run):
            lines = [f"1..{len(run.results)}"]
            for number, result in enumerate(run.results, 1):
                verdict = "ok" if result.status == "pass" else "not ok"
                lines.append(f"{verdict} {number} - {result.case_id} ({result.model})")
            return "\\n".join(lines) + "\\n"


        class EchoProvider:
            """Answers with the prompt: a model for tests."""

            max_concurrency = 2

            def __init__(self, endpoint, config, timeout_s):
                self.endpoint = endpoint

            async def complete(self, request):
                said = request.messages[-1].content
                return Completion(text=f"you said {said}", input_tokens=1, output_tokens=3)
    '''
}
ENTRY_POINTS = {
    "promptum.checks": {"max_words": "acme_promptum:max_words"},
    "promptum.reports": {"tap": "acme_promptum:render_tap"},
    "promptum.providers": {"echo": "acme_promptum:EchoProvider"},
}


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultServer]:
    monkeypatch.chdir(tmp_path)
    with fault_server() as running:
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", running.base_url)
        yield running


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Installer]:
    """Installs a plugin package on this process's path, as pip would, for one test alone."""
    site = tmp_path / "site"
    modules: list[str] = []

    def install(
        name: str,
        entry_points: Mapping[str, Mapping[str, str]],
        sources: Mapping[str, str] | None = None,
    ) -> None:
        install_plugin(site, name, entry_points, sources)
        modules.extend(sources or {})
        monkeypatch.syspath_prepend(str(site))

    yield install
    # The plugin's modules go with it: a later test imports them afresh.
    for module in modules:
        sys.modules.pop(module, None)


def test_an_installed_check_type_is_one_function_and_one_yaml_line(
    tmp_path: Path, server: FaultServer
) -> None:
    site = tmp_path / "site"
    install_plugin(site, "acme-promptum", ENTRY_POINTS, PLUGIN)
    write(
        tmp_path / "suite.yaml",
        """
        models: [fault/x, echo/parrot]
        test_cases:
          - id: greeting
            query: say hello
            checks:
              - {type: max_words, value: 4}
        """,
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "--no-cache",
         "-o", "run.json", "-o", "results.tap"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # the fault server says 5 words
    results = {r["model"]: r for r in json.loads((tmp_path / "run.json").read_text())["results"]}
    fault, echo = results["fault/x"], results["echo/parrot"]
    assert fault["grades"] == [
        {
            "kind": "custom",
            "name": "max_words",
            "passed": False,
            "score": None,
            "reason": "5 words",
            "description": "The response has at most N words. (4)",
            "error": None,
            "details": {},
        }
    ]
    assert echo["completion"]["text"] == "you said say hello"
    assert echo["status"] == "pass"
    tap = (tmp_path / "results.tap").read_text().splitlines()
    assert tap[0] == "1..2"
    numbered = {line.replace(" 1 - ", " - ").replace(" 2 - ", " - ") for line in tap[1:]}
    assert numbered == {"not ok - greeting (fault/x)", "ok - greeting (echo/parrot)"}

    schema = subprocess.run(
        [sys.executable, "-m", "promptum", "schema"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert '"max_words"' in schema.stdout


def test_an_entry_point_loads_once_and_only_when_its_name_is_looked_up(
    installed: Installer,
) -> None:
    modules = {"lazy_plugin": PLUGIN["acme_promptum"]}
    installed("lazy-plugin", {"promptum.checks": {"lazy_words": "lazy_plugin:max_words"}}, modules)
    CheckDefinition(type="contains", value="x")
    assert "lazy_plugin" not in sys.modules  # a built-in type needs no plugin
    first = CheckDefinition(type="lazy_words", value=2)
    CheckDefinition(type="lazy_words", value=3)
    assert sys.modules["lazy_plugin"].LOADED == ["acme"]
    assert first.compiled(Completion(text="a b c")).reason == "3 words"
    with pytest.raises(ValueError, match="Did you mean 'lazy_words'"):
        CheckDefinition(type="lazy_wrods", value=2)


def test_a_broken_plugin_is_a_located_error_naming_the_entry_point(
    tmp_path: Path, installed: Installer
) -> None:
    installed(
        "broken-plugin",
        {"promptum.checks": {"broken": "no_such_module:check", "not_callable": "json:__name__"}},
    )
    path = _checked_by(tmp_path, "{type: broken}", "{type: not_callable}")
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    _, broken, not_callable = str(raised.value).splitlines()
    assert broken.startswith(f"{path}:5:")
    assert (
        "check type 'broken' from entry point 'broken = no_such_module:check' (group "
        "promptum.checks, package broken-plugin 0.1.0): cannot be loaded: ModuleNotFoundError"
    ) in broken
    assert "check type 'not_callable' from entry point 'not_callable = json:__name__'" in (
        not_callable
    )
    assert "it is str 'json', not a function (or a CheckType)" in not_callable


def test_two_packages_declaring_one_name_is_an_error_naming_both(installed: Installer) -> None:
    installed("one", {"promptum.checks": {"twice": "json:dumps"}})
    installed("two", {"promptum.checks": {"twice": "json:loads"}})
    with pytest.raises(ValueError, match="check type 'twice' from entry point") as raised:
        CheckDefinition(type="twice")
    assert "package one 0.1.0" in str(raised.value)
    assert "package two 0.1.0" in str(raised.value)
    assert "uninstall one of them" in str(raised.value)


def test_a_provider_entry_point_serves_its_prefix(installed: Installer) -> None:
    installed(
        "echo-provider",
        {"promptum.providers": {"echo2": "echo_provider:EchoProvider", "bad": "json:dumps"}},
        {"echo_provider": PLUGIN["acme_promptum"]},
    )
    assert model_id_problem("echo2/any") is None
    assert "Did you mean 'echo2/any'" in (model_id_problem("ecko2/any") or "")
    route = resolve("echo2/any", {})
    assert (route.kind, route.endpoint, route.name) == ("plugin", "echo2", "any")
    assert route.config is not None
    assert route.config.max_concurrency == 2  # the class's own limit
    with pytest.raises(ProviderUnavailableError) as raised:
        resolve("bad/x", {})
    assert str(raised.value).startswith("provider 'bad' from entry point 'bad = json:dumps'")
    assert "not a provider class" in str(raised.value)
    # A configured endpoint of the same name wins: configuration is explicit.
    configured = resolve("echo2/any", {"echo2": EndpointConfig(base_url="http://127.0.0.1:9/v1")})
    assert configured.kind == "openai"


def test_a_plugin_provider_answers_through_the_model_client(installed: Installer) -> None:
    installed(
        "echo3",
        {"promptum.providers": {"echo3": "echo3_provider:EchoProvider"}},
        {"echo3_provider": PLUGIN["acme_promptum"]},
    )

    async def ask() -> Completion:
        client = ModelClient(ClientOptions(cache=False))
        try:
            request = ModelRequest(model="echo3/m", messages=(Message(role="user", content="hi"),))
            return await client.complete(request)
        finally:
            await client.aclose()  # the class has no aclose: nothing to close

    completion = asyncio.run(ask())
    assert (completion.text, completion.error) == ("you said hi", None)
