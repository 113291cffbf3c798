"""The Slack bot end to end: signed requests in, Web API calls out, the engine deciding in between."""

from __future__ import annotations

import json

from tests.slack.harness import SlackHarness

ZHANG, WANG, LIU, LISI, OLIVER, EMMA = (
    "U0ZHANGSAN",
    "U0WANGFANG",
    "U0LIUYANG",
    "U0LISI",
    "U0OLIVER",
    "U0EMMA",
)


def button_message(messages, action_id):
    """The newest message (top level or in a thread) carrying a button `action_id`."""
    found = None
    for m in messages:
        for candidate in [m, *m.get("replies", [])]:
            for block in candidate.get("blocks") or []:
                if block.get("type") == "actions" and any(
                    e.get("action_id") == action_id for e in block.get("elements", [])
                ):
                    found = candidate
    return found


def texts(messages) -> str:
    out = []
    for m in messages:
        for c in [m, *m.get("replies", [])]:
            out.append(c.get("text") or "")
            out.append(json.dumps(c.get("blocks") or [], ensure_ascii=False))
            out.append((c.get("stream") or {}).get("markdown_text") or "")
    return "\n".join(out)


async def ask_and_submit(h: SlackHarness, user: str, text: str) -> str:
    resp, _envelope = await h.dm(user, text)
    assert resp.status == 200
    await h.settle()
    card = button_message(h.dm_messages(user), "pending_confirm")
    assert card is not None, texts(h.dm_messages(user))
    await h.click(user, card, "pending_confirm")
    await h.settle()
    [req] = await h.engine.my_requests(h.engine.directory.by_slack_id(user).id)
    return req.id


async def test_a_leave_request_from_dm_to_final_approval_over_two_steps(slack: SlackHarness):
    """张三 asks in Chinese, submits on the card; 王芳 then 刘洋 approve from their DMs; everyone is told."""
    h = slack
    resp, envelope = await h.dm(ZHANG, "明天肚子疼，想请10天假")
    assert resp.status == 200
    await h.settle()
    thread = h.thread(ZHANG, envelope["event"]["ts"])
    card = button_message(h.dm_messages(ZHANG), "pending_confirm")
    assert card is not None and card["thread_ts"] == envelope["event"]["ts"]
    assert "病假" in texts([card]) and "10" in texts([card])
    streamed = [m for m in thread if m.get("stream")]
    assert streamed and any(t["status"] == "complete" for t in streamed[0]["stream"]["tasks"])
    # "is thinking…" was shown, and the answer cleared it (Slack clears it on the bot's reply:
    # one setStatus call, none to clear it)
    assert len(h.standin.calls("assistant.threads.setStatus")) == 1
    assert h.standin.workspace.status(card["channel"], envelope["event"]["ts"]) is None

    await h.click(ZHANG, card, "pending_confirm")
    await h.settle()
    updated = h.standin.workspace.message(card["channel"], card["ts"])
    assert "王芳" in texts([updated]) and button_message([updated], "pending_confirm") is None
    [req] = await h.engine.my_requests("zhangsan")
    assert req.status.value == "pending"

    approver_card = button_message(h.dm_messages(WANG), "request_approve")
    assert approver_card is not None and "张三" in texts([approver_card])
    await h.click(WANG, approver_card, "request_approve")
    await h.settle()
    hr_card = button_message(h.dm_messages(LIU), "request_approve")
    assert hr_card is not None
    await h.click(LIU, hr_card, "request_approve")
    await h.settle()

    final = await h.engine.get_request(req.id, "zhangsan")
    assert final.status.value == "approved"
    assert (
        button_message(h.dm_messages(WANG), "request_approve") is None
    )  # cards closed for everyone
    assert button_message(h.dm_messages(LIU), "request_approve") is None
    requester_dms = [m for m in h.dm_messages(ZHANG) if m.get("metadata")]
    kinds = [m["metadata"]["event_payload"]["event_id"] for m in requester_dms]
    assert len(kinds) == len(set(kinds)) >= 3  # submitted, step approved, approved — each once
    assert not [r for r in h.standin.requests if not r.ok and r.method != "chat.startStream"], (
        "a Web API call failed"
    )


