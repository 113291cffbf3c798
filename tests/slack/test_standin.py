"""The local Slack Web API stand-in, driven by the real AsyncWebClient over HTTP."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    PlanBlock,
    SectionBlock,
    TaskCardBlock,
)
from slack_sdk.models.messages.chunk import MarkdownTextChunk, PlanUpdateChunk, TaskUpdateChunk
from slack_sdk.web.async_client import AsyncWebClient

from bot.sandbox.standins.slack.server import SlackStandIn

TOKEN = "xoxb-standin-test"
ALICE = "U0ALICE001"
BOB = "U0BOB00002"


class FakeClock:
    """Epoch seconds that move only when told to."""

    def __init__(self, now: float = 1_796_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _people(standin: SlackStandIn) -> None:
    standin.add_user(ALICE, "alice", "Alice Wong", "alice@example.com", "Asia/Shanghai", "zh-CN")
    standin.add_user(BOB, "bob", "Bob Smith", "Bob@Example.com", "Europe/London", "en-GB")


@pytest.fixture
async def standin() -> AsyncIterator[SlackStandIn]:
    server = SlackStandIn()
    _people(server)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def clock_standin() -> AsyncIterator[tuple[SlackStandIn, FakeClock]]:
    clock = FakeClock()
    server = SlackStandIn(clock=clock)
    _people(server)
    await server.start()
    yield server, clock
    await server.stop()


def make_client(standin: SlackStandIn, token: str | None = TOKEN, **kwargs: Any) -> AsyncWebClient:
    return AsyncWebClient(token=token, base_url=standin.api_url, **kwargs)


@pytest.fixture
def client(standin: SlackStandIn) -> AsyncWebClient:
    return make_client(standin)


async def _error(call: Any) -> SlackApiError:
    with pytest.raises(SlackApiError) as info:
        await call
    return info.value


# -- serving ------------------------------------------------------------------------------


async def test_start_binds_a_free_local_port() -> None:
    """Two stand-ins started on port 0 get different local ports and an api_url ending in /api/."""
    async with SlackStandIn() as one, SlackStandIn() as two:
        assert one.base_url and one.base_url.startswith("http://127.0.0.1:")
        assert one.base_url != two.base_url
        assert one.api_url == f"{one.base_url}/api/"


async def test_mounts_in_an_existing_app() -> None:
    """The stand-in's routes work inside another aiohttp app under a chosen prefix."""
    standin = SlackStandIn()
    app = web.Application()

    async def page(_: web.Request) -> web.Response:
        return web.Response(text="sandbox page")

    app.router.add_get("/", page)
    standin.add_to(app, prefix="/slack/api/")
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    standin.base_url = f"http://{host}:{port}"
    try:
        assert standin.api_url == f"http://{host}:{port}/slack/api/"
        answer = await make_client(standin).auth_test()
        assert answer["user_id"] == standin.workspace.bot_user_id
    finally:
        await runner.cleanup()


