"""The expression language of computed values (extensions.md 11): table columns' `value`,
footers and group rows, a text's `data.expression`, `{= expr}` in fields text, and
`showIf {expression}`.

Our own tokenizer and Pratt parser, never Python's eval/ast/compile on user text, and not
simpleeval/asteval either: those read Python's syntax and compute in float. Ours gives
- a position for every error ("at character N"), so the 400 can point at the mistake;
- decimal literals parsed from the text (0.1 + 0.2 == 0.3, 1,000 lines of 0.01 sum to 10.00);
- static type checking when an expression is set (a sum of a text column is refused then,
  not at generation);
- no host-language semantics: no attribute access beyond `table.key`, no indexing, no
  calls but the listed functions, no loops; evaluation is linear in the expression's size.

A checked expression is compiled once into nested closures (`Checked.evaluate`), so a row
costs a few Python calls per node. Aggregates are memoised on the `Env` per column.

Public API: `parse`, `check` -> `Checked`, `Names`, `Env`, `to_text`, `as_input`,
`ExpressionError` (check time, with `position`), `EvaluationError` (generation time, with
`name`), `MAX_EXPRESSION_LENGTH`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import (
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
)
from types import MappingProxyType
from typing import Any

from babel.dates import format_date
from babel.numbers import format_decimal

from ..text.formatting import parse_date, parse_number

MAX_EXPRESSION_LENGTH = 1000
MAX_DEPTH = 64
MAX_TEXT_RESULT = 100_000
MAX_BRACED_NAME = 100
VALUE_TYPES = ("number", "text", "boolean", "date", "any")

# Decimal arithmetic: 28 significant digits, half-even where division must round, and the
# exponent bounded so that no value grows without end; every failure is trapped.
DECIMAL = Context(
    prec=28,
    rounding=ROUND_HALF_EVEN,
    Emax=10**6,
    Emin=-(10**6),
    traps=[InvalidOperation, DivisionByZero, Overflow],
)
# A date moves by at most this many days (beyond it there is no year 1..9999 date anyway).
_MAX_DAYS = 3_700_000
_ROUND_DIGITS = range(-10, 21)
_KEYWORDS = frozenset({"and", "or", "not", "true", "false", "null", "if"})

Fn = Callable[[Any], Any]


class ExpressionError(ValueError):
    """An expression refused when it is set: syntax, an unknown name or function, a type that
    cannot hold. `position` is the 0-based character index; the message says "at character N"
    and the fix."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


