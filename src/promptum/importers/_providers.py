"""promptfoo's `providers` as promptum model ids, endpoints, a target, and shared parameters."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from promptum.errors import ConfigError
from promptum.importers._context import FILE_PREFIX, Context, slug
from promptum.importers._javascript import UntranslatableError, translate
from promptum.importers._source import READ_AS_YAML, Node

_CHAT_MODES = ("chat", "responses", "messages")
"""promptfoo's modes of openai:, anthropic: and ollama: ids that call a chat API."""
_COMPLETION_MODE = "completion"
_NOT_CHAT_MODES = {
    "embedding": "an embedding model",
    "embeddings": "an embedding model",
    "realtime": "OpenAI's Realtime API",
    "assistant": "an OpenAI assistant (the Assistants API, with its own threads and tools)",
    "agents": "the OpenAI Agents SDK",
    "chatkit": "an OpenAI ChatKit workflow",
    "image": "an image model",
    "video": "a video model",
    "transcription": "a speech-to-text model",
}
"""promptfoo's modes that run something other than a chat model, and what they run."""
_NOT_CHAT_IDS = {
    "anthropic:claude-agent-sdk": "the Claude Agent SDK (an agent with tools and files)",
    "anthropic:claude-code": "the Claude Agent SDK (an agent with tools and files)",
    "openai:codex-sdk": "the OpenAI Codex SDK (a coding agent)",
}
"""promptfoo provider ids that name an agent, not a model promptum could call as a chat."""
_COMPATIBLE = {  # OpenAI-compatible services promptfoo names by prefix, and their API roots
    "groq": "https://api.groq.com/openai/v1",
    "mistral": "https://api.mistral.ai/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "togetherai": "https://api.together.xyz/v1",
    "perplexity": "https://api.perplexity.ai",
}
_PARAMS = {name: name for name in ("temperature", "max_tokens", "seed", "top_p")}
_EXTRA = ("frequency_penalty", "presence_penalty", "stop", "top_k")
_IGNORED = {
    "apiKey",
    "apiKeyEnvar",
    "apiBaseUrl",
    "apiHost",
    "tools",
    "tool_choice",
    "response_format",
}
_ENV = re.compile(r"\{\{\s*env\.(\w+)\s*\}\}")
_JSON_PATH = re.compile(r"json((?:\.[A-Za-z_$][\w$]*|\[\d+\]|\[(['\"])[^'\"]*\2\])*)")


@dataclass(slots=True)
class Providers:
    """What answers the suite's cases, and the settings every model shares."""

    models: list[str] = field(default_factory=list)
    endpoints: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    tools: list[Any] | None = None
    tool_choice: Any = None
    response_model: Any = None
    transform: str | None = None
    comments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _One:
    node: Node
    id: str
    label: str | None
    config: dict[str, Any]


def convert_providers(node: Node | None, context: Context) -> Providers:
    """The config's providers as promptum sees them; what has no equivalent is noted."""
    result = Providers()
    if node is None:
        return result
    ones = list(_listed(node, context))
    configs: list[tuple[_One, dict[str, Any]]] = []
    targets: list[_One] = []
    for one in ones:
        if _is_target(one.id):
            targets.append(one)
            continue
        model = _model(one, context, result)
        if model is None:
            continue
        if model in result.models:  # promptfoo compares configs of one model; a run cannot
            context.skip(
                one.node,
                f"provider {one.label or one.id}",
                f"{model} is already a model of the suite, which runs each model once per "
                "case: compare its settings in a suite of their own",
            )
            continue
        result.models.append(model)
        result.comments.append(str(one.node.where))
        configs.append((one, _params(one, context)))
        _shared(one, context, result)
    if targets:
        _target(targets, bool(result.models), context, result)
    if configs:
        _common_params(configs, context, result)
    return result


