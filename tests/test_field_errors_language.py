"""A refused field reads in the reader's language wherever it is shown: under a form's field,
in a chat answer, in a step line. Every engine refusal that names a field says why as data
(`FieldProblem`), and agent/refusals.py makes the sentence in English or Chinese from it."""

from __future__ import annotations

import ast
import re
from collections.abc import AsyncIterator
from pathlib import Path

import fakeredis
import pytest

from agent.refusals import refusal_text, refused_fields
from bot.conversation.forms import submit_delegation, submit_leave
from workflow.bulk import check_items
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.errors import ValidationFailed

ROOT = Path(__file__).resolve().parent.parent
_LATIN_WORD = re.compile(r"\b[a-z]{3,}\b")  # an English word left in a Chinese sentence
_CJK = re.compile("[\u4e00-\u9fff]")


def _chinese(text: str) -> bool:
    return bool(_CJK.search(text)) and not _LATIN_WORD.search(text)


@pytest.fixture
async def engine(config: OrgConfig, clock: FixedClock) -> AsyncIterator[Engine]:
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, client, clock)
    await client.aclose()


async def test_the_delegation_form_refuses_in_chinese_for_a_chinese_reader(engine: Engine):
    """Delegating to oneself, ending before starting or ending in the past: each field says why in Chinese."""
    wang = engine.person("wangfang")  # locale zh
    cases = [
        ({"delegate": "wangfang", "start": "2026-12-07", "end": "2026-12-11"}, "delegate"),
        ({"delegate": "chenjing", "start": "2026-12-11", "end": "2026-12-07"}, "end"),
        ({"delegate": "chenjing", "start": "2026-11-20", "end": "2026-11-27"}, "end"),
        ({"delegate": "chenjing", "start": "2026-12-07", "end": None}, "end"),
    ]
    for fields, where in cases:
        result = await submit_delegation(engine, wang, fields)
        assert result.delegation is None and set(result.errors) == {where}, fields
        assert _chinese(result.errors[where]), result.errors
    assert await engine.delegations() == []


async def test_the_leave_form_refuses_dates_in_chinese_for_a_chinese_reader(engine: Engine):
    """An end before the start and a range of only a weekend come back in Chinese on their field."""
    zhang = engine.person("zhangsan")
    before = {"leave_type": "annual", "start": "2026-12-10", "end": "2026-12-08"}
    weekend = {"leave_type": "annual", "start": "2026-12-05", "end": "2026-12-06"}
    for fields, where in ((before, "end"), (weekend, "start")):
        result = await submit_leave(engine, zhang, fields)
        assert result.request is None and _chinese(result.errors[where]), result.errors


def test_an_empty_batch_is_refused_in_both_languages():
    """The engine's own refusal over one field reads as a sentence in English and in Chinese."""
    with pytest.raises(ValidationFailed) as empty:
        check_items([])
    assert refused_fields(empty.value, "zh") == {"items": "请至少选择一个申请。"}
    assert refusal_text(empty.value, "en") == "Select at least one request to decide."


def _field_errors_without_problems(path: Path) -> list[int]:
    """Lines raising ValidationFailed with field errors as English text only (a dict, no problems)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ValidationFailed":
            keywords = {k.arg for k in node.keywords}
            if (len(node.args) > 1 or "field_errors" in keywords) and "problems" not in keywords:
                lines.append(node.lineno)
    return lines


def test_every_field_refusal_a_person_sees_carries_its_problem_as_data():
    """No raise names a field with an English phrase only (the admin CLI speaks English alone)."""
    english_only = {"bot/admin.py", "bot/cli.py"}
    found = {
        str(path.relative_to(ROOT)): lines
        for package in ("workflow", "agent", "bot")
        for path in sorted((ROOT / package).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in english_only
        and (lines := _field_errors_without_problems(path))
    }
    assert found == {}