class EvaluationError(ValueError):
    """An expression that failed on the generation's values. `name` is the variable or column
    whose value made it fail, when one did."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


# ---------------------------------------------------------------------------------------
# Tokens

_NUMBER = re.compile(r"\d+(?:\.\d+)?|\.\d+", re.ASCII)
_DIGITS = frozenset("0123456789")
_OPERATORS = ("==", "!=", "<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".")
_ESCAPES = {"'": "'", '"': '"', "\\": "\\"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # number, string, name, keyword, op, end
    value: Any
    pos: int
    end: int
    braced: bool = False  # a ${...} name


def _fail(position: int, what: str, fix: str = "") -> ExpressionError:
    return ExpressionError(f"{what} at character {position}" + (f"; {fix}" if fix else ""), position)


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and text[i + 1] in _DIGITS):
            m = _NUMBER.match(text, i)
            assert m is not None
            end = m.end()
            if end < n and (text[end] == "_" or text[end].isalnum()):
                raise _fail(i, f"a number runs into '{text[end]}'", "put an operator or a space between them")
            out.append(Token("number", Decimal(m.group()), i, end))
            i = end
            continue
        if c in "'\"":
            j, chars = i + 1, []
            while True:
                if j >= n:
                    raise _fail(i, f"a text opened with {c} is not closed", f"end it with {c}")
                d = text[j]
                if d == c:
                    break
                if d == "\\":
                    nxt = text[j + 1] if j + 1 < n else ""
                    if nxt not in _ESCAPES:
                        raise _fail(j, f"unknown escape '\\{nxt}'", "inside a text write \\' \\\" or \\\\ only")
                    chars.append(_ESCAPES[nxt])
                    j += 2
                    continue
                chars.append(d)
                j += 1
            out.append(Token("string", "".join(chars), i, j + 1))
            i = j + 1
            continue
        if c == "$" and text.startswith("${", i):
            close = text.find("}", i + 2)
            if close < 0:
                raise _fail(i, "a name opened with ${ is not closed", "end it with }")
            name = text[i + 2 : close]
            if not 1 <= len(name) <= MAX_BRACED_NAME:
                raise _fail(i, f"a ${{name}} holds 1 to {MAX_BRACED_NAME} characters, this one {len(name)}")
            out.append(Token("name", name, i, close + 1, braced=True))
            i = close + 1
            continue
        if c == "_" or c.isalpha():
            j = i + 1
            while j < n and ("a" + text[j]).isidentifier():
                j += 1
            word = text[i:j]
            out.append(Token("keyword" if word in _KEYWORDS else "name", word, i, j))
            i = j
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                out.append(Token("op", op, i, i + len(op)))
                i += len(op)
                break
        else:
            hints = {
                "!": "write 'not x' or 'a != b'",
                "&": "write 'and'",
                "|": "write 'or'",
                "[": "there is no indexing; read a column as table.key and aggregate it",
                "^": "there is no power operator; multiply",
                "$": "write a name with spaces or punctuation as ${name}",
            }
            raise _fail(i, f"unexpected character '{c}'", hints.get(c, "see the expression reference for the syntax"))
    out.append(Token("end", None, n, n))
    return out


# ---------------------------------------------------------------------------------------
# Syntax tree: nodes keep their span [pos, end) for messages.


@dataclass(frozen=True, slots=True)
class Literal:
    pos: int
    end: int
    value: Any
    type: str


@dataclass(frozen=True, slots=True)
class Ref:
    pos: int
    end: int
    name: str


@dataclass(frozen=True, slots=True)
class Column:
    pos: int
    end: int
    table: str
    key: str
    key_pos: int


@dataclass(frozen=True, slots=True)
class Group:  # parentheses (kept so messages quote what the user wrote)
    pos: int
    end: int
    inner: Any


@dataclass(frozen=True, slots=True)
class Unary:
    pos: int
    end: int
    op: str  # '-', '+', 'not'
    operand: Any


@dataclass(frozen=True, slots=True)
class Chain:
    """Left-associative operators of one level flattened (a + b - c), so that a long sum is
    a loop, not a deep tree."""

    pos: int
    end: int
    group: str  # 'add', 'mul', 'and', 'or'
    first: Any
    rest: tuple[tuple[str, int, Any], ...]  # (operator, its position, operand)


@dataclass(frozen=True, slots=True)
class Compare:
    pos: int
    end: int
    op: str
    op_pos: int
    left: Any
    right: Any


@dataclass(frozen=True, slots=True)
class Call:
    pos: int
    end: int
    name: str  # lower case
    args: tuple[Any, ...]


_INFIX = {
    "or": (1, "or"),
    "and": (2, "and"),
    "==": (4, "cmp"),
    "=": (4, "cmp"),
    "!=": (4, "cmp"),
    "<>": (4, "cmp"),
    "<": (4, "cmp"),
    "<=": (4, "cmp"),
    ">": (4, "cmp"),
    ">=": (4, "cmp"),
    "+": (5, "add"),
    "-": (5, "add"),
    "*": (6, "mul"),
    "/": (6, "mul"),
    "%": (6, "mul"),
}
_NOT_POWER = 3
_UNARY_POWER = 6


def _describe(token: Token) -> str:
    if token.kind == "end":
        return "the end"
    if token.kind == "string":
        return "a text"
    if token.kind == "number":
        return "a number"
    return f"'{token.value}'"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, op: str, what: str) -> Token:
        token = self.take()
        if token.kind != "op" or token.value != op:
            raise _fail(token.pos, f"expected '{op}' {what}, found {_describe(token)}")
        return token

    def parse(self) -> Any:
        node = self.expression(0)
        token = self.peek()
        if token.kind != "end":
            raise _fail(
                token.pos,
                f"unexpected {_describe(token)}",
                "expected an operator (+ - * / % == != < <= > >= and or) or the end",
            )
        return node

    def expression(self, power: int) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _fail(
                self.peek().pos,
                f"the expression nests more than {MAX_DEPTH} levels deep",
                "split it: a computed column or another element can hold a part",
            )
        left = self.prefix()
        while True:
            token = self.peek()
            key = token.value if token.kind in ("op", "keyword") else None
            if key not in _INFIX or _INFIX[key][0] <= power:
                break
            level, group = _INFIX[key]
            self.take()
            right = self.expression(level)
            if group == "cmp":
                after = self.peek()
                if after.kind == "op" and _INFIX.get(after.value, (0, ""))[1] == "cmp":
                    raise _fail(
                        after.pos,
                        "comparisons cannot be chained",
                        "join them with and, e.g. a < b and b < c",
                    )
                left = Compare(left.pos, right.end, key, token.pos, left, right)
            elif isinstance(left, Chain) and left.group == group:
                left = Chain(left.pos, right.end, group, left.first, (*left.rest, (key, token.pos, right)))
            else:
                left = Chain(left.pos, right.end, group, left, ((key, token.pos, right),))
        self.depth -= 1
        return left

    def prefix(self) -> Any:
        token = self.take()
        kind, value = token.kind, token.value
        if kind == "number":
            return Literal(token.pos, token.end, value, "number")
        if kind == "string":
            return Literal(token.pos, token.end, value, "text")
        if kind == "keyword":
            if value in ("true", "false"):
                return Literal(token.pos, token.end, value == "true", "boolean")
            if value == "null":
                return Literal(token.pos, token.end, None, "null")
            if value == "not":
                operand = self.expression(_NOT_POWER)
                return Unary(token.pos, operand.end, "not", operand)
            if value == "if" and self.peek().kind == "op" and self.peek().value == "(":
                return self.call(token, "if")
            raise _fail(
                token.pos,
                f"'{value}' is a keyword, not a value",
                f"write ${{{value}}} for a name called {value}",
            )
        if kind == "op":
            if value in ("-", "+"):
                operand = self.expression(_UNARY_POWER)
                return Unary(token.pos, operand.end, value, operand)
            if value == "(":
                inner = self.expression(0)
                close = self.expect(")", f"to close the '(' at character {token.pos}")
                return Group(token.pos, close.end, inner)
            raise _fail(token.pos, f"unexpected '{value}'", "expected a value, a name or '('")
        if kind == "name":
            nxt = self.peek()
            if nxt.kind == "op" and nxt.value == "(":
                if token.braced:
                    raise _fail(
                        nxt.pos, f"${{{value}}} is a name, not a function", "call functions by their plain name"
                    )
                return self.call(token, value.lower())
            if nxt.kind == "op" and nxt.value == ".":
                self.take()
                key = self.take()
                if key.kind != "name":
                    raise _fail(key.pos, f"expected a column key after '{value}.'", "write table.key")
                after = self.peek()
                if after.kind == "op" and after.value in (".", "("):
                    raise _fail(
                        after.pos,
                        f"unexpected '{after.value}' after {value}.{key.value}",
                        "only table.key reads into a value (no attributes or methods)",
                    )
                return Column(token.pos, key.end, value, key.value, key.pos)
            return Ref(token.pos, token.end, value)
        raise _fail(token.pos, "the expression ends too early", "expected a value, a name or '('")

    def call(self, name_token: Token, name: str) -> Call:
        self.take()  # (
        args: list[Any] = []
        if not (self.peek().kind == "op" and self.peek().value == ")"):
            while True:
                args.append(self.expression(0))
                token = self.peek()
                if token.kind == "op" and token.value == ",":
                    self.take()
                    continue
                break
        close = self.expect(")", f"to close {name_token.value}(")
        return Call(name_token.pos, close.end, name, tuple(args))


def _check_length(text: str) -> None:
    if not isinstance(text, str):
        raise ExpressionError("an expression is a text", 0)
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(
            f"an expression holds at most {MAX_EXPRESSION_LENGTH:,} characters; this one has {len(text):,}, "
            f"past the bound at character {MAX_EXPRESSION_LENGTH}; move parts into computed columns or other elements",
            MAX_EXPRESSION_LENGTH,
        )
    if not text.strip():
        raise ExpressionError("the expression is empty at character 0; write a value, e.g. qty * price", 0)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> object:
    """The syntax tree of an expression (syntax only); ExpressionError on a syntax error."""
    _check_length(text)
    return _Parser(text).parse()


def parse_names(text: str) -> frozenset[str]:
    """The bare names an expression reads (variables or column keys, not `table.key`'s), by
    its syntax alone: what a table orders its computed columns by before their types are known."""
    found: set[str] = set()
    pending = [parse(text)]
    while pending:
        node = pending.pop()
        if isinstance(node, Ref):
            found.add(node.name)
        elif isinstance(node, Group | Unary):
            pending.append(node.inner if isinstance(node, Group) else node.operand)
        elif isinstance(node, Chain):
            pending.append(node.first)
            pending.extend(operand for _, _, operand in node.rest)
        elif isinstance(node, Compare):
            pending.extend((node.left, node.right))
        elif isinstance(node, Call):
            pending.extend(node.args)
    return frozenset(found)


# ---------------------------------------------------------------------------------------
# Names and environments


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, eq=False)
class Names:
    """What an expression may read, and each name's type."""

    variables: Mapping[str, str] = field(default_factory=dict)  # design variable -> ValueType
    tables: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # table var -> {key -> type}
    row: Mapping[str, str] | None = None  # inside a table: the current row's keys -> type
    aggregates_only: bool = False  # a footer: bare column keys only inside aggregates
    # Everything above as one hashable value: what equal Names share (check's cache key).
    key: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for mapping in (self.variables, self.row or {}, *(self.tables or {}).values()):
            for name, type_ in mapping.items():
                if type_ not in VALUE_TYPES:
                    raise ValueError(f"{name!r} has type {type_!r}; a name's type is one of {', '.join(VALUE_TYPES)}")
        # Copies, so a caller mutating its dict later cannot change a cached check.
        object.__setattr__(self, "variables", _frozen(self.variables))
        object.__setattr__(self, "tables", _frozen({k: _frozen(v) for k, v in (self.tables or {}).items()}))
        if self.row is not None:
            object.__setattr__(self, "row", _frozen(self.row))
        key = (
            tuple(sorted(self.variables.items())),
            tuple(sorted((k, tuple(sorted(v.items()))) for k, v in self.tables.items())),
            None if self.row is None else tuple(sorted(self.row.items())),
            self.aggregates_only,
        )
        object.__setattr__(self, "key", key)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Names) and self.key == other.key


