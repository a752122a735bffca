"""Formatting typed text values (text `dataType` + `format`), with LDML patterns via Babel.

Patterns are the Unicode LDML ones spreadsheets and ICU use: numbers `#,##0.00`,
dates `d MMMM y`. Locale defaults to `en`.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Context, Decimal, InvalidOperation, localcontext
from typing import Literal

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.numbers import format_currency, format_decimal

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
    number = Decimal(text.replace(",", ""))
    if not number.is_finite() or abs(number.adjusted()) > _MAX_EXPONENT:
        raise ValueError(f"the number {value!r} is out of range")
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
