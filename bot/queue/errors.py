"""The queue's error a platform edge answers with a non-2xx (so the platform delivers again)."""


class QueueUnavailable(Exception):
    """The turn could not be queued (Redis slow or down): answer the platform non-2xx so it retries."""
