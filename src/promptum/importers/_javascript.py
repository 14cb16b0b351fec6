"""Translating promptfoo's JavaScript one-liners into promptum `expr` expressions (Jinja).

Only the common shapes are translated, each to an expression that means the same:
`output.length < 500`, `output.includes('x')`, `output.startsWith(...)`,
`JSON.parse(output).status === 'ok'`, `output.toLowerCase()...`, comparisons, arithmetic,
`&&`, `||`, `!`, `?:`, `typeof` and `in`; `==` converts text and numbers as JavaScript's
loose equality does. What a translation cannot carry exactly is returned as its caveats, for
the import to state. Anything else (several statements, arrow functions, regular
expressions, `context.prompt`, methods without a Jinja equivalent) is refused with the
reason, so that nothing is guessed.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<op>===|!==|==|!=|<=|>=|&&|\|\||\?\?|\?\.|=>|[-+*/%<>!()\[\].,?:;])
    """,
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\", "0": "\0"}
_STATEMENTS = frozenset(
    (
        "const",
        "let",
        "var",
        "function",
        "if",
        "else",
        "for",
        "while",
        "do",
        "switch",
        "return",
        "new",
        "typeof",
        "instanceof",
        "await",
        "async",
        "this",
        "class",
        "delete",
        "void",
        "in",
        "of",
        "yield",
        "try",
        "catch",
        "throw",
    )
)
_BINARY = {
    "||": 2,
    "&&": 3,
    "===": 4,
    "!==": 4,
    "==": 4,
    "!=": 4,
    "<": 5,
    ">": 5,
    "<=": 5,
    ">=": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "%": 7,
}
_JINJA_OP = {"||": "or", "&&": "and", "===": "==", "!==": "!=", "==": "==", "!=": "!="}
_STRING_METHODS = {
    "toLowerCase": "({} | lower)",
    "toUpperCase": "({} | upper)",
    "trim": "({} | trim)",
    "trimStart": "{}.lstrip()",
    "trimEnd": "{}.rstrip()",
    "toString": "({} | string)",
}


class UntranslatableError(ValueError):
    """The JavaScript has no faithful expression form; the message says what stops it."""


@dataclass(frozen=True, slots=True)
class Expr:
    """A translated expression and what kind of value it has, as far as is known."""

    text: str
    kind: str
    """bool, number, string, list, any; or a namespace: context, JSON, Math, Array, Object."""
    caveats: tuple[str, ...] = ()
    """How the expression may grade otherwise than the JavaScript did (stated by the import)."""


def string_literal(text: str) -> str:
    """`text` as a Jinja string expression that reads back as exactly `text`."""
    # Jinja decodes a literal with Python's unicode-escape after escaping non-ASCII
    # characters, so JSON's escapes of quotes, backslashes and controls read back exactly.
    # Template delimiters are split across two literals: an expression holds none.
    parts = _DELIMITER.split(text)
    if len(parts) == 1:
        return json.dumps(text, ensure_ascii=False)
    return "(" + " ~ ".join(json.dumps(part, ensure_ascii=False) for part in parts) + ")"


_DELIMITER = re.compile(r"(?<=[{%#])(?=[{%#}])|(?<=[}%#])(?=})")
_TEMPLATE_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")


def _unquote(literal: str) -> str:
    out: list[str] = []
    body = literal[1:-1]
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        code = body[index + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            index += 2
        elif code == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[index + 2 : index + 6]):
            out.append(chr(int(body[index + 2 : index + 6], 16)))
            index += 6
        else:
            raise UntranslatableError(f"the string {literal} uses the escape \\{code}")
    return "".join(out)


