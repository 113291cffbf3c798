"""A generated organisation of thousands of people loads, and its mistakes are still named."""

from __future__ import annotations

import re

import pytest

from bench.scale_org import org_toml, people
from workflow.config import parse_config
from workflow.directory import Directory
from workflow.errors import ConfigError


@pytest.fixture(scope="module")
def big_toml() -> str:
    return org_toml(2_000)


def test_a_generated_organisation_of_two_thousand_people_loads(big_toml):
    """Thousands of people in a tree 5–6 deep, in CN, GB and the US, validate as one organisation."""
    config = parse_config(big_toml)
    d = Directory(config)
    assert len(d) == 2_000
    assert {p.country for p in d} == {"CN", "GB", "US"}
    deepest = max(len(d.managers_above(p.id)) for p in d)
    assert 5 <= deepest <= 6
    assert [p.id for p in d.with_role("hr")] == ["p00001"]
    lead = d.get("p01999").manager
    assert all(p.manager == lead for p in d.team_members(d.team_of("p01999")))


def test_a_manager_loop_deep_in_a_big_organisation_is_named(big_toml):
    """A team lead made to report to one of their own reports is named in the error."""
    rows = people(2_000)
    lead = rows[500]
    report = next(r["id"] for r in rows if r.get("manager") == lead["id"])
    own = f'id = "{lead["id"]}"'
    start = big_toml.index(own)
    block_end = big_toml.index("[[people]]", start)
    block = re.sub(r'manager = "[^"]+"', f'manager = "{report}"', big_toml[start:block_end])
    with pytest.raises(ConfigError, match="form a loop"):
        parse_config(big_toml[:start] + block + big_toml[block_end:])


def test_duplicate_emails_and_ids_are_listed_once_each(big_toml):
    """Two people sharing an email, and a repeated id, are named in the error."""
    dup_email = big_toml.replace('email = "p00777@scale.example"', 'email = "p00778@scale.example"')
    with pytest.raises(ConfigError, match=r"email used by more than one person: \['p00778@scale"):
        parse_config(dup_email)
    dup_id = big_toml.replace('id = "p00999"', 'id = "p00998"')
    with pytest.raises(ConfigError, match=r"duplicate person ids: \['p00998'\]"):
        parse_config(dup_id)
