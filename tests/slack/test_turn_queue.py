"""The durable turn queue seen from Slack: queued before the ack, in order per thread, reclaimed, dead-lettered."""

from __future__ import annotations

import asyncio
import dataclasses

import fakeredis

from bot.queue import QueueUnavailable, Turn, TurnJournal
from bot.queue.admin import list_dead, replay
from bot.slack.queued import slack_thread
from tests.slack.harness import SlackHarness
from workflow.keys import turn_journal

OLIVER = "U0OLIVER"
LEAVE = "annual leave next Monday"


def cards_in(h: SlackHarness, user: str, thread_ts: str) -> list[dict]:
    return [
        r
        for r in h.thread(user, thread_ts)
        if any(
            b.get("type") == "actions"
            and any(e.get("action_id") == "pending_confirm" for e in b.get("elements", []))
            for b in r.get("blocks") or []
        )
    ]


def streams_in(h: SlackHarness, user: str, thread_ts: str) -> list[dict]:
    return [r for r in h.thread(user, thread_ts) if r.get("stream")]


def fast(h: SlackHarness, **limits: float) -> None:
    """Short leases and reclaim windows, so a dead runner's turn comes back within a test."""
    runner = h.bot.turns.runner
    runner.limits = dataclasses.replace(runner.limits, **limits)


async def taken_by_a_dying_runner(h: SlackHarness) -> tuple[dict, Turn]:
    """Oliver's DM queued and its turn taken, under the thread's lease, by a runner about to die
    (short leases and reclaim windows; this process's own runner paused until the test starts it)."""
    fast(h, lease_s=0.3, reclaim_idle_s=0.3)
    runner, queue = h.bot.turns.runner, h.bot.turns.queue
    runner.paused = True  # the dying runner takes the entry, not this process's pump
    await queue.ensure_group()
    _resp, envelope = await h.dm(OLIVER, LEAVE)
    [turn] = await queue.read("dead-runner", 1)
    assert await queue.acquire(turn, "dead-token", 300) == 1
    return envelope, turn