async def test_rejection_asks_for_a_reason_in_a_modal_and_tells_the_requester(slack: SlackHarness):
    """Reject opens a modal; an empty reason is refused on the field; with one the requester hears why."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    card = button_message(h.dm_messages(EMMA), "request_approve")
    await h.click(EMMA, card, "request_reject")
    opened = await h.standin.wait_for_call("views.open")
    view = opened["view"]
    assert view["callback_id"] == "reject_reason"
    resp = await h.submit_view(
        EMMA, view, {"reason": {"reason": {"type": "plain_text_input", "value": ""}}}
    )
    body = await resp.json()
    assert body["response_action"] == "errors" and "reason" in body["errors"]
    resp = await h.submit_view(
        EMMA,
        view,
        {"reason": {"reason": {"type": "plain_text_input", "value": "Quarter-end demos"}}},
    )
    assert resp.status == 200
    await h.settle()
    assert (await h.engine.get_request(req_id, "oliver")).status.value == "rejected"
    assert "Quarter-end demos" in texts(h.dm_messages(OLIVER))
    assert button_message(h.dm_messages(EMMA), "request_approve") is None


async def test_withdrawal_through_the_agent_closes_the_approvers_card(slack: SlackHarness):
    """The requester withdraws in chat and confirms; the approver's card loses its buttons and they are told."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    await h.dm(OLIVER, f"please withdraw {req_id}")
    await h.settle()
    card = button_message(h.dm_messages(OLIVER), "pending_confirm")
    await h.click(OLIVER, card, "pending_confirm")
    await h.settle()
    assert (await h.engine.get_request(req_id, "oliver")).status.value == "withdrawn"
    assert button_message(h.dm_messages(EMMA), "request_approve") is None


async def test_a_wrong_person_clicking_approve_gets_an_explanation_and_nothing_changes(
    slack: SlackHarness,
):
    """李四 clicking 王芳's Approve button (a forwarded card) is refused by the engine, privately."""
    h = slack
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    card = button_message(h.dm_messages(WANG), "request_approve")
    before = await h.engine.store.redis.xlen(h.engine.keys.outbox)
    await h.click(LISI, card, "request_approve")
    await h.settle()
    eph = h.standin.calls("chat.postEphemeral")
    assert eph and eph[-1]["user"] == LISI and "王芳" in eph[-1]["text"]
    assert await h.engine.store.redis.xlen(h.engine.keys.outbox) == before
    assert (await h.engine.get_request(req_id, "zhangsan")).current_step == 0


async def test_a_double_click_is_recorded_once(slack: SlackHarness):
    """Two clicks on Approve (the second on a stale copy of the card) make one decision."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday")
    card = button_message(h.dm_messages(EMMA), "request_approve")
    await h.click(EMMA, card, "request_approve")
    await h.click(EMMA, card, "request_approve")
    await h.settle()
    req = await h.engine.get_request(req_id, "oliver")
    assert [x.action for x in req.history].count("approved") == 2  # the step's and the request's
    events = await h.engine.store.redis.xrange(h.engine.keys.outbox)
    assert [e[1]["type"] for e in events].count("request_approved") == 1


async def test_an_event_delivered_three_times_runs_one_turn(slack: SlackHarness):
    """Slack's retries of one event id are acked and dropped: one reply thread, one card."""
    h = slack
    _resp, envelope = await h.dm(OLIVER, "annual leave next Monday")
    for n in (1, 2):
        again = await h.redeliver(envelope, retry=n)
        assert again.status == 200
    await h.settle()
    cards = [
        c
        for m in h.dm_messages(OLIVER)
        for c in m.get("replies", [])
        if button_message([c], "pending_confirm")
    ]
    assert len(cards) == 1


async def test_unsigned_or_expired_requests_are_refused(slack: SlackHarness):
    """A bad signature or a timestamp over five minutes old gets 401 and nothing happens."""
    h = slack
    body = json.dumps(
        {
            "type": "event_callback",
            "event_id": "EvX",
            "team_id": "T0ACME",
            "event": {
                "type": "message",
                "channel_type": "im",
                "user": OLIVER,
                "text": "annual leave tomorrow",
                "ts": "1.1",
                "channel": "D1",
            },
        }
    )
    bad = await h.post(
        body,
        "application/json",
        {"X-Slack-Request-Timestamp": "1", "X-Slack-Signature": "v0=deadbeef"},
    )
    assert bad.status == 401
    import time

    stale = await h.post(
        body, "application/json", h.signed_headers(body, ts=int(time.time()) - 600)
    )
    assert stale.status == 401
    await h.settle()
    assert h.standin.calls("chat.postMessage") == [] and h.standin.calls("chat.startStream") == []


async def test_someone_not_in_the_directory_is_told_politely(slack: SlackHarness):
    """A Slack user the directory does not know gets a DM saying so and who to ask, and nothing else."""
    h = slack
    h.standin.add_user("U0STRANGER", "stranger", "A Stranger", "stranger@elsewhere.example")
    await h.dm("U0STRANGER", "I need leave tomorrow")
    await h.settle()
    said = texts(h.dm_messages("U0STRANGER"))
    assert "not in the approvals directory" in said and "刘洋" in said
    assert await h.engine.store.redis.xlen(h.engine.keys.outbox) == 0


