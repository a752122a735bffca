"""The expression language of computed values (extensions.md 11)."""

import datetime as dt
from decimal import Decimal

import pytest

from engine.design.expressions import (
    MAX_EXPRESSION_LENGTH,
    Env,
    EvaluationError,
    ExpressionError,
    Names,
    as_input,
    check,
    parse,
    to_text,
    value_type,
)

ROW = Names(row={"qty": "number", "price": "number", "item": "text", "due": "date", "note": "any"})
FOOTER = Names(row=ROW.row, aggregates_only=True)
TABLES = Names(
    variables={"customer": "any", "rate": "number", "first name": "text"},
    tables={"items": {"item": "text", "amount": "number", "when": "date"}},
)


NONE = Names()


def value(text: str, names: Names = NONE, env: Env | None = None) -> object:
    return check(text, names).evaluate(env or Env())


def refused(text: str, names: Names = NONE) -> ExpressionError:
    with pytest.raises(ExpressionError) as caught:
        check(text, names)
    assert f"at character {caught.value.position}" in str(caught.value)
    return caught.value


def failure(text: str, names: Names, env: Env) -> EvaluationError:
    checked = check(text, names)
    with pytest.raises(EvaluationError) as caught:
        checked.evaluate(env)
    return caught.value


# -- exactness ------------------------------------------------------------------------


def test_decimal_sums_are_exact():
    assert value("0.1 + 0.2") == Decimal("0.3")
    assert value("0.1 + 0.2 == 0.3") is True
    assert value("300 * 0.01") == Decimal("3.00")
    assert str(value("300 * 0.01")) == "3.00"


def test_a_thousand_cents_sum_to_ten():
    rows = {"price": [Decimal("0.01")] * 1000}
    total = value("sum(price)", FOOTER, Env(rows=rows))
    assert total == Decimal("10.00") and str(total) == "10.00"


def test_division_keeps_28_significant_digits():
    third = value("1 / 3")
    assert isinstance(third, Decimal)
    assert len(third.as_tuple().digits) == 28


def test_round_is_half_away_from_zero():
    assert value("round(2.5)") == Decimal("3")
    assert value("round(-2.5)") == Decimal("-3")
    assert value("round(1.005, 2)") == Decimal("1.01")
    assert value("round(1234.5, -2)") == Decimal("1.2E+3")


def test_literals_are_decimals_never_floats():
    assert value(".5") == Decimal("0.5")
    assert value("1.50") == Decimal("1.50")
    assert value("7 % 3") == Decimal("1")
    assert value("-2 * 3") == Decimal("-6")


# -- nulls, conditions, comparisons -----------------------------------------------------


def test_null_propagates_through_arithmetic():
    assert value("null + 1") is None
    env = Env(row={"qty": None, "price": Decimal("2")})
    assert value("qty * price", ROW, env) is None
    assert value("-qty", ROW, env) is None


def test_aggregates_skip_nulls():
    rows = {"qty": [Decimal(1), None, Decimal(3)], "price": [None, None, None]}
    env = Env(rows=rows)
    assert value("sum(qty)", FOOTER, env) == Decimal(4)
    assert value("avg(qty)", FOOTER, env) == Decimal(2)
    assert value("count(qty)", FOOTER, env) == Decimal(2)
    assert value("count()", FOOTER, env) == Decimal(3)
    assert value("sum(price)", FOOTER, env) == Decimal(0)
    assert value("avg(price)", FOOTER, env) is None
    assert value("min(price)", FOOTER, env) is None
    assert value("max(qty)", FOOTER, env) == Decimal(3)
    assert value("min(qty)", FOOTER, env) == Decimal(1)


def test_aggregates_read_a_table_variables_column():
    env = Env(tables={"items": {"amount": [Decimal("1.10"), Decimal("2.20")], "item": ["a", ""]}})
    assert value("sum(items.amount)", TABLES, env) == Decimal("3.30")
    assert value("count(items.item)", TABLES, env) == Decimal(1)
    assert value("len(items.item)", TABLES, env) == Decimal(2)
    checked = check("sum(items.amount) * rate", TABLES)
    assert checked.variables == {"items", "rate"} and checked.columns == frozenset()


