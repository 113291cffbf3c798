"""The one settings object, read from the environment (and .env) once at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from workflow.clock import Clock, SystemClock, parse_fixed_now


class SettingsError(Exception):
    """A setting is missing or malformed; the message names it."""


class Settings(BaseSettings):
    """Everything the product reads from its environment."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    redis_url: str | None = Field(
        default=None, description="unset: in-process fakeredis, nothing persisted"
    )
    approvals_config: Path | None = Field(default=None, description="unset: the demo organisation")
    approvals_now: str | None = Field(
        default=None, description="ISO date-time that fixes the clock"
    )
    llm_preset: str = Field(
        default="generic",
        description="openai, deepseek, qwen, kimi, glm, ollama, vllm, llamacpp, generic",
    )
    llm_base_url: str | None = Field(
        default=None, description="unset (and no preset URL): the offline planner"
    )
    llm_api_key: SecretStr | None = None
    llm_model: str | None = None
    llm_tool_mode: Literal["native", "react"] = "native"
    llm_timeout_s: float = Field(default=30.0, gt=0)
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = Field(
        default=None, description="xapp- token, for Socket Mode only"
    )
    slack_api_url: str | None = Field(
        default=None, description="base URL of the Web API (a local stand-in in tests)"
    )
    slack_streaming: bool = Field(
        default=True, description="stream thinking steps; False: a plan message updated in place"
    )
    port: int = Field(default=3000, ge=1, le=65535)
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/]+(/\S*)?$",
        description="where people reach `serve` (calendar links); unset: http://localhost:PORT",
    )
    archive_dir: Path | None = Field(
        default=None,
        description="where `requests archive` writes requests past policy.retention_months",
    )
    max_concurrent_turns: int = Field(
        default=500,
        ge=1,
        description="agent turns at once per turn runner; fewer while its CPU is busy; more wait in the queue",
    )
    ingress_processes: int = Field(
        default=1,
        ge=1,
        le=64,
        description="processes `serve` answers PORT with (SO_REUSEPORT); the extra ones only ack",
    )
    serve_runs_turns: bool = Field(
        default=True,
        description="serve runs queued turns too; False: only `approvals-bot worker` processes do",
    )
    worker_nice: int = Field(
        default=0,
        ge=0,
        le=19,
        description="niceness `approvals-bot worker` takes at start: above 0, a burst's acks on the same cores come before turns",
    )
    turn_lease_s: float = Field(
        default=10.0, gt=0, description="a thread's lease; renewed while its turn runs"
    )
    turn_reclaim_s: float = Field(
        default=15.0, gt=0, description="a turn whose runner is silent this long is run again"
    )
    ingress_deadline_s: float = Field(
        default=1.0, gt=0, le=2.5, description="queueing an event; past it the platform gets a 503"
    )
    verify_failures_per_client: int = Field(
        default=30, ge=1, description="failed signature checks a minute per address before 429s"
    )
    verify_failures_total: int = Field(
        default=300, ge=1, description="failed checks a minute per process before unsigned is 429"
    )
    metrics_port: int | None = Field(
        default=None, ge=1, le=65535, description="where `worker` serves GET /metrics (unset: not)"
    )
    history_budget_tokens: int = Field(
        default=3000,
        ge=200,
        description="thread history sent with each model call, in estimated tokens; older turns are dropped",
    )
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "console"] = "console"
    feishu_app_id: str | None = Field(default=None, description="cli_… of the Feishu/Lark app")
    feishu_app_secret: SecretStr | None = None
    feishu_verification_token: SecretStr | None = Field(
        default=None, description="checked in every event and card callback"
    )
    feishu_encrypt_key: SecretStr | None = Field(
        default=None, description="set: callbacks are encrypted and signed with it"
    )
    feishu_api_url: str = Field(
        default="https://open.feishu.cn",
        description="https://open.feishu.cn, https://open.larksuite.com, or a local stand-in",
    )

    @property
    def base_url(self) -> str:
        """The address calendar-feed links start with."""
        return (self.public_url or f"http://localhost:{self.port}").rstrip("/")

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_model)

    def clock(self) -> Clock:
        return parse_fixed_now(self.approvals_now) if self.approvals_now else SystemClock()


def require(settings: Settings, *names: str) -> None:
    """Stop start-up with one line naming the first missing setting."""
    for name in names:
        if not getattr(settings, name):
            raise SettingsError(
                f"{name.upper()} is not set; it is needed for this command (see the README)."
            )


def load_settings() -> Settings:
    """Read the settings; a SettingsError names the bad variable."""
    try:
        return Settings()
    except ValidationError as e:
        err = e.errors()[0]
        name = str(err["loc"][0]).upper() if err["loc"] else "settings"
        raise SettingsError(f"{name}: {err['msg']}") from e
