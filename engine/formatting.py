"""Formatting typed text values (text `dataType` + `format`), with LDML patterns via Babel.

Patterns are the Unicode LDML ones spreadsheets and ICU use: numbers `#,##0.00`,
dates `d MMMM y`. Locale defaults to `en`.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Literal

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.numbers import format_currency, format_decimal

DataType = Literal["string", "number", "date", "currency"]


def check_locale(value: str) -> str:
    try:
        Locale.parse(value.replace("-", "_"))
    except (UnknownLocaleError, ValueError) as exc:
        raise ValueError(f"unknown locale '{value}' (use e.g. 'en', 'de_DE', 'fr-CA')") from exc
    return value


def parse_number(value: object) -> Decimal:
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    if isinstance(value, (int, float, Decimal)):
        return Decimal(str(value))
    if isinstance(value, str):
        try:
            return Decimal(value.strip().replace(",", ""))
        except InvalidOperation:
            pass
    raise ValueError(f"expected a number, got {value!r}")


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


def check_value(value: object, data_type: DataType) -> None:
    """Raise ValueError when a value cannot be shown as this data type."""
    if data_type == "string":
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {type(value).__name__}")
    elif data_type in ("number", "currency"):
        parse_number(value)
    else:
        parse_date(value)


def format_value(
    value: object,
    data_type: DataType,
    pattern: str | None = None,
    locale: str = "en",
    currency: str = "USD",
) -> str:
    """The text shown for a value of the given type."""
    loc = locale.replace("-", "_")
    if data_type == "string":
        return str(value)
    if data_type == "number":
        return format_decimal(parse_number(value), format=pattern, locale=loc)
    if data_type == "currency":
        return format_currency(parse_number(value), currency, format=pattern, locale=loc)
    when = parse_date(value)
    if isinstance(when, dt.datetime):
        return format_datetime(when, format=pattern or "medium", locale=loc)
    return format_date(when, format=pattern or "medium", locale=loc)