@dataclass
class Env:
    """The values an evaluation reads. Aggregates are memoised here (per column object), so
    build one Env per table (or group) and change only `row` between rows."""

    variables: Mapping[str, object] = field(default_factory=dict)
    tables: Mapping[str, Mapping[str, Sequence[object]]] = field(default_factory=dict)
    row: Mapping[str, object] | None = None
    rows: Mapping[str, Sequence[object]] | None = None
    today: dt.date | None = None
    _memo: dict[tuple[str, str, str], tuple[object, object]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )


# ---------------------------------------------------------------------------------------
# Values


def _plain(value: object) -> str:
    """A value as text in concat: numbers as their digits without exponent, dates ISO."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        if abs(value.adjusted()) > MAX_TEXT_RESULT:
            raise EvaluationError(f"the number {value} is too large to write out as text")
        return format(value, "f")
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def plain(value: object) -> str:
    """A value as plain text: numbers as their digits without exponent (3.00 stays "3.00"),
    dates ISO, booleans true/false, null "" (what concat writes)."""
    return _plain(value)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, dt.date):
        return "date"
    return "text"


def _show(value: object, name: str | None) -> str:
    shown = repr(value) if isinstance(value, str) else _plain(value)
    return f"{shown} ({name})" if name else shown


def _to_number(value: object, name: str | None, where: str = "") -> Decimal | None:
    if value is None or value.__class__ is Decimal:
        return value  # type: ignore[return-value]
    if value == "":
        return None
    if not isinstance(value, bool) and isinstance(value, (str, int, float, Decimal)):
        try:
            return parse_number(value)
        except ValueError:
            pass
    raise EvaluationError(f"{_show(value, name)} is not a number{where}", name)


def _to_date(value: object, name: str | None, where: str = "") -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            found = parse_date(value)
            return found.date() if isinstance(found, dt.datetime) else found
        except ValueError:
            pass
    raise EvaluationError(f"{_show(value, name)} is not a date like 2026-11-21{where}", name)


def _to_boolean(value: object, name: str | None, where: str = "") -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise EvaluationError(f"{_show(value, name)} is not true or false{where}", name)


def _to_text(value: object, name: str | None, where: str = "") -> str | None:
    return None if value is None else _plain(value)


_COERCE: dict[str, Callable[..., Any]] = {
    "number": _to_number,
    "date": _to_date,
    "boolean": _to_boolean,
    "text": _to_text,
}


def as_input(value: object, type: str, name: str) -> object:
    """A stored or sent value (str, int, float, Decimal, bool, None, date) as an Env holds it
    for a name of `type`: "" or None -> None; numbers parsed like text values ('1,234.50'),
    dates ISO 8601 (a time of day is dropped), text and any as text."""
    if value is None or value == "":
        return None
    if type == "number":
        try:
            return parse_number(value)
        except ValueError:
            raise EvaluationError(
                f"{_show(value, name)} is not a number; send a number like 1234.5 or '1,234.50'", name
            ) from None
    if type == "date":
        return _to_date(value, name, "; send an ISO 8601 date")
    if type == "boolean":
        return _to_boolean(value, name, "; send true or false")
    if isinstance(value, (list, tuple)):  # a list text: its items one per line
        return "\n".join(_plain(item) for item in value)
    if isinstance(value, (dt.date, Decimal, int, float, bool)):
        return _plain(value)
    if isinstance(value, str):
        return value
    raise EvaluationError(f"{_show(value, name)} is not a {type}", name)


def value_type(data_type: str | None) -> str:
    """The ValueType of a text or column `dataType` (string, number, currency, date)."""
    return {"number": "number", "currency": "number", "date": "date"}.get(data_type or "string", "text")


def to_text(value: object, locale: str = "en") -> str:
    """A result as a field `{= ...}` shows it: numbers in the locale (Babel's default pattern,
    half-up), dates as the locale's medium date, booleans 'true'/'false', null ''."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    loc = locale.replace("-", "_")
    if isinstance(value, Decimal):
        # Babel rounds in the current context; 28 digits overflow on large values.
        try:
            with localcontext(Context(prec=120, rounding=ROUND_HALF_UP)):
                return format_decimal(value, locale=loc)
        except (DecimalException, ValueError):
            raise EvaluationError(f"the number {value} is too large to show; round it or divide it") from None
    if isinstance(value, (dt.date, dt.datetime)):
        return format_date(value, format="medium", locale=loc)
    return str(value)


