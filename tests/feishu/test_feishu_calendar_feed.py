"""Feishu's team calendar link: the bot menu sends a card with the link; its buttons turn it off and make a new one."""

from __future__ import annotations

import json

import pytest

from bot.conversation import buttons
from bot.feishu.app import FEED_MENU_KEY
from tests.feishu.harness import FeishuHarness
from workflow.feed import FeedTokens


def token_in(card: dict) -> str:
    shown = json.dumps(card, ensure_ascii=False)
    return shown.split("/calendar/", 1)[1].split(".ics", 1)[0]


@pytest.mark.parametrize(
    ("open_id", "person", "made", "off"),
    [
        ("ou_emma", "emma", "Your team calendar link", "Your team calendar link is turned off"),
        ("ou_zhangsan", "zhangsan", "你的团队日历链接", "你的团队日历链接已停用"),
    ],
)
async def test_the_menu_sends_a_link_its_button_turns_it_off_and_a_new_one_works(
    feishu: FeishuHarness, open_id: str, person: str, made: str, off: str
):
    """Menu → a card with a live link; [Turn off] kills it at once; [New calendar link] makes another."""
    h = feishu
    tokens = FeedTokens(h.engine.store, h.engine.keys)
    resp = await h.sim.menu(open_id, FEED_MENU_KEY)
    assert resp.status == 200
    await h.settle()
    [msg] = h.with_button(open_id, buttons.FEED_REVOKE)
    assert made in json.dumps(msg.card, ensure_ascii=False)
    first = token_in(msg.card)
    assert await tokens.person_of(first) == person

    _, answer = await h.sim.click(open_id, msg.message_id, buttons.FEED_REVOKE)
    assert answer["toast"]["type"] == "success" and off in answer["toast"]["content"]
    assert await tokens.person_of(first) is None
    card = json.dumps(h.standin.message(msg.message_id).card, ensure_ascii=False)
    assert off in card and "/calendar/" not in card  # the dead link is gone from the card

    _, answer = await h.sim.click(open_id, msg.message_id, buttons.FEED_CREATE)
    assert answer["toast"]["type"] == "success"
    second = token_in(h.standin.message(msg.message_id).card)
    assert second != first and await tokens.person_of(second) == person