async def test_auth_test_reports_the_bot_identity(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """auth.test answers with the workspace and the bot's user and bot ids."""
    answer = await client.auth_test()
    ws = standin.workspace
    assert answer.data == {
        "ok": True,
        "url": ws.url,
        "team": ws.team_name,
        "user": ws.bot_name,
        "team_id": ws.team_id,
        "user_id": ws.bot_user_id,
        "bot_id": ws.bot_id,
        "is_enterprise_install": False,
    }


async def test_missing_or_bad_token_is_refused(standin: SlackStandIn) -> None:
    """No token gives not_authed, a non-bot token invalid_auth, and nothing is posted."""
    dm = standin.dm_channel(ALICE)
    missing = await _error(make_client(standin, token=None).chat_postMessage(channel=dm, text="x"))
    assert missing.response["error"] == "not_authed"
    bad = await _error(
        make_client(standin, token="xoxp-user").chat_postMessage(channel=dm, text="x")
    )
    assert bad.response["error"] == "invalid_auth"
    assert standin.workspace.messages(dm) == []
    assert [r.has_authorization for r in standin.requests] == [False, True]


async def test_only_the_configured_token_is_accepted() -> None:
    """With a token configured, another xoxb- token is invalid_auth."""
    async with SlackStandIn(token=TOKEN) as standin:
        assert (await make_client(standin).auth_test())["ok"]
        wrong = await _error(make_client(standin, token="xoxb-other").auth_test())
        assert wrong.response["error"] == "invalid_auth"


async def test_unknown_method_is_a_200_error(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """An unknown method answers HTTP 200 with unknown_method, as Slack does."""
    error = await _error(client.api_call("chat.teleport"))
    assert error.response.status_code == 200
    assert error.response["error"] == "unknown_method"
    assert standin.requests[-1].method == "chat.teleport"


async def test_form_bodies_are_recorded_with_json_fields_decoded(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """A form-encoded call with blocks as a JSON string is recorded with the blocks as a list."""
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]
    dm = standin.dm_channel(ALICE)
    await client.api_call(
        "chat.postMessage", data={"channel": dm, "text": "hi", "blocks": json.dumps(blocks)}
    )
    (params,) = standin.calls("chat.postMessage")
    assert params == {"channel": dm, "text": "hi", "blocks": blocks}
    assert standin.requests[-1].ok
    assert standin.workspace.history(dm)[0]["blocks"] == blocks


# -- conversations and messages ------------------------------------------------------------


async def test_dm_channel_ids_are_stable_per_user(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """conversations.open gives each person one D… channel, the same on every call."""
    first = await client.conversations_open(users=ALICE)
    again = await client.conversations_open(users=[ALICE])
    other = await client.conversations_open(users=BOB)
    assert first["channel"]["id"].startswith("D")
    assert again["channel"]["id"] == first["channel"]["id"] == standin.dm_channel(ALICE)
    assert again["already_open"] is True
    assert other["channel"]["id"] != first["channel"]["id"]
    missing = await _error(client.conversations_open(users="U0NOBODY0"))
    assert missing.response["error"] == "user_not_found"


async def test_post_to_a_user_id_lands_in_their_dm_with_increasing_ts(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """chat.postMessage to U… posts in the bot's DM with them, each ts greater than the last."""
    answers = [await client.chat_postMessage(channel=ALICE, text=f"n{i}") for i in range(5)]
    dm = standin.dm_channel(ALICE)
    assert {a["channel"] for a in answers} == {dm}
    stamps = [a["ts"] for a in answers]
    assert stamps == sorted(stamps, key=float) and len(set(stamps)) == 5
    assert all(float(a) < float(b) for a, b in itertools.pairwise(stamps))
    message = answers[0]["message"]
    assert message["user"] == standin.workspace.bot_user_id
    assert message["bot_id"] == standin.workspace.bot_id
    history = await client.conversations_history(channel=dm)
    assert [m["text"] for m in history["messages"]] == ["n4", "n3", "n2", "n1", "n0"]


async def test_thread_replies_are_readable(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """Bot replies in a person's thread show in conversations.replies, not in history."""
    question = standin.post_user_message(ALICE, "How much leave do I have?")
    dm = question["channel"]
    reply = await client.chat_postMessage(channel=dm, thread_ts=question["ts"], text="12 days")
    await client.chat_postMessage(channel=dm, thread_ts=reply["ts"], text="anything else?")
    thread = await client.conversations_replies(channel=dm, ts=question["ts"])
    assert [m["text"] for m in thread["messages"]] == [
        "How much leave do I have?",
        "12 days",
        "anything else?",
    ]
    parent, *replies = thread["messages"]
    assert parent["user"] == ALICE and parent["reply_count"] == 2
    assert all(m["thread_ts"] == question["ts"] for m in replies)
    history = await client.conversations_history(channel=dm)
    assert [m["ts"] for m in history["messages"]] == [question["ts"]]
    missing = await _error(client.conversations_replies(channel=dm, ts="1.000001"))
    assert missing.response["error"] == "thread_not_found"


async def test_history_pages_with_a_cursor(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """conversations.history honours limit and returns a next_cursor for the rest."""
    for i in range(5):
        await client.chat_postMessage(channel=ALICE, text=str(i))
    dm = standin.dm_channel(ALICE)
    first = await client.conversations_history(channel=dm, limit=3)
    assert first["has_more"] and [m["text"] for m in first["messages"]] == ["4", "3", "2"]
    cursor = first["response_metadata"]["next_cursor"]
    rest = await client.conversations_history(channel=dm, limit=3, cursor=cursor)
    assert not rest["has_more"] and [m["text"] for m in rest["messages"]] == ["1", "0"]


async def test_update_and_delete(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """chat.update replaces text and blocks in place; chat.delete removes; unknown ts is message_not_found."""
    posted = await client.chat_postMessage(
        channel=ALICE, text="Submit?", blocks=[SectionBlock(text="Submit?")]
    )
    dm, ts = posted["channel"], posted["ts"]
    updated = await client.chat_update(
        channel=dm, ts=ts, text="Submitted", blocks=[SectionBlock(text="Submitted")]
    )
    assert (
        updated["ts"] == ts
        and updated["message"]["edited"]["user"] == standin.workspace.bot_user_id
    )
    stored = standin.workspace.message(dm, ts)
    assert stored["text"] == "Submitted" and stored["blocks"][0]["text"]["text"] == "Submitted"
    missing = await _error(client.chat_update(channel=dm, ts="123.000001", text="x"))
    assert missing.response["error"] == "message_not_found"
    await client.chat_delete(channel=dm, ts=ts)
    assert standin.workspace.history(dm) == []
    gone = await _error(client.chat_delete(channel=dm, ts=ts))
    assert gone.response["error"] == "message_not_found"


async def test_bot_cannot_edit_a_persons_message(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """Updating or deleting a human's message is refused as in Slack."""
    said = standin.post_user_message(ALICE, "hello")
    error = await _error(client.chat_update(channel=said["channel"], ts=said["ts"], text="x"))
    assert error.response["error"] == "cant_update_message"
    error = await _error(client.chat_delete(channel=said["channel"], ts=said["ts"]))
    assert error.response["error"] == "cant_delete_message"


async def test_post_validation(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """No text or blocks is no_text and an unknown channel is channel_not_found."""
    dm = standin.dm_channel(ALICE)
    with pytest.warns(UserWarning, match="text"):
        empty = await _error(client.chat_postMessage(channel=dm))
    assert empty.response["error"] == "no_text"
    unknown = await _error(client.chat_postMessage(channel="C0NOWHERE", text="hi"))
    assert unknown.response["error"] == "channel_not_found"


async def test_blocks_over_slack_limits_are_invalid(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """A 151-character header, a 76-character button and 51 blocks are each invalid_blocks."""
    dm = standin.dm_channel(ALICE)
    # As a dict: slack_sdk's HeaderBlock object would refuse to serialise before sending.
    long_header = {"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}
    header = await _error(client.chat_postMessage(channel=dm, text="t", blocks=[long_header]))
    assert header.response["error"] == "invalid_blocks"
    assert "150" in header.response["errors"][0]
    button = {
        "type": "actions",
        "elements": [
            {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "b" * 76}}
        ],
    }
    assert (await _error(client.chat_postMessage(channel=dm, text="t", blocks=[button]))).response[
        "error"
    ] == "invalid_blocks"
    many = [{"type": "divider"}] * 51
    assert (await _error(client.chat_postMessage(channel=dm, text="t", blocks=many))).response[
        "error"
    ] == "invalid_blocks"
    assert standin.workspace.messages(dm) == []


async def test_plan_blocks_are_accepted_and_their_tasks_checked(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """A plan of task cards posts; a task card with an unknown status is invalid_blocks."""
    good = PlanBlock(
        title="Working on it",
        tasks=[TaskCardBlock(task_id="t1", title="Checking balance", status="complete")],
    )
    posted = await client.chat_postMessage(
        channel=ALICE,
        text="Working on it",
        blocks=[good, ActionsBlock(elements=[ButtonElement(text="Submit", action_id="submit")])],
    )
    assert posted["message"]["blocks"][0]["tasks"][0]["status"] == "complete"
    bad = {
        "type": "plan",
        "title": "x",
        "tasks": [{"type": "task_card", "task_id": "t1", "title": "x", "status": "done"}],
    }
    error = await _error(client.chat_postMessage(channel=ALICE, text="x", blocks=[bad]))
    assert error.response["error"] == "invalid_blocks"


async def test_ephemeral_messages_are_kept_per_user(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """chat.postEphemeral returns a message_ts and only the target person has the message."""
    dm = standin.dm_channel(ALICE)
    answer = await client.chat_postEphemeral(channel=dm, user=ALICE, text="Only you can see this")
    (ephemeral,) = standin.workspace.ephemerals(ALICE)
    assert ephemeral["ts"] == answer["message_ts"] and ephemeral["text"] == "Only you can see this"
    assert standin.workspace.ephemerals(BOB) == [] and standin.workspace.messages(dm) == []
    outsider = await _error(client.chat_postEphemeral(channel=dm, user=BOB, text="x"))
    assert outsider.response["error"] == "user_not_in_channel"


async def test_permalink(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """chat.getPermalink gives an archives link with the ts digits, and thread_ts for replies."""
    said = standin.post_user_message(ALICE, "hi")
    reply = await client.chat_postMessage(
        channel=said["channel"], thread_ts=said["ts"], text="hello"
    )
    top = await client.chat_getPermalink(channel=said["channel"], message_ts=said["ts"])
    assert top["permalink"].endswith(f"/archives/{said['channel']}/p{said['ts'].replace('.', '')}")
    threaded = await client.chat_getPermalink(channel=said["channel"], message_ts=reply["ts"])
    assert f"thread_ts={said['ts']}" in threaded["permalink"]


# -- users ----------------------------------------------------------------------------------


async def test_users_info_and_lookup_by_email(client: AsyncWebClient) -> None:
    """users.info gives profile.email, tz and (with include_locale) locale; lookups are case-insensitive."""
    info = await client.users_info(user=ALICE, include_locale=True)
    user = info["user"]
    assert user["profile"]["email"] == "alice@example.com"
    assert user["tz"] == "Asia/Shanghai" and user["tz_offset"] == 8 * 3600
    assert user["locale"] == "zh-CN" and user["real_name"] == "Alice Wong" and not user["is_bot"]
    plain = await client.users_info(user=ALICE)
    assert "locale" not in plain["user"]
    found = await client.users_lookupByEmail(email="bob@example.com")
    assert found["user"]["id"] == BOB
    missing = await _error(client.users_info(user="U0NOBODY0"))
    assert missing.response.data == {"ok": False, "error": "user_not_found"}
    nobody = await _error(client.users_lookupByEmail(email="nobody@example.com"))
    assert nobody.response["error"] == "users_not_found"


# -- views --------------------------------------------------------------------------------

MODAL = {
    "type": "modal",
    "callback_id": "leave_request",
    "title": {"type": "plain_text", "text": "Request leave"},
    "submit": {"type": "plain_text", "text": "Next"},
    "blocks": [
        {
            "type": "input",
            "block_id": "start",
            "label": {"type": "plain_text", "text": "Start date"},
            "element": {"type": "datepicker", "action_id": "date"},
        }
    ],
}


async def test_views_open_needs_a_fresh_trigger(
    clock_standin: tuple[SlackStandIn, FakeClock],
) -> None:
    """A trigger issued by the stand-in opens one modal within 3 s; stale, reused or unknown ones fail."""
    standin, clock = clock_standin
    client = make_client(standin)
    fresh = standin.issue_trigger_id(ALICE)
    opened = await client.views_open(trigger_id=fresh, view=MODAL)
    view = opened["view"]
    assert view["id"].startswith("V") and view["callback_id"] == "leave_request"
    assert [v["id"] for v in standin.workspace.views.stack(ALICE)] == [view["id"]]
    reused = await _error(client.views_open(trigger_id=fresh, view=MODAL))
    assert reused.response["error"] == "trigger_exchanged"
    stale = standin.issue_trigger_id(ALICE)
    clock.now += 3.5
    expired = await _error(client.views_open(trigger_id=stale, view=MODAL))
    assert expired.response["error"] == "expired_trigger_id"
    unknown = await _error(client.views_open(trigger_id="123.456.abc", view=MODAL))
    assert unknown.response["error"] == "invalid_trigger_id"
    missing = await _error(client.api_call("views.open", json={"view": MODAL}))
    assert missing.response["error"] == "invalid_arguments"


async def test_views_update_push_and_invalid_views(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """views.update keeps the id and checks the hash, views.push stacks, and an over-long title is refused."""
    opened = (await client.views_open(trigger_id=standin.issue_trigger_id(ALICE), view=MODAL))[
        "view"
    ]
    changed = {**MODAL, "title": {"type": "plain_text", "text": "Check dates"}}
    updated = (await client.views_update(view_id=opened["id"], hash=opened["hash"], view=changed))[
        "view"
    ]
    assert updated["id"] == opened["id"] and updated["title"]["text"] == "Check dates"
    conflict = await _error(
        client.views_update(view_id=opened["id"], hash=opened["hash"], view=MODAL)
    )
    assert conflict.response["error"] == "hash_conflict"
    absent = await _error(client.views_update(view_id="V0NOTHERE", view=MODAL))
    assert absent.response["error"] == "not_found"
    pushed = (await client.views_push(trigger_id=standin.issue_trigger_id(ALICE), view=MODAL))[
        "view"
    ]
    assert pushed["previous_view_id"] == opened["id"] and pushed["root_view_id"] == opened["id"]
    long_title = {**MODAL, "title": {"type": "plain_text", "text": "t" * 25}}
    invalid = await _error(
        client.views_open(trigger_id=standin.issue_trigger_id(BOB), view=long_title)
    )
    assert invalid.response["error"] == "invalid_arguments"
    assert standin.workspace.views.stack(BOB) == []


async def test_views_publish_keeps_one_home_per_user(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """views.publish stores each person's Home tab under one stable view id."""
    home = {
        "type": "home",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Nothing pending"}}],
    }
    first = (await client.views_publish(user_id=ALICE, view=home))["view"]
    home["blocks"][0]["text"]["text"] = "1 request pending"
    second = (await client.views_publish(user_id=ALICE, view=home))["view"]
    assert first["id"] == second["id"] and first["type"] == "home"
    assert standin.workspace.views.home(ALICE)["blocks"][0]["text"]["text"] == "1 request pending"
    assert standin.workspace.views.home(BOB) is None
    modal = await _error(client.views_publish(user_id=ALICE, view=MODAL))
    assert modal.response["error"] == "invalid_arguments"


# -- assistant threads and streams ------------------------------------------------------------


async def test_assistant_status_title_and_prompts(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """setStatus, setTitle and setSuggestedPrompts are kept; a bot reply in the thread clears the status."""
    said = standin.post_user_message(ALICE, "leave next Friday")
    dm, ts = said["channel"], said["ts"]
    await client.assistant_threads_setStatus(
        channel_id=dm,
        thread_ts=ts,
        status="is checking…",
        loading_messages=["Reading the calendar"],
    )
    assert standin.workspace.status(dm, ts)["loading_messages"] == ["Reading the calendar"]
    await client.assistant_threads_setTitle(channel_id=dm, thread_ts=ts, title="Leave on Friday")
    await client.assistant_threads_setSuggestedPrompts(
        channel_id=dm,
        thread_ts=ts,
        prompts=[{"title": "Balance", "message": "How much leave do I have?"}],
    )
    snap = standin.snapshot(ALICE)
    assert snap["titles"] == {ts: "Leave on Friday"}
    assert snap["suggested_prompts"][ts]["prompts"][0]["title"] == "Balance"
    await client.chat_postMessage(channel=dm, thread_ts=ts, text="Done")
    assert standin.workspace.status(dm, ts) is None
    missing = await _error(
        client.assistant_threads_setStatus(channel_id="D0NOWHERE", thread_ts=ts, status="x")
    )
    assert missing.response["error"] == "channel_not_found"


async def test_stream_methods_accumulate_text_and_task_updates(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """startStream/appendStream/stopStream build one message whose tasks update by id, then refuse more."""
    said = standin.post_user_message(ALICE, "Book Friday off")
    dm = said["channel"]
    started = await client.chat_startStream(
        channel=dm,
        thread_ts=said["ts"],
        task_display_mode="plan",
        chunks=[
            PlanUpdateChunk(title="Preparing your request"),
            TaskUpdateChunk(
                id="balance", title="Checking your annual leave balance", status="in_progress"
            ),
        ],
    )
    assert started["channel"] == dm and started["ts"]
    ts = started["ts"]
    await client.chat_appendStream(
        channel=dm,
        ts=ts,
        chunks=[
            TaskUpdateChunk(
                id="balance",
                title="Checking your annual leave balance",
                status="complete",
                output="12 days left",
            )
        ],
    )
    await client.chat_appendStream(channel=dm, ts=ts, markdown_text="You have *12 days*.")
    stopped = await client.chat_stopStream(
        channel=dm, ts=ts, chunks=[MarkdownTextChunk(text=" Submit?")]
    )
    stream = stopped["message"]["stream"]
    assert stream["state"] == "completed" and stream["plan_title"] == "Preparing your request"
    assert stream["tasks"] == [
        {
            "id": "balance",
            "title": "Checking your annual leave balance",
            "status": "complete",
            "output": "12 days left",
        }
    ]
    assert stream["markdown_text"] == "You have *12 days*. Submit?"
    assert [entry["type"] for entry in stream["timeline"]] == ["task", "markdown_text"]
    thread = await client.conversations_replies(channel=dm, ts=said["ts"])
    assert thread["messages"][-1]["text"] == "You have *12 days*. Submit?"
    late = await _error(client.chat_appendStream(channel=dm, ts=ts, markdown_text="more"))
    assert late.response["error"] == "message_not_in_streaming_state"
    again = await _error(client.chat_stopStream(channel=dm, ts=ts))
    assert again.response["error"] == "message_not_in_streaming_state"


async def test_chat_stream_helper_with_task_updates(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """slack_sdk's chat_stream helper streams thinking steps and the answer into the thread."""
    said = standin.post_user_message(ALICE, "How much leave?")
    streamer = await client.chat_stream(
        channel=said["channel"], thread_ts=said["ts"], buffer_size=1000
    )
    await streamer.append(
        chunks=[
            TaskUpdateChunk(
                id="t1", title="Checking your annual leave balance", status="in_progress"
            )
        ]
    )
    await streamer.append(
        chunks=[
            TaskUpdateChunk(
                id="t1",
                title="Checking your annual leave balance",
                status="complete",
                output="12 days",
            )
        ]
    )
    await streamer.append(markdown_text="You have 12 days ")
    await streamer.stop(markdown_text="of annual leave.")
    assert [r.method for r in standin.requests] == [
        "chat.startStream",
        "chat.appendStream",
        "chat.stopStream",
    ]
    message = standin.workspace.message(said["channel"], streamer.ts)
    assert message["stream"]["tasks"][0]["status"] == "complete"
    assert message["text"] == "You have 12 days of annual leave."
    assert message["thread_ts"] == said["ts"]


async def test_invalid_chunks_are_refused(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """A task_update with a status Slack does not know is invalid_chunks and starts nothing."""
    said = standin.post_user_message(ALICE, "hi")
    bad = {"type": "task_update", "id": "t1", "title": "x", "status": "done"}
    error = await _error(
        client.chat_startStream(channel=said["channel"], thread_ts=said["ts"], chunks=[bad])
    )
    assert error.response["error"] == "invalid_chunks"
    assert len(standin.workspace.messages(said["channel"])) == 1


# -- faults ----------------------------------------------------------------------------------


async def test_ratelimited_is_retried_after_retry_after(standin: SlackStandIn) -> None:
    """A 429 with Retry-After is retried by AsyncRateLimitErrorRetryHandler and the post lands once."""
    client = make_client(
        standin, retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=1)]
    )
    standin.fail_next("chat.postMessage", retry_after=1)
    answer = await client.chat_postMessage(channel=ALICE, text="Approved")
    assert answer["ok"]
    assert [r.status for r in standin.requests] == [429, 200]
    assert len(standin.workspace.history(answer["channel"])) == 1


async def test_ratelimited_without_a_handler_shows_retry_after(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """Without a retry handler the 429 reaches the caller with ratelimited and a Retry-After header."""
    standin.fail_next("chat.postMessage", retry_after=7)
    error = await _error(client.chat_postMessage(channel=ALICE, text="x"))
    assert error.response.status_code == 429
    assert error.response.headers["Retry-After"] == "7"
    assert error.response["error"] == "ratelimited"


async def test_server_errors_are_retried(standin: SlackStandIn) -> None:
    """A 500 with internal_error and a plain-text 500 are both retried by AsyncServerErrorRetryHandler."""
    client = make_client(standin, retry_handlers=[AsyncServerErrorRetryHandler(max_retry_count=2)])
    standin.fail_next("chat.postMessage", "internal_error", status=500)
    standin.fail_next("chat.postMessage", None, status=500)
    answer = await client.chat_postMessage(channel=ALICE, text="hello")
    assert answer["ok"]
    assert [r.status for r in standin.requests] == [500, 500, 200]
    assert standin.requests[0].response == {"ok": False, "error": "internal_error"}


async def test_plain_errors_on_demand(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """fail_next with a Slack error answers 200 ok:false that many times and changes nothing."""
    standin.fail_next("chat.postMessage", "channel_not_found", times=2)
    for _ in range(2):
        error = await _error(client.chat_postMessage(channel=ALICE, text="x"))
        assert error.response.status_code == 200 and error.response["error"] == "channel_not_found"
    assert (await client.chat_postMessage(channel=ALICE, text="x"))["ok"]
    assert len(standin.workspace.history(standin.dm_channel(ALICE))) == 1


async def test_latency_delays_answers(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """set_latency makes each answer take at least that long."""
    standin.set_latency(0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await client.auth_test()
    assert loop.time() - started >= 0.2


async def test_wait_for_call_sees_a_later_request(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """wait_for_call returns once a matching request has been answered."""

    async def later() -> None:
        await asyncio.sleep(0.05)
        await client.chat_postMessage(channel=ALICE, text="done")

    task = asyncio.create_task(later())
    params = await standin.wait_for_call(
        "chat.postMessage", lambda p: p["text"] == "done", within=2
    )
    await task
    assert params["channel"] == ALICE
    with pytest.raises(TimeoutError):
        await standin.wait_for_call("views.open", within=0.05)


# -- live changes and snapshots -------------------------------------------------------------


async def test_subscribers_receive_each_change(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """A subscriber gets one record per change, in order, routed to the DM's person."""
    queue = standin.subscribe()
    said = standin.post_user_message(ALICE, "hi")
    posted = await client.chat_postMessage(channel=ALICE, thread_ts=said["ts"], text="hello")
    await client.chat_update(channel=posted["channel"], ts=posted["ts"], text="hello again")
    await client.chat_postEphemeral(channel=posted["channel"], user=ALICE, text="psst")
    await client.views_open(trigger_id=standin.issue_trigger_id(ALICE), view=MODAL)
    await client.chat_delete(channel=posted["channel"], ts=posted["ts"])
    records = [queue.get_nowait() for _ in range(queue.qsize())]
    assert [r["kind"] for r in records] == [
        "message.posted",
        "message.posted",
        "message.updated",
        "ephemeral.posted",
        "view.opened",
        "message.deleted",
    ]
    assert {r["user"] for r in records} == {ALICE}
    assert records[2]["message"]["text"] == "hello again"
    assert [r["seq"] for r in records] == sorted(r["seq"] for r in records)
    json.dumps(records)
    standin.unsubscribe(queue)
    await client.chat_postMessage(channel=ALICE, text="unheard")
    assert queue.empty()


async def test_stream_changes_are_published(standin: SlackStandIn, client: AsyncWebClient) -> None:
    """Starting, appending to and stopping a stream each publish a record with the message."""
    said = standin.post_user_message(ALICE, "hi")
    queue = standin.subscribe()
    started = await client.chat_startStream(
        channel=said["channel"], thread_ts=said["ts"], markdown_text="Hel"
    )
    await client.chat_appendStream(channel=said["channel"], ts=started["ts"], markdown_text="lo")
    await client.chat_stopStream(channel=said["channel"], ts=started["ts"])
    records = [queue.get_nowait() for _ in range(queue.qsize())]
    assert [r["kind"] for r in records] == ["stream.started", "stream.appended", "stream.stopped"]
    assert records[1]["message"]["text"] == "Hello"


async def test_snapshot_renders_a_users_client(
    standin: SlackStandIn, client: AsyncWebClient
) -> None:
    """snapshot has the person's DM with threads nested, ephemerals, open modals and Home tab."""
    said = standin.post_user_message(ALICE, "hi")
    await client.chat_postMessage(channel=ALICE, thread_ts=said["ts"], text="hello")
    await client.chat_postMessage(channel=ALICE, text="A request is waiting")
    await client.chat_postEphemeral(channel=said["channel"], user=ALICE, text="psst")
    await client.views_open(trigger_id=standin.issue_trigger_id(ALICE), view=MODAL)
    await client.views_publish(
        user_id=ALICE, view={"type": "home", "blocks": [{"type": "divider"}]}
    )
    snap = standin.snapshot(ALICE)
    assert snap["channel"] == said["channel"] and snap["user"]["id"] == ALICE
    assert [m["text"] for m in snap["messages"]] == ["hi", "A request is waiting"]
    assert [r["text"] for r in snap["messages"][0]["replies"]] == ["hello"]
    assert [e["text"] for e in snap["ephemerals"]] == ["psst"]
    assert snap["views"][0]["callback_id"] == "leave_request"
    assert snap["home"]["type"] == "home"
    assert snap["seq"] == standin.workspace.change_seq
    assert standin.snapshot(BOB)["messages"] == []
    json.dumps(snap)


async def test_raw_http_gets_slack_shaped_answers(standin: SlackStandIn) -> None:
    """A plain HTTP client sees JSON bodies, a 429 with Retry-After and query parameters read."""
    standin.fail_next("users.info", retry_after=3)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(
            f"{standin.api_url}users.info", params={"user": BOB}, headers=headers
        ) as limited:
            assert limited.status == 429 and limited.headers["Retry-After"] == "3"
        async with session.get(
            f"{standin.api_url}users.info", params={"user": BOB}, headers=headers
        ) as ok:
            body = await ok.json()
    assert body["user"]["name"] == "bob"
