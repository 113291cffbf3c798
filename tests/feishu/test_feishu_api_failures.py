"""Feishu open-API failures of every kind: the person still gets an answer, and the log has one traceback.

The stand-in answers an HTML 502 (a proxy's error page, every retry) or a 405 to the contact
lookup and to the reply that sends a turn's first message, as the Slack tests do for
`users.info` and `chat.postMessage` (tests/slack/test_api_failures.py).
"""

from __future__ import annotations

import pytest

from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError, FeishuUnavailable
from tests.feishu.harness import FeishuHarness

ZHANG = "ou_zhangsan"
STRANGER = "ou_someone_by_email"
FAILURES = [(502, "Bad Gateway"), (405, "Not Allowed")]


def _times(h: FeishuHarness, status: int) -> int:
    """A 5xx is retried by the client: fail every attempt; a 405 is not retried."""
    return h.bot.client.max_attempts if status >= 500 else 1


# (what fails, who writes, what they write): the contact lookup of someone known by email
# only, and the reply that sends a turn's first message
CALLS = [
    ("contact_user", STRANGER, "I'm sick tomorrow"),
    ("reply", ZHANG, "明天开始请两天病假"),
]


@pytest.mark.parametrize(("kind", "who", "text"), CALLS)
@pytest.mark.parametrize(("status", "msg"), FAILURES)
async def test_a_call_failing_without_json_still_answers_the_person(
    feishu: FeishuHarness,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    who: str,
    text: str,
    status: int,
    msg: str,
):
    """An HTML page or a 405 instead of Feishu's JSON: the person is told Feishu failed (not that
    they are unknown), and the log has one traceback."""
    h = feishu
    h.standin.add_user(STRANGER, "Sam Stranger", "sam@elsewhere.example")
    h.standin.fail_next(kind, status=status, msg=msg, html=True, times=_times(h, status))
    capsys.readouterr()
    resp, _ = await h.sim.message(who, text)
    assert resp.status == 200
    await h.settle()
    said = h.said(who)
    assert "Feishu did not answer" in said or "飞书暂时没有正常响应" in said, said
    assert "not in the approvals directory" not in said and "不在审批通讯录" not in said
    out = capsys.readouterr().out
    assert out.count("feishu_turn_api_error") == 1
    assert out.count("Traceback") == 1 and "background_task_failed" not in out


async def test_a_refusal_in_feishu_s_own_words_is_logged_without_a_traceback(
    feishu: FeishuHarness, capsys: pytest.CaptureFixture[str]
):
    """Feishu answers its own JSON refusal (code ≠ 0): the code says it all, no traceback."""
    h = feishu
    h.standin.fail_next("reply", code=230002, msg="The bot can not be outside the group.")
    capsys.readouterr()
    await h.sim.message(ZHANG, "明天开始请两天病假")
    await h.settle()
    assert "飞书暂时没有正常响应" in h.said(ZHANG)
    out = capsys.readouterr().out
    assert out.count("feishu_turn_api_error") == 1 and "Traceback" not in out


async def test_any_failure_is_one_typed_error(feishu: FeishuHarness):
    """JSON with a code, an HTML page, a 405 or no answer: a FeishuError saying which it was."""
    h = feishu
    client: FeishuClient = h.bot.client
    h.standin.fail_next("send", status=405, msg="Not Allowed", html=True)
    with pytest.raises(FeishuError) as html:
        await client.send(ZHANG, "text", {"text": "x"})
    assert (html.value.code, html.value.status, html.value.plain) == (-1, 405, False)
    assert html.value.method.endswith("/im/v1/messages") and not html.value.retryable
    h.standin.fail_next("send", code=230002, msg="no")
    with pytest.raises(FeishuError) as plain:
        await client.send(ZHANG, "text", {"text": "x"})
    assert (plain.value.code, plain.value.status, plain.value.plain) == (230002, 400, True)
    h.standin.fail_next("send", status=502, msg="Bad Gateway", html=True, times=client.max_attempts)
    with pytest.raises(FeishuUnavailable) as down:
        await client.send(ZHANG, "text", {"text": "x"})
    assert down.value.ambiguous and down.value.retryable and not down.value.plain
    gone = FeishuClient("a", "b", "http://127.0.0.1:9", max_attempts=1, timeout_s=1)
    with pytest.raises(FeishuUnavailable) as silent:
        await gone.send(ZHANG, "text", {"text": "x"})
    assert silent.value.status is None and not silent.value.plain
    await gone.close()
