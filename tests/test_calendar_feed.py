"""The team calendar feed: parsed back with icalendar, names and dates only, 404 for every dead link."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from datetime import date

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from icalendar import Calendar

from bot.budget import VerificationBudget
from bot.calendar_route import CalendarRoute
from bot.chat import ChatSession
from bot.conversation.feeds import CalendarFeeds
from bot.conversation.interactions import Answer
from bot.runtime import Runtime
from bot.settings import Settings
from tests.helpers import approved
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.models import Request

BASE = "https://approvals.example.com"
# Reasons nobody would write by chance: none of them may ever reach a feed.
SICK_REASON = "appendicitis-xq7 surgery"
CHECKUP_REASON = "皮肤科复诊-zz9"
PERSONAL_REASON = "court hearing kv3"


async def pending(engine: Engine, actor: str, fields: dict) -> Request:
    proposal = await engine.prepare_submit(actor, "leave", fields)
    return (await engine.confirm(proposal.pending.id, actor)).request


@pytest.fixture
async def team_leave(engine: Engine) -> dict[str, Request]:
    """Engineering: 张三 sick and 李四 personal leave approved, 陈静's still pending; Oliver (sales) approved."""
    return {
        "zhangsan": await approved(
            engine,
            "zhangsan",
            {
                "leave_type": "sick",
                "start": "2026-12-03",
                "end": "2026-12-04",
                "reason": SICK_REASON,
            },
        ),
        "lisi": await approved(
            engine,
            "lisi",
            {
                "leave_type": "personal",
                "start": "2026-12-14",
                "end": "2026-12-14",
                "end_half": True,
                "reason": PERSONAL_REASON,
            },
        ),
        "chenjing": await pending(
            engine,
            "chenjing",
            {
                "leave_type": "sick",
                "start": "2026-12-07",
                "end": "2026-12-08",
                "reason": CHECKUP_REASON,
            },
        ),
        "oliver": await approved(
            engine, "oliver", {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"}
        ),
    }


@pytest.fixture
async def client(engine: Engine) -> AsyncIterator[TestClient]:
    app = web.Application()
    CalendarRoute(engine, VerificationBudget(per_client=5, total=100)).add_to(app)
    async with TestClient(TestServer(app)) as c:
        yield c


def url_in(answer: Answer) -> str:
    """The link in a create answer's sentence (the only place it is shown)."""
    return next(w for w in answer.text.split() if w.startswith(BASE))


def path_of(url: str | None) -> str:
    assert url is not None and url.startswith(BASE + "/calendar/") and url.endswith(".ics")
    return url[len(BASE) :]


async def fetch(client: TestClient, url: str | None) -> tuple[Calendar, bytes]:
    resp = await client.get(path_of(url))
    assert resp.status == 200, await resp.text()
    assert resp.content_type == "text/calendar"
    body = await resp.read()
    return Calendar.from_ical(body), body


async def test_the_feed_has_the_teams_approved_leave_as_all_day_events(
    engine: Engine, team_leave: dict[str, Request], client: TestClient
):
    """王芳's link: 张三 and 李四 as all-day events (DTEND the day after), stable UIDs; pending and other teams absent."""
    link = await CalendarFeeds(engine, BASE).create(engine.person("wangfang"))
    cal, _ = await fetch(client, url_in(link))
    events = {str(e["summary"]): e for e in cal.walk("VEVENT")}
    assert set(events) == {
        "张三 — 请假",
        "李四 — 请假",
    }  # 王芳 reads Chinese; 陈静 pending, Oliver sales
    zhang = events["张三 — 请假"]
    start, end = zhang.decoded("dtstart"), zhang.decoded("dtend")
    assert type(start) is date and type(end) is date  # DATE values, not DATE-TIME
    assert (start, end) == (date(2026, 12, 3), date(2026, 12, 5))  # exclusive end
    assert events["李四 — 请假"].decoded("dtend") == date(2026, 12, 15)
    assert str(zhang["uid"]) == f"{team_leave['zhangsan'].id}@{engine.keys.org}.approvals-bot"
    again, _ = await fetch(client, url_in(link))
    assert sorted(str(e["uid"]) for e in again.walk("VEVENT")) == sorted(
        str(e["uid"]) for e in cal.walk("VEVENT")
    )
    assert str(cal["x-wr-calname"]) == "团队请假 · 研发部"  # the team's name in 王芳's language


async def test_no_reason_or_leave_type_ever_appears_in_the_feed(
    engine: Engine, team_leave: dict[str, Request], client: TestClient
):
    """Distinctive reasons (and the leave types' names) are in the requests, never in the feed, in either language."""
    for reader in ("wangfang", "david", "zhangsan"):
        link = await CalendarFeeds(engine, BASE).create(engine.person(reader))
        _, body = await fetch(client, url_in(link))
        text = body.decode()
        for secret in (SICK_REASON, CHECKUP_REASON, PERSONAL_REASON, "xq7", "zz9", "kv3"):
            assert secret not in text
        for word in ("Sick", "sick", "病假", "Personal", "事假", "Annual", "年假", "DESCRIPTION"):
            assert word not in text


async def test_an_english_reader_sees_an_english_feed(engine: Engine, client: TestClient):
    """Oliver (sales, en) sees his own approved leave as "Oliver … — out", in "Team leave · Sales"."""
    await approved(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"}
    )
    link = await CalendarFeeds(engine, BASE).create(engine.person("oliver"))
    cal, _ = await fetch(client, url_in(link))
    [event] = cal.walk("VEVENT")
    name = engine.person("oliver").name
    assert str(event["summary"]) == f"{name} — out"
    assert str(cal["x-wr-calname"]) == "Team leave · Sales"


async def test_a_new_link_turns_the_last_off_and_a_revoked_link_is_a_bare_404(
    engine: Engine, team_leave: dict[str, Request], client: TestClient
):
    """Creating again revokes the old link at once; turning off makes the current one 404 with no body."""
    feeds = CalendarFeeds(engine, BASE)
    wangfang = engine.person("wangfang")
    first = await feeds.create(wangfang)
    second = await feeds.create(wangfang)
    old = await client.get(path_of(url_in(first)))
    assert (old.status, await old.read()) == (404, b"")
    await fetch(client, url_in(second))
    off = await feeds.revoke(wangfang)
    assert off.ok and not await feeds.active(wangfang)
    gone = await client.get(path_of(url_in(second)))
    assert (gone.status, await gone.read()) == (404, b"")
    again = await feeds.revoke(wangfang)
    assert not again.ok and again.text == "你没有可停用的团队日历链接。"


async def test_unknown_and_malformed_tokens_are_404_and_guessing_is_429(
    engine: Engine, client: TestClient
):
    """A well-formed unknown token and a malformed one are 404s; past the budget the client gets 429."""
    for path in (
        "/calendar/" + "A" * 43 + ".ics",
        "/calendar/short.ics",
        "/calendar/" + "!" * 43 + ".ics",
    ):
        resp = await client.get(path)
        assert resp.status == 404 and await resp.read() == b""
    for _ in range(3):
        await client.get("/calendar/" + "B" * 43 + ".ics")
    blocked = await client.get("/calendar/" + "C" * 43 + ".ics")
    assert blocked.status == 429


async def test_a_link_of_someone_who_left_the_directory_is_404(
    config: OrgConfig, engine: Engine, client: TestClient
):
    """李四's link stops working once 李四 is no longer in the directory."""
    link = await CalendarFeeds(engine, BASE).create(engine.person("lisi"))
    await fetch(client, url_in(link))
    people = tuple(p for p in config.people if p.id != "lisi")
    after = Engine(config.model_copy(update={"people": people}), engine.store.redis, engine.clock)
    app = web.Application()
    CalendarRoute(after, VerificationBudget()).add_to(app)
    async with TestClient(TestServer(app)) as other:
        resp = await other.get(path_of(url_in(link)))
        assert (resp.status, await resp.read()) == (404, b"")


async def test_an_unchanged_feed_is_a_304_with_its_etag(
    engine: Engine, team_leave: dict[str, Request], client: TestClient
):
    """The subscriber's If-None-Match with the last ETag gets a 304; new leave changes the ETag."""
    link = await CalendarFeeds(engine, BASE).create(engine.person("wangfang"))
    first = await client.get(path_of(url_in(link)))
    tag = first.headers["ETag"]
    assert "private" in first.headers["Cache-Control"]
    same = await client.get(path_of(url_in(link)), headers={"If-None-Match": tag})
    assert same.status == 304
    await approved(
        engine, "chenjing", {"leave_type": "annual", "start": "2026-12-28", "end": "2026-12-28"}
    )
    changed = await client.get(path_of(url_in(link)), headers={"If-None-Match": tag})
    assert changed.status == 200 and changed.headers["ETag"] != tag


def session(engine: Engine, person: str) -> tuple[ChatSession, io.StringIO]:
    runtime = Runtime(Settings(public_url=BASE), engine.store.redis, engine, None, None, None)  # type: ignore[arg-type]
    out = io.StringIO()
    return ChatSession(runtime, person, out=out), out


@pytest.mark.parametrize(
    ("person", "made", "off"),
    [
        ("oliver", "Your team calendar link", "Your team calendar link is turned off"),
        ("zhangsan", "你的团队日历链接", "你的团队日历链接已停用"),
    ],
)
async def test_the_terminal_makes_and_turns_off_a_link(
    engine: Engine, client: TestClient, person: str, made: str, off: str
):
    """/calendar prints a working link with how to subscribe; /calendar off turns it off (en and zh)."""
    chat, out = session(engine, person)
    await chat.handle("/calendar")
    text = out.getvalue()
    assert made in text and "Google" in text and "Outlook" in text
    url = next(w for w in text.split() if w.startswith(BASE))
    await fetch(client, url)
    await chat.handle("/日历 关闭" if person == "zhangsan" else "/calendar off")
    assert off in out.getvalue()
    assert (await client.get(path_of(url))).status == 404


def test_a_public_url_must_be_an_address():
    """PUBLIC_URL that is not an http(s) address is refused when settings load."""
    with pytest.raises(ValueError, match="public_url"):
        Settings(public_url="approvals.example.com")
    assert Settings(public_url=BASE + "/").base_url == BASE
    assert Settings(port=8080).base_url == "http://localhost:8080"
