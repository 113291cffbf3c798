"""`approvals-bot directory sync`: people from Slack, Feishu or an HRIS CSV, all or nothing.

Each source is read the way the product reads it (the real slack_sdk client against the
Slack stand-in, HTTP against the Feishu stand-in, a CSV file); the people are checked
against the organisation file and stored in Redis in one step, or not at all.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from importlib import resources

import pytest
import redis

from bot import admin
from bot.cli import main
from bot.directory_sources import from_feishu, from_slack, read_csv
from bot.sandbox.standins.feishu import FeishuStandIn
from bot.sandbox.standins.slack.server import SlackStandIn
from tests.conftest import real_redis_url
from workflow.config import OrgConfig, PersonOverride
from workflow.directory import Directory
from workflow.directory_sync import DirectorySyncError, load, merged
from workflow.errors import ConfigError
from workflow.keys import OrgKeys

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
HR_CSV = """email,name,manager_email,team,timezone,country,roles
ceo@corp.example,Ada Chief,,leadership,Europe/London,GB,
hr@corp.example,Hana Roe,ceo@corp.example,people,Europe/London,GB,hr
finance@corp.example,Fin Lee,ceo@corp.example,finance,Asia/Shanghai,CN,finance
lead@corp.example,Lin Lead,ceo@corp.example,eng,Asia/Shanghai,,
dev@corp.example,Dev One,lead@corp.example,eng,Asia/Shanghai,,
"""


def synced_config(config: OrgConfig, finance: str | None = None) -> OrgConfig:
    """The demo organisation's processes with a file that lists only its HR person, and an
    override naming the synced person (by email) who holds the finance role."""
    hr = next(p for p in config.people if "hr" in p.roles)
    overrides = (PersonOverride(email=finance, roles=("finance",)),) if finance else ()
    return config.model_copy(
        update={"people": (hr.model_copy(update={"manager": None}),), "overrides": overrides}
    )


async def sync(redis, config, rows, *, dry_run=False):
    return await admin.directory_sync(
        redis,
        config,
        rows,
        source="test",
        default_timezone="UTC",
        default_country=None,
        dry_run=dry_run,
        now=NOW,
    )


async def test_a_csv_export_fills_the_directory_and_a_dry_run_writes_nothing(redis, config):
    """The dry run lists who would be added and stores nobody; the sync stores them, with
    managers by email, a country from the time zone, and roles from the file."""
    config = synced_config(config)
    rows = read_csv(HR_CSV, "hris.csv")
    plan = await sync(redis, config, rows, dry_run=True)
    assert plan.added == ["ceo", "dev", "finance", "hr", "lead"] and not plan.removed
    assert await load(redis, OrgKeys(config.organisation.id)) == []

    await sync(redis, config, rows)
    people = await load(redis, OrgKeys(config.organisation.id))
    d = Directory(merged(config, people))
    assert [m.id for m in d.managers_above("dev")] == ["lead", "ceo"]
    assert d.get("lead").country == "CN" and d.get("lead").locale == "zh"
    assert [p.id for p in d.with_role("finance")] == ["finance"]

    again = await sync(redis, config, read_csv(HR_CSV.replace("Dev One", "Dev Uno"), "hris.csv"))
    assert again.changed == {"dev": ["name"]} and not again.added


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            (
                "lead@corp.example,Lin Lead,ceo@corp.example",
                "lead@corp.example,Lin Lead,dev@corp.example",
            ),
            "hris.csv row 5, hris.csv row 6: the managers of 'lead' form a loop through 'lead': "
            "'lead' → 'dev' → 'lead'",
        ),
        (
            (
                "dev@corp.example,Dev One,lead@corp.example",
                "dev@corp.example,Dev One,boss@corp.example",
            ),
            "hris.csv row 6: manager 'boss@corp.example' matches nobody in the source",
        ),
        (
            ("finance@corp.example,Fin Lee", "hr@corp.example,Fin Lee"),
            "hris.csv row 4: email hr@corp.example is also used by hris.csv row 3",
        ),
    ],
    ids=["manager loop", "missing manager", "email twice"],
)
async def test_a_bad_row_is_named_and_nothing_is_written(redis, config, edit, expected):
    """A manager loop, an unknown manager or a repeated email names its rows; the directory
    already stored stays exactly as it was."""
    config = synced_config(config)
    await sync(redis, config, read_csv(HR_CSV, "hris.csv"))
    before = await load(redis, OrgKeys(config.organisation.id))
    with pytest.raises(DirectorySyncError) as e:
        await sync(redis, config, read_csv(HR_CSV.replace(*edit), "hris.csv"))
    assert expected in str(e.value)
    assert await load(redis, OrgKeys(config.organisation.id)) == before


async def test_an_override_whose_email_matches_nobody_stops_the_sync(redis, config):
    """The file's `[[overrides]]` must each name someone; an email matching nobody is refused."""
    config = synced_config(config).model_copy(
        update={"overrides": (PersonOverride(email="ghost@corp.example", roles=("finance",)),)}
    )
    with pytest.raises(ConfigError, match=r"email ghost@corp\.example matches nobody"):
        await sync(redis, config, read_csv(HR_CSV, "hris.csv"))
    assert await load(redis, OrgKeys(config.organisation.id)) == []
    fixed = config.model_copy(
        update={"overrides": (PersonOverride(email="DEV@corp.example", roles=("finance",)),)}
    )
    await sync(redis, fixed, read_csv(HR_CSV, "hris.csv"))
    d = Directory(merged(fixed, await load(redis, OrgKeys(config.organisation.id))))
    assert d.get("dev").roles == ("finance",)