# ---------------------------------------------------------------------------------------
# Checking and compiling


@dataclass(frozen=True)
class Checked:
    text: str
    type: str
    variables: frozenset[str]
    columns: frozenset[str]
    _run: Fn = field(repr=False, compare=False)

    def evaluate(self, env: Env) -> object:
        """Decimal | str | bool | datetime.date | None; EvaluationError when the values make
        it fail."""
        try:
            value = self._run(env)
        except EvaluationError:
            raise
        except (ArithmeticError, ValueError) as exc:  # overflow, a date past year 9999
            raise EvaluationError(f"{_reason(exc)} in '{self.text}'") from None
        if isinstance(value, str) and len(value) > MAX_TEXT_RESULT:
            raise EvaluationError(
                f"the result of '{_short(self.text)}' holds {len(value):,} characters, more than {MAX_TEXT_RESULT:,}"
            )
        return value


def _reason(exc: BaseException) -> str:
    if isinstance(exc, DivisionByZero):
        return "division by zero"
    if isinstance(exc, Overflow):
        return "a number out of range"
    if isinstance(exc, InvalidOperation):
        return "an invalid operation"
    if isinstance(exc, OverflowError):
        return "a date out of range"
    return str(exc) or type(exc).__name__


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


_AGGREGATES = ("sum", "count", "avg", "min", "max")
_ARITY: dict[str, tuple[int, int | None, str]] = {
    "if": (3, 3, "if(condition, then, else)"),
    "sum": (1, 1, "sum(column)"),
    "count": (0, 1, "count() or count(column)"),
    "avg": (1, 1, "avg(column)"),
    "min": (1, 1, "min(column)"),
    "max": (1, 1, "max(column)"),
    "round": (1, 2, "round(x) or round(x, digits)"),
    "abs": (1, 1, "abs(x)"),
    "len": (1, 1, "len(text) or len(column)"),
    "upper": (1, 1, "upper(text)"),
    "lower": (1, 1, "lower(text)"),
    "trim": (1, 1, "trim(text)"),
    "concat": (1, None, "concat(a, b, ...)"),
    "coalesce": (1, None, "coalesce(a, b, ...)"),
    "today": (0, 0, "today()"),
}
FUNCTIONS = tuple(_ARITY)


def _common(types: Sequence[str]) -> str:
    found = {t for t in types if t != "null"}
    if not found:
        return "null"
    return found.pop() if len(found) == 1 else "any"


def _a(type_: str) -> str:
    return {"any": "a value", "null": "null", "text": "a text", "boolean": "a boolean"}.get(type_, f"a {type_}")


