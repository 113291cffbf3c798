"""The one catalogue of wording: every code in both languages, and no sentence written elsewhere."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

from agent.catalogue import CATALOGUE, say

ROOT = Path(__file__).resolve().parent.parent

CATALOGUE_FILE = "agent/catalogue.py"
_CJK = re.compile("[\u4e00-\u9fff]")


def _has_text(node: ast.AST) -> bool:
    """A sentence written in place: a string literal, an f-string, or one glued from them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(node.value)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _has_text(node.left) or _has_text(node.right)
    if isinstance(node, ast.IfExp):
        return _has_text(node.body) or _has_text(node.orelse)
    return False


def _has_chinese(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and _CJK.search(n.value)
        for n in ast.walk(node)
    )


def _names_chinese(test: ast.AST) -> bool:
    """`locale == "zh"` (or `lang == "en"`…): the test of a sentence picked by language."""
    return isinstance(test, ast.Compare) and any(
        isinstance(c, ast.Constant) and c.value in ("zh", "en") for c in test.comparators
    )


def inline_pairs(source: str, errors: bool = True) -> list[int]:
    """Lines of a module that write an English/Chinese pair in place instead of naming a code.

    Three spellings: `t(locale, "en…", "zh…")` (the old helper, or any function called `t`),
    `"…中文" if locale == "zh" else "…"` with text on both sides (not a tag like "zh-CN"), and
    with `errors`, an error raised as `SomeError("en…", zh="zh…")`.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            texts = sum(_has_text(a) for a in node.args)
            zh = any(k.arg == "zh" and _has_text(k.value) for k in node.keywords)
            if (name == "t" and texts >= 2) or (errors and texts and zh):
                found.append(node.lineno)
        elif isinstance(node, ast.IfExp) and _names_chinese(node.test):
            both = _has_text(node.body) and _has_text(node.orelse)
            if both and (_has_chinese(node.body) or _has_chinese(node.orelse)):
                found.append(node.lineno)
    return found


def all_pairs() -> dict[str, list[int]]:
    found = {}
    for package in ("agent", "bot", "workflow"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            # the domain raises its errors in both languages: it sits below the catalogue
            source, errors = path.read_text(encoding="utf-8"), package != "workflow"
            if name != CATALOGUE_FILE and (lines := inline_pairs(source, errors)):
                found[name] = lines
    return found


def test_every_code_has_english_and_chinese_text() -> None:
    for code, texts in CATALOGUE.items():
        assert isinstance(texts, tuple) and len(texts) == 2, code
        en, zh = texts
        assert en.strip() and zh.strip(), f"{code} lacks a language"


# Values one language leaves out on purpose: a step title has only the leave type's key, an
# English word, which the Chinese title does without ("准备请假申请"). A date the parser or the
# calendar could not work with: English passes on their own sentence (`detail`, which says how to
# write the date), Chinese says it in general words.
ONE_SIDED = {"step.propose_leave", "field.problem.unread_date", "field.problem.calendar"}


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
    """Wording lives in the catalogue; a t(locale, "…", "…") pair elsewhere belongs there."""
    assert all_pairs() == {}


def test_the_scan_finds_each_spelling_of_an_inline_pair() -> None:
    """The scan above would see a pair written again, in either spelling, glued or not."""
    source = """
t(locale, "Withdrawn", "已撤回")
t(loc, f"{n} day" + ("" if n == 1 else "s"), f"{n} 天")
i18n.t(locale, "Hi", "你好")
x = "已撤回" if locale == "zh" else "Withdrawn"
y = f"{city}时间" if locale == "zh" else city
z = "zh-CN" if locale == "zh" else "en-US"
name = user or ("the signed-in user" if lang == "en" else "当前用户")
raise StoreUnavailable("The database is unreachable.", zh="暂时无法连接数据库。")
raise InvalidState(text, zh=replaced("zh"))
say("status.withdrawn", locale)
t(locale, en, zh)
"""
    assert sorted(inline_pairs(source)) == [2, 3, 4, 5, 8, 9]


def test_say_fills_values_in_the_readers_language() -> None:
    assert say("button.submit", "en") == "Submit"
    assert say("button.submit", "zh") == "提交"
    assert say("value.days_left", "zh", days="3 天") == "剩余 3 天"
