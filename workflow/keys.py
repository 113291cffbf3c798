"""Every Redis key name the product uses, in one place.

All of an organisation's workflow state shares the hash tag `{org}` so that each atomic
transition (request, indexes, ledgers, outbox) touches one Redis Cluster slot. Thread
memory and locks are tagged per thread instead, so conversations spread over the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime


@dataclass(frozen=True)
class OrgKeys:
    """Keys of one organisation's workflow state."""

    org: str

    @property
    def tag(self) -> str:
        return "{" + self.org + "}"

    def request(self, request_id: str) -> str:
        """Hash {v, data}: the request record and its version."""
        return f"{self.tag}:req:{request_id}"

    def pending(self, pending_id: str) -> str:
        """Hash {v, data}: a pending action awaiting its confirmation."""
        return f"{self.tag}:pending:{pending_id}"

    def ledger(self, person_id: str) -> str:
        """Hash: v, `<year>:<type>:reserved|used` day counts, `leave:<request>` entries."""
        return f"{self.tag}:ledger:{person_id}"

    def user_requests(self, person_id: str) -> str:
        """Sorted set of a person's request ids, scored by creation time (ms)."""
        return f"{self.tag}:user:{person_id}:requests"

    def user_open(self, person_id: str) -> str:
        """Sorted set of request ids whose open step is assigned to the person, scored by the
        request's submission time (ms): "my approvals" reads its oldest page and its count."""
        return f"{self.tag}:user:{person_id}:open"

    def old_user_tasks(self, person_id: str) -> str:
        """(Older layout, read only by `approvals-bot migrate`) the same ids as a plain set."""
        return f"{self.tag}:user:{person_id}:tasks"

    @property
    def all_requests(self) -> str:
        """Sorted set of every submitted request id, scored by submission time (ms)."""
        return f"{self.tag}:requests"

    @property
    def month_changes(self) -> str:
        """Hash `YYYY-MM` → a count bumped with every write or removal of a request submitted in
        that month (UTC), in the same atomic step: a month's kept rows (`month_rows`) are
        true while the count is the one they were made at."""
        return f"{self.tag}:rowgen"

    def month_rows(self, month: str) -> str:
        """Hash: the rows of `requests list|export` for the requests submitted in `month`
        (`YYYY-MM`, UTC), made once and kept compressed (bot/month_rows.py)."""
        return f"{self.tag}:rowmonth:{month}"

    def month_keeping(self, month: str) -> str:
        """String, with a lease: the worker keeping `month`'s rows now (bot/month_keeper.py)."""
        return f"{self.tag}:rowkeep:{month}"

    def out_week(self, monday: date, team: str) -> str:
        """Hash `<person>|<request>` → `start|end|halves|status`: a team's leave touching the
        week that starts on `monday` (see whos_out.py)."""
        return f"{self.tag}:out:{monday.isoformat()}:{team}"

    @property
    def old_out_weeks(self) -> str:
        """(Older layout, read only by `approvals-bot migrate`) the pattern of the whole
        organisation's week hashes, `<tag>:out:<monday>`, laid out as a team's week."""
        return f"{self.tag}:out:*"

    def out_day(self, day: date) -> str:
        """Sorted set: the whole organisation's leave touching `day`, scored by its first day,
        members sorting by name (see whos_out.py)."""
        return f"{self.tag}:outd:{day.isoformat()}"

    def out_members(self, monday: date) -> str:
        """Hash `<person>|<request>` → the leave's member in the `out_day` sets, for leave
        ending in the week that starts on `monday`."""
        return f"{self.tag}:outm:{monday.isoformat()}"

    @property
    def leave_calendar(self) -> str:
        """(Older layout, read only by `approvals-bot migrate`) hash of every booked leave."""
        return f"{self.tag}:leave_calendar"

    @property
    def leave_ends(self) -> str:
        """(Older layout) sorted set of leave-calendar fields scored by the leave's last day."""
        return f"{self.tag}:leave_ends"

    @property
    def away(self) -> str:
        """(Older layout, read only by `approvals-bot migrate`) sorted set of approved leave."""
        return f"{self.tag}:away"

    @property
    def away_by(self) -> str:
        """Hash person → `end|start|request;…`: their approved leave not yet ended (see away.py).

        Routing looks up only the people a request can reach, so a transition's read never
        grows with how many people are away or with the organisation's history.
        """
        return f"{self.tag}:away_by"

    @property
    def deleg_by(self) -> str:
        """Hash person → `end|start|delegate|id|managers;…`: their delegations not yet ended."""
        return f"{self.tag}:deleg_by"

    @property
    def deleg_to(self) -> str:
        """Hash delegate → `end|start|person|id;…`: the delegations to them not yet ended.

        "My approvals" reads the one field of the person asking, never every delegation.
        """
        return f"{self.tag}:deleg_to"

    @property
    def due(self) -> str:
        """Sorted set of scheduled items (`remind|R-…|0`, `escalate|…`, `expire|…`) scored by due time (ms)."""
        return f"{self.tag}:due"

    @property
    def due_leases(self) -> str:
        """Sorted set of items a worker has claimed, scored by when its lease runs out (ms)."""
        return f"{self.tag}:due_leases"

    @property
    def periodic_due(self) -> str:
        """Sorted set of `digest|<person>` and `weekly|<manager>` scored by their next due time (ms):
        a scheduler tick reads the people due now, never the whole directory."""
        return f"{self.tag}:periodic_due"

    def periodic(self, kind: str, person_id: str, period: str) -> str:
        """String set once when a digest or weekly DM for (person, day or week) has been queued."""
        return f"{self.tag}:periodic:{kind}:{person_id}:{period}"

    @property
    def delegations(self) -> str:
        """Hash `<person>|<delegation id>` → delegation."""
        return f"{self.tag}:delegations"

    @property
    def directory(self) -> str:
        """Hash person id → person JSON: the directory synced from Slack, Feishu or a CSV."""
        return f"{self.tag}:directory"

    @property
    def directory_meta(self) -> str:
        """Hash: where the directory was last synced from, when, and how many people."""
        return f"{self.tag}:directory_meta"

    @property
    def accrual_done(self) -> str:
        """Hash period → when: accrual periods every person's ledger has had (workflow/accrual.py)."""
        return f"{self.tag}:accrual"

    @property
    def feed_tokens(self) -> str:
        """Hash sha256(token) → person: the live calendar-feed tokens (workflow/feed.py)."""
        return f"{self.tag}:feeds"

    def feed_of(self, person_id: str) -> str:
        """Hash {v, token}: the sha256 of the person's one live calendar-feed token."""
        return f"{self.tag}:feed_of:{person_id}"

    @property
    def outbox(self) -> str:
        """Stream of workflow events, appended in the same atomic step as each transition."""
        return f"{self.tag}:outbox"