async def test_slack_users_list_fills_the_directory_with_managers_from_a_profile_field(
    redis, config
):
    """Every Slack member with an email is read from users.list, a page at a time, with the
    manager from a custom profile field; the bot and people without email stay out."""
    config = synced_config(config, finance="user7@corp.example")
    async with SlackStandIn() as slack:
        ws = slack.workspace
        ws.add_user("U0CEO", "ada", "Ada Chief", "ceo@corp.example", "Europe/London")
        for n in range(250):  # more than one page of users.list
            ws.add_user(
                f"U{n:04d}",
                f"user{n}",
                f"User {n}",
                f"user{n}@corp.example",
                "America/New_York",
                profile_fields={"Xf0MANAGER": "U0CEO"},
            )
        ws.add_user("U0GUEST", "guest", "Guest", None, "UTC")
        rows = await from_slack("xoxb-test", base_url=slack.api_url, manager_field="Xf0MANAGER")
    assert len(rows) == 252
    with pytest.raises(DirectorySyncError, match="Slack user U0GUEST: no email"):
        await sync(redis, config, rows)
    rows = [r for r in rows if r.email]
    await sync(redis, config, rows)
    d = Directory(merged(config, await load(redis, OrgKeys(config.organisation.id))))
    assert d.by_slack_id("U0042").manager == "ceo"
    assert d.get("user42").country == "US" and d.get("user42").timezone == "America/New_York"


async def test_feishu_contacts_fill_the_directory_with_departments_and_leaders(redis, config):
    """Feishu's contact API gives departments (their name is the team), leaders as managers,
    open ids and emails; a department head reports to the leader of the department above."""
    config = synced_config(config, finance="dev3@corp.example")
    async with FeishuStandIn() as feishu:
        t = feishu.tenant
        t.add_department("od_eng", "Engineering", leader="ou_cto")
        t.add_department("od_web", "Web", parent="od_eng", leader="ou_weblead")
        t.add_contact("ou_ceo", "陈总", "ceo@corp.example", ("0",))
        t.add_contact("ou_cto", "王工", "cto@corp.example", ("od_eng",), leader="ou_ceo")
        t.add_contact("ou_weblead", "李组长", "web.lead@corp.example", ("od_web",))
        for n in range(60):  # more than one page of find_by_department
            t.add_contact(f"ou_dev{n}", f"开发{n}", f"dev{n}@corp.example", ("od_web",))
        rows = await from_feishu(feishu.base_url, feishu.app_id, feishu.app_secret)
    assert len(rows) == 63
    for row in rows:
        row.timezone = "Asia/Shanghai"
    await sync(redis, config, rows)
    d = Directory(merged(config, await load(redis, OrgKeys(config.organisation.id))))
    dev = d.by_feishu_id("ou_dev7")
    assert [m.id for m in d.managers_above(dev.id)] == ["web.lead", "cto", "ceo"]
    assert dev.team == "Web" and dev.country == "CN" and dev.locale == "zh"