def test_an_aggregate_is_computed_once_per_column_and_env():
    column = [Decimal(1), Decimal(2)]
    env = Env(rows={"qty": column})
    assert value("sum(qty)", FOOTER, env) == Decimal(3)
    column.append(Decimal(10))  # the same list object: the memo holds
    assert value("sum(qty)", FOOTER, env) == Decimal(3)
    env.rows = {"qty": list(column)}  # a new column: computed again
    assert value("sum(qty)", FOOTER, env) == Decimal(13)


def test_computed_column_reads_the_row_and_the_tables_rows():
    env = Env(row={"qty": Decimal(2), "price": Decimal("1.50")}, rows={"qty": [Decimal(2), Decimal(3)]})
    assert value("qty * price", ROW, env) == Decimal("3.00")
    assert value("qty / sum(qty)", ROW, env) == Decimal("0.4")
    assert check("qty * price", ROW).columns == {"qty", "price"}


def test_if_and_or_not():
    assert value("if(1 < 2, 'yes', 'no')") == "yes"
    assert value("if(null, 1, 2)") == Decimal(2)
    assert value("true and not false") is True
    assert value("false or null") is False
    assert value("not (1 == 2) and 2 > 1") is True
    assert check("if(true, 1, 'a')", Names()).type == "any"
    assert check("if(true, 1, null)", Names()).type == "number"


def test_and_or_short_circuit():
    names = Names(variables={"n": "number"})
    env = Env(variables={"n": Decimal(0)})
    assert value("n != 0 and 1 / n > 1", names, env) is False
    assert value("n == 0 or 1 / n > 1", names, env) is True


def test_any_values_are_truthy_unless_empty():
    names = Names(variables={"flag": "any"})
    assert value("if(flag, 1, 2)", names, Env(variables={"flag": "x"})) == Decimal(1)
    assert value("if(flag, 1, 2)", names, Env(variables={"flag": ""})) == Decimal(2)
    assert value("not flag", names, Env(variables={"flag": None})) is True


def test_comparisons():
    assert value("2 >= 2") is True
    assert value("'a' < 'b'") is True
    assert value("1 = 1") is True and value("1 <> 1") is False
    assert value("null == null") is True
    assert value("null < 1") is False
    assert value("1.0 == 1") is True


def test_any_values_compare_in_the_other_sides_kind():
    names = Names(variables={"customer": "any"})
    assert value("customer == 3", names, Env(variables={"customer": "3.00"})) is True
    assert value("customer > 2", names, Env(variables={"customer": "1,234"})) is True
    assert value("customer == 3", names, Env(variables={"customer": "three"})) is False
    assert value("customer == 'three'", names, Env(variables={"customer": "three"})) is True
    assert value("customer == null", names, Env(variables={"customer": ""})) is True


# -- text, dates, names -----------------------------------------------------------------


def test_len_of_a_key_is_the_rows_text_in_a_table_and_the_row_count_in_a_footer():
    env = Env(row={"item": "Pen"}, rows={"item": ["Pen", "Ink", None]})
    assert value("len(item)", ROW, env) == Decimal(3)
    assert value("len(item)", FOOTER, Env(rows={"item": ["Pen", None]})) == Decimal(2)


def test_string_functions():
    assert value("upper('abc')") == "ABC"
    assert value("lower('ÄB')") == "äb"
    assert value("trim('  a b ')") == "a b"
    assert value("len('héllo')") == Decimal(5)
    assert value("upper(null)") is None
    assert value("'it\\'s' == \"it's\"") is True


def test_concat_writes_every_value_plainly():
    env = Env(today=dt.date(2026, 11, 21))
    assert value("concat('n=', 3.00, ' ', true, ' ', null, today())", env=env) == "n=3.00 true 2026-11-21"
    assert value("concat(round(1234.5, -2))") == "1200"


