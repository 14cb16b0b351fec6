"""The Python adapter written beside a converted suite: promptfoo's code, called promptum's way.

promptfoo runs Python in two places promptum also does: a provider (`call_api`), which
becomes a target function, and a `python` assertion (`get_assert` or inline code), which
becomes a `python` check. The adapter only refers to the config's own files; nothing of
them is imported or run while converting, and the adapter imports them on first use.
"""

from __future__ import annotations

import json
import keyword
import textwrap
from dataclasses import dataclass, field
from typing import Any

_HEAD = '''\
"""Written by `promptum import promptfoo` from {config}: edit the config and convert again.

promptfoo's Python (its provider's call_api and python assertions) called the way promptum
calls targets and python checks. The config's own files are imported on first use.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from promptum import CheckInput, TargetResult

_CONFIG_DIR = {config_dir}
_MODULES: dict[str, ModuleType] = {{}}


def _module(relative: str) -> ModuleType:
    """The config's Python file, imported once (under a name of its own)."""
    if relative not in _MODULES:
        path = _CONFIG_DIR / relative
        name = "_promptfoo_" + "".join(c if c.isalnum() else "_" for c in relative)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {{path}}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[relative] = module
    return _MODULES[relative]


def _context(response: CheckInput, config: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's assertion context, as far as promptum knows it (no prompt text)."""
    variables = dict(response.vars)
    return {{
        "vars": variables,
        "test": {{"vars": variables}},
        "config": config,
        "prompt": None,
        "provider": {{"id": response.model}},
    }}


def _field(result: Any, *names: str) -> Any:
    for name in names:
        if isinstance(result, dict) and name in result:
            return result[name]
        if not isinstance(result, dict) and hasattr(result, name):
            return getattr(result, name)
    return None


def _graded(result: Any, threshold: float | None, inverse: bool) -> tuple[bool, str | None]:
    """promptfoo's reading of what a Python assertion returned, as (passed, reason)."""
    if isinstance(result, str):
        if result.lower() in ("true", "false"):
            result = result.lower() == "true"
        elif result.startswith("{{"):
            result = json.loads(result)
        else:
            result = float(result)  # anything else is an error, as in promptfoo
    if isinstance(result, bool):
        passed, reason = result, None if result else "Python code returned false"
    elif isinstance(result, int | float):
        passed = result > 0 if threshold is None else result >= threshold
        reason = f"score {{result}}" + ("" if threshold is None else f" (threshold {{threshold}})")
    else:
        passed_field = _field(result, "pass", "pass_")
        if passed_field is None:
            raise TypeError(f"a Python assertion returned {{result!r}}: not a bool, number or "
                            "{{pass, score, reason}}")
        passed = bool(passed_field)
        score = _field(result, "score")
        reason = _field(result, "reason")
        if threshold is not None and score is not None and score < threshold:
            passed = False
            reason = f"score {{score}} is less than threshold {{threshold}}: {{reason}}"
    if inverse:
        passed = not passed
        reason = None if passed else "the negated assertion held"
    return passed, reason
'''

_TARGET = '''

def {name}(query: str, vars: dict[str, Any]) -> TargetResult:
    """promptfoo's python provider {shown} ({where}): call_api(prompt, options, context)."""
    result = _module({relative}).{function}(query, {{"config": {config}}}, {{"vars": dict(vars)}})
    if not isinstance(result, dict):
        raise TypeError(f"call_api returned {{type(result).__name__}}, not a dict with `output`")
    if result.get("error"):
        raise RuntimeError(str(result["error"]))
    output = result.get("output")
    usage = result.get("tokenUsage") or {{}}
    return TargetResult(
        text=output if isinstance(output, str) else json.dumps(output),
        output=output if isinstance(output, dict) else None,
        input_tokens=usage.get("prompt"),
        output_tokens=usage.get("completion"),
        cost_usd=result.get("cost"),
    )
'''

_ECHO = '''

def {name}(query: str) -> TargetResult:
    """promptfoo's echo provider ({where}): the prompt, as sent, is the answer."""
    return TargetResult(text=query)
'''

_FILE_ASSERT = '''

def {name}(response: CheckInput) -> tuple[bool, str | None]:
    """promptfoo's python assertion at {where}: {shown}."""
    context = _context(response, {config})
    return _graded(_module({relative}).{function}(response.text, context), {threshold}, {inverse})
'''

_INLINE_ASSERT = '''

def _{name}_code(output: str, context: dict[str, Any]) -> Any:
{body}


def {name}(response: CheckInput) -> tuple[bool, str | None]:
    """promptfoo's inline python assertion at {where}."""
    context = _context(response, {config})
    return _graded(_{name}_code(response.text, context), {threshold}, {inverse})
'''

_JSON_CHECK = '''

def {name}(response: CheckInput) -> tuple[bool, str | None]:
    """promptfoo's `{kind}` at {where}: {what}."""
    import jsonschema
    import referencing

    values = {values}
    if not values:
        return False, "{missing}"
    schema = json.loads({schema})
    # An empty registry: a `$ref` is resolved within the schema, never fetched or read.
    validator = jsonschema.Draft7Validator(schema, registry=referencing.Registry())
    problems = []
    for value in values:
        errors = sorted(validator.iter_errors(value), key=lambda error: list(error.path))
        if not errors:
            return True, None
        problems.append(errors[0].message)
    return False, "JSON does not fit the schema: " + problems[0]
'''

