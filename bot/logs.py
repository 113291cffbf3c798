"""structlog set-up: JSON lines in production, readable lines in a terminal."""

from __future__ import annotations

import logging
import sys

import orjson
import structlog

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def _json_line(event: object, **kw: object) -> str:
    # orjson: the stdlib's encoder was ~0.8% of a turn runner's CPU under a burst (py-spy);
    # structlog's fallback (`default`) still renders what orjson cannot
    return orjson.dumps(event, default=kw.get("default"), option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(level: str = "info", fmt: str = "console") -> None:
    """Configure structlog once at start-up; logs go to stderr so stdout stays for output."""
    renderer = (
        structlog.processors.JSONRenderer(serializer=_json_line)
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