def test_coalesce_takes_the_first_value_neither_null_nor_empty():
    names = Names(variables={"a": "text", "b": "text"})
    assert value("coalesce(a, b, 'none')", names, Env(variables={"a": "", "b": None})) == "none"
    assert value("coalesce(a, b, 'none')", names, Env(variables={"a": "", "b": "B"})) == "B"


def test_today_is_the_envs_date_or_null():
    assert value("today()", env=Env(today=dt.date(2026, 1, 31))) == dt.date(2026, 1, 31)
    assert value("today()") is None


def test_date_arithmetic_in_days():
    names = Names(variables={"due": "date", "start": "date"})
    env = Env(variables={"due": dt.date(2026, 3, 1), "start": dt.date(2026, 2, 1)})
    assert value("due + 30", names, env) == dt.date(2026, 3, 31)
    assert value("due - 1", names, env) == dt.date(2026, 2, 28)
    assert value("due - start", names, env) == Decimal(28)
    assert value("due > start", names, env) is True


def test_names_with_spaces_are_braced():
    env = Env(variables={"first name": "Ada"})
    assert value("upper(${first name})", TABLES, env) == "ADA"
    assert check("${first name}", TABLES).variables == {"first name"}
    names = Names(variables={"if": "number"})
    assert value("${if} + 1", names, Env(variables={"if": Decimal(1)})) == Decimal(2)


def test_function_names_are_case_insensitive():
    assert value("ROUND(2.5)") == Decimal(3)


def test_parse_is_cached_by_text():
    assert parse("1 + qty") is parse("1 + qty")


# -- refusals at check time -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position"),
    [("1 +", 3), ("qty * (price", 12), ("'open", 0), ("${never closed", 0), ("1 < 2 < 3", 6), ("12ab", 0)],
)
def test_syntax_errors_name_the_position(text, position):
    assert refused(text, ROW).position == position


@pytest.mark.parametrize("text", ["__import__('os')", "a.b.c", "x[0]", "lambda x: x", "qty.real", "(qty)(1)", "eval"])
def test_host_language_constructs_are_refused(text):
    refused(text, ROW)


def test_unknown_name_lists_the_names_and_the_fix():
    error = refused("qty * pirce", ROW)
    assert error.position == 6
    assert "did you mean price" in str(error) and "qty, price, item" in str(error) and "${name}" in str(error)


def test_unknown_function_lists_the_functions():
    error = refused("summ(qty)", ROW)
    assert error.position == 0 and "did you mean sum" in str(error) and "coalesce" in str(error)


def test_wrong_arity_says_how_to_call():
    error = refused("if(qty > 1, 2)", ROW)
    assert "if takes 3 arguments, got 2" in str(error) and "if(condition, then, else)" in str(error)


def test_sum_of_a_text_column_is_refused():
    error = refused("sum(item)", FOOTER)
    assert error.position == 4
    assert "sum(item): item is a text column" in str(error) and "dataType to number or currency" in str(error)


def test_a_bare_column_in_a_footer_is_refused():
    error = refused("amount * 2", Names(row={"amount": "number"}, aggregates_only=True))
    assert str(error).startswith("amount is a column at character 0")
    assert "in a footer read it in an aggregate, e.g. sum(amount)" in str(error)


def test_table_key_must_name_a_table_and_its_column():
    assert "orders is not a table variable" in str(refused("sum(orders.amount)", TABLES))
    assert "orders is not a table variable" in str(refused("orders.amount + 1", TABLES))
    assert "read it in an aggregate, e.g. sum(items.amount)" in str(refused("items.amount + 1", TABLES))
    error = refused("sum(items.total)", TABLES)
    assert error.position == 10 and "has no column total" in str(error) and "item, amount, when" in str(error)


def test_type_errors_name_the_fix():
    assert "concat" in str(refused("item + 1", ROW))
    assert "compare like with like" in str(refused("qty == 'three'", ROW))
    assert "qty > 0" in str(refused("if(qty, 1, 2)", ROW))
    assert "upper(concat(qty))" in str(refused("upper(qty)", ROW))
    assert "digits" in str(refused("round(qty, 1.5)", ROW))


