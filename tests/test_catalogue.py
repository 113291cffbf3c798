"""The one catalogue of wording: every code in both languages, and no sentence written elsewhere."""

from __future__ import annotations

import ast
import string
from pathlib import Path

from agent.catalogue import CATALOGUE, say

ROOT = Path(__file__).resolve().parent.parent

# Modules still allowed to write an inline t(locale, "en", "zh") pair, with how many.
# agent/i18n.py is where t() lives (date and day phrasing); the list only shrinks.
ALLOWED: dict[str, int] = {
    "agent/i18n.py": 4,
    "bot/conversation/lifecycle.py": 7,
    "bot/feishu/queued.py": 1,
    "bot/slack/queued.py": 1,
}


def inline_pairs(path: Path) -> int:
    """Calls t(locale, <literal>, <literal>) in one module: sentences written outside the catalogue."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    literal = (ast.Constant, ast.JoinedStr)
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "t"
        and len(node.args) == 3
        and isinstance(node.args[1], literal)
        and isinstance(node.args[2], literal)
    )


def all_pairs() -> dict[str, int]:
    found = {}
    for package in ("agent", "bot", "workflow"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if n := inline_pairs(path):
                found[str(path.relative_to(ROOT))] = n
    return found


def test_every_code_has_english_and_chinese_text() -> None:
    for code, texts in CATALOGUE.items():
        assert isinstance(texts, tuple) and len(texts) == 2, code
        en, zh = texts
        assert en.strip() and zh.strip(), f"{code} lacks a language"


# Values one language leaves out on purpose: a step title has only the leave type's key, an
# English word, which the Chinese title does without ("准备请假申请").
ONE_SIDED = {"step.propose_leave"}


def test_both_languages_of_a_code_take_the_same_values() -> None:
    """A value named in one language only would be dropped (or fail) in the other."""
    names = string.Formatter()
    for code, (en, zh) in CATALOGUE.items():
        if code in ONE_SIDED:
            continue
        en_names = {f for _, f, _, _ in names.parse(en) if f}
        zh_names = {f for _, f, _, _ in names.parse(zh) if f}
        assert en_names == zh_names, code


def test_no_module_writes_its_own_sentence_pairs() -> None:
    """Wording lives in the catalogue; a new t(locale, "…", "…") elsewhere belongs there."""
    assert all_pairs() == ALLOWED


def test_say_fills_values_in_the_readers_language() -> None:
    assert say("button.submit", "en") == "Submit"
    assert say("button.submit", "zh") == "提交"
    assert say("value.days_left", "zh", days="3 天") == "剩余 3 天"
