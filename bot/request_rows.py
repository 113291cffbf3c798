"""The rows of `approvals-bot requests list|export`, made from requests' compact records.

The export's columns, cells and CSV lines (`Rows`, `ExportWriter`), the list's lines (`Lines`),
and what a closed month keeps of each request (`Kept`, bot/month_rows.py); names and teams are
looked up once per list or export. Reasons are medical data: exports leave them out unless
--with-reasons is given. The requests are read by bot/request_pages.py.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from typing import Any, TextIO

import orjson

from agent.i18n import fmt_amount
from agent.tools.describe import expense_what, what_of
from bot import month_rows
from workflow import codec
from workflow.config import FieldType, OrgConfig
from workflow.engine import Engine
from workflow.models import Request

# An export's columns: these, a column per form field (export_fields), then these.
HEAD_COLUMNS = [
    "request_id",
    "process",
    "requester_id",
    "requester",
    "team",
    "status",
    "submitted_at",
    "decided_at",
]
TAIL_COLUMNS = ["working_days", "approvers", "waiting_for", "decided_by"]
# Free text a person wrote about why (a sick leave's reason is medical data): only in the
# `reason` column, and only with --with-reasons.
REASON_FIELDS = ("reason", "description", "purpose")


def export_fields(config: OrgConfig, process: str | None = None) -> list[str]:
    """The form fields an export has a column for: those of its processes (all, or `process`),
    in the organisation file's order, each name once, the reasons left out."""
    names = dict.fromkeys(
        f.name
        for p in config.processes
        if process is None or p.key == process
        for f in p.fields
        if f.name not in REASON_FIELDS
    )
    return list(names)


def export_columns(config: OrgConfig, process: str | None, with_reasons: bool) -> list[str]:
    """The columns of an export, in order (the CSV header)."""
    reason = ["reason"] if with_reasons else []
    return HEAD_COLUMNS + export_fields(config, process) + TAIL_COLUMNS + reason


# A record as rows.lua hands it: id, submission ms, kind, body and, for an export, the
# steps' people ("approvers \x1d-joined \x1c holder \x1c deciders \x1d-joined"), the
# submission and decision times (isoformat).
Entry = tuple[str, ...]


def prepared(e: Entry, c: dict[str, Any]) -> Entry:
    """The entry rows.lua makes of a whole compact record `c` that it left to Python."""
    steps = c.get("st", [])
    current = c.get("c")
    holder = "" if current is None else steps[current].get("h", "")
    approvers = "\x1d".join([s["a"] for s in steps])
    decided = "\x1d".join([s["by"] for s in steps if "by" in s])
    people = f"{approvers}\x1c{holder}\x1c{decided}"
    return (*e[:3], "", people, _iso(c.get("sa")), _iso(c.get("da")))


class Kept:
    """How a view (`requests list`, or the CSV of every process without reasons) uses a closed
    month's kept rows (bot/month_rows.py): `made` of a kept row is the view's output, as its
    own function makes it of a record; reading a month's records to keep them, `row` is what
    is kept of each."""

    def __init__(
        self, engine: Engine, lines: Lines, rows: Rows, made: Callable[[list[Any]], Any]
    ) -> None:
        self.lines, self.rows, self.made = lines, rows, made
        self.signature = month_rows.signature(engine)

    def row(self, c: dict[str, Any], e: Entry) -> list[Any]:
        """A record's kept row (month_rows.KEPT_FIELDS)."""
        what, tail, people = self.lines.what(c), self.rows.tail(c, e), e[4]
        if c["s"] != "pending":  # its holder is not shown: fewer sets of people to name
            approvers, _, deciders = people.split("\x1c")
            people = f"{approvers}\x1c\x1c{deciders}"
        return [c["i"], int(e[1]), c["s"], c["p"], c["r"], people, what, tail]


def row(
    engine: Engine, r: Request, with_reasons: bool, process: str | None = None
) -> dict[str, Any]:
    return Rows(engine, with_reasons, process)(codec.compact(r))


def _iso(value: str | None) -> str:
    """A stored time as Python's isoformat writes it (pydantic writes UTC as 'Z')."""
    if not value:
        return ""
    return value[:-1] + "+00:00" if value[-1] == "Z" else value