def test_too_long_is_refused_before_parsing():
    error = refused("1" + " " * MAX_EXPRESSION_LENGTH)
    assert "at most 1,000 characters" in str(error)
    assert value("1" + " " * (MAX_EXPRESSION_LENGTH - 1)) == Decimal(1)


def test_too_deep_is_refused():
    assert "more than 64 levels" in str(refused("(" * 70 + "1" + ")" * 70))
    assert "more than 64 levels" in str(refused("-" * 70 + "1"))
    assert value("(" * 20 + "1" + ")" * 20) == Decimal(1)


def test_a_long_flat_sum_is_not_deep():
    text = "+".join(["1"] * 400)  # 400 terms, one level deep
    assert value(text) == Decimal(400)


def test_keywords_are_not_names():
    assert "${if}" in str(refused("if + 1"))


# -- evaluation errors ------------------------------------------------------------------


def test_division_by_zero_names_the_column_that_was_zero():
    names = Names(row={"qty": "number", "count": "number"})
    error = failure("qty / count", names, Env(row={"qty": Decimal(1), "count": Decimal(0)}))
    assert str(error) == "division by zero in 'qty / count'" and error.name == "count"


def test_division_by_a_computed_zero_names_nothing():
    error = failure("1 / (2 - 2)", Names(), Env())
    assert "division by zero" in str(error) and error.name is None


def test_an_any_value_that_is_no_number_names_its_variable():
    names = Names(variables={"price": "any"})
    error = failure("price * 2", names, Env(variables={"price": "abc"}))
    assert str(error).startswith("'abc' (price) is not a number") and error.name == "price"


def test_a_text_result_past_the_bound_fails():
    names = Names(variables={"t": "text"})
    error = failure("concat(t, t)", names, Env(variables={"t": "x" * 60_000}))
    assert "100,000" in str(error)


def test_overflow_is_an_evaluation_error():
    names = Names(variables={"n": "number"})
    error = failure("n * n * n", names, Env(variables={"n": Decimal("1E+400000")}))
    assert "out of range" in str(error)


# -- inputs and output text -------------------------------------------------------------


def test_as_input_reads_stored_values():
    assert as_input("1,234.50", "number", "price") == Decimal("1234.50")
    assert as_input(3, "number", "qty") == Decimal(3)
    assert as_input("", "number", "qty") is None
    assert as_input("2026-11-21", "date", "due") == dt.date(2026, 11, 21)
    assert as_input("Pen", "text", "item") == "Pen"
    assert as_input(None, "any", "x") is None


def test_as_input_of_a_wrong_value_names_the_name():
    with pytest.raises(EvaluationError) as caught:
        as_input("abc", "number", "price")
    assert caught.value.name == "price" and "'abc' (price) is not a number" in str(caught.value)
    with pytest.raises(EvaluationError) as caught:
        as_input("soon", "date", "due")
    assert caught.value.name == "due"


def test_names_take_only_value_types():
    with pytest.raises(ValueError, match="one of number, text, boolean, date, any"):
        Names(variables={"price": "currency"})
    assert [value_type(t) for t in ("string", None, "number", "currency", "date")] == [
        "text",
        "text",
        "number",
        "number",
        "date",
    ]


def test_a_number_too_large_to_show_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="too large to show"):
        to_text(Decimal("1E+400000"))


def test_to_text_in_the_locale():
    assert to_text(Decimal("1234.5")) == "1,234.5"
    assert to_text(Decimal("1234.5"), "de") == "1.234,5"
    assert to_text(Decimal("0.0005")) == "0.001"  # Babel's default 3 decimals, half up
    assert to_text(dt.date(2026, 11, 21)) == "Nov 21, 2026"
    assert to_text(dt.date(2026, 11, 21), "de") == "21.11.2026"
    assert to_text(True) == "true" and to_text(None) == ""
