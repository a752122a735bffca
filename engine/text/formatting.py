"""Formatting typed text values (text `dataType` + `format`), with LDML patterns via Babel.

Patterns are the Unicode LDML ones spreadsheets and ICU use: numbers `#,##0.00`,
dates `d MMMM y`. Locale defaults to `en`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from decimal import Context, Decimal, InvalidOperation, localcontext
from functools import lru_cache
from typing import Literal

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.numbers import (
    format_currency,
    format_decimal,
    get_currency_symbol,
    get_decimal_symbol,
    get_group_symbol,
    get_minus_sign_symbol,
    parse_pattern,
)

DataType = Literal["string", "number", "date", "currency"]
# How an expression reads a value of each dataType (engine.design.expressions' types).
VALUE_TYPES: dict[str, str] = {"string": "text", "number": "number", "currency": "number", "date": "date"}

# Plain decimals, or thousands grouped with commas (never "1,5" read as 15).
_NUMBER = re.compile(r"^[+-]?(\d+|\d{1,3}(,\d{3})+)(\.\d+)?([eE][+-]?\d+)?$|^[+-]?\.\d+$")
_MAX_EXPONENT = 60
# LDML date pattern letters that need a time of day.
_TIME_FIELDS = re.compile(r"[aBbhHkKmsSAzZvVOxX]")
SAMPLES: dict[str, object] = {"number": "1234.5", "currency": "1234.5", "date": "2026-01-02"}


def check_locale(value: str) -> str:
    try:
        Locale.parse(value.replace("-", "_"))
    except (UnknownLocaleError, ValueError) as exc:
        raise ValueError(f"unknown locale '{value}' (use e.g. 'en', 'de_DE', 'fr-CA')") from exc
    return value


def parse_number(value: object) -> Decimal:
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    text = str(value).strip() if isinstance(value, (int, float, Decimal, str)) else None
    if text is None or not _NUMBER.match(text):
        raise ValueError(f"expected a number like 1234.5 or 1,234.5, got {value!r}")
    return in_range(Decimal(text.replace(",", "")), value)


def in_range(number: Decimal, shown: object) -> Decimal:
    """The number, if a column can show it (at most 60 digits either side of the point)."""
    if not number.is_finite() or abs(number.adjusted()) > _MAX_EXPONENT:
        raise ValueError(
            f"the number {shown} is out of range: a column shows numbers up to 60 digits either side of "
            "the point; round it or divide it"
        )
    return number


def parse_date(value: object) -> dt.date | dt.datetime:
    if isinstance(value, (dt.date, dt.datetime)):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.date.fromisoformat(text) if len(text) <= 10 else dt.datetime.fromisoformat(text)
        except ValueError:
            pass
    raise ValueError(f"expected an ISO 8601 date like '2026-11-21', got {value!r}")


def format_value(
    value: object,
    data_type: DataType,
    pattern: str | None = None,
    locale: str = "en",
    currency: str = "USD",
) -> str:
    """The text shown for a value of the given type; ValueError when it cannot be shown."""
    loc = locale.replace("-", "_")
    if data_type == "string":
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {type(value).__name__}")
        return value
    try:
        if data_type in ("number", "currency"):
            number = parse_number(value)
            # Babel rounds in the current decimal context; 28 digits overflow on large values.
            with localcontext(Context(prec=120)):
                if data_type == "number":
                    return format_decimal(number, format=pattern, locale=loc)
                return format_currency(number, currency, format=pattern, locale=loc)
        when = parse_date(value)
        if pattern and _TIME_FIELDS.search(pattern) and not isinstance(when, dt.datetime):
            when = dt.datetime.combine(when, dt.time())
        if isinstance(when, dt.datetime):
            return format_datetime(when, format=pattern or "medium", locale=loc)
        return format_date(when, format=pattern or "medium", locale=loc)
    except (KeyError, AttributeError, TypeError, InvalidOperation) as exc:
        raise ValueError(f"format {pattern!r} cannot show this {data_type}: {exc}") from None


def check_value(
    value: object, data_type: DataType, pattern: str | None = None, locale: str = "en", currency: str = "USD"
) -> None:
    """Raise ValueError unless the value can be shown: the same work rendering does."""
    format_value(value, data_type, pattern, locale, currency)


def check_format(data_type: DataType, pattern: str | None, locale: str, currency: str) -> None:
    """A pattern is checked once, on a sample value, when it is set."""
    if data_type != "string" and pattern is not None:
        try:
            format_value(SAMPLES[data_type], data_type, pattern, locale, currency)
        except ValueError as exc:
            message = str(exc)
            if not message.startswith("format "):  # Babel's own words on the pattern ("Invalid length…")
                message = f"format {pattern!r} is not an LDML {data_type} pattern Babel can use: {message}"
            raise ValueError(message) from None


# Typed table columns (extensions.md 11) format every cell of every row: Babel's
# format_decimal/format_currency parse the locale and the pattern on each call (tens of
# microseconds). A column's formatter applies Babel's parsed pattern with the locale's
# symbols directly for plain patterns, and is checked against Babel on sample values when
# made: a pattern it does not handle, or any difference, leaves the column to Babel.
_CHECK_VALUES = tuple(
    Decimal(text) for text in ("0", "1234567.891", "-1234.5", "0.005", "12.345", "-0.4", "999.995", "7")
)


@lru_cache(maxsize=512)
def number_formatter(data_type: DataType, pattern: str | None, locale: str, currency: str) -> Callable[[Decimal], str]:
    """A function showing a Decimal of a number or currency column exactly as format_value does."""

    def by_babel(number: Decimal) -> str:
        return format_value(number, data_type, pattern, locale, currency)

    try:
        fast = _plain_pattern(data_type, pattern, locale, currency)
    except (KeyError, AttributeError, ValueError, TypeError, UnknownLocaleError):
        return by_babel
    if fast is None or any(fast(value) != by_babel(value) for value in _CHECK_VALUES):
        return by_babel
    return fast


def _plain_pattern(
    data_type: DataType, pattern: str | None, locale: str, currency: str
) -> Callable[[Decimal], str] | None:
    loc = Locale.parse(locale.replace("-", "_"))
    if pattern is not None:
        parsed = parse_pattern(pattern)
    elif data_type == "currency":
        parsed = loc.currency_formats["standard"]
    else:
        parsed = loc.decimal_formats[None]
    if parsed.exp_prec is not None or parsed.scale or parsed.grouping[0] != parsed.grouping[1]:
        return None
    if any("¤¤" in part or "%" in part or "‰" in part or "'" in part for part in (*parsed.prefix, *parsed.suffix)):
        return None
    symbol = get_currency_symbol(currency, loc) if data_type == "currency" else ""
    minus, decimal, group = get_minus_sign_symbol(loc), get_decimal_symbol(loc), get_group_symbol(loc)
    size = parsed.grouping[0]
    min_int, (min_frac, max_frac) = parsed.int_prec[0], parsed.frac_prec
    quantum = Decimal(1).scaleb(-max_frac)
    affixes = [
        tuple(part.replace("¤", symbol).replace("-", minus) for part in pair) for pair in (parsed.prefix, parsed.suffix)
    ]
    context = Context(prec=120)

    def fast(number: Decimal) -> str:
        # As Babel's path does: a computed value may be any size (issue 48: 1e120 failed in quantize).
        rounded = in_range(number, number).quantize(quantum, context=context)
        negative = rounded.is_signed() and rounded != 0
        digits = format(abs(rounded), "f")
        whole, _, fraction = digits.partition(".")
        fraction = fraction.rstrip("0")
        if len(fraction) < min_frac:
            fraction += "0" * (min_frac - len(fraction))
        whole = whole.lstrip("0").rjust(min_int, "0")
        if size < len(whole) and size < 1000:
            head = len(whole) % size or size
            whole = group.join([whole[:head]] + [whole[i : i + size] for i in range(head, len(whole), size)])
        body = whole + (decimal + fraction if fraction else "")
        side = 1 if negative else 0
        return affixes[0][side] + body + affixes[1][side]

    return fast
