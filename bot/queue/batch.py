"""Ingress's Redis calls of one event-loop tick sent together: one round trip for a burst.

A burst of events reaches the ingress handlers in the same few loop iterations; each used to
take a pooled connection, arm its own timer and make its own round trip, and that work,
not Redis, was most of an ack's CPU. Here each call only joins the current batch, with a
callback for its reply (`call`; or awaits it: `__call__`); the batch goes out as one pipeline (not a transaction: each script is atomic on its own) under
one deadline. No call is retried blindly: a script Redis did not know (NOSCRIPT, after a
restart) did not run, so it is loaded and those calls alone are sent again; anything else
that goes wrong fails every call of the batch, which the edge answers with a 503.

On a plain Redis the batch is written as RESP bytes built here and its replies read straight
off one pooled connection: redis-py's pipeline packs each argument through its encoder and
its command stack, which cost more than twice the CPU of everything else an enqueue does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

import hiredis
import redis.asyncio as aioredis
import redis.exceptions
import structlog

from bot.queue.errors import QueueUnavailable
from workflow.ticks import MAX_BATCH  # (one bound for every batch of a tick)

log = structlog.get_logger("turns")

BATCH_CONNECTIONS = 8  # batches in flight at once; a burst is one or two

# Told a call's reply: the script's value, or the QueueUnavailable that failed it
Reply = Callable[[Any], None]
_Call = tuple[list[str], list[Any], Reply]


def settle(future: asyncio.Future[Any], value: Any) -> None:
    """A `Reply` that resolves `future`: its result, or the QueueUnavailable raised."""
    if future.done():  # its caller gave up
        return
    if isinstance(value, QueueUnavailable):
        future.set_exception(value)
    else:
        future.set_result(value)


def _tell(reply: Reply, value: Any) -> None:
    """Give a caller its reply; a caller's bug is logged, and the rest of the batch still told."""
    try:
        reply(value)
    except Exception:
        log.exception("batch_reply_failed")


def _noscript(reply: Any) -> bool:
    return isinstance(reply, redis.exceptions.NoScriptError) or (
        isinstance(reply, redis.exceptions.ResponseError) and str(reply).startswith("NOSCRIPT")
    )


def untimed(client: aioredis.Redis) -> aioredis.Redis:
    """A client of the same server without a timeout per read, or `client` if it has none.

    A pipeline reads its replies one by one, and redis-py arms a timer for each read when
    the client has a socket timeout: for a batch of hundreds that was a good part of the
    ack's CPU. The batch has one deadline for all its replies instead.
    """
    pool = client.connection_pool
    if type(client) is not aioredis.Redis or pool.connection_kwargs.get("socket_timeout") is None:
        return client  # (a fake for tests is used as it is)
    return aioredis.Redis(
        connection_pool=aioredis.BlockingConnectionPool(
            connection_class=pool.connection_class,
            max_connections=BATCH_CONNECTIONS,
            timeout=pool.connection_kwargs["socket_timeout"],
            **{**pool.connection_kwargs, "socket_timeout": None},
        )
    )


def _evalsha(sha: str, keys: list[str], args: list[Any]) -> bytes:
    """EVALSHA sha numkeys keys… args… as the bytes redis-py's pipeline would send (str, bytes,
    int or float each; anything else is a TypeError).

    Packed by hiredis in C: built here in Python, a bulk string at a time, it was about a
    sixth of an ack's instructions; hiredis's packer takes half as many.
    """
    return hiredis.pack_command(("EVALSHA", sha, len(keys), *keys, *args))  # type: ignore[no-any-return]


class ScriptBatcher:
    """Runs one Lua script for many callers, the calls of a loop tick in one pipeline."""

    def __init__(
        self, client: aioredis.Redis, source: str, sha: str, deadline_s: float = 1.0
    ) -> None:
        self.client = untimed(client)
        self._own_client = self.client is not client
        self.source = source
        self.sha = sha
        self.deadline_s = deadline_s
        self._pending: list[_Call] = []
        self._scheduled = False
        self._sending: set[asyncio.Task[None]] = set()

    async def warm(self) -> None:
        """Open this batcher's connections and load its script now rather than in the first burst."""
        await asyncio.gather(*(self.client.ping() for _ in range(BATCH_CONNECTIONS // 2)))
        await self.client.script_load(self.source)

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        """The script's reply for these keys and args.

        Raises:
            QueueUnavailable: the batch missed its deadline or Redis failed it.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.call(keys, args, partial(settle, future))
        return await future

    def call(self, keys: list[str], args: list[Any], reply: Reply) -> None:
        """Join this tick's batch; `reply` is told the script's value, or a QueueUnavailable.

        A callback rather than a future and a task: an ack that waits on its own task was a
        good part of its CPU in a burst. `reply` runs in the loop, once, and must not block.
        """
        self._pending.append((keys, args, reply))
        if not self._scheduled:  # the rest of this tick's calls join before it is sent
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        pending, self._pending = self._pending, []
        for i in range(0, len(pending), MAX_BATCH):
            task = asyncio.ensure_future(self._send(pending[i : i + MAX_BATCH]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[_Call]) -> None:
        try:
            async with asyncio.timeout(self.deadline_s):
                replies = await self._execute(batch)
        except (TimeoutError, redis.exceptions.RedisError, OSError) as e:
            why = "no answer in time" if isinstance(e, TimeoutError) else repr(e)[:200]
            for *_, reply in batch:
                _tell(reply, QueueUnavailable(why))
            return
        except Exception as e:  # a bug (an argument RESP cannot carry…): refused, not left hanging
            log.exception("batch_failed", calls=len(batch))
            for *_, reply in batch:
                _tell(reply, QueueUnavailable(repr(e)[:200]))
            return
        for (*_, reply), value in zip(batch, replies, strict=True):
            _tell(
                reply,
                QueueUnavailable(repr(value)[:200]) if isinstance(value, Exception) else value,
            )

    async def _execute(self, batch: list[_Call]) -> list[Any]:
        replies = await self._pipeline([(keys, args) for keys, args, _ in batch])
        missing = [i for i, r in enumerate(replies) if _noscript(r)]
        if missing:  # Redis restarted without the script: those calls never ran
            await self.client.script_load(self.source)
            again = await self._pipeline([batch[i][:2] for i in missing])
            for i, value in zip(missing, again, strict=True):
                replies[i] = value
        return replies

    async def _pipeline(self, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
        if type(self.client) is aioredis.Redis:  # (not a cluster client, not a fake for tests)
            return await self._raw(calls)
        pipe = self.client.pipeline(transaction=False)
        for keys, args in calls:
            pipe.evalsha(self.sha, len(keys), *keys, *args)
        return list(await pipe.execute(raise_on_error=False))

    async def _raw(self, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
        """The calls written at once on one pooled connection, their replies read in order.

        A reply Redis refused (NOSCRIPT, a script error) is returned, not raised, as a pipeline
        with raise_on_error=False does. A connection left with replies unread (a deadline, a
        reset) is dropped rather than handed to the next batch.
        """
        pool = self.client.connection_pool
        conn = await pool.get_connection()
        try:
            await conn.send_packed_command(
                b"".join(_evalsha(self.sha, keys, args) for keys, args in calls)
            )
            replies: list[Any] = []
            for _ in calls:
                try:
                    replies.append(await conn.read_response())
                except redis.exceptions.ResponseError as e:
                    replies.append(e)
            return replies
        except BaseException:
            await conn.disconnect()
            raise
        finally:
            await pool.release(conn)
