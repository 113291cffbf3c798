"""Slack Web API failures of every kind: the person still gets an answer, and a post is never doubled.

The stand-in answers an HTML 502 (a proxy's error page) or a 405 to `users.info` and to
`chat.postMessage`; a post that Slack applied but answered 500 is found in the DM history
(by the event id in its metadata) instead of being posted again.
"""

from __future__ import annotations

import pytest

from bot.slack.errors import SlackCallFailed
from tests.slack.harness import SlackHarness

OLIVER, EMMA = "U0OLIVER", "U0EMMA"
STRANGER = "U0STRANGER"


def _replies(h: SlackHarness, user: str) -> list[str]:
    return [r.get("text") or "" for m in h.dm_messages(user) for r in m.get("replies", [])]


@pytest.mark.parametrize(("status", "kind"), [(502, "text/html"), (405, "text/html")])
async def test_users_info_failing_without_json_still_answers_the_person(
    slack: SlackHarness, capsys: pytest.CaptureFixture[str], status: int, kind: str
):
    """users.info answers an HTML page: the person is told Slack failed (not that they are unknown)."""
    h = slack
    h.standin.add_user(STRANGER, "stranger", "Sam Stranger", "sam@example.com", "UTC", "en-US")
    # failing when the request comes in, and again when the turn asks
    h.standin.fail_next("users.info", error=None, status=status, content_type=kind, times=2)
    capsys.readouterr()
    await h.dm(STRANGER, "I'm sick tomorrow")
    await h.settle()
    [answer] = _replies(h, STRANGER)
    assert "Slack did not answer" in answer and "not in the approvals directory" not in answer
    out = capsys.readouterr().out
    assert out.count("slack_turn_api_error") == 1 and "Traceback" in out
    assert "background_task_failed" not in out


@pytest.mark.parametrize(("status", "kind"), [(502, "text/html"), (405, "text/html")])
async def test_chat_post_message_failing_without_json_still_answers_the_person(
    slack: SlackHarness, capsys: pytest.CaptureFixture[str], status: int, kind: str
):
    """The first post of a turn gets an HTML error page: the next post tells the person."""
    h = slack
    h.bot.streaming = False  # every step is a chat.postMessage / chat.update
    h.standin.fail_next("chat.postMessage", error=None, status=status, content_type=kind)
    capsys.readouterr()
    await h.dm(OLIVER, "annual leave next Monday to Wednesday")
    await h.settle()
    replies = _replies(h, OLIVER)
    assert any("Slack did not answer" in r for r in replies), replies
    out = capsys.readouterr().out
    assert out.count("slack_turn_api_error") == 1
    assert "background_task_failed" not in out


async def test_a_post_applied_but_answered_500_is_sent_once(
    slack: SlackHarness, capsys: pytest.CaptureFixture[str]
):
    """Slack posts the DM but answers 500: the notifier finds it in the history, never posts twice."""
    from tests.slack.test_slack_flow import button_message

    h = slack
    await h.dm(OLIVER, "annual leave next Monday to Wednesday")
    await h.bot.tasks.idle()
    await h.click(
        OLIVER, button_message(h.dm_messages(OLIVER), "pending_confirm"), "pending_confirm"
    )
    await h.bot.tasks.idle()
    # the outbox now holds request_submitted (to Oliver) and task_assigned (Emma's card);
    # Slack applies the first post and answers 500
    h.standin.fail_next("chat.postMessage", error=None, status=500, applied=True)
    await h.settle()
    await h.settle()
    for user in (OLIVER, EMMA):
        sent = [m for m in h.dm_messages(user) if (m.get("metadata") or {}).get("event_type")]
        ids = [m["metadata"]["event_payload"]["event_id"] for m in sent]
        assert ids and len(ids) == len(set(ids)), (user, ids)
    cards = [m for m in h.dm_messages(EMMA) if button_message([m], "request_approve")]
    assert len(cards) == 1
    assert "slack_dm_posted_despite_error" in capsys.readouterr().out  # found at once, not later


def test_any_failure_is_one_typed_error_readable_as_slack_s():
    """ok:false, an HTML page, a 405 or no answer: a SlackCallFailed whose response reads like Slack's."""
    from slack_sdk.errors import SlackApiError
    from slack_sdk.web.async_slack_response import AsyncSlackResponse

    def response(status: int, data):
        return AsyncSlackResponse(
            client=None, http_verb="POST", api_url="x", req_args={}, data=data,
            headers={}, status_code=status,
        )  # fmt: skip

    html = SlackCallFailed.of("users.info", SlackApiError("x", response(502, "<html>bad</html>")))
    assert (html.code, html.status, html.ambiguous, html.response.get("error")) == (
        "http_502",
        502,
        True,
        "http_502",
    )
    gone = SlackCallFailed.of("users.info", SlackApiError("x", response(405, {})))
    assert (gone.code, gone.ambiguous, gone.retryable) == ("http_405", False, False)
    known = SlackCallFailed.of("chat.update", SlackApiError("x", response(200, {"error": "x_y"})))
    assert known.code == "x_y" and known.response["error"] == "x_y"
    assert SlackCallFailed.of("chat.postMessage", TimeoutError()).ambiguous


@pytest.mark.parametrize(("status", "kind"), [(502, "text/html"), (405, "text/html")])
async def test_a_failed_email_lookup_is_retried_not_taken_for_someone_not_on_slack(
    slack: SlackHarness, status: int, kind: str
):
    """users.lookupByEmail answers an HTML page: a SlackCallFailed (the notifier retries the
    notice), while Slack's own "no such user" still means not on Slack."""
    h = slack
    person = h.engine.person("oliver").model_copy(update={"accounts": {}})
    identity = h.bot.identity
    # failing every time: the SDK tries a read again on a 5xx
    h.standin.fail_next(
        "users.lookupByEmail", error=None, status=status, content_type=kind, times=9
    )
    with pytest.raises(SlackCallFailed) as failed:
        await identity.user_id_for(person)
    assert failed.value.code == f"http_{status}"
    h.standin.clear_faults()
    assert await identity.user_id_for(person) == "U0OLIVER"  # found by email once Slack answers
    nobody = person.model_copy(update={"email": "nobody@elsewhere.example"})
    assert await identity.user_id_for(nobody) is None
