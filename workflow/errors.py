"""Typed workflow errors; every message says what happened and what a person can do next."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workflow.config import FieldDef


class WorkflowError(Exception):
    """Base of every error the engine raises on purpose; `str(e)` is fit to show a person."""

    code = "workflow_error"

    def __init__(self, message: str, *, zh: str | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.zh = zh
        self.details = details

    def localized(self, locale: str) -> str:
        """The message in the person's language (Chinese where the raise site gave one)."""
        return self.zh if locale == "zh" and self.zh else self.message


class ConfigError(WorkflowError):
    """The organisation file is invalid; the message names the key and what is wrong."""

    code = "config_error"


class NotFound(WorkflowError):
    """A person, process, request or pending action does not exist (or is not visible)."""

    code = "not_found"


class FieldProblem(ValueError):
    """Why a value does not fit its field: `code` and `values` make a sentence in any language;
    `str()` is the English phrase that follows the field's name ("must be a number")."""

    def __init__(self, code: str, message: str, **values: object) -> None:
        super().__init__(message)
        self.code = code
        self.values = values
        # the field it is about (its labels name it to a person); None for a name not on the form
        self.field: FieldDef | None = None


class ValidationFailed(WorkflowError):
    """The fields of a request are wrong; `field_errors` maps each field to its problem in
    English (for logs and the CLI), `problems` to the same as data a person's sentence is made of
    (agent/refusals.py says it in the reader's language). A raise that names a field gives its
    `problems`; `field_errors` then defaults to their English phrases."""

    code = "validation_failed"

    def __init__(
        self,
        message: str,
        field_errors: dict[str, str] | None = None,
        *,
        zh: str | None = None,
        problems: dict[str, FieldProblem] | None = None,
    ) -> None:
        problems = problems or {}
        if field_errors is None:
            field_errors = {name: str(problem) for name, problem in problems.items()}
        super().__init__(message, zh=zh, field_errors=field_errors)
        self.field_errors = field_errors
        self.problems = problems


class NotAllowed(WorkflowError):
    """The actor may not do this (wrong person, own request, not on the chain)."""

    code = "not_allowed"


class ActingNotAllowed(NotAllowed):
    """Someone without the HR role tried to file or withdraw a request for another person."""

    code = "acting_not_allowed"


class InvalidState(WorkflowError):
    """The request or pending action is no longer in a state that allows this."""

    code = "invalid_state"


class InsufficientBalance(WorkflowError):
    """The leave asked for exceeds what is left of the allowance."""

    code = "insufficient_balance"


class OverlappingLeave(WorkflowError):
    """The requester already has pending or approved leave on some of these days."""

    code = "overlapping_leave"


class TooSoon(WorkflowError):
    """A rate-limited action (a reminder) was asked for again too early."""

    code = "too_soon"


class ConcurrentUpdate(WorkflowError):
    """Another transition kept winning the race; the caller may try again."""

    code = "concurrent_update"


class StoreUnavailable(WorkflowError):
    """Redis could not be reached; nothing was changed."""

    code = "store_unavailable"


class OutcomeUnknown(StoreUnavailable):
    """The connection failed while a change was on its way: it may or may not be recorded.

    Read the record back before telling anyone what happened (bot/readback.py).
    """

    code = "outcome_unknown"


class SeparationOfDuties(NotAllowed):
    """The person who filed a request for someone would approve it; someone else must."""

    code = "separation_of_duties"