async def test_a_person_found_by_email_is_recognised(slack: SlackHarness):
    """Without a Slack id in the directory, the users.info email maps the Slack user to the person."""
    h = slack
    h.standin.add_user("U0NEWID", "olly", "Oliver Smith", "oliver.smith@acme.example")
    person = await h.bot.identity.person_for("T0ACME", "U0NEWID")
    assert person is not None and person.id == "oliver"


async def test_when_the_llm_is_unreachable_the_planner_answers_and_says_so(slack: SlackHarness):
    """An LLM that refuses connections: the offline planner prepares the request and the thread says why."""
    from agent.llm.openai_compat import OpenAICompatModel
    from agent.llm.options import options_for

    h = slack
    h.bot.runtime.agent.model = OpenAICompatModel(
        options_for(
            "generic", base_url="http://127.0.0.1:9/v1", model="m", max_retries=0, timeout_s=1
        )
    )
    await h.dm(OLIVER, "annual leave next Monday")
    await h.settle()
    said = texts(h.dm_messages(OLIVER))
    assert "offline assistant" in said
    assert button_message(h.dm_messages(OLIVER), "pending_confirm") is not None
    await h.bot.runtime.agent.model.close()


async def test_the_leave_command_opens_the_form_and_shows_field_errors(slack: SlackHarness):
    """/leave opens the modal at once; an end before the start comes back on the field; a good form submits."""
    h = slack
    resp = await h.command(OLIVER)
    assert resp.status == 200
    opened = await h.standin.wait_for_call("views.open")
    view = opened["view"]
    assert view["callback_id"] == "leave_form"

    def values(start, end):
        return {
            "leave_type": {
                "leave_type": {"type": "static_select", "selected_option": {"value": "annual"}}
            },
            "start": {"start": {"type": "datepicker", "selected_date": start}},
            "end": {"end": {"type": "datepicker", "selected_date": end}},
            "halves": {"halves": {"type": "checkboxes", "selected_options": []}},
            "reason": {"reason": {"type": "plain_text_input", "value": None}},
        }

    bad = await h.submit_view(OLIVER, view, values("2026-12-10", "2026-12-08"))
    body = await bad.json()
    assert body["response_action"] == "errors" and "end" in body["errors"]
    assert await h.engine.my_requests("oliver") == []
    good = await h.submit_view(OLIVER, view, values("2026-12-08", "2026-12-10"))
    assert good.status == 200
    await h.settle()
    [req] = await h.engine.my_requests("oliver")
    assert req.status.value == "pending" and req.derived["working_days"] == 3
    assert button_message(h.dm_messages(EMMA), "request_approve") is not None


async def test_the_leave_command_with_text_runs_the_agent_in_the_dm(slack: SlackHarness):
    """/leave <text> acks with a short line and answers in a DM thread with a confirm card."""
    h = slack
    resp = await h.command(OLIVER, "annual leave next Monday")
    assert resp.status == 200 and "DM" in await resp.text()
    await h.settle()
    assert button_message(h.dm_messages(OLIVER), "pending_confirm") is not None


async def test_the_home_tab_shows_balances_requests_and_approvals(slack: SlackHarness):
    """app_home_opened publishes a Home tab with the person's balances and pending approvals."""
    h = slack
    await ask_and_submit(h, OLIVER, "annual leave next Monday")
    body = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T0ACME",
            "event_id": "EvHome1",
            "event": {"type": "app_home_opened", "user": EMMA, "channel": "D0X", "tab": "home"},
        }
    )
    resp = await h.post(body, "application/json")
    assert resp.status == 200
    published = await h.standin.wait_for_call("views.publish")
    home = json.dumps(published["view"], ensure_ascii=False)
    assert "Oliver Smith" in home and "request_approve" in home and "Annual leave" in home


async def test_without_streaming_the_steps_are_a_plan_message_updated_in_place(slack: SlackHarness):
    """When chat.startStream fails, the steps appear as a plan block of task cards updated with chat.update."""
    h = slack
    h.bot.streaming = False
    await h.dm(OLIVER, "what is my balance?")
    await h.settle()
    plans = [
        c
        for m in h.dm_messages(OLIVER)
        for c in m.get("replies", [])
        if any(b.get("type") == "plan" for b in c.get("blocks") or [])
    ]
    assert plans and "Annual leave" in texts(plans)


async def test_a_thread_is_in_one_language_the_one_the_person_wrote_in(slack: SlackHarness):
    """Oliver's Slack is English; he writes in Chinese: the answer, the card and the clicked card are all Chinese."""
    h = slack
    await h.dm(OLIVER, "下周一到周三请年假")
    await h.settle()
    card = button_message(h.dm_messages(OLIVER), "pending_confirm")
    assert card is not None, texts(h.dm_messages(OLIVER))
    shown = texts([card])
    assert "提交此申请？" in shown and "年假" in shown and "取消" in shown
    assert "Submit" not in shown and "Annual leave" not in shown and "Cancel" not in shown
    await h.click(OLIVER, card, "pending_confirm")
    await h.settle()
    closed = texts([h.standin.workspace.message(card["channel"], card["ts"])])
    assert "已提交" in closed and "Confirmed" not in closed and "Submitted" not in closed


