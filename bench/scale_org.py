"""A generated organisation of any size: a manager tree 5–6 deep, people in CN, GB and US.

    python bench/scale_org.py --people 10000 > /tmp/org.toml

Used by bench/scale_bench.py and the tests that check loading 10,000 people stays fast.
The processes and leave types are the demo organisation's; every person has a Slack id,
a Feishu open id and a unique email, so the identity indexes are exercised too.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from importlib import resources

from workflow.config import OrgConfig, load_config

# (country, subdivision, timezone, locale)
PLACES = [
    ("CN", None, "Asia/Shanghai", "zh"),
    ("GB", "ENG", "Europe/London", "en"),
    ("US", "CA", "America/Los_Angeles", "en"),
    ("US", "NY", "America/New_York", "en"),
]
# reports per manager at each level below the CEO: 8 VPs, 6 directors each, 6 managers, 5 leads
FANOUT = (8, 6, 6, 5)
FIRST = ["Alex", "Bo", "Chen", "Dana", "Eli", "Fang", "Grace", "Hui", "Ivan", "Jing", "Kai", "Lea"]
LAST = ["Smith", "Wang", "Li", "Jones", "Garcia", "Zhang", "Brown", "Liu", "Patel", "Zhao"]


def person_id(n: int) -> str:
    return f"p{n:05d}"


def people(count: int, seed: int = 16) -> list[dict[str, object]]:
    """`count` people in a tree: CEO, VPs, directors, managers, team leads, then individual contributors."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []

    def add(manager: str | None, team: str, roles: tuple[str, ...] = ()) -> str:
        n = len(rows)
        pid = person_id(n)
        country, sub, tz, locale = PLACES[n % len(PLACES)]
        row: dict[str, object] = {
            "id": pid,
            "name": f"{rng.choice(FIRST)} {rng.choice(LAST)} {n}",
            "email": f"{pid}@scale.example",
            "team": team,
            "timezone": tz,
            "country": country,
            "locale": locale,
            "slack_user_id": f"U{n:07d}",
            "feishu_open_id": f"ou_{n:07d}",
        }
        if sub:
            row["subdivision"] = sub
        if manager:
            row["manager"] = manager
        if roles:
            row["roles"] = list(roles)
        rows.append(row)
        return pid

    ceo = add(None, "leadership")
    add(ceo, "people-ops", ("hr",))
    add(ceo, "finance", ("finance",))
    level = [ceo]
    for fanout in FANOUT:
        nxt = []
        for boss in level:
            for _ in range(fanout):
                if len(rows) >= count:
                    return rows
                nxt.append(add(boss, f"team-{boss}"))
        level = nxt
    leads = level
    i = 0
    while len(rows) < count:  # individual contributors, spread over the team leads
        lead = leads[i % len(leads)]
        add(lead, f"team-{lead}")
        i += 1
    return rows


def org_config(count: int, org_id: str = "scale", seed: int = 16) -> OrgConfig:
    """The organisation as a validated OrgConfig, built without writing TOML (for tests and benches)."""
    demo = load_config()
    data = demo.model_dump(mode="json", exclude={"people", "organisation"})
    data["organisation"] = {"id": org_id, "name": "Scale Test Inc"}
    data["people"] = people(count, seed)
    return OrgConfig.model_validate(data)


def _toml_value(v: object) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def rest_of_demo() -> str:
    """The demo organisation's policy, leave types and processes (everything but its people)."""
    text = resources.files("workflow.data").joinpath("demo_org.toml").read_text("utf-8")
    text = re.sub(r"\[\[people\]\].*?(?=\n\[\[(?!people))", "", text, flags=re.S)
    return re.sub(r"\[organisation\][^\[]*", "", text)


def org_toml(count: int, org_id: str = "scale", seed: int = 16) -> str:
    """The whole organisation file for `count` generated people."""
    out = [f'[organisation]\nid = "{org_id}"\nname = "Scale Test Inc"\n', rest_of_demo()]
    for row in people(count, seed):
        out.append("\n[[people]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in row.items()))
    return "".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--org", default="scale")
    args = parser.parse_args()
    sys.stdout.write(org_toml(args.people, args.org))