async def test_feishu_department_names_in_each_language_reach_each_reader(redis, config):
    """A department's i18n names are kept: a Chinese reader reads "研发部", an English one
    "Engineering" (an empty zh_cn: the department's own name in Chinese); a job title, one string in Feishu, is kept as written for both."""
    config = synced_config(config, finance="dev@corp.example")
    names = {"zh_cn": "研发部", "en_us": "Engineering"}
    async with FeishuStandIn() as feishu:
        t = feishu.tenant
        t.add_department("od_eng", "研发部", leader="ou_cto", i18n_name=names)
        t.add_department("od_ops", "Ops", leader="ou_cto")  # no names per language
        rnd = {"zh_cn": "", "en_us": "R&D"}  # an empty zh_cn, as Feishu often gives it
        t.add_department("od_rnd", "研发二部", leader="ou_cto", i18n_name=rnd)
        t.add_contact("ou_cto", "王工", "cto@corp.example", ("od_eng",), job_title="CTO")
        t.add_contact("ou_dev", "开发", "dev@corp.example", ("od_eng",), job_title="工程师")
        t.add_contact("ou_ops", "运维", "ops@corp.example", ("od_ops",))
        t.add_contact("ou_rnd", "研发", "rnd@corp.example", ("od_rnd",))
        rows = await from_feishu(feishu.base_url, feishu.app_id, feishu.app_secret)
    for row in rows:
        row.timezone = "Asia/Shanghai"
    await sync(redis, config, rows)
    d = Directory(merged(config, await load(redis, OrgKeys(config.organisation.id))))
    dev, ops = d.by_feishu_id("ou_dev"), d.by_feishu_id("ou_ops")
    assert dev.team == "研发部"  # the key: the department's own name, as before
    assert (dev.team_in("zh"), dev.team_in("en")) == ("研发部", "Engineering")
    assert (ops.team_in("zh"), ops.team_in("en")) == ("Ops", "Ops")
    rnd = d.by_feishu_id("ou_rnd")  # not "R&D" to a Chinese reader
    assert (rnd.team_in("zh"), rnd.team_in("en")) == ("研发二部", "R&D")
    assert dev.title_in("en") == dev.title_in("zh") == "工程师"


def test_a_csv_carries_titles_and_team_names_per_language():
    """An HRIS export's title_zh, team_name and team_name_zh columns reach the row."""
    [row] = read_csv(
        "email,name,team,team_name,team_name_zh,title,title_zh\n"
        "dev@corp.example,Dev One,eng,Engineering,研发部,Software Engineer,软件工程师\n"
    )
    assert (row.team, row.team_name, row.team_name_zh) == ("eng", "Engineering", "研发部")
    assert (row.title, row.title_zh) == ("Software Engineer", "软件工程师")


def test_the_command_line_syncs_a_csv_and_people_lists_the_synced_directory(
    tmp_path, monkeypatch, capsys
):
    """`directory sync --from csv --dry-run` prints the plan and writes nothing; without
    --dry-run the people are stored, and `people --json` lists them with the file's own."""
    url = real_redis_url()
    org = "t" + secrets.token_hex(6)
    demo = resources.files("workflow.data").joinpath("demo_org.toml").read_text("utf-8")
    config = tmp_path / "org.toml"
    config.write_text(demo.replace('id = "acme"', f'id = "{org}"', 1), "utf-8")
    export = tmp_path / "hris.csv"
    export.write_text(HR_CSV, "utf-8")
    monkeypatch.setenv("APPROVALS_CONFIG", str(config))
    monkeypatch.setenv("REDIS_URL", url)
    try:
        sync = ["directory", "sync", "--from", "csv", "--file", str(export)]
        assert main([*sync, "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "5 to add, 0 to remove, 0 to change" in out and "dry run: nothing written" in out
        assert main(["people", "--json"]) == 0
        assert "dev@corp.example" not in capsys.readouterr().out
        assert main(sync) == 0
        capsys.readouterr()
        assert main(["people", "--json"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        by_id = {r["id"]: r for r in rows}
        assert by_id["dev"]["manager"] == "lead" and "zhangsan" in by_id
        bad = tmp_path / "bad.csv"
        bad.write_text(HR_CSV.replace("lead@corp.example,eng", "nobody@corp.example,eng"), "utf-8")
        assert main(["directory", "sync", "--from", "csv", "--file", str(bad)]) == 2
        assert "matches nobody in the source" in capsys.readouterr().err
    finally:
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(match="{" + org + "}:*", count=500):
            client.delete(key)
        client.close()