def _tokens(code: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    while position < len(code):
        match = _TOKEN.match(code, position)
        if match is None:
            char = code[position]
            what = {"`": "a template literal", "=": "an assignment"}.get(char, f"`{char}`")
            raise UntranslatableError(f"uses {what}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append((kind, match.group()))
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], subject: str) -> None:
        self.tokens = tokens
        self.index = 0
        self.subject = subject
        self.caveats: list[str] = []

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.index] if self.index < len(self.tokens) else ("end", "")

    def take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if expected is not None and token[1] != expected:
            found = token[1] or "the end"
            raise UntranslatableError(f"expected `{expected}`, found {found}")
        self.index += 1
        return token

    def expression(self, power: int = 0) -> Expr:
        left = self.postfix(self.prefix())
        while True:
            _, op = self.peek()
            if op == "?" and power < 1:
                self.take()
                then = self.expression()
                self.take(":")
                otherwise = self.expression(1)
                left = Expr(f"({then.text} if {left.text} else {otherwise.text})", then.kind)
                continue
            if op in ("??", "?."):
                raise UntranslatableError(f"uses `{op}`")
            if op == "in" and power < _BINARY["<"]:
                self.take()
                left = _key_in(left, self.expression(_BINARY["<"]), self.caveats)
                continue
            bound = _BINARY.get(op)
            if bound is None or bound <= power:
                return left
            self.take()
            left = _binary(op, left, self.expression(bound), self.caveats)

    def prefix(self) -> Expr:
        kind, text = self.take()
        if kind == "number":
            return Expr(text, "number")
        if kind == "string":
            return _string(_unquote(text))
        if kind == "name":
            if text == "typeof":
                return _typeof(self.postfix(self.prefix()))
            if text == "output" and self.subject != "output":
                return Expr(f"({self.subject})", "any")
            return _name(text)
        return self.operator_prefix(text)

    def operator_prefix(self, text: str) -> Expr:
        """What an expression starting with the operator or bracket `text` reads as."""
        if text == "(":
            inner = self.expression()
            self.take(")")
            return Expr(f"({inner.text})", inner.kind)
        if text == "!":
            operand = self.postfix(self.prefix())
            return Expr(f"(not {operand.text})", "bool")
        if text == "-":
            operand = self.postfix(self.prefix())
            return Expr(f"(-{operand.text})", "number")
        if text == "[":
            items = self.arguments("]")
            return Expr("[" + ", ".join(item.text for item in items) + "]", "list")
        if text == "/":
            raise UntranslatableError("uses a regular expression literal")
        raise UntranslatableError(f"unexpected {text or 'end of the code'}")

    def arguments(self, closing: str) -> list[Expr]:
        items: list[Expr] = []
        while self.peek()[1] != closing:
            items.append(self.expression())
            if self.peek()[1] != closing:
                self.take(",")
        self.take(closing)
        return items

    def postfix(self, value: Expr) -> Expr:
        while True:
            _, op = self.peek()
            if op == ".":
                self.take()
                kind, name = self.take()
                if kind != "name":
                    raise UntranslatableError(f"expected a property name after `.`, found {name}")
                if self.peek()[1] == "(":
                    self.take()
                    value = _method(value, name, self.arguments(")"))
                else:
                    value = _member(value, name)
            elif op == "[":
                self.take()
                index = self.expression()
                self.take("]")
                if value.kind in _NAMESPACES:
                    raise UntranslatableError(f"indexes `{value.kind}`")
                value = Expr(f"{value.text}[{index.text}]", "any")
            elif op == "(":
                raise UntranslatableError(
                    f"calls `{value.text}`, which has no expression equivalent"
                )
            elif op == "=>":
                raise UntranslatableError("defines an arrow function")
            else:
                return value


_NAMESPACES = ("context", "JSON", "Math", "Array", "Object", "JSON.parse")


def _string(text: str) -> Expr:
    """A string of the code; promptfoo renders `{{ var }}` in it before the code runs."""
    whole = _TEMPLATE_VAR.fullmatch(text)
    if whole is not None:
        return Expr(f"vars[{string_literal(whole.group(1))}]", "string")
    if "{{" in text or "{%" in text:
        raise UntranslatableError(
            "holds a template that promptfoo renders before the code runs; write `vars.NAME`"
        )
    return Expr(string_literal(text), "string")


def _name(name: str) -> Expr:
    if name in _STATEMENTS:
        raise UntranslatableError(f"uses `{name}`, a statement or operator with no expression form")
    literals = {"true": "true", "false": "false", "null": "none", "undefined": "none"}
    if name in literals:
        return Expr(literals[name], "bool" if name in ("true", "false") else "any")
    if name == "output":
        return Expr("output", "string")
    if name in _NAMESPACES:
        return Expr("", name)
    raise UntranslatableError(
        f"uses `{name}`; an expr check sees output, json, vars, tool_calls, latency_ms, "
        "cost_usd and tokens"
    )


