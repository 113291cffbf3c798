"""The organisation file: the demo loads, and every kind of mistake is named with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from workflow.config import load_config, parse_config
from workflow.errors import ConfigError

DEMO = (Path(__file__).parents[1] / "workflow" / "data" / "demo_org.toml").read_text("utf-8")


def test_demo_organisation_has_two_teams_two_countries_and_the_three_processes():
    """The shipped demo has about ten people in two teams, CN and GB, HR and finance, and the processes."""
    config = load_config()
    assert 8 <= len(config.people) <= 14
    assert {p.country for p in config.people} >= {"CN", "GB"}
    assert {p.timezone for p in config.people} >= {"Asia/Shanghai", "Europe/London"}
    assert {p.team for p in config.people} >= {"engineering", "sales"}
    assert {r for p in config.people for r in p.roles} >= {"hr", "finance"}
    assert set(config.processes_by_key) == {"leave", "expense", "business_trip"}
    assert {"annual", "sick", "personal", "unpaid"} <= set(config.leave_types_by_key)
    assert config.leave_types_by_key["unpaid"].allowance_for("CN") is None


def _broken(old: str, new: str) -> str:
    assert old in DEMO, old
    return DEMO.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('manager = "wangfang"', 'manager = "nobody"', "manager 'nobody'"),
        (
            'timezone = "Asia/Shanghai"',
            'timezone = "Mars/Olympus"',
            "Unknown timezone 'Mars/Olympus'",
        ),
        ('country = "CN"', 'country = "XX"', "Unknown country code 'XX'"),
        ('approver = "role:hr"', 'approver = "role:astronaut"', "nobody has the role 'astronaut'"),
        ('approver = "manager"', 'approver = "the boss"', "approver must be manager"),
        (
            '{ field = "amount", op = "gt", value = 1000 }',
            '{ field = "amount", op = "more", value = 1000 }',
            "op",
        ),
        (
            '{ field = "amount", op = "gt", value = 1000 }',
            '{ field = "price", op = "gt", value = 1000 }',
            "unknown field 'price'",
        ),
        (
            'email = "li.si@acme.example"',
            'email = "zhang.san@acme.example"',
            "email used by more than one person",
        ),
        ('title = "CEO"', 'title = "CEO"\nsalary = 1', "salary"),
    ],
)
def test_a_bad_value_is_named_with_its_key_and_line(old: str, new: str, expected: str):
    """A wrong value stops loading with a message naming what is wrong, its key path and its line."""
    text = _broken(old, new)
    with pytest.raises(ConfigError) as e:
        parse_config(text, "org.toml")
    message = str(e.value)
    assert message.startswith("org.toml")
    assert expected in message
    line = next(i for i, line_ in enumerate(text.splitlines(), 1) if new.splitlines()[-1] in line_)
    assert f"(line {line})" in message


def test_the_line_number_points_at_the_bad_key():
    """A bad manager is reported on the very line of that manager key."""
    text = _broken('manager = "emma"', 'manager = "ghost"')
    with pytest.raises(ConfigError) as e:
        parse_config(text, "org.toml")
    assert "manager 'ghost'" in str(e.value)
    bad_timezone = _broken('timezone = "Europe/London"', 'timezone = "Nowhere/City"')
    with pytest.raises(ConfigError) as e:
        parse_config(bad_timezone, "org.toml")
    line = next(i for i, t in enumerate(bad_timezone.splitlines(), 1) if "Nowhere/City" in t)
    assert "people[0].timezone" in str(e.value)
    assert f"(line {line})" in str(e.value)


def test_a_manager_loop_is_refused():
    """Managers that go round in a circle would make escalation loop forever, so they are refused."""
    text = _broken('title = "CEO"', 'title = "CEO"\nmanager = "zhangsan"')
    with pytest.raises(ConfigError, match="loop"):
        parse_config(text)


def test_toml_syntax_errors_name_the_line():
    """A TOML syntax error says the file is not valid TOML and where."""
    with pytest.raises(ConfigError, match=r"not valid TOML.*line 3"):
        parse_config('[organisation]\nid = "x"\nname = \n', "org.toml")


def test_an_unreadable_file_is_named(tmp_path: Path):
    """APPROVALS_CONFIG pointing nowhere names the path."""
    with pytest.raises(ConfigError, match="Cannot read APPROVALS_CONFIG"):
        load_config(tmp_path / "missing.toml")


def test_a_file_on_disk_loads(tmp_path: Path):
    """The same organisation written to a file loads like the built-in one."""
    path = tmp_path / "org.toml"
    path.write_text(DEMO, "utf-8")
    assert load_config(path).organisation.id == "acme"


def test_a_persons_platform_accounts_are_one_mapping():
    """`accounts = {slack = …, feishu = …}`; the older per-platform keys read into the same mapping."""
    from workflow.config import Person

    base = {"id": "x", "name": "X", "email": "x@acme.example", "timezone": "UTC", "country": "GB"}
    new = Person.model_validate({**base, "accounts": {"slack": "U1", "feishu": "ou_1"}})
    old = Person.model_validate({**base, "slack_user_id": "U1", "feishu_open_id": "ou_1"})
    assert new == old and new.accounts == {"slack": "U1", "feishu": "ou_1"}
    assert (old.account("slack"), old.feishu_open_id, old.account("teams")) == ("U1", "ou_1", None)
