"""The durable turn queue: ingress queues a turn and acks; runners (serve, workers) run it."""

from bot.queue.ingress import Turns, connect_ingress, ping_within, warm_pool
from bot.queue.journal import TurnJournal
from bot.queue.runner import MAX_ATTEMPTS, RunnerLimits, TurnHandler, TurnRunner
from bot.queue.stream import QueueUnavailable, Turn, TurnQueue

__all__ = [
    "MAX_ATTEMPTS",
    "QueueUnavailable",
    "RunnerLimits",
    "Turn",
    "TurnHandler",
    "TurnJournal",
    "TurnQueue",
    "TurnRunner",
    "Turns",
    "connect_ingress",
    "ping_within",
    "warm_pool",
]
