"""The Feishu / Lark open API over aiohttp: a cached tenant token, send, reply in thread, update a card.

Plain aiohttp rather than lark-oapi: its client is synchronous first (its async calls wrap a
sync core), its long-connection client takes an event loop at import, and we need four
endpoints, our own timeouts and our own retries. Every call has a timeout; rate limits
(HTTP 429, frequency-limit codes) and server errors are retried with backoff; sends carry a
`uuid`, so a retried send is still one message.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import uuid as uuid_lib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
import structlog

from bot.feishu.errors import FeishuError, FeishuRateLimited, FeishuUnavailable

log = structlog.get_logger("feishu")

DEFAULT_API_URL = "https://open.feishu.cn"
TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
MESSAGES_PATH = "/open-apis/im/v1/messages"
CONTACT_BATCH_PATH = "/open-apis/contact/v3/users/batch_get_id"
CONTACT_USER_PATH = "/open-apis/contact/v3/users"
TOKEN_MARGIN_S = 600  # refresh ten minutes before Feishu says the token expires
# "request trigger frequency limit" and the IM frequency limits
RATE_LIMIT_CODES = frozenset({99991400, 11232, 11233, 230020})
# the tenant access token is missing, invalid or expired: fetch a new one and try again
TOKEN_CODES = frozenset({99991661, 99991663, 99991664, 99991665, 99991677})
MAX_WAIT_S = 30.0  # never sleep longer than this on a rate-limit reset header

Json = dict[str, Any]


def content_of(content: Mapping[str, Any] | str) -> str:
    """The `content` field: Feishu wants the message (text or card) as a JSON string."""
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _code_of(body: Any) -> int:
    """Feishu's `code` of an answer; -1 when there is none or it is not a number (a proxy page)."""
    raw = body.get("code", -1) if isinstance(body, dict) else -1
    if isinstance(raw, bool):
        return -1
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and re.fullmatch(r"-?[0-9]{1,11}", raw):
        return int(raw)
    return -1