def thread_history(thread_key: str) -> str:
    """List of a conversation's messages (agent memory); tagged by thread."""
    return f"thread:{{{thread_key}}}:history"


def thread_lock(thread_key: str) -> str:
    """The lock that makes one thread's turns run in order."""
    return f"thread:{{{thread_key}}}:lock"


def thread_trace(thread_key: str) -> str:
    """List of a thread's step events, for `approvals-bot trace`."""
    return f"thread:{{{thread_key}}}:trace"


def slack_user(team_id: str, user_id: str) -> str:
    """String: the directory person a Slack user maps to (cached a day)."""
    return f"slack:{team_id}:user:{user_id}"


def slack_dm_channel(team_id: str, person_id: str) -> str:
    """String: the DM channel id of a person's conversation with the bot."""
    return f"slack:{team_id}:dm:{person_id}"


def event_seen(platform: str, event_id: str) -> str:
    """String set once per delivered platform event id, so retries are dropped."""
    return f"seen:{platform}:{event_id}"


def answer_once(platform: str, key: str) -> str:
    """String: the answer given to a write request (a command, a form, a card click) by its id."""
    return f"answered:{platform}:{key}"


def delivery(platform: str, org: str, event_id: str, recipient: str) -> str:
    """String: the message a workflow event of an organisation produced for one recipient."""
    return f"delivered:{platform}:{{{org}}}:{event_id}:{recipient}"


def card_registry(org: str, request_id: str) -> str:
    """Hash `<platform>|<address>` → card: every card posted about a request, on every platform."""
    return f"cards:{{{org}}}:req:{request_id}"


def pending_cards(org: str, pending_id: str) -> str:
    """Hash `<platform>|<address>` → card: the confirm cards showing one pending action."""
    return f"cards:{{{org}}}:pending:{pending_id}"


def thread_drafts(thread_key: str) -> str:
    """Hash slot → pending id: the one live draft of each kind in a conversation thread."""
    return f"thread:{{{thread_key}}}:drafts"


def conversation_drafts(conversation: str) -> str:
    """Hash person → thread key: where each person's newest new-request draft of a DM lives."""
    return f"conversation:{{{conversation}}}:drafts"


# --- the durable turn queue (bot/queue): one hash tag per organisation, so each enqueue/acquire/
# complete is one atomic script on one Redis Cluster slot. A stream is one key (one shard) anyway.


def _turns(org: str) -> str:
    return "{turns:" + org + "}"


def turn_stream(org: str) -> str:
    """Stream of turns not yet done: one entry per inbound message, deleted when its turn completes."""
    return f"{_turns(org)}:stream"


def turn_dead_letters(org: str) -> str:
    """Stream of turns that failed three times, for `approvals-bot turns list|replay`."""
    return f"{_turns(org)}:dead"


def turn_seen(org: str, platform: str, idempotency_key: str) -> str:
    """String set in the same script as the turn's XADD: a platform's retry finds it and is dropped."""
    return f"{_turns(org)}:seen:{platform}:{idempotency_key}"


def turn_order(org: str, thread: str) -> str:
    """List of a thread's queued entry ids, oldest first: only the head may run."""
    return f"{_turns(org)}:order:{thread}"


def turn_lease(org: str, thread: str) -> str:
    """String held by the runner of a thread's turn, with a short expiry it renews while it runs."""
    return f"{_turns(org)}:lease:{thread}"


def turn_attempts(org: str) -> str:
    """Hash entry id → how many times its turn was started."""
    return f"{_turns(org)}:attempts"


def turn_journal(org: str, entry_id: str) -> str:
    """Hash: what a turn has already posted (stream ts, cards, the answer), so a re-run shows one answer."""
    return f"{_turns(org)}:journal:{entry_id}"


def platform_person(platform: str, account: str) -> str:
    """String: the directory person a platform account maps to by email (cached a day)."""
    return f"{platform}:account:{account}:person"


def platform_account(platform: str, person_id: str) -> str:
    """String: a person's account on a platform, found by email (cached a day)."""
    return f"{platform}:person:{person_id}:account"


def verify_failures(window: int) -> str:
    """String counter: failed request verifications at every bot process's edge in one window."""
    return f"edge:verify_failures:{window}"


def month_of(at: datetime) -> str:
    """The month (`YYYY-MM`, UTC) a request submitted at `at` is counted and kept under
    (`OrgKeys.month_changes`, `OrgKeys.month_rows`): that of its score in `all_requests`."""
    return at.astimezone(UTC).strftime("%Y-%m")