async def wait_for(check, within: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_a_dm_is_queued_before_the_ack_and_answered_by_the_runner(slack: SlackHarness):
    """The 200 comes back with the turn queued; the runner answers it; the queue is empty after."""
    h = slack
    resp, envelope = await h.dm(OLIVER, LEAVE)
    assert resp.status == 200
    await h.settle()
    ts = envelope["event"]["ts"]
    assert len(cards_in(h, OLIVER, ts)) == 1 and len(streams_in(h, OLIVER, ts)) == 1
    assert await h.bot.turns.queue.depth() == 0


async def test_a_queue_that_cannot_be_reached_answers_503_so_slack_retries(slack: SlackHarness):
    """With Redis down at ingress, the DM is refused with 503 (not acked and dropped); the retry is answered."""
    h = slack
    queue = h.bot.turns.queue
    server = fakeredis.FakeServer()
    server.connected = False
    healthy = queue.ingress
    queue.use_ingress(fakeredis.FakeAsyncRedis(server=server, decode_responses=True), 1.0)
    resp, envelope = await h.dm(OLIVER, LEAVE)
    assert resp.status == 503
    queue.use_ingress(healthy, 1.0)
    again = await h.redeliver(envelope, retry=1)
    assert again.status == 200
    await h.settle()
    assert len(cards_in(h, OLIVER, envelope["event"]["ts"])) == 1


async def test_a_slow_queue_is_refused_within_the_deadline(slack: SlackHarness):
    """An enqueue that hangs is given up after the ingress deadline, with QueueUnavailable."""
    h = slack
    turns = h.bot.turns

    class Hanging(fakeredis.FakeAsyncRedis):
        def pipeline(self, transaction: bool = True, shard_hint: object = None) -> object:
            pipe = super().pipeline(transaction, shard_hint)

            async def hang(raise_on_error: bool = True) -> None:
                await asyncio.sleep(5)

            pipe.execute = hang  # type: ignore[method-assign]
            return pipe

    turns.queue.use_ingress(Hanging(decode_responses=True), 0.1)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        await turns.submit("slack", "ev-slow", "dm", "t", {}, seen_ttl_s=60)
    except QueueUnavailable:
        pass
    else:
        raise AssertionError("a hung enqueue was taken as queued")
    assert loop.time() - started < 1.0


async def test_turns_of_one_thread_run_in_order_and_other_threads_alongside(slack: SlackHarness):
    """Two messages of one thread run one after the other, in order; another thread's runs meanwhile."""
    h = slack
    runner = h.bot.turns.runner
    log: list[tuple[str, str]] = []

    class Recorder:
        async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
            log.append(("start", turn.data["n"]))
            await asyncio.sleep(0.15)
            log.append(("end", turn.data["n"]))

        async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
            raise AssertionError("nothing fails here")

    runner.register("test", Recorder(), h.bot.tasks)
    for n, thread in (("a1", "A"), ("a2", "A"), ("b1", "B")):
        await h.bot.turns.submit("test", n, "dm", thread, {"n": n}, seen_ttl_s=60)
    await h.bot.tasks.idle()
    assert log.index(("end", "a1")) < log.index(("start", "a2"))
    assert log.index(("start", "b1")) < log.index(("end", "a1"))
    assert await h.bot.turns.queue.depth() == 0


async def test_a_dead_runners_turn_is_run_again_and_the_person_sees_one_answer(slack: SlackHarness):
    """A runner dies after posting the card: another reclaims the turn; one card, one stream, one answer."""
    h = slack
    runner, queue = h.bot.turns.runner, h.bot.turns.queue
    envelope, turn = await taken_by_a_dying_runner(h)
    ts = envelope["event"]["ts"]

    carded = asyncio.Event()
    registry = h.bot.lifecycle.registry
    record_card = registry.add_confirm

    async def dies_after_the_card(*args: object) -> None:
        await record_card(*args)  # the card, and the journal's record of it, are stored
        carded.set()
        await asyncio.Event().wait()  # hangs here until the "process" is killed

    registry.add_confirm = dies_after_the_card  # type: ignore[method-assign]
    journal = TurnJournal(queue.redis, turn_journal(queue.org, turn.id), 1)
    handler = runner.handlers["slack"]
    dying = asyncio.create_task(handler.run_turn(turn, journal))
    await asyncio.wait_for(carded.wait(), 10)
    dying.cancel()  # the process is gone: nothing acked, the lease runs out
    registry.add_confirm = record_card  # type: ignore[method-assign]
    assert (await TurnJournal(queue.redis, journal.key, 2).load()).get("card:1")
    first_card = cards_in(h, OLIVER, ts)[0]

    runner.paused = False
    stop = asyncio.Event()
    loop_task = asyncio.create_task(runner.run(stop))
    await wait_for(
        lambda: any(s["stream"]["state"] == "completed" for s in streams_in(h, OLIVER, ts))
    )
    await h.bot.tasks.idle()
    stop.set()
    await loop_task

    [card] = cards_in(h, OLIVER, ts)
    assert card["ts"] == first_card["ts"]  # the same card, replaced in place
    assert len(streams_in(h, OLIVER, ts)) == 1
    # the re-run posted nothing new (it continued the stream, replaced the card): it cleared
    # its own "is thinking…" itself
    assert h.standin.workspace.status(card["channel"], ts) is None
    assert await queue.depth() == 0
    await h.click(OLIVER, card, "pending_confirm")
    await h.settle()
    assert [r.status.value for r in await h.engine.my_requests("oliver")] == ["pending"]


async def test_a_runner_dead_after_the_answer_is_saved_is_not_answered_twice(slack: SlackHarness):
    """The answer is recorded in the round trip that saves the turn to memory: a runner that dies
    right after it, before it finished the entry, leaves a turn the next runner ends silently."""
    h = slack
    runner, queue = h.bot.turns.runner, h.bot.turns.queue
    envelope, turn = await taken_by_a_dying_runner(h)
    ts = envelope["event"]["ts"]

    saved = asyncio.Event()
    memory = h.bot.runtime.agent.memory
    save = memory.save

    async def dies_after_the_save(*args: object) -> None:
        await save(*args)  # type: ignore[arg-type]
        saved.set()
        await asyncio.Event().wait()  # hangs here until the "process" is killed

    memory.save = dies_after_the_save  # type: ignore[method-assign]
    journal = TurnJournal(queue.redis, turn_journal(queue.org, turn.id), 1)
    dying = asyncio.create_task(runner.handlers["slack"].run_turn(turn, journal))
    await asyncio.wait_for(saved.wait(), 10)
    dying.cancel()
    memory.save = save  # type: ignore[method-assign]
    assert (await TurnJournal(queue.redis, journal.key, 2).load()).answered

    runner.paused = False
    stop = asyncio.Event()
    loop_task = asyncio.create_task(runner.run(stop))
    for _ in range(200):
        if await queue.depth() == 0:
            break
        await asyncio.sleep(0.02)
    await h.bot.tasks.idle()
    stop.set()
    await loop_task
    assert await queue.depth() == 0
    assert len(cards_in(h, OLIVER, ts)) == 1
    [stream] = streams_in(h, OLIVER, ts)
    assert stream["stream"]["state"] == "completed"
    thread = slack_thread(envelope["team_id"], envelope["event"]["channel"], ts)
    history = await memory.load(thread)
    assert [m.role for m in history].count("user") == 1  # the turn saved once


async def test_a_turn_that_fails_three_times_is_dead_lettered_then_replayed(slack: SlackHarness):
    """Three failures: the person is told, the turn is listed as a dead letter; a replay answers it."""
    h = slack
    runner = h.bot.turns.runner
    real = runner.handlers["slack"]
    failures = []

    class Flaky:
        async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
            failures.append(turn.id)
            raise RuntimeError("a bug in the turn")

        async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
            await real.give_up(turn, journal)

    runner.handlers["slack"] = Flaky()
    _resp, envelope = await h.dm(OLIVER, LEAVE)
    await h.settle()
    ts = envelope["event"]["ts"]
    assert len(failures) == 3
    assert any("failed three times" in (r.get("text") or "") for r in h.thread(OLIVER, ts))
    listing = await list_dead(h.bot.turns.queue)
    assert "1 dead letter(s)" in listing and "RuntimeError" in listing

    runner.handlers["slack"] = real
    [(dead_id, _)] = await h.bot.turns.queue.dead_letters()
    queued, missing = await replay(h.bot.turns.queue, [dead_id], False)
    assert queued and not missing
    runner.wake()
    await h.settle()
    assert len(cards_in(h, OLIVER, ts)) == 1
    assert "0 dead letter(s)" in await list_dead(h.bot.turns.queue)


async def test_a_follow_up_right_after_a_turn_is_answered_without_a_false_still_working(
    slack: SlackHarness,
):
    """Two quick messages in one thread: both answered, in order, and never 'still working'."""
    h = slack
    _resp, envelope = await h.dm(OLIVER, "what is my balance?")
    ts = envelope["event"]["ts"]
    await h.dm(OLIVER, "and my requests?", thread_ts=ts)
    await h.settle()
    said = " ".join(
        (r.get("text") or "") + str((r.get("stream") or {}).get("markdown_text") or "")
        for r in h.thread(OLIVER, ts)
    )
    assert "still working" not in said
    assert len(streams_in(h, OLIVER, ts)) == 2
