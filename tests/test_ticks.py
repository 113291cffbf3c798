"""TickBatch: the calls of one loop tick sent together, each caller told its own outcome and
none left waiting, whatever `send` does."""

from __future__ import annotations

import asyncio

import pytest

from workflow.ticks import TickBatch, per_caller


class Sent:
    """A `send` that records its batches and answers each item doubled (or fails as told)."""

    def __init__(self, fail: BaseException | None = None, drop: int = 0) -> None:
        self.batches: list[list[int]] = []
        self.fail = fail
        self.drop = drop  # results left out of every answer

    async def __call__(self, items: list[int]) -> list[int | BaseException]:
        self.batches.append(items)
        await asyncio.sleep(0)
        if self.fail is not None:
            raise self.fail
        return [ValueError(i) if i < 0 else 2 * i for i in items][: len(items) - self.drop]


async def test_a_caller_cancelled_while_queued_leaves_the_others_their_results():
    sent = Sent()
    batch: TickBatch[int, int] = TickBatch(sent)
    calls = [asyncio.ensure_future(batch(i)) for i in (1, 2, 3)]
    await asyncio.sleep(0)  # all three queued, the flush not yet run
    calls[1].cancel()
    async with asyncio.timeout(2):
        results = await asyncio.gather(*calls, return_exceptions=True)
    assert results[0] == 2 and results[2] == 6
    assert isinstance(results[1], asyncio.CancelledError)
    assert sent.batches == [[1, 2, 3]]  # (still sent: see C in the runner's acquire)


async def test_an_error_of_one_item_is_raised_to_its_caller_alone():
    batch: TickBatch[int, int] = TickBatch(Sent())
    async with asyncio.timeout(2):
        results = await asyncio.gather(batch(1), batch(-1), batch(3), return_exceptions=True)
    assert results[0] == 2 and results[2] == 6 and isinstance(results[1], ValueError)


@pytest.mark.parametrize(
    "sent",
    [
        pytest.param(Sent(fail=KeyError("a bug")), id="send-raises"),
        pytest.param(Sent(drop=1), id="too-few-results"),
    ],
)
async def test_a_send_that_fails_fails_every_caller_and_none_hangs(sent: Sent):
    batch: TickBatch[int, int] = TickBatch(sent)
    async with asyncio.timeout(2):
        results = await asyncio.gather(*(batch(i) for i in range(4)), return_exceptions=True)
    expected = KeyError if sent.fail is not None else RuntimeError
    assert all(isinstance(r, expected) for r in results), results
    sent.fail, sent.drop = None, 0
    async with asyncio.timeout(2):  # and the next tick's calls are sent as usual
        assert await batch(5) == 10


async def test_more_calls_than_max_batch_go_in_batches_of_at_most_max_batch():
    sent = Sent()
    batch: TickBatch[int, int] = TickBatch(sent, max_batch=3)
    async with asyncio.timeout(2):
        results = await asyncio.gather(*(batch(i) for i in range(7)))
    assert results == [2 * i for i in range(7)]
    assert sent.batches == [[0, 1, 2], [3, 4, 5], [6]]


def test_a_pipelines_replies_are_cut_per_caller_each_with_its_own_first_error():
    boom, other = ValueError("boom"), ValueError("other")
    replies = [1, 2, boom, 4, other, 5]
    assert per_caller(replies, [2, 3, 0, 1]) == [[1, 2], boom, [], [5]]
