"""Step conditions: `field op value` evaluated on a request's values, never with eval."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from datetime import date
from typing import Any

from workflow.config import Condition, Op

_COMPARE: dict[Op, Callable[[Any, Any], bool]] = {
    Op.EQ: operator.eq,
    Op.NE: operator.ne,
    Op.GT: operator.gt,
    Op.GE: operator.ge,
    Op.LT: operator.lt,
    Op.LE: operator.le,
    Op.IN: lambda a, b: a in b,
    Op.NOT_IN: lambda a, b: a not in b,
}


def _coerce(value: Any, like: Any) -> Any:
    """Make a configured value comparable with the field's value (a date, a number)."""
    if isinstance(like, date) and isinstance(value, str):
        return date.fromisoformat(value)
    if isinstance(like, int | float) and not isinstance(like, bool) and isinstance(value, str):
        return float(value)
    return value


def holds(cond: Condition, values: Mapping[str, Any]) -> bool:
    """True when the condition holds; a missing field never satisfies a condition."""
    if cond.field not in values or values[cond.field] is None:
        return False
    actual = values[cond.field]
    expected = cond.value
    if cond.op in (Op.IN, Op.NOT_IN):
        expected = [
            _coerce(v, actual) for v in (expected if isinstance(expected, list) else [expected])
        ]
    else:
        expected = _coerce(expected, actual)
    try:
        return _COMPARE[cond.op](actual, expected)
    except TypeError:
        return False


def all_hold(conds: Iterable[Condition], values: Mapping[str, Any]) -> bool:
    """True when every condition holds (an empty list holds)."""
    return all(holds(c, values) for c in conds)
