"""GS1 element strings as people write them, `(01)09501101530003(17)260101(10)AB12`:
read into application identifiers (AIs) and their values, each checked against the GS1
General Specifications (section 3): its length, its characters, its check digit, its date.

The table holds the AIs labels, logistics and pharma use (extensions.md 14); an AI outside
it is refused by name rather than passed on unchecked. Nothing here draws: the barcode
element encodes the checked string (engine/elements/barcode.py).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

# GS1 AI encodable character set 82 (General Specifications 7.11, figure 7.11-1).
CHARSET_82 = frozenset("!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_SET_82_NAME = "letters, digits and ! \" % & ' ( ) * + , - . / : ; < = > ? _"


@dataclass(frozen=True)
class Part:
    """One run of an AI's value: `digits` (N) or set-82 characters (X), `length` fixed or
    (variable) at most; `check` a GS1 mod-10 check digit ends it; `date` YYMMDD, `time`
    YYMMDDHHMM; an `optional` last part may be left out."""

    digits: bool
    length: int
    variable: bool = False
    check: bool = False
    date: bool = False
    time: bool = False
    optional: bool = False


def N(length: int, **kw: bool) -> Part:  # noqa: N802 (the General Specifications' notation)
    return Part(True, length, **kw)


def N_up_to(length: int) -> Part:  # noqa: N802
    return Part(True, length, variable=True)


def X_up_to(length: int, optional: bool = False) -> Part:  # noqa: N802
    return Part(False, length, variable=True, optional=optional)


_GTIN = (N(14, check=True),)
_GLN = (N(13, check=True),)
_DATE = (N(6, date=True),)
_MEASURE = (N(6),)

AIS: dict[str, tuple[Part, ...]] = {
    "00": (N(18, check=True),),  # SSCC
    "01": _GTIN,
    "02": _GTIN,  # GTIN of contained trade items
    "10": (X_up_to(20),),  # batch or lot
    "11": _DATE,  # production date
    "12": _DATE,  # due date
    "13": _DATE,  # packaging date
    "15": _DATE,  # best before
    "16": _DATE,  # sell by
    "17": _DATE,  # expiration date
    "20": (N(2),),  # internal product variant
    "21": (X_up_to(20),),  # serial number
    "22": (X_up_to(20),),  # consumer product variant
    "235": (X_up_to(28),),
    "240": (X_up_to(30),),
    "241": (X_up_to(30),),
    "242": (N_up_to(6),),
    "243": (X_up_to(20),),
    "250": (X_up_to(30),),
    "251": (X_up_to(30),),
    "254": (X_up_to(20),),
    "30": (N_up_to(8),),  # variable count
    "37": (N_up_to(8),),  # count of trade items
    "400": (X_up_to(30),),  # customer's purchase order
    "401": (X_up_to(30),),  # GINC
    "402": (N(17, check=True),),  # GSIN
    "403": (X_up_to(30),),  # routing code
    **{f"41{n}": _GLN for n in range(8)},  # ship to, bill to, purchased from, ship for, location, pay to, ...
    "420": (X_up_to(20),),  # ship-to postal code
    "421": (N(3), X_up_to(9)),  # ISO country code, postal code
    "422": (N(3),),  # country of origin
    "423": (N(3), N_up_to(12)),
    "424": (N(3),),
    "425": (N(3), N_up_to(12)),
    "426": (N(3),),
    "7003": (N(10, time=True),),  # expiration date and time
    "8003": (N(14, check=True), X_up_to(16, optional=True)),  # GRAI: 0, asset type and check, serial
    "8004": (X_up_to(30),),  # GIAI
    "8005": (N(6),),  # price per unit of measure
    "8006": (N(14, check=True), N(4)),  # ITIP: GTIN, piece and total
    "8017": (N(18, check=True),),  # GSRN provider
    "8018": (N(18, check=True),),  # GSRN recipient
    "8020": (X_up_to(25),),  # payment slip reference
    "90": (X_up_to(30),),  # mutually agreed
    **{str(n): (X_up_to(90),) for n in range(91, 100)},  # company internal
}
# Trade measures: the fourth digit is where the decimal point goes (310n net weight in kg, …).
for _stem in [*range(310, 317), *range(320, 338), *range(340, 358), *range(360, 370)]:
    for _n in range(6):
        AIS[f"{_stem}{_n}"] = _MEASURE
for _n in range(10):
    AIS[f"390{_n}"] = (N_up_to(15),)  # amount payable, local currency
    AIS[f"391{_n}"] = (N(3), N_up_to(15))  # amount payable, ISO currency code first
    AIS[f"392{_n}"] = (N_up_to(15),)  # amount payable, single item
    AIS[f"393{_n}"] = (N(3), N_up_to(15))
for _n in range(4):
    AIS[f"394{_n}"] = (N(4),)  # percentage discount of a coupon

KNOWN = (
    "00-02, 10-13, 15-17, 20-22, 235-254, 30, 310n-369n, 37, 390n-394n, 400-403, 410-417, "
    "420-426, 7003, 8003-8006, 8017, 8018, 8020, 90-99"
)
_AI = re.compile(r"\((\d{2,4})\)")


def check_digit(body: str) -> str:
    """The GS1 mod-10 check digit of `body` (weights 3 and 1 from the right)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return str(-total % 10)