class _Compiler:
    def __init__(self, text: str, names: Names) -> None:
        self.text = text
        self.names = names
        self.variables: set[str] = set()
        self.columns: set[str] = set()

    def source(self, node: Any) -> str:
        return _short(self.text[node.pos : node.end])

    # -- dispatch ---------------------------------------------------------------------
    def compile(self, node: Any) -> tuple[str, Fn]:
        method = getattr(self, "c_" + type(node).__name__.lower())
        return method(node)

    def c_group(self, node: Group) -> tuple[str, Fn]:
        return self.compile(node.inner)

    def c_literal(self, node: Literal) -> tuple[str, Fn]:
        value = node.value
        return node.type, lambda env: value

    def c_ref(self, node: Ref) -> tuple[str, Fn]:
        name, names = node.name, self.names
        if names.row is not None and name in names.row:
            if names.aggregates_only:
                raise _fail(
                    node.pos,
                    f"{name} is a column",
                    f"in a footer read it in an aggregate, e.g. sum({_written(name)})",
                )
            self.columns.add(name)
            type_ = names.row[name]
            return type_, _typed(type_, name, lambda env: _row_get(env, name))
        if name in names.variables:
            self.variables.add(name)
            type_ = names.variables[name]
            variables_get: Fn = lambda env: env.variables.get(name)  # noqa: E731
            return type_, _typed(type_, name, variables_get)
        if name in names.tables:
            keys = ", ".join(list(names.tables[name])[:20])
            raise _fail(
                node.pos,
                f"{name} is a table",
                f"read one of its columns as {_written(name)}.key (its columns: {keys})",
            )
        raise self.unknown_name(node.pos, name)

    def unknown_name(self, position: int, name: str) -> ExpressionError:
        known = [*(self.names.row or {}), *self.names.variables, *(f"{t}.key" for t in self.names.tables)]
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {_written(close[0])}? " if close else ""
        listed = ", ".join(_written(k) if not k.endswith(".key") else k for k in known[:20])
        more = f" (and {len(known) - 20} more)" if len(known) > 20 else ""
        available = f"the names here are {listed}{more}" if known else "no names can be read here"
        return _fail(
            position,
            f"unknown name '{name}'",
            f"{hint}{available}; write a name with spaces or punctuation as ${{name}}",
        )

    def c_column(self, node: Column) -> tuple[str, Fn]:
        self.column(node, "sum")  # refuses a table or key that is not there first
        raise _fail(
            node.pos,
            f"{_written(node.table)}.{_written(node.key)} is a column (a list of values)",
            f"read it in an aggregate, e.g. sum({_written(node.table)}.{_written(node.key)}) or count(...)",
        )

    def c_unary(self, node: Unary) -> tuple[str, Fn]:
        type_, operand = self.compile(node.operand)
        if node.op == "not":
            truth = self.condition(node.operand, type_, operand, "not")
            return "boolean", lambda env: not truth(env)
        number = self.number(node.operand, type_, operand, f"'{node.op}'")
        if node.op == "+":
            return "number", number
        return "number", lambda env: None if (value := number(env)) is None else DECIMAL.minus(value)

    def number(self, node: Any, type_: str, fn: Fn, what: str) -> Fn:
        """fn's value as a number (any values parsed; a number, null passes)."""
        if type_ in ("number", "null"):
            return fn
        if type_ == "any":
            name = _name_of(node)
            where = f" in '{self.source(node)}'" if name is None else ""
            return lambda env: _to_number(fn(env), name, where)
        raise _fail(node.pos, f"{what} needs a number, but {self.source(node)} is {_a(type_)}", _fix_for(type_))

    def condition(self, node: Any, type_: str, fn: Fn, what: str) -> Fn:
        if type_ == "boolean":
            return lambda env: fn(env) is True
        if type_ in ("any", "null"):
            return lambda env: _truthy(fn(env))
        example = {
            "number": f"{self.source(node)} > 0",
            "text": f"{self.source(node)} != ''",
            "date": f"{self.source(node)} <= today()",
        }[type_]
        raise _fail(
            node.pos,
            f"{what} needs true or false, but {self.source(node)} is {_a(type_)}",
            f"compare it, e.g. {example}",
        )

    def c_chain(self, node: Chain) -> tuple[str, Fn]:
        type_, first = self.compile(node.first)
        if node.group in ("and", "or"):
            parts = [self.condition(node.first, type_, first, node.group)]
            for op, _, right in node.rest:
                right_type, right_fn = self.compile(right)
                parts.append(self.condition(right, right_type, right_fn, op))
            if node.group == "and":
                return "boolean", lambda env: all(part(env) for part in parts)
            return "boolean", lambda env: any(part(env) for part in parts)
        steps: list[tuple[Callable[[Any, Any], Any], Fn]] = []
        current_type = type_
        if current_type != "date":
            first = self.number(node.first, type_, first, f"'{node.rest[0][0]}'")
            current_type = "number" if type_ != "null" else "null"
        for op, op_pos, right in node.rest:
            right_type, right_fn = self.compile(right)
            snippet = _short(self.text[node.pos : right.end])
            if current_type == "date" and op == "-" and right_type == "date":
                steps.append((_date_difference(snippet), right_fn))
                current_type = "number"
            elif current_type == "date" and op in ("+", "-") and right_type != "date":
                right_fn = self.number(right, right_type, right_fn, f"'{op}' after a date")
                steps.append((_date_shift(op, snippet), right_fn))
            elif right_type == "date" and op == "+" and current_type in ("number", "null"):
                steps.append((_date_shift("+", snippet, swapped=True), right_fn))
                current_type = "date"
            else:
                if current_type == "date":
                    raise _fail(
                        op_pos,
                        f"'{op}' cannot take a date on its left",
                        "add or subtract days (date + 7, date - 7) or subtract dates (end - start)",
                    )
                if right_type == "date":
                    raise _fail(
                        right.pos,
                        f"'{op}' cannot take a date on its right",
                        "add days to a date (date + 7) or subtract dates (end - start)",
                    )
                right_fn = self.number(right, right_type, right_fn, f"'{op}'")
                steps.append((_arithmetic(op, snippet, _name_of(right)), right_fn))
                current_type = "number"
        if len(steps) == 1:
            (step, right_fn) = steps[0]
            left_fn = first
            return current_type, lambda env: step(left_fn(env), right_fn(env))
        frozen_steps = tuple(steps)

        def chain(env: Env) -> Any:
            value = first(env)
            for step, right_fn in frozen_steps:
                value = step(value, right_fn(env))
            return value

        return current_type, chain

    def c_compare(self, node: Compare) -> tuple[str, Fn]:
        left_type, left = self.compile(node.left)
        right_type, right = self.compile(node.right)
        op = "==" if node.op == "=" else "!=" if node.op == "<>" else node.op
        ordering = op not in ("==", "!=")
        definite = {left_type, right_type} - {"any", "null"}
        if len(definite) > 1:
            kinds = " and ".join(_a(t) for t in (left_type, right_type))
            raise _fail(
                node.op_pos,
                f"'{node.op}' compares {kinds} ({self.source(node.left)} {node.op} {self.source(node.right)})",
                "compare like with like: a number without quotes (qty > 3), a text in quotes (name == 'Pen'), "
                "or set the column's dataType",
            )
        if ordering and "boolean" in definite:
            raise _fail(node.op_pos, f"'{node.op}' cannot order true and false", "compare them with == or !=")
        kind = definite.pop() if definite else None
        coerce_left = _coercer(left_type, kind, _name_of(node.left))
        coerce_right = _coercer(right_type, kind, _name_of(node.right))
        left_name, right_name = _name_of(node.left), _name_of(node.right)
        if op == "==":
            return "boolean", lambda env: _equal(left(env), right(env), coerce_left, coerce_right)
        if op == "!=":
            return "boolean", lambda env: not _equal(left(env), right(env), coerce_left, coerce_right)
        test = _ORDER[op]

        def order(env: Env) -> bool:
            a, b = left(env), right(env)
            if a is None or b is None:
                return False
            a, b = _ordered_pair(a, b, kind, left_name, right_name)
            if a is None or b is None:
                return False
            return test(a, b)

        return "boolean", order

    # -- functions ----------------------------------------------------------------------
    def c_call(self, node: Call) -> tuple[str, Fn]:
        name = node.name
        if name not in _ARITY:
            close = difflib.get_close_matches(name, FUNCTIONS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise _fail(node.pos, f"unknown function '{name}'", f"{hint}the functions are {', '.join(FUNCTIONS)}")
        low, high, usage = _ARITY[name]
        count = len(node.args)
        if count < low or (high is not None and count > high):
            expected = str(low) if low == high else f"{low} or {high}" if high is not None else f"at least {low}"
            raise _fail(
                node.pos,
                f"{name} takes {expected} argument{'s' if expected != '1' else ''}, got {count}",
                f"write {usage}",
            )
        if name in _AGGREGATES or (name == "len" and self.is_column(node.args[0])):
            # len of a bare key is the row's text inside a table, the column's row count in a
            # footer (where bare keys are columns); len(table.key) is always a row count.
            return self.aggregate(node)
        return getattr(self, "f_" + name)(node)

    def is_column(self, node: Any) -> bool:
        if isinstance(node, Group):
            return self.is_column(node.inner)
        if isinstance(node, Column):
            return True
        names = self.names
        return isinstance(node, Ref) and names.aggregates_only and names.row is not None and node.name in names.row

    def column(self, node: Any, function: str) -> tuple[str, str, Callable[[Env], Sequence[object]], str]:
        """(element type, column name as written, getter of the values, memo source)."""
        while isinstance(node, Group):
            node = node.inner
        if isinstance(node, Column):
            names = self.names
            if node.table not in names.tables:
                tables = ", ".join(_written(t) for t in list(names.tables)[:20]) or "none here"
                raise _fail(
                    node.pos,
                    f"{_written(node.table)}.{_written(node.key)}: {_written(node.table)} is not a table variable",
                    f"the table variables are {tables}",
                )
            columns = names.tables[node.table]
            if node.key not in columns:
                raise _fail(
                    node.key_pos,
                    f"{_written(node.table)}.{_written(node.key)}: the table {_written(node.table)} "
                    f"has no column {_written(node.key)}",
                    f"its columns are {', '.join(_written(k) for k in list(columns)[:20])}",
                )
            self.variables.add(node.table)
            table, key = node.table, node.key

            def table_column(env: Env) -> Sequence[object]:
                return env.tables.get(table, {}).get(key, ())

            return columns[key], f"{table}.{key}", table_column, table
        if isinstance(node, Ref) and self.names.row is not None and node.name in self.names.row:
            self.columns.add(node.name)
            key = node.name

            def rows_column(env: Env) -> Sequence[object]:
                if env.rows is None:
                    raise EvaluationError(f"{function}({key}) reads the table's rows, but there are none here", key)
                return env.rows.get(key, ())

            return self.names.row[key], key, rows_column, ""
        if isinstance(node, Ref) and node.name in self.names.tables:
            return self.c_ref(node)  # type: ignore[return-value]  # raises: a table is read by column
        if isinstance(node, Ref) and node.name not in self.names.variables:
            raise self.unknown_name(node.pos, node.name)
        example = "amount" if self.names.row is not None else "items.amount"
        raise _fail(
            node.pos,
            f"{function}(...) takes a column, not {self.source(node)}",
            f"write e.g. {function}({example}); a computed column can hold a per-row value to {function}",
        )

    def aggregate(self, node: Call) -> tuple[str, Fn]:
        name = node.name
        if name == "count" and not node.args:
            if self.names.row is None:
                raise _fail(
                    node.pos,
                    "count() counts the rows of the table it is in, and this is not in a table",
                    "count a table variable's column, e.g. count(items.item)",
                )

            def count_rows(env: Env) -> Decimal:
                if not env.rows:
                    return Decimal(0)
                return Decimal(len(next(iter(env.rows.values()))))

            return "number", count_rows
        type_, written, getter, source = self.column(node.args[0], name)
        if name in ("sum", "avg") and type_ not in ("number", "any"):
            raise _fail(
                node.args[0].pos,
                f"{name}({written}): {written} is {_a(type_)} column",
                "set its dataType to number or currency",
            )
        if name in ("min", "max") and type_ not in ("number", "date", "any"):
            raise _fail(
                node.args[0].pos,
                f"{name}({written}): {written} is {_a(type_)} column",
                "min and max take a number or date column; set its dataType to number, currency or date",
            )
        compute = _AGGREGATE_FUNCTIONS[name]
        result_type = "number" if name in ("sum", "avg", "count", "len") else type_
        column_name = written
        memo_key_tail = (name, source, written)

        def aggregate(env: Env) -> Any:
            values = getter(env)
            memo = env._memo
            hit = memo.get(memo_key_tail)
            if hit is not None and hit[0] is values:
                return hit[1]
            result = compute(values, type_, column_name)
            memo[memo_key_tail] = (values, result)
            return result

        return result_type, aggregate

    def f_if(self, node: Call) -> tuple[str, Fn]:
        condition_node, then_node, else_node = node.args
        condition_type, condition_fn = self.compile(condition_node)
        truth = self.condition(condition_node, condition_type, condition_fn, "if")
        then_type, then_fn = self.compile(then_node)
        else_type, else_fn = self.compile(else_node)
        return _common([then_type, else_type]), lambda env: then_fn(env) if truth(env) else else_fn(env)

    def f_round(self, node: Call) -> tuple[str, Fn]:
        type_, fn = self.compile(node.args[0])
        number = self.number(node.args[0], type_, fn, "round")
        digits_fn: Fn = lambda env: 0  # noqa: E731
        if len(node.args) == 2:
            digits_node = node.args[1]
            while isinstance(digits_node, Group):
                digits_node = digits_node.inner
            if isinstance(digits_node, Literal) or (
                isinstance(digits_node, Unary) and isinstance(digits_node.operand, Literal)
            ):
                d_type, d_fn = self.compile(digits_node)
                value = d_fn(None) if d_type == "number" else None
                if value is None or value != value.to_integral_value() or int(value) not in _ROUND_DIGITS:
                    raise _fail(
                        node.args[1].pos,
                        f"round's digits are a whole number from -10 to 20, not {self.source(node.args[1])}",
                        "write e.g. round(x, 2)",
                    )
                fixed = int(value)
                digits_fn = lambda env: fixed  # noqa: E731
            else:
                d_type, d_fn = self.compile(node.args[1])
                d_number = self.number(node.args[1], d_type, d_fn, "round's digits")
                snippet = self.source(node)
                d_name = _name_of(node.args[1])

                def digits_fn(env: Env) -> int | None:
                    value = d_number(env)
                    if value is None:
                        return None
                    if (
                        not value.is_finite()
                        or abs(value) > 20
                        or value != value.to_integral_value()
                        or int(value) not in _ROUND_DIGITS
                    ):
                        raise EvaluationError(
                            f"round's digits are a whole number from -10 to 20, not {_plain(value)} in '{snippet}'",
                            d_name,
                        )
                    return int(value)

        snippet = self.source(node)

        def round_(env: Env) -> Decimal | None:
            value = number(env)
            digits = digits_fn(env)
            if value is None or digits is None:
                return None
            try:
                return value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=DECIMAL)
            except InvalidOperation:
                raise EvaluationError(f"{_plain(value)} has more than 28 digits once rounded in '{snippet}'") from None

        return "number", round_

    def f_abs(self, node: Call) -> tuple[str, Fn]:
        type_, fn = self.compile(node.args[0])
        number = self.number(node.args[0], type_, fn, "abs")
        return "number", lambda env: None if (v := number(env)) is None else DECIMAL.abs(v)

    def text_argument(self, node: Call) -> Fn:
        argument = node.args[0]
        type_, fn = self.compile(argument)
        if type_ not in ("text", "any", "null"):
            raise _fail(
                argument.pos,
                f"{node.name} needs a text, but {self.source(argument)} is {_a(type_)}",
                f"make it a text first: {node.name}(concat({self.source(argument)}))",
            )
        if type_ == "text":
            return fn
        return lambda env: None if (v := fn(env)) is None else _plain(v)

    def f_len(self, node: Call) -> tuple[str, Fn]:
        text = self.text_argument(node)
        return "number", lambda env: None if (v := text(env)) is None else Decimal(len(v))

    def f_upper(self, node: Call) -> tuple[str, Fn]:
        text = self.text_argument(node)
        return "text", lambda env: None if (v := text(env)) is None else v.upper()

    def f_lower(self, node: Call) -> tuple[str, Fn]:
        text = self.text_argument(node)
        return "text", lambda env: None if (v := text(env)) is None else v.lower()

    def f_trim(self, node: Call) -> tuple[str, Fn]:
        text = self.text_argument(node)
        return "text", lambda env: None if (v := text(env)) is None else v.strip()

    def f_concat(self, node: Call) -> tuple[str, Fn]:
        parts = tuple(self.compile(argument)[1] for argument in node.args)
        snippet = self.source(node)

        def concat(env: Env) -> str:
            total, out = 0, []
            for part in parts:
                piece = _plain(part(env))
                total += len(piece)
                if total > MAX_TEXT_RESULT:
                    raise EvaluationError(f"'{snippet}' makes a text longer than {MAX_TEXT_RESULT:,} characters")
                out.append(piece)
            return "".join(out)

        return "text", concat

    def f_coalesce(self, node: Call) -> tuple[str, Fn]:
        compiled = [self.compile(argument) for argument in node.args]
        parts = tuple(fn for _, fn in compiled)

        def coalesce(env: Env) -> Any:
            for part in parts:
                value = part(env)
                if value is not None and value != "":
                    return value
            return None

        return _common([t for t, _ in compiled]), coalesce

    def f_today(self, node: Call) -> tuple[str, Fn]:
        return "date", lambda env: env.today