async def test_the_home_tab_makes_and_turns_off_a_team_calendar_link(slack: SlackHarness):
    """Home tab: [Team calendar link] opens a modal with a live link; [Turn off] makes it 404 (en and zh)."""
    h = slack
    for user, made, off in (
        (EMMA, "Your team calendar link", "Your team calendar link is turned off"),
        (ZHANG, "你的团队日历链接", "你的团队日历链接已停用"),
    ):
        await h.sim.home_opened(user)
        await h.standin.wait_for_call("views.publish", lambda p, u=user: p.get("user_id") == u)
        home = h.standin.workspace.views.home(user)
        await h.sim.click_in_view(user, home, "calendar_feed_create")
        await h.bot.tasks.idle()
        opened = await h.standin.wait_for_call(
            "views.open", lambda p, m=made: m in json.dumps(p, ensure_ascii=False)
        )
        text = json.dumps(opened["view"], ensure_ascii=False)
        url = next(w for w in text.replace("\\n", " ").split() if "/calendar/" in w)
        path = url[url.index("/calendar/") :]
        feed = await h.http.get(h.make_url(path))
        assert feed.status == 200 and "BEGIN:VCALENDAR" in await feed.text()
        home = h.standin.workspace.views.home(user)
        assert "calendar_feed_revoke" in json.dumps(home)
        await h.sim.click_in_view(user, home, "calendar_feed_revoke")
        await h.bot.tasks.idle()
        await h.standin.wait_for_call(
            "views.open", lambda p, o=off: o in json.dumps(p, ensure_ascii=False)
        )
        assert (await h.http.get(h.make_url(path))).status == 404
        assert "calendar_feed_revoke" not in json.dumps(h.standin.workspace.views.home(user))


async def test_the_delegation_form_shows_field_errors_in_the_readers_language(slack: SlackHarness):
    """A Chinese-speaking approver who delegates to herself, or until a day gone by, reads why
    under the field in Chinese; an English speaker reads the same in English."""
    h = slack

    async def open_form(user: str, opened_before: int) -> dict:
        await h.sim.home_opened(user)
        await h.settle()
        home = h.standin.workspace.views.home(user)
        assert home is not None
        await h.sim.click_in_view(user, home, "open_delegation_form")
        opened = await h.standin.wait_for_call("views.open", count=opened_before + 1)
        return opened["view"]

    async def submit(user: str, view: dict, delegate: str, start: str, end: str) -> dict:
        values = {
            "delegate": {"delegate": {"selected_option": {"value": delegate}}},
            "start": {"start": {"selected_date": start}},
            "end": {"end": {"selected_date": end}},
            "reason": {"reason": {"value": None}},
        }
        body = await (await h.submit_view(user, view, values)).json()
        assert body["response_action"] == "errors"
        return body["errors"]

    form = await open_form(WANG, 0)  # wangfang reads Chinese
    assert await submit(WANG, form, "wangfang", "2026-12-07", "2026-12-11") == {
        "delegate": "不能委托给自己，请选择一位同事。"
    }
    past = await submit(WANG, form, "chenjing", "2026-11-20", "2026-11-27")
    assert set(past) == {"end"} and "已经过去" in past["end"]
    assert "has passed" not in past["end"] and "2026-11-27" not in past["end"]
    form = await open_form(EMMA, 1)
    assert await submit(EMMA, form, "emma", "2026-12-07", "2026-12-11") == {
        "delegate": "You cannot delegate to yourself; choose a colleague."
    }
    assert await h.engine.delegations() == []


async def test_a_balance_asked_for_is_read_once_in_the_thread(slack: SlackHarness):
    """Oliver's "how many days of annual leave do I have left": the step says it was checked
    (done, no line under it) and the answer gives the days, so the thread says them once."""
    h = slack
    resp, envelope = await h.dm(OLIVER, "how many days of annual leave do I have left")
    assert resp.status == 200
    await h.settle()
    thread = h.thread(OLIVER, envelope["event"]["ts"])
    [streamed] = [m for m in thread if m.get("stream")]
    [task] = streamed["stream"]["tasks"]
    assert task["status"] == "complete" and task["title"] == "Checking your leave balances"
    assert not task.get("output"), task
    shown = json.dumps(streamed["stream"]["tasks"]) + streamed["stream"]["markdown_text"]
    assert "Your balances for 2026" in streamed["stream"]["markdown_text"]
    assert shown.count("Annual leave: 25 of 25 days left") == 1, shown