def _member(value: Expr, name: str) -> Expr:
    if value.kind == "context":
        if name == "vars":
            return Expr("vars", "any")
        raise UntranslatableError(f"uses `context.{name}`; only `context.vars` has an equivalent")
    if value.kind in _NAMESPACES:
        if value.kind == "JSON" and name == "parse":
            return Expr("", "JSON.parse")
        raise UntranslatableError(f"uses `{value.kind}.{name}`")
    if name == "length":
        return Expr(f"({value.text} | length)", "number")
    if value.kind in ("string", "number", "bool", "list"):
        raise UntranslatableError(f"reads `.{name}` of a {value.kind}")
    return Expr(f"{value.text}[{string_literal(name)}]", "any")


def _method(value: Expr, name: str, args: list[Expr]) -> Expr:
    """The expression of the call `value.name(args)`."""
    if value.kind in _NAMESPACES:
        return _namespace_call(value.kind, name, args)
    translated = _VALUE_METHODS.get(name, _no_method)(value, name, args)
    if translated is None:
        raise UntranslatableError(
            f"calls `.{name}()` with {len(args)} argument(s), which has no equivalent"
        )
    return translated


def _namespace_call(namespace: str, name: str, args: list[Expr]) -> Expr:
    """A call of `JSON.parse`, `Math.*`, `Array.isArray` or `Object.keys`/`values`."""
    if namespace == "JSON.parse" or (namespace == "JSON" and name == "parse"):
        return _json_parse(args)
    if namespace == "Math":
        return _math(name, args)
    if namespace == "Array" and name == "isArray" and len(args) == 1:
        item = args[0].text
        return Expr(
            f"({item} is sequence and {item} is not string and {item} is not mapping)", "bool"
        )
    if namespace == "Object" and name in ("keys", "values") and len(args) == 1:
        keys = f"({args[0].text} | list)"
        return Expr(keys if name == "keys" else f"({args[0].text}.values() | list)", "list")
    raise UntranslatableError(f"uses `{namespace}.{name}`")


def _json_parse(args: list[Expr]) -> Expr:
    if len(args) != 1:
        raise UntranslatableError("calls JSON.parse with other than one argument")
    return Expr(f"({args[0].text} | from_json)", "any")


def _math(name: str, args: list[Expr]) -> Expr:
    if name == "abs" and len(args) == 1:
        return Expr(f"({args[0].text} | abs)", "number")
    if name in ("min", "max") and args:
        return Expr("([" + ", ".join(a.text for a in args) + f"] | {name})", "number")
    if name in ("floor", "ceil") and len(args) == 1:
        return Expr(f"({args[0].text} | round(0, {name!r}) | int)", "number")
    raise UntranslatableError(f"uses `Math.{name}`")


# Each method of a value below returns None when its arguments have no equivalent.


