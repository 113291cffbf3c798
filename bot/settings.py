"""The one settings object, read from the environment (and .env) once at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError
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
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "console"] = "console"

    def clock(self) -> Clock:
        return parse_fixed_now(self.approvals_now) if self.approvals_now else SystemClock()


def load_settings() -> Settings:
    """Read the settings; a SettingsError names the bad variable."""
    try:
        return Settings()
    except ValidationError as e:
        err = e.errors()[0]
        name = str(err["loc"][0]).upper() if err["loc"] else "settings"
        raise SettingsError(f"{name}: {err['msg']}") from e