class FeishuClient:
    """An async client for the few open-API endpoints the bot uses."""

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        api_url: str | None = None,
        *,
        timeout_s: float = 10.0,
        max_attempts: int = 4,
        backoff_s: float = 0.5,
        session: aiohttp.ClientSession | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        """Args:
        api_url: `https://open.feishu.cn` (default), `https://open.larksuite.com`, or a stand-in.
        max_attempts: tries per call, for rate limits, 5xx and connection errors together.
        session: an aiohttp session to use (not closed by `close`); one is made when None.
        """
        self.app_id = app_id
        self._secret = app_secret
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.backoff_s = backoff_s
        self._session = session
        self._own_session = session is None
        self._clock = clock
        self._sleep = sleep
        self._token: str | None = None
        self._token_until = 0.0
        self._token_lock = asyncio.Lock()

    async def close(self) -> None:
        """Close the HTTP session this client made."""
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        return self._session

    # --- the tenant access token ---------------------------------------------------------

    async def tenant_token(self) -> str:
        """The tenant access token, fetched once and reused until ten minutes before it expires."""
        if self._token is not None and self._clock() < self._token_until:
            return self._token
        async with self._token_lock:  # one refresh at a time; the others wait and reuse it
            if self._token is not None and self._clock() < self._token_until:
                return self._token
            body = await self._call(
                "POST",
                TOKEN_PATH,
                json_body={"app_id": self.app_id, "app_secret": self._secret},
                auth=False,
            )
            token, expire = body.get("tenant_access_token"), int(body.get("expire") or 0)
            if not token:
                raise FeishuError(-1, "the token endpoint answered without a tenant_access_token")
            keep = expire - TOKEN_MARGIN_S if expire > TOKEN_MARGIN_S else expire / 2
            self._token, self._token_until = token, self._clock() + keep
            log.info("feishu_token_refreshed", expire=expire)
            return token

    def forget_token(self) -> None:
        """Drop the cached token (Feishu said it is no longer valid)."""
        self._token, self._token_until = None, 0.0

    # --- messages --------------------------------------------------------------------------

    async def send(
        self,
        receive_id: str,
        msg_type: str,
        content: Mapping[str, Any] | str,
        *,
        uuid: str | None = None,
        receive_id_type: str = "open_id",
    ) -> Json:
        """Send a message (to a person by open_id by default); returns Feishu's message data.

        `uuid` makes the send idempotent: the same uuid within an hour is the same message.
        Without one a fresh uuid still makes this call's own retries safe.
        """
        body = {
            "receive_id": receive_id,
            "msg_type": msg_type,
            "content": content_of(content),
            "uuid": uuid or str(uuid_lib.uuid4()),
        }
        answer = await self._call(
            "POST", MESSAGES_PATH, params={"receive_id_type": receive_id_type}, json_body=body
        )
        return answer.get("data") or {}

    async def reply(
        self,
        message_id: str,
        msg_type: str,
        content: Mapping[str, Any] | str,
        *,
        in_thread: bool = True,
        uuid: str | None = None,
    ) -> Json:
        """Reply to a message, in its thread by default; returns Feishu's message data."""
        body = {
            "msg_type": msg_type,
            "content": content_of(content),
            "reply_in_thread": in_thread,
            "uuid": uuid or str(uuid_lib.uuid4()),
        }
        answer = await self._call("POST", f"{MESSAGES_PATH}/{message_id}/reply", json_body=body)
        return answer.get("data") or {}

    async def patch_card(self, message_id: str, card: Mapping[str, Any]) -> None:
        """Replace an interactive card the bot sent (a shared card, within 14 days)."""
        await self._call(
            "PATCH", f"{MESSAGES_PATH}/{message_id}", json_body={"content": content_of(card)}
        )

    # --- the request loop ----------------------------------------------------------------------

    async def open_id_by_email(self, email: str) -> str | None:
        """The open_id of the tenant's user with this email (contact API), None if there is none."""
        answer = await self._call(
            "POST",
            CONTACT_BATCH_PATH,
            params={"user_id_type": "open_id"},
            json_body={"emails": [email]},
        )
        users = (answer.get("data") or {}).get("user_list") or []
        found = next((u for u in users if isinstance(u, dict) and u.get("user_id")), None)
        return str(found["user_id"]) if found else None

    async def email_of(self, open_id: str) -> str | None:
        """The email of a user (contact API; needs the app's email permission), None if hidden."""
        answer = await self._call(
            "GET", f"{CONTACT_USER_PATH}/{open_id}", params={"user_id_type": "open_id"}
        )
        user = (answer.get("data") or {}).get("user") or {}
        email = user.get("email") or user.get("enterprise_email")
        return str(email) if email else None

    def _backoff(self, attempt: int) -> float:
        return self.backoff_s * (2**attempt) * random.uniform(0.8, 1.2)

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json_body: Mapping[str, Any] | None = None,
        auth: bool = True,
    ) -> Json:
        """One API call with its retries; returns the JSON body of a `code: 0` answer."""
        refreshed = False
        last: FeishuError | None = None
        attempt = 0
        while attempt < self.max_attempts:
            headers = {"Content-Type": "application/json; charset=utf-8"}
            if auth:
                headers["Authorization"] = f"Bearer {await self.tenant_token()}"
            try:
                async with asyncio.timeout(self.timeout_s):
                    async with self._http().request(
                        method, self.api_url + path, params=params, json=json_body, headers=headers
                    ) as resp:
                        status = resp.status
                        log_id = resp.headers.get("X-Tt-Logid")
                        reset = resp.headers.get("x-ogw-ratelimit-reset")
                        try:
                            body = await resp.json(content_type=None)
                        except (ValueError, aiohttp.ContentTypeError):
                            body = None
            except (TimeoutError, aiohttp.ClientError) as e:
                last = FeishuUnavailable(
                    -1, f"{method} {path}: {type(e).__name__} {e}".strip(), method=path
                )
                log.info("feishu_call_retry", path=path, attempt=attempt + 1, error=str(last))
                attempt += 1
                if attempt < self.max_attempts:
                    await self._sleep(self._backoff(attempt - 1))
                continue
            code = _code_of(body)
            msg = str(body.get("msg", "")) if isinstance(body, dict) else f"HTTP {status}"
            if status == 429 or code in RATE_LIMIT_CODES:
                last = FeishuRateLimited(code, msg, http_status=status, log_id=log_id, method=path)
                wait = self._backoff(attempt)
                if reset and reset.isdigit():
                    wait = min(max(float(reset), wait), MAX_WAIT_S)
            elif status >= 500:
                last = FeishuUnavailable(code, msg, http_status=status, log_id=log_id, method=path)
                wait = self._backoff(attempt)
            elif auth and code in TOKEN_CODES and not refreshed:
                refreshed = True  # one fresh token per call; it does not count as a retry
                self.forget_token()
                continue
            elif code == 0 and isinstance(body, dict):
                return body
            else:
                raise FeishuError(code, msg, http_status=status, log_id=log_id, method=path)
            attempt += 1
            log.info("feishu_call_retry", path=path, attempt=attempt, code=code, status=status)
            if attempt < self.max_attempts:
                await self._sleep(wait)
        assert last is not None
        raise last