def _written(name: str) -> str:
    """A name as an expression writes it."""
    return name if name.isidentifier() and name not in _KEYWORDS else f"${{{name}}}"


def _name_of(node: Any) -> str | None:
    while isinstance(node, Group):
        node = node.inner
    if isinstance(node, Ref):
        return node.name
    return None


def _fix_for(type_: str) -> str:
    if type_ == "text":
        return "quote numbers only when they are texts; set the value's dataType to number, or join texts with concat"
    if type_ == "boolean":
        return "use if(condition, a, b) to turn true or false into a number"
    if type_ == "date":
        return "add or subtract days (date + 7) or subtract dates (end - start)"
    return "use a number"


def _row_get(env: Env, key: str) -> Any:
    row = env.row
    if row is None:
        raise EvaluationError(f"{key} is a column of the current row, but there is no row here", key)
    return row.get(key)


def _typed(type_: str, name: str, get: Fn) -> Fn:
    """A name's value as its type holds it (an Env built without as_input may hold '3' for a
    number): the common case is one class check."""
    if type_ == "number":

        def number(env: Env) -> Any:
            value = get(env)
            if value is None or value.__class__ is Decimal:
                return value
            return _to_number(value, name)

        return number
    if type_ == "date":

        def date(env: Env) -> Any:
            value = get(env)
            if value is None or value.__class__ is dt.date:
                return value
            return _to_date(value, name)

        return date
    if type_ == "boolean":
        return lambda env: _to_boolean(get(env), name)
    if type_ == "text":

        def text(env: Env) -> Any:
            value = get(env)
            return value if value is None or value.__class__ is str else _plain(value)

        return text
    return get