def _listed(node: Node, context: Context) -> list[_One]:
    value = node.value
    if isinstance(value, str) and value.startswith(FILE_PREFIX) and value.endswith(READ_AS_YAML):
        try:
            node = context.yaml(value).root()
        except ConfigError as exc:
            context.skip(node, "providers", str(exc))
            return []
        value = node.value
    if isinstance(value, dict) and "id" not in value:  # {openai:gpt-4o: {config...}}
        return [
            _One(item, key, _label(item.value), _config(item.value)) for key, item in node.items()
        ]
    ones = []
    for item in node.elements():
        raw = item.value
        if isinstance(raw, str):
            ones.append(_One(item, raw, None, {}))
        elif isinstance(raw, dict) and isinstance(raw.get("id"), str):
            ones.append(_One(item, raw["id"], _label(raw), _config(raw)))
            for key in sorted(set(raw) - {"id", "label", "config", "prompts", "transform"}):
                context.skip(item, f"provider key `{key}`", "promptum has no such setting")
            if "prompts" in raw:
                context.approximate(
                    item,
                    "provider `prompts`",
                    "every prompt runs on every "
                    "model in promptum; split the suite to keep a model to some",
                )
            if "transform" in raw:
                # Carried in the config, where `_shared` reads it with the other settings.
                ones[-1].config = {**ones[-1].config, "__transform": raw["transform"]}
        elif isinstance(raw, dict) and len(raw) == 1:
            key, options = next(iter(raw.items()))
            ones.append(_One(item, str(key), _label(options), _config(options)))
        else:
            context.skip(item, "provider", "a provider is an id or {id, config, label}")
    return ones


def _label(raw: Any) -> str | None:
    label = raw.get("label") if isinstance(raw, dict) else None
    return label if isinstance(label, str) else None


def _config(raw: Any) -> dict[str, Any]:
    config = raw.get("config") if isinstance(raw, dict) else None
    return dict(config) if isinstance(config, dict) else {}


def _is_target(provider_id: str) -> bool:
    return provider_id.startswith(("http:", "https:", "python:", FILE_PREFIX)) or provider_id in (
        "http",
        "https",
        "echo",
    )


def _model(one: _One, context: Context, result: Providers) -> str | None:
    prefix, _, rest = one.id.partition(":")
    base = one.config.get("apiBaseUrl") or one.config.get("apiHost")
    if prefix in ("openai", "ollama", "anthropic"):
        mode, _, name = rest.partition(":")
        runs = _NOT_CHAT_IDS.get(one.id) or (_NOT_CHAT_MODES.get(mode) if name else None)
        if runs is not None:
            # Never a chat model of the same name: promptum would grade another thing.
            context.skip(
                one.node,
                f"provider {one.id}",
                f"promptfoo runs {runs} there, not a chat model; promptum calls chat models "
                "only (a Python target can wrap it)",
            )
            return None
        model = name if mode in (*_CHAT_MODES, _COMPLETION_MODE) and name else rest
        if mode == _COMPLETION_MODE and name:
            context.approximate(
                one.node,
                f"provider {one.id}",
                "promptfoo calls the text-completion API (the prompt as raw text); promptum "
                "sends the prompt to the model's chat API",
            )
        if not model:
            context.skip(one.node, f"provider {one.id}", "it names no model")
            return None
        if prefix == "openai" and isinstance(base, str):
            return f"{_endpoint(one, base, context, result)}/{model}"
        if isinstance(base, str):
            context.skip(
                one.node,
                f"provider {one.id} apiBaseUrl",
                "only OpenAI-compatible servers move in promptum; the default server is used",
            )
        return f"{prefix}/{model}"
    if prefix == "openrouter" and rest:
        return f"openrouter/{rest}"
    if prefix in _COMPATIBLE and rest:
        name = context.unique(prefix)
        result.endpoints[name] = {"base_url": _COMPATIBLE[prefix]}
        context.approximate(
            one.node,
            f"provider {one.id}",
            f"an OpenAI-compatible endpoint "
            f"'{name}'; its key is read from PROMPTUM_{name.upper()}_API_KEY",
        )
        return f"{name}/{rest}"
    why = {
        "exec": "a shell command is not a model; wrap it in a Python target",
    }.get(
        prefix,
        f"promptum has no provider for '{prefix}'; name an OpenAI-compatible endpoint "
        "if it has one",
    )
    context.skip(one.node, f"provider {one.id}", why)
    return None


def _endpoint(one: _One, base: str, context: Context, result: Providers) -> str:
    if _ENV.search(base):
        context.skip(one.node, "apiBaseUrl", "it reads the environment; a suite names its URL")
    url = base if "://" in base else f"https://{base}/v1"
    host = urlsplit(url).hostname or "server"
    if re.fullmatch(r"[\d.]+|localhost|\[?::1\]?", host):
        host = "local"
    name = context.unique(slug(one.label or host.split(".")[0], "server"))
    result.endpoints[name] = {"base_url": url}
    if "apiKey" in one.config or "apiKeyEnvar" in one.config:
        context.approximate(
            one.node,
            "apiKey",
            f"a suite never holds a key: export it as "
            f"PROMPTUM_{name.upper().replace('-', '_')}_API_KEY",
        )
    return name