def _no_method(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    return None


def _string_method(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    return None if args else Expr(_STRING_METHODS[name].format(value.text), "string")


def _includes(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    return Expr(f"({args[0].text} in {value.text})", "bool") if len(args) == 1 else None


def _starts_or_ends(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    if len(args) != 1:
        return None
    return Expr(f"{value.text}.{name.lower()}({args[0].text})", "bool")


def _split(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    if len(args) != 1:
        return None
    if args[0].text == '""':
        return Expr(f"({value.text} | list)", "list")
    return Expr(f"{value.text}.split({args[0].text})", "list")


def _index_of(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    if len(args) != 1 or value.kind != "string":
        return None
    return Expr(f"{value.text}.find({args[0].text})", "number")


def _replace(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    if len(args) != 2 or args[0].kind != "string":
        return None
    count = "" if name == "replaceAll" else ", 1"
    return Expr(f"{value.text}.replace({args[0].text}, {args[1].text}{count})", "string")


def _slice(value: Expr, name: str, args: list[Expr]) -> Expr | None:
    if not 1 <= len(args) <= 2:
        return None
    bounds = ":".join(a.text for a in args) + (":" if len(args) == 1 else "")
    return Expr(f"{value.text}[{bounds}]", value.kind)


_VALUE_METHODS = {
    **dict.fromkeys(_STRING_METHODS, _string_method),
    "includes": _includes,
    "startsWith": _starts_or_ends,
    "endsWith": _starts_or_ends,
    "split": _split,
    "indexOf": _index_of,
    "replaceAll": _replace,
    "replace": _replace,
    "slice": _slice,
}


def _typeof(operand: Expr) -> Expr:
    """JavaScript's `typeof`: null (none) is "object", as in JavaScript."""
    value = operand.text
    return Expr(
        f'("boolean" if {value} is boolean else "number" if {value} is number '
        f'else "string" if {value} is string else "object")',
        "string",
    )


_IN_ARRAY = (
    "`in` asks an array whether it has an index (`0 in list`); the expression answers "
    "false for an array"
)


def _key_in(key: Expr, container: Expr, caveats: list[str]) -> Expr:
    """JavaScript's `key in object`: whether an object has the property (not a search)."""
    if container.kind in ("string", "number", "bool"):
        raise UntranslatableError(f"uses `in` on a {container.kind}, a TypeError in JavaScript")
    if container.kind != "any" or key.kind == "number":
        raise UntranslatableError("uses `in` on an array, which asks for an index")
    caveats.append(_IN_ARRAY)
    return Expr(f"({container.text} is mapping and {key.text} in {container.text})", "bool")


_LOOSE_OBJECT = (
    "`==` between an array or object and a text or number: JavaScript compares the "
    "object's text form ([3] == '3'); the expression finds them unequal"
)
_LOOSE_UNKNOWN = (
    "`==` between two values of unknown types: JavaScript converts text to a number when "
    "the other is one; the expression compares them as they are"
)
_TEXT_NUMBER = (
    "`==` reads text as a number: a decimal number as JavaScript's Number() does, but not "
    "0x, 0o or 0b numbers"
)
_UNDERSCORE = (
    "`==` reads text as a number with Python's float(), which also reads `1_000` (NaN in "
    "JavaScript)"
)
_JS_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_JS_BASED = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def _literal_number(text: str) -> str:
    """JavaScript's Number() of a text known now, as an expression (`none` for NaN)."""
    stripped = text.strip(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029")
    if not stripped:
        return "0"
    if _JS_DECIMAL.fullmatch(stripped):
        number = float(stripped)
    elif _JS_BASED.fullmatch(stripped):
        number = float(int(stripped, 0))
    else:
        return "none"  # NaN (and Infinity, which no JSON value equals) equals nothing
    return repr(number) if math.isfinite(number) else "none"


_NOT_JS_NUMBERS = json.dumps(
    [f"{sign}{word}" for word in ("inf", "infinity", "nan") for sign in ("", "+", "-")]
)


def _runtime_number(text: str, caveats: list[str], other: str) -> str:
    """JavaScript's Number() of text known when the check runs, compared with `other`."""
    caveats.append(_TEXT_NUMBER)
    # Python's float() also reads `1_000`, `inf` and `nan`, which are NaN in JavaScript, and
    # refuses "" (0 in JavaScript). Against a finite number but 0 only `1_000` can differ:
    # stated, as the guards would make an expression that compiles several times slower
    # (float() of a number or a bool is JavaScript's Number() of it too).
    if _finite_nonzero(other):
        caveats.append(_UNDERSCORE)
        return f"({text} | float(none))"
    return (
        f'(0 if ({text} | trim) == "" else none if "_" in {text} or ({text} | lower | trim)'
        f" in {_NOT_JS_NUMBERS} else ({text} | trim | float(none)))"
    )


def _finite_nonzero(text: str) -> bool:
    """Whether an expression is a number literal other than 0 (and not NaN or infinite)."""
    try:
        number = float(text)
    except ValueError:
        return False
    return math.isfinite(number) and number != 0


def _loose_equal(left: Expr, right: Expr, caveats: list[str]) -> str:
    """JavaScript's `left == right`, converting text and numbers as it does."""
    kinds = (left.kind, right.kind)
    same = left.kind == right.kind and left.kind in ("string", "number", "bool")
    if same or "none" in (left.text, right.text):
        return f"({left.text} == {right.text})"
    if right.kind == "any" and left.kind != "any":
        left, right = right, left  # `==` is symmetric: the value of unknown type first
        kinds = (left.kind, right.kind)
    if kinds in (("string", "number"), ("number", "string")):
        text, number = (left, right) if left.kind == "string" else (right, left)
        if _is_string_literal(text):
            return f"({number.text} == {_literal_number(_unquoted(text.text))})"
        return f"({_runtime_number(text.text, caveats, number.text)} == {number.text})"
    if kinds == ("any", "string") and _is_string_literal(right):
        caveats.append(_LOOSE_OBJECT)
        # Not text: a number, or a bool (float(true) is 1), compared with the text's number;
        # none, an object or an array gives none, which equals no number.
        as_number = _literal_number(_unquoted(right.text))
        if as_number == "none":  # NaN: equal to no number (and none must not equal it)
            return f"({left.text} is string and {left.text} == {right.text})"
        return (
            f"({left.text} == {right.text} if {left.text} is string else "
            f"({left.text} | float(none)) == {as_number})"
        )
    if kinds == ("any", "number") and _finite_nonzero(right.text):
        caveats.append(_LOOSE_OBJECT)
        return f"({_runtime_number(left.text, caveats, right.text)} == {right.text})"
    if kinds in (("any", "number"), ("any", "bool")):
        caveats.append(_LOOSE_OBJECT)
        return (
            f"(({_runtime_number(left.text, caveats, right.text)} if {left.text} is string "
            f"else {left.text}) == {right.text})"
        )
    caveats.append(_LOOSE_UNKNOWN)
    return f"({left.text} == {right.text})"


def _is_string_literal(value: Expr) -> bool:
    return value.kind == "string" and value.text.startswith('"') and value.text.endswith('"')


def _unquoted(text: str) -> str:
    decoded: str = json.loads(text)
    return decoded


def _binary(op: str, left: Expr, right: Expr, caveats: list[str]) -> Expr:
    if op in ("+", "-", "*", "/", "%"):
        if op == "+" and "string" in (left.kind, right.kind):
            return Expr(f"({left.text} ~ {right.text})", "string")
        if op == "+" and not left.kind == right.kind == "number":
            raise UntranslatableError("adds values that may be text or numbers (`+` means both)")
        return Expr(f"({left.text} {op} {right.text})", "number")
    if op in ("&&", "||"):
        kind = "bool" if left.kind == right.kind == "bool" else "any"
        return Expr(f"({left.text} {_JINJA_OP[op]} {right.text})", kind)
    if op in ("==", "!="):
        equal = _loose_equal(left, right, caveats)
        return Expr(equal if op == "==" else f"(not {equal})", "bool")
    return Expr(f"({left.text} {_JINJA_OP.get(op, op)} {right.text})", "bool")


@functools.lru_cache(maxsize=1024)  # a config repeats its one-liners over its tests
def translate(code: str, subject: str = "output") -> Expr:
    """The `expr` form of a JavaScript one-liner, or UntranslatableError saying why not.

    `subject` is what `output` stands for: an earlier transform's expression, when this
    one applies on top of it.
    """
    parser = _Parser(_expression_tokens(code), subject)
    result = parser.expression()
    if parser.peek()[0] != "end":
        raise UntranslatableError(f"has more after the expression: `{parser.peek()[1]}`")
    if result.kind in _NAMESPACES:
        raise UntranslatableError(f"returns `{result.kind}` itself")
    text = result.text
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return Expr(text, result.kind, tuple(dict.fromkeys(parser.caveats)))


def _expression_tokens(code: str) -> list[tuple[str, str]]:
    """The tokens of the single expression `code` holds, or UntranslatableError."""
    body = code.strip()
    if body.startswith("file://"):
        raise UntranslatableError("is in a file: code, which cannot become an expression")
    if re.match(r"return\b", body):
        if "\n" not in code:
            # promptfoo runs code without a line break as `return <code>`: `return return x`
            # is a SyntaxError there, so the assertion always fails; converted, it would pass.
            raise UntranslatableError(
                "is one line starting with `return`: promptfoo runs a one-line assertion as "
                "`return <code>`, a SyntaxError there, so it always fails (drop the `return`)"
            )
        body = body.removeprefix("return").strip()
    statement = re.match(r"(const|let|var|function|if|for|while|switch|try)\b", body)
    if statement:
        raise UntranslatableError(
            f"starts with `{statement.group(1)}`: a function body, not an expression"
        )
    while body.endswith(";"):
        body = body[:-1].rstrip()
    if not body:
        raise UntranslatableError("is empty")
    tokens = _tokens(body)
    if any(text == "=>" for _, text in tokens):
        raise UntranslatableError("defines an arrow function")
    if any(text == ";" for _, text in tokens):
        raise UntranslatableError("has several statements; only a single expression translates")
    return tokens


def _balanced(text: str) -> bool:
    """Whether the parentheses of `text` close in order (outside string literals)."""
    depth = 0
    quote = ""
    escaped = False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def literal(value: object) -> str:
    """JSON-like data as a Jinja literal (`none`, `true`, lists and mappings)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = (f"{string_literal(str(key))}: {literal(item)}" for key, item in value.items())
        return "{" + ", ".join(pairs) + "}"
    raise UntranslatableError(f"has a value of type {type(value).__name__}")