_WHOLE_JSON = "_whole_json(response.text)"
_FOUND_JSON = "_found_json(response.text)"
_JSON_HELPERS = '''

def _whole_json(text: str) -> list[Any]:
    """The response parsed as JSON (surrounding whitespace allowed), as JSON.parse does."""
    try:
        return [json.loads(text)]
    except ValueError:
        return []


def _found_json(text: str) -> list[Any]:
    """Every JSON object or array that starts somewhere in the text."""
    decoder = json.JSONDecoder()
    found = []
    for index, char in enumerate(text):
        if char in "{[":
            try:
                found.append(decoder.raw_decode(text, index)[0])
            except ValueError:
                continue
    return found
'''


@dataclass(slots=True)
class Adapter:
    """The functions the suite needs from Python, collected while converting."""

    config_name: str
    config_dir: str
    """The config's folder relative to the adapter's, as a POSIX path ('.' when the same)."""
    parts: list[str] = field(default_factory=list)
    json_helpers: bool = False
    count: int = 0

    def _add(self, prefix: str, template: str, **fields: object) -> str:
        """`template` filled in under a new function name from `prefix`, kept; returns the name."""
        self.count += 1
        name = f"promptfoo_{prefix}_{self.count}"
        # Text from the config lands in docstrings: it must not end one and write code.
        said = {key: _said(str(fields[key])) for key in _DOCUMENTED if key in fields}
        self.parts.append(template.format(name=name, **{**fields, **said}))
        return name

    def _calling(
        self,
        prefix: str,
        template: str,
        relative: str,
        function: str,
        config: Any,
        **fields: object,
    ) -> str:
        """`template` calling `function` of the config's file `relative`; returns its name.

        Raises ValueError if `function` is not a Python name: it is written into the code.
        """
        if not function.isidentifier() or keyword.iskeyword(function):
            raise ValueError(f"{function!r} is not a Python function name")
        return self._add(
            prefix,
            template,
            relative=repr(relative),
            function=function,
            config=_literal(config),
            **fields,
        )

    def target(self, relative: str, function: str, config: Any, where: str) -> str:
        """A target function calling a python provider's `call_api`; returns its name.

        Raises ValueError if `function` is not a Python name.
        """
        return self._calling(
            "provider", _TARGET, relative, function, config, shown=relative, where=where
        )

    def echo(self, where: str) -> str:
        """A target answering with the user's message, as promptfoo's echo provider does."""
        return self._add("echo", _ECHO, where=where)

    def file_assert(
        self,
        relative: str,
        function: str,
        config: Any,
        threshold: float | None,
        inverse: bool,
        where: str,
    ) -> str:
        """A check calling `function(output, context)` of the config's Python file.

        Raises ValueError if `function` is not a Python name.
        """
        return self._calling(
            "assert",
            _FILE_ASSERT,
            relative,
            function,
            config,
            where=where,
            shown=f"{relative}:{function}",
            threshold=threshold,
            inverse=inverse,
        )

    def inline_assert(
        self, code: str, config: Any, threshold: float | None, inverse: bool, where: str
    ) -> str:
        """A check running inline assertion code as promptfoo does: `return <line>` or a body."""
        if "\n" in code.strip():
            body = textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")
        else:
            body = f"    return {code.strip()}"
        return self._add(
            "assert",
            _INLINE_ASSERT,
            where=where,
            body=body,
            config=_literal(config),
            threshold=threshold,
            inverse=inverse,
        )

    def json_check(self, kind: str, schema: Any, where: str) -> str:
        """A check that the response is (`is-json`) or holds (`contains-json`) fitting JSON."""
        self.json_helpers = True
        whole = kind == "is-json"
        return self._add(
            kind.replace("-", "_"),
            _JSON_CHECK,
            kind=kind,
            where=where,
            what="the response is JSON fitting the schema"
            if whole
            else "the response holds JSON fitting the schema",
            values=_WHOLE_JSON if whole else _FOUND_JSON,
            missing="the response is not valid JSON" if whole else "the response holds no JSON",
            schema=repr(json.dumps(schema, sort_keys=True)),
        )

    def text(self) -> str | None:
        """The adapter's source, or None when the suite needs none."""
        if not self.parts:
            return None
        base = "Path(__file__).resolve().parent"
        folder = base if self.config_dir == "." else f"({base} / {self.config_dir!r}).resolve()"
        head = _HEAD.format(config=_said(self.config_name), config_dir=folder)
        helpers = _JSON_HELPERS if self.json_helpers else ""
        return head + helpers + "".join(self.parts)


_DOCUMENTED = ("where", "shown")
"""The fields of a template written into its docstring."""


def _said(text: str) -> str:
    """`text` as it may stand inside a docstring: on one line, ending no string."""
    one_line = " ".join(text.split())
    return one_line.replace("\\", "\\\\").replace('"', '\\"')


def _literal(value: Any) -> str:
    """A Python literal of JSON-like data (a provider's or assertion's `config`)."""
    if value is None:
        return "{}"
    return f"json.loads({json.dumps(value, sort_keys=True, default=str)!r})"