class _Names(dict[str, str]):
    """People's names (person id → name), each looked up once per list or export: a month
    repeats the same few thousand people across tens of thousands of rows."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.directory = engine.directory

    def __missing__(self, person_id: str) -> str:
        found = self[person_id] = self.directory.get(person_id).name
        return found


class _Requesters(dict[str, tuple[str, str]]):
    """People's (name, team), each looked up once per export."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, person_id: str) -> tuple[str, str]:
        found = self[person_id] = (self.names[person_id], self.names.directory.team_of(person_id))
        return found


class _People(dict[str, tuple[str, str, str]]):
    """An export row's approvers, current holder and deciders, named, per entry's people
    (`prepared`): joined once per export, as a month repeats the same managers. The holder
    is shown only where the request is pending (`Rows`: a decided one shows nobody)."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: str) -> tuple[str, str, str]:
        approvers, holder, decided = key.split("\x1c")
        names = self.names
        found = self[key] = (
            " → ".join([names[a] for a in approvers.split("\x1d")]) if approvers else "",
            names[holder] if holder else "",
            ", ".join([names[b] for b in decided.split("\x1d")]) if decided else "",
        )
        return found


class _Made(dict[str, str]):
    """`make(key)` per key, each made once."""

    def __init__(self, make: Callable[[str], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: str) -> str:
        found = self[key] = self.make(key)
        return found


class _Quoted(dict[Any, str]):
    """Cells as the csv module writes them (quoted where it would), per cells, each once."""

    def __init__(self, cells: Callable[[Any], tuple[Any, ...]]) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, key: Any) -> str:
        found = self[key] = ",".join(map(_csv_cell, self.cells(key)))
        return found


def _csv_cell(value: Any) -> str:
    """One cell as the csv module writes it within a row."""
    text = "" if value is None else str(value)
    if "," in text or '"' in text or "\r" in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


_NONE: dict[str, Any] = {}  # a record's absent form or derived fields


class Rows:
    """Export rows from requests in the compact layout (workflow/codec.py's short names) with
    their entries (`prepared`), as cells in `export_columns`' order or as CSV lines; names and
    teams are looked up and quoted once per export. An amount of money is written as a plain
    decimal with its currency's minor units ('86.40', JPY '1200'; `fmt_amount`), the
    currency in its own column."""

    def __init__(self, engine: Engine, with_reasons: bool, process: str | None = None) -> None:
        self.with_reasons = with_reasons
        self.columns = export_columns(engine.config, process, with_reasons)
        self._fields = export_fields(engine.config, process)
        self._blanks = [""] * len(self._fields)  # a field the request does not have
        money = {
            f.name for p in engine.config.processes for f in p.fields if f.type is FieldType.MONEY
        }
        self._money = [i for i, name in enumerate(self._fields) if name in money]
        self._names = _Names(engine)
        self._requesters = _Requesters(self._names)
        self._people = _People(self._names)
        # the CSV of the cells that repeat: requester id, name and team; the people, per set
        # of people, as `cells` names them (the holder only where the request is pending)
        self._requester_cells = _Quoted(lambda r: (r, *self._requesters[r]))
        self._process_cells = _Quoted(lambda p: (p,))
        self._pending_cells = _Quoted(self._people.__getitem__)
        self._decided_cells = _Quoted(lambda key: (self._people[key][0], "", self._people[key][2]))
        self._tail_commas = 2 + len(self._fields)  # commas in `tail` where none is quoted

    def __call__(self, c: dict[str, Any]) -> dict[str, Any]:
        """The row of a whole compact record as column → value."""
        e = prepared((c["i"], "0", "2"), c)
        return dict(zip(self.columns, self.cells(c, e), strict=True))

    def _values(self, f: dict[str, Any]) -> list[Any]:
        """The form's values in the export's field columns, amounts written as decimals."""
        values = list(map(f.get, self._fields, self._blanks))
        for i in self._money:
            if isinstance(amount := values[i], int | float) and not isinstance(amount, bool):
                currency = f.get("currency")
                values[i] = fmt_amount(
                    amount, currency if isinstance(currency, str) else None, grouped=False
                )
        return values

    def cells(self, c: dict[str, Any], e: Entry) -> tuple[Any, ...]:
        f, status = c.get("f", _NONE), c["s"]
        approvers, holder, decided = self._people[e[4]]
        out = (
            c["i"],
            c["p"],
            c["r"],
            *self._requesters[c["r"]],
            status,
            e[5],
            e[6],
            *self._values(f),
            c.get("x", _NONE).get("working_days", ""),
            approvers,
            holder if status == "pending" else "",
            decided,
        )
        if self.with_reasons:
            return (*out, f.get("reason") or f.get("description") or f.get("purpose") or "")
        return out

    def tail(self, c: dict[str, Any], e: Entry) -> str:
        """The CSV of a row's cells after its status, up to its people: submitted, decided, the
        form's fields, working days (what a closed month keeps of it: bot/month_rows.py)."""
        cells = (
            e[5],
            e[6],
            *self._values(c.get("f", _NONE)),
            c.get("x", _NONE).get("working_days", ""),
        )
        text = ",".join(map(str, cells))
        # Most need no quoting, as the csv module would write them; a quote, a line break, a
        # null (written empty) or a comma the count finds, and each cell is quoted as it does.
        if (
            text.count(",") == self._tail_commas
            and '"' not in text
            and "\r" not in text
            and "\n" not in text
            and "None" not in text  # a null, or the text None
        ):
            return text
        return ",".join(map(_csv_cell, cells))

    def line(self, c: dict[str, Any], e: Entry) -> str:
        """The row as the csv module writes it (`cells`), line end included."""
        line = self._join(c["i"], c["p"], c["r"], c["s"], e[4], self.tail(c, e))
        if self.with_reasons:
            f = c.get("f", _NONE)
            reason = f.get("reason") or f.get("description") or f.get("purpose") or ""
            return f"{line},{_csv_cell(reason)}\r\n"
        return line + "\r\n"

    def kept_line(self, row: list[Any]) -> str:
        """The line of a month's kept row (bot/month_rows.py), as `line` makes it."""
        return self._join(row[0], row[3], row[4], row[2], row[5], row[7]) + "\r\n"

    def _join(
        self, rid: str, process: str, requester: str, status: str, people: str, tail: str
    ) -> str:
        # the cells that repeat (process, requester, people) are quoted once per export
        who = (self._pending_cells if status == "pending" else self._decided_cells)[people]
        if "," in rid or '"' in rid or "\n" in rid or "\r" in rid:  # never the engine's ids
            rid = _csv_cell(rid)
        return (
            f"{rid},{self._process_cells[process]},{self._requester_cells[requester]},"
            f"{status},{tail},{who}"
        )


def export(
    engine: Engine,
    requests: Iterable[Request],
    fmt: str,
    with_reasons: bool,
    process: str | None = None,
) -> str:
    buf = io.StringIO()
    writer = ExportWriter(engine, buf, fmt, with_reasons, process)
    for r in requests:
        writer.write(r)
    writer.close()
    return buf.getvalue()


class ExportWriter:
    """Writes export rows (`Rows.cells`) to a stream as they come (CSV with its header first,
    or JSON lines)."""

    def __init__(
        self,
        engine: Engine,
        out: TextIO,
        fmt: str,
        with_reasons: bool,
        process: str | None = None,
    ) -> None:
        self.out = out
        self.count = 0
        self._rows = Rows(engine, with_reasons, process)
        self._csv: Any = None  # a csv writer (its type is private to the csv module)
        self._line = io.StringIO()  # one row as the csv module quotes it
        if fmt != "json":
            self._csv = csv.writer(self._line, lineterminator="\r\n")
            self._csv.writerow(self._rows.columns)
            out.write(self._quoted())

    def write(self, r: Request) -> None:
        c = codec.compact(r)
        self.write_rows([self._rows.cells(c, prepared((r.id, "0", "2"), c))])

    def write_lines(self, lines: list[str]) -> None:
        """CSV lines as `iter_csv_pages` makes them (after the header this writer wrote)."""
        self.count += len(lines)
        self.out.write("".join(lines))

    def write_rows(self, rows: list[tuple[Any, ...]]) -> None:
        self.count += len(rows)
        if self._csv is None:
            columns = self._rows.columns
            lines = [orjson.dumps(dict(zip(columns, x, strict=True))).decode() for x in rows]
            self.out.write("".join([line + "\n" for line in lines]))
            return
        # Most rows need no quoting: such a row is its cells joined, as the csv module writes
        # it, at a third of the module's cost per row, and a cell with a comma (but no quote or
        # line break) is quoted as the module quotes it; a row with a quote or a line break in
        # a cell, or an empty cell (None), is left to the module.
        commas, out = len(self._rows.columns) - 1, []
        for x in rows:
            text = ",".join(map(str, x))
            if (
                '"' not in text
                and "\r" not in text
                and "\n" not in text
                and ("None" not in text or None not in x)
            ):
                if text.count(",") != commas:  # e.g. decided_by: "Ann Lee, Bo Li"
                    text = ",".join([f'"{v}"' if "," in v else v for v in map(str, x)])
                out.append(text + "\r\n")
            else:
                self._csv.writerow(x)
                out.append(self._quoted())
        self.out.write("".join(out))

    def _quoted(self) -> str:
        """The row the csv writer just wrote, taken from its buffer."""
        line = self._line.getvalue()
        self._line.seek(0)
        self._line.truncate()
        return line

    def close(self) -> None:
        self.out.flush()


TABLE_HEADER = f"{'REQUEST':<11} {'STATUS':<10} {'REQUESTER':<14} WHAT"


def table_line(engine: Engine, r: Request) -> str:
    return Lines(engine)(codec.compact(r))


class Lines:
    """`requests list`'s lines from requests in the compact layout; names, the descriptions
    of leave (a month repeats the same dates many times) and of expenses but for the amount
    are made once."""

    def __init__(self, engine: Engine) -> None:
        self.config = engine.config
        names = _Names(engine)
        # the status and requester columns, padded, formatted once per list
        self._statuses = _Made(lambda status: f"{status:<10} ")
        self._requesters = _Made(lambda person_id: f"{names[person_id]:<14} ")
        self._leave: dict[tuple[Any, ...], str] = {}
        self._expenses: dict[tuple[Any, ...], str] = {}

    def __call__(self, c: dict[str, Any], e: Entry | None = None) -> str:
        return self._line(c["i"], c["s"], c["r"], self.what(c))

    def kept_line(self, row: list[Any]) -> str:
        """The line of a month's kept row (bot/month_rows.py), as `__call__` makes it."""
        return self._line(row[0], row[2], row[4], row[6])

    def _line(self, request_id: str, status: str, requester: str, what: str) -> str:
        return f"{request_id:<11} {self._statuses[status]}{self._requesters[requester]}{what}"

    def what(self, c: dict[str, Any]) -> str:
        """The request's description (the line's last column)."""
        f = c["f"]
        if c["k"] == "leave":
            x = c.get("x", _NONE)
            key = (
                c["p"],
                f["leave_type"],
                f["start"],
                f["end"],
                f.get("start_half"),
                f.get("end_half"),
                x.get("working_days"),
            )
            what = self._leave.get(key) or self._leave_what(key, c)
        elif c["p"] == "expense":
            currency = f.get("currency")
            key = (currency, f.get("category", ""))
            sentence = self._expenses.get(key) or self._expense(key, f)
            what = sentence.replace(_AMOUNT, fmt_amount(f.get("amount", 0), currency), 1)
        else:
            what = what_of(c["k"], c["p"], f, c.get("x", _NONE), self.config, "en")
        return what

    def _leave_what(self, key: tuple[Any, ...], c: dict[str, Any]) -> str:
        found = self._leave[key] = what_of(
            c["k"], c["p"], c["f"], c.get("x", _NONE), self.config, "en"
        )
        return found

    def _expense(self, key: tuple[Any, ...], f: dict[str, Any]) -> str:
        """An expense's description per currency and category, made once with a stand-in
        where its amount goes (amounts rarely repeat)."""
        name = self.config.processes_by_key["expense"].display_name("en")
        found = self._expenses[key] = expense_what(name, f, _AMOUNT, "en")
        return found


# Where an expense's amount goes in its cached description (`Lines`): text no name holds.
_AMOUNT = "\x00"


def table(engine: Engine, requests: list[Request]) -> str:
    lines = [TABLE_HEADER, *(table_line(engine, r) for r in requests)]
    lines.append(f"({len(requests)} request{'s' if len(requests) != 1 else ''})")
    return "\n".join(lines)