def _truthy(value: object) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    return True


def _arithmetic(op: str, snippet: str, right_name: str | None) -> Callable[[Any, Any], Any]:
    operation = {
        "+": DECIMAL.add,
        "-": DECIMAL.subtract,
        "*": DECIMAL.multiply,
        "/": DECIMAL.divide,
        "%": DECIMAL.remainder,
    }[op]
    if op in ("/", "%"):

        def divide(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            if not b:
                raise EvaluationError(f"division by zero in '{snippet}'", right_name)
            try:
                return operation(a, b)
            except DecimalException as exc:
                raise EvaluationError(f"{_reason(exc)} in '{snippet}'") from None

        return divide

    def apply(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return operation(a, b)

    return apply


def _days(value: Decimal, snippet: str) -> int:
    if value != value.to_integral_value() or abs(value) > _MAX_DAYS:
        raise EvaluationError(f"a date moves by whole days, not {_plain(value)}, in '{snippet}'")
    return int(value)


def _date_shift(op: str, snippet: str, swapped: bool = False) -> Callable[[Any, Any], Any]:
    sign = 1 if op == "+" else -1

    def shift(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        date, days = (b, a) if swapped else (a, b)
        try:
            return date + dt.timedelta(days=sign * _days(days, snippet))
        except OverflowError:
            raise EvaluationError(f"a date out of range in '{snippet}'") from None

    return shift


def _date_difference(snippet: str) -> Callable[[Any, Any], Any]:
    def difference(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return Decimal((a - b).days)

    return difference


def _soft(coerce: Callable[..., Any], value: object) -> tuple[bool, object]:
    try:
        return True, coerce(value, None)
    except EvaluationError:
        return False, value


def _coercer(type_: str, kind: str | None, name: str | None) -> Callable[[object], tuple[bool, object]] | None:
    """For an any-typed side compared with a definite kind: its value in that kind."""
    if type_ != "any" or kind is None:
        return None
    coerce = _COERCE[kind]
    return lambda value: _soft(coerce, value)


def _equal(a: object, b: object, coerce_a: Any, coerce_b: Any) -> bool:
    if a is None or a == "":
        return b is None or b == ""
    if b is None or b == "":
        return False
    if coerce_a is not None:
        ok, a = coerce_a(a)
        if not ok:
            return False
    if coerce_b is not None:
        ok, b = coerce_b(b)
        if not ok:
            return False
    if a.__class__ is b.__class__:
        return a == b
    # Two any values of different kinds (an if() that gives a number or a text): a number
    # equals a text that reads as the same number; otherwise they are compared as text.
    kind_a, kind_b = _kind(a), _kind(b)
    if "number" in (kind_a, kind_b) and "text" in (kind_a, kind_b):
        ok_a, number_a = _soft(_to_number, a)
        ok_b, number_b = _soft(_to_number, b)
        return ok_a and ok_b and number_a == number_b
    return _plain(a) == _plain(b)


def _ordered_pair(a: object, b: object, kind: str | None, name_a: str | None, name_b: str | None) -> tuple[Any, Any]:
    if kind is not None:
        return _COERCE[kind](a, name_a), _COERCE[kind](b, name_b)
    if a.__class__ is b.__class__ and not isinstance(a, bool):
        return a, b
    ok_a, number_a = _soft(_to_number, a)
    ok_b, number_b = _soft(_to_number, b)
    if ok_a and ok_b:
        return number_a, number_b
    return _plain(a), _plain(b)


_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _numbers(values: Sequence[object], type_: str, name: str) -> list[Decimal]:
    out = []
    for value in values:
        if value is None or value == "":
            continue
        out.append(value if value.__class__ is Decimal else _to_number(value, name))
    return out  # type: ignore[return-value]


def _sum(values: Sequence[object], type_: str, name: str) -> Decimal:
    total = Decimal(0)
    add = DECIMAL.add
    for value in _numbers(values, type_, name):
        total = add(total, value)
    return total


def _avg(values: Sequence[object], type_: str, name: str) -> Decimal | None:
    numbers = _numbers(values, type_, name)
    if not numbers:
        return None
    return DECIMAL.divide(_sum(numbers, type_, name), Decimal(len(numbers)))


def _ordered(values: Sequence[object], type_: str, name: str) -> list[Any]:
    if type_ == "date":
        return [_to_date(v, name) for v in values if v is not None and v != ""]
    return _numbers(values, type_, name)


def _min(values: Sequence[object], type_: str, name: str) -> Any:
    found = _ordered(values, type_, name)
    return min(found) if found else None


def _max(values: Sequence[object], type_: str, name: str) -> Any:
    found = _ordered(values, type_, name)
    return max(found) if found else None


def _count(values: Sequence[object], type_: str, name: str) -> Decimal:
    return Decimal(sum(1 for v in values if v is not None and v != ""))


def _len(values: Sequence[object], type_: str, name: str) -> Decimal:
    return Decimal(len(values))


_AGGREGATE_FUNCTIONS: dict[str, Callable[[Sequence[object], str, str], Any]] = {
    "sum": _sum,
    "avg": _avg,
    "min": _min,
    "max": _max,
    "count": _count,
    "len": _len,
}


@functools.lru_cache(maxsize=4096)
def check(text: str, names: Names) -> Checked:
    """Parse and type-check an expression for what it may read; ExpressionError naming the
    position and the fix. The result evaluates fast, any number of times."""
    tree = parse(text)
    compiler = _Compiler(text, names)
    type_, run = compiler.compile(tree)
    return Checked(text, type_, frozenset(compiler.variables), frozenset(compiler.columns), run)