def _params(one: _One, context: Context) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in one.config.items():
        if key in _PARAMS:
            params[_PARAMS[key]] = value
        elif key == "max_completion_tokens":
            params["max_tokens"] = value
        elif key in _EXTRA:
            params.setdefault("extra", {})[key] = value
        elif key not in _IGNORED and key != "__transform":
            context.skip(one.node, f"provider config `{key}`", "promptum has no such setting")
    if "apiKey" in one.config and "apiBaseUrl" not in one.config:
        context.approximate(
            one.node,
            "apiKey",
            "a suite never holds a key: promptum reads the "
            "provider's own variable (OPENAI_API_KEY, ANTHROPIC_API_KEY...)",
        )
    return params


def _shared(one: _One, context: Context, result: Providers) -> None:
    """Tools, tool choice, a JSON schema and an output transform (one for every model)."""
    config = one.config
    tools = config.get("tools")
    if isinstance(tools, str) and tools.startswith(FILE_PREFIX):
        try:
            tools = context.yaml(tools).value
        except ConfigError as exc:
            context.skip(one.node, "tools", str(exc))
            tools = None
    if isinstance(tools, list):
        tools = _function_tools(tools, one, context)
    for key, value in (("tools", tools), ("tool_choice", config.get("tool_choice"))):
        if value is None:
            continue
        current = getattr(result, key)
        if current is not None and current != value:
            context.skip(one.node, key, "promptum offers one set of tools to every model")
        else:
            setattr(result, key, value)
    response_format = config.get("response_format")
    if response_format is not None:
        schema = response_model_of(response_format, one.node, context)
        if schema is not None:
            result.response_model = schema
    transform = config.get("__transform")
    if isinstance(transform, str):
        data = not one.id.startswith("anthropic:") and (
            config.get("tools") is not None or config.get("response_format") is not None
        )
        try:
            # promptfoo's transform sees an OpenAI answer's tool calls or JSON object as such.
            translated = translate(transform, "answer" if data else "output")
        except UntranslatableError as exc:
            context.skip(one.node, "provider transform", f"the JavaScript {exc}")
            return
        expression = translated.text
        for caveat in translated.caveats:
            context.approximate(one.node, "provider transform", caveat)
        if data:
            context.approximate(
                one.node,
                "provider transform",
                "promptfoo's assertions see an object it returns as an object; promptum's "
                "checks see its JSON as `output` (and the object as `answer`)",
            )
        if result.transform not in (None, expression):
            context.skip(
                one.node,
                "provider transform",
                "promptum transforms every model's "
                "output alike; this provider's differs from another's",
            )
        else:
            result.transform = expression


def response_model_of(response_format: Any, node: Node, context: Context) -> Any:
    """The JSON schema of a `response_format: {type: json_schema}` (noted), else None (noted)."""
    if isinstance(response_format, dict):
        schema = (response_format.get("json_schema") or {}).get("schema")
        if response_format.get("type") == "json_schema" and isinstance(schema, dict):
            context.approximate(
                node,
                "response_format",
                "the schema becomes the cases' "
                "response_model: promptum also grades whether the output fits it",
            )
            return schema
    context.skip(node, "response_format", "only a json_schema format converts")
    return None


def _function_tools(tools: list[Any], one: _One, context: Context) -> list[Any]:
    """The tools as OpenAI function schemas: Anthropic's `{name, input_schema}` rewritten."""
    converted = []
    for tool in tools:
        if isinstance(tool, dict) and "input_schema" in tool and isinstance(tool.get("name"), str):
            function: dict[str, Any] = {"name": tool["name"]}
            if isinstance(tool.get("description"), str):
                function["description"] = tool["description"]
            function["parameters"] = tool["input_schema"]
            converted.append({"type": "function", "function": function})
            for key in sorted(set(tool) - {"name", "description", "input_schema"}):
                context.skip(one.node, f"tool {tool['name']} `{key}`", "not an OpenAI tool key")
        elif isinstance(tool, dict) and tool.get("type") not in (None, "function"):
            context.skip(
                one.node,
                f"tool {tool.get('name') or tool.get('type')}",
                "a tool the provider runs itself (web search, code, computer use); promptum "
                "offers the model function tools only",
            )
        else:
            converted.append(tool)
    return converted


