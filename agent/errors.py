"""Failures of the agent package; every message says what happens next or what to change.

Messages never contain the API key: provider text is redacted before it is quoted.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every failure raised by the agent package."""


class ModelError(AgentError):
    """The model gave no usable reply.

    `status` is the HTTP status when there was one; `provider_message` is the server's own
    words (redacted), for logs and for the person who configures the LLM.
    """

    def __init__(
        self, message: str, *, status: int | None = None, provider_message: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.provider_message = provider_message


class ModelUnavailable(ModelError):
    """The server did not answer (connection, timeout, 5xx or 429 after retries).

    The caller falls back to the offline planner.
    """


class ModelRejected(ModelError):
    """The server refused the request (a 4xx that retrying will not fix): fix the settings."""


class ModelQuotaExceeded(ModelError):
    """The account is out of quota or balance (429 insufficient_quota, DeepSeek 402)."""


class ContextTooLong(ModelError):
    """The prompt exceeds the model's context: trim the history and ask again once."""