def parse(text: str) -> tuple[tuple[str, str], ...]:
    """The (AI, value) pairs of an element string, each checked; ValueError naming the fix."""
    if not text.startswith("("):
        raise ValueError(
            "a GS1 element string starts with an application identifier in parentheses, e.g. (01)09501101530003(10)AB12"
        )
    marks = list(_AI.finditer(text))
    if not marks or marks[0].start() != 0:
        raise ValueError("write each GS1 application identifier as 2 to 4 digits in parentheses, e.g. (01)")
    pairs: list[tuple[str, str]] = []
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        ai = mark.group(1)
        value = text[mark.end() : following.start() if following else len(text)]
        if ai in (seen for seen, _ in pairs):
            raise ValueError(f"application identifier ({ai}) is given twice; keep one")
        check_value(ai, value)
        pairs.append((ai, value))
    return tuple(pairs)


def check_value(ai: str, value: str) -> None:
    parts = AIS.get(ai)
    if parts is None:
        raise ValueError(f"unknown GS1 application identifier ({ai}); docbench checks {KNOWN}")
    if not value:
        raise ValueError(f"({ai}) has no value; write it after the parentheses")
    rest = value
    for part in parts:
        # Only an AI's last part has a variable length (the table holds no other kind).
        piece, rest = (rest, "") if part.variable else (rest[: part.length], rest[part.length :])
        short = not piece if part.variable else len(piece) < part.length
        if len(piece) > part.length or (short and not part.optional):
            raise ValueError(f"({ai}) takes {_describe(parts)}; {value!r} has {len(value)} characters")
        if piece:
            _check_part(ai, part, piece, parts)
    if rest:
        raise ValueError(f"({ai}) takes {_describe(parts)}; {value!r} has {len(value)} characters")


def _check_part(ai: str, part: Part, piece: str, parts: tuple[Part, ...]) -> None:
    if part.digits:
        if not piece.isascii() or not piece.isdigit():
            raise ValueError(f"({ai}) takes {_describe(parts)}; {piece!r} is not all digits")
    else:
        wrong = sorted(set(piece) - CHARSET_82)
        if wrong:
            raise ValueError(f"({ai}) takes GS1's character set 82 ({_SET_82_NAME}); {piece!r} has {wrong[0]!r}")
    if part.check and check_digit(piece[:-1]) != piece[-1]:
        raise ValueError(f"check digit of ({ai}){piece} is wrong: it should be {check_digit(piece[:-1])}")
    if part.date or part.time:
        _check_date(ai, piece)


def _check_date(ai: str, piece: str) -> None:
    year, month, day = 2000 + int(piece[:2]), int(piece[2:4]), int(piece[4:6])
    # GS1 General Specifications 7.12: a date resolves to a century within 50 years back or
    # forward; February 29 is valid in the years divisible by 4 of any such century but 2100.
    if not 1 <= month <= 12:
        raise ValueError(f"({ai}) takes a date YYMMDD; {piece[:6]} has month {piece[2:4]}")
    # Day 00 stands for "the month's end" in the date AIs, never in a date and time.
    if not (day == 0 and len(piece) == 6) and not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise ValueError(f"({ai}) takes a date YYMMDD; {piece[:6]} has no day {piece[4:6]} in its month")
    if len(piece) == 10 and (int(piece[6:8]) > 23 or int(piece[8:10]) > 59):
        raise ValueError(f"({ai}) takes a date and time YYMMDDHHMM; {piece} has no time {piece[6:8]}:{piece[8:]}")


def _describe(parts: tuple[Part, ...]) -> str:
    words = []
    for part in parts:
        kind = "digits" if part.digits else "characters"
        size = f"up to {part.length}" if part.variable else str(part.length)
        extra = ", the last a check digit" if part.check else ", a date YYMMDD" if part.date else ""
        words.append(f"{size} {kind}{extra}")
    return " then ".join(words)


def element_string(pairs: tuple[tuple[str, str], ...]) -> str:
    """The human-readable form, each AI in parentheses (General Specifications 4.15)."""
    return "".join(f"({ai}){value}" for ai, value in pairs)


def bracketed(pairs: tuple[tuple[str, str], ...]) -> str:
    """The encoder's form, AIs in square brackets: set 82 has parentheses but no brackets, so a
    value holding "(" cannot be read as the start of an AI."""
    return "".join(f"[{ai}]{value}" for ai, value in pairs)


def data_length(pairs: tuple[tuple[str, str], ...]) -> int:
    """The AIs' and values' characters, as GS1-128's 48-character limit counts them."""
    return sum(len(ai) + len(value) for ai, value in pairs)
