"""Everything a running product needs, built once from the settings: store, engine, agent."""

from __future__ import annotations

from dataclasses import dataclass, field

import redis.asyncio as aioredis

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.model import ChatModel
from agent.planner import OfflinePlanner
from bot.queue import RunnerLimits, Turns, connect_ingress
from bot.settings import Settings, SettingsError
from workflow.config import load_config
from workflow.directory_sync import with_synced
from workflow.engine import Engine
from workflow.store import MAX_CONNECTIONS, connect
from workflow.transactions import is_cluster


def build_model(settings: Settings) -> tuple[ChatModel, ChatModel | None]:
    """The configured LLM with the offline planner as its fallback, or the planner alone."""
    planner = OfflinePlanner()
    if not settings.llm_configured:
        return planner, None
    overrides = {
        "model": settings.llm_model,
        "api_key": settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        "tool_mode": settings.llm_tool_mode,
        "timeout_s": settings.llm_timeout_s,
    }
    if settings.llm_base_url:
        overrides["base_url"] = settings.llm_base_url
    try:
        options = options_for(settings.llm_preset, **overrides)
        return OpenAICompatModel(options), planner
    except ValueError as e:
        raise SettingsError(str(e)) from e


@dataclass
class Runtime:
    """The product's parts, wired once at start-up."""

    settings: Settings
    redis: aioredis.Redis
    engine: Engine
    memory: ThreadMemory
    agent: Agent
    model: ChatModel
    ingress_redis: aioredis.Redis | None = None  # None: `redis` (fakeredis, tests)
    turns: Turns = field(init=False)

    def __post_init__(self) -> None:
        s = self.settings
        limits = RunnerLimits(
            max_turns=s.max_concurrent_turns,
            lease_s=s.turn_lease_s,
            reclaim_idle_s=s.turn_reclaim_s,
        )
        self.turns = Turns.build(
            self.redis,
            self.engine.keys.org,
            self.ingress_redis,
            deadline_s=s.ingress_deadline_s,
            limits=limits,
        )

    @property
    def persistent(self) -> bool:
        return self.settings.redis_url is not None

    async def close(self) -> None:
        close = getattr(self.model, "close", None)
        if close is not None:
            await close()
        await self.turns.queue.aclose()
        if self.ingress_redis is not None and self.ingress_redis is not self.redis:
            await self.ingress_redis.aclose()
        await self.redis.aclose()


def build_runtime(settings: Settings, *, max_connections: int = MAX_CONNECTIONS) -> Runtime:
    """Wire the product from the settings (its only I/O: reading the synced directory, if any).

    `max_connections`: the pool of the client the turns, the engine and the memory share
    (a `max_connections` in REDIS_URL itself still wins).
    """
    # the people last synced into Redis (`approvals-bot directory sync`), with the file's own
    config = with_synced(load_config(settings.approvals_config), settings.redis_url)
    redis = connect(settings.redis_url, max_connections)
    # on one Redis, the transitions of a loop tick (a runner's turns) share their round trips
    engine = Engine(config, redis, settings.clock(), coalesce=not is_cluster(redis))
    memory = ThreadMemory(redis, budget_tokens=settings.history_budget_tokens)
    model, fallback = build_model(settings)
    agent = Agent(model, engine, memory, fallback=fallback)
    ingress = connect_ingress(settings.redis_url, settings.ingress_deadline_s, redis)
    return Runtime(settings, redis, engine, memory, agent, model, ingress)