def _common_params(
    configs: list[tuple[_One, dict[str, Any]]], context: Context, result: Providers
) -> None:
    """Parameters as most models have them: promptum's apply to every model of a suite."""
    keys = dict.fromkeys(key for _, params in configs for key in params)
    for key in keys:
        values = [params.get(key) for _, params in configs]
        common = max(values, key=lambda value: (values.count(value), -values.index(value)))
        if common is not None:
            result.params[key] = common
        for one, params in configs:
            if params.get(key) != common:
                now = "its default" if common is None else repr(common)
                context.approximate(
                    one.node,
                    f"provider config `{key}`",
                    f"runs with {now} "
                    "like most models: promptum's parameters apply to every model "
                    "of a suite (split the suite to keep it)",
                )


def _target(targets: list[_One], has_models: bool, context: Context, result: Providers) -> None:
    first, *others = targets
    for one in ([first] if has_models else []) + others:
        context.skip(
            one.node,
            f"provider {one.id}",
            "a promptum suite is answered by its models "
            "or by one target; convert it again with this provider alone",
        )
    if has_models:
        return
    result.comments.append(str(first.node.where))
    if first.id == "echo":
        result.target = _echo_target(first, context)
    elif first.id.startswith(("python:", FILE_PREFIX)):
        result.target = _python_target(first, context)
    else:
        result.target = _http_target(first, context)


def _python_target(one: _One, context: Context) -> dict[str, Any] | None:
    reference = one.id.removeprefix("python:").removeprefix(FILE_PREFIX)
    path, _, function = reference.partition(":")
    if not path.endswith(".py"):
        context.skip(one.node, f"provider {one.id}", "only Python providers become targets")
        return None
    function = function or "call_api"
    config = {k: v for k, v in one.config.items() if k != "__transform"}
    try:
        name = context.adapter.target(path, function, config, str(one.node.where))
    except ValueError as exc:  # a function name that is no Python name
        context.skip(one.node, f"provider {one.id}", str(exc))
        return None
    adapter = context.output.with_name(context.output.stem + "_adapter.py").name
    return {
        "function": f"{adapter}:{name}",
        "name": slug(one.label or path.removesuffix(".py"), "provider"),
    }


def _echo_target(one: _One, context: Context) -> dict[str, Any]:
    name = context.adapter.echo(str(one.node.where))
    adapter = context.output.with_name(context.output.stem + "_adapter.py").name
    context.approximate(
        one.node,
        "provider echo",
        "a Python target answering with the user's message: the prompt itself for a text "
        "prompt; of a chat prompt, only its last user message is echoed",
    )
    return {"function": f"{adapter}:{name}", "name": slug(one.label or "echo", "echo")}


def _http_target(one: _One, context: Context) -> dict[str, Any] | None:
    config = one.config
    url = config.get("url") if one.id in ("http", "https") else one.id
    if not isinstance(url, str) or "://" not in url:
        context.skip(one.node, f"provider {one.id}", "the HTTP provider names no url")
        return None
    name = slug(one.label or urlsplit(url).hostname or "service", "service")
    target: dict[str, Any] = {"url": url, "name": name}
    if isinstance(config.get("method"), str):
        target["method"] = config["method"].upper()
    headers: dict[str, str] = {}
    secret: dict[str, str] = {}
    for header, value in (config.get("headers") or {}).items():
        if isinstance(value, str) and _ENV.search(value):
            variable = f"PROMPTUM_{name.upper().replace('-', '_')}_" + re.sub(
                r"\W", "_", header.upper()
            )
            secret[header] = variable
            context.approximate(
                one.node,
                f"header {header}",
                f"it read the environment; export {variable} holding the whole header value",
            )
        else:
            headers[header] = str(value)
    if headers:
        target["headers"] = headers
    if secret:
        target["headers_env"] = secret
    body = config.get("body")
    if body is not None:
        target["body"] = _prompt_var(body)
    response = config.get("transformResponse")
    if isinstance(response, str):
        match = _JSON_PATH.fullmatch(response.strip())
        if match is not None:
            path = match.group(1).replace("'", "").replace('"', "")
            target["output"] = "$" + path.replace("[", ".").replace("]", "") if path else "$"
        else:
            context.approximate(
                one.node,
                "transformResponse",
                "only a `json.path` converts; the whole response body is the answer",
            )
    for key in sorted(set(config) - {"url", "method", "headers", "body", "transformResponse"}):
        context.skip(
            one.node, f"http provider `{key}`", "promptum's HTTP target has no such setting"
        )
    return target


def _prompt_var(value: Any) -> Any:
    """Turn promptfoo's `{{prompt}}` (the rendered prompt) into promptum's `{{ query }}`."""
    if isinstance(value, str):
        return re.sub(r"\{\{\s*prompt\s*\}\}", "{{ query }}", value)
    if isinstance(value, dict):
        return {key: _prompt_var(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_prompt_var(item) for item in value]
    return value
