"""The contract suite's own checks catch what they are for: a second language, a time with no zone."""

from __future__ import annotations

from tests.contract.checks import other_language, unzoned_times, words

NAMES = ["王芳", "David Chen"]
ZONES = ["London time", "北京时间", "UTC"]


def test_an_english_reader_message_with_chinese_labels_fails():
    assert other_language("Approved by 王芳", "en", NAMES) == []
    assert other_language("Reason: 家里有事", "en", [*NAMES, "家里有事"]) == []
    assert other_language("*类型* Annual leave", "en", NAMES) == ["类", "型"]


def test_a_chinese_reader_message_with_english_labels_or_buttons_fails():
    ok = ":tada: *David Chen 已于 12月2日 周三 17:00（北京时间）批准* · R-4YN9BBT3 · 800 GBP"
    assert other_language(ok, "zh", NAMES) == []
    assert other_language("请假申请\nSubmit\n取消", "zh", NAMES) == ["Submit"]
    assert other_language("*Type* 年假", "zh", NAMES) == ["Type"]


def test_a_clock_time_needs_its_zone():
    assert unzoned_times("submitted Wed 2 Dec, 07:57 (London time)", ZONES) == []
    assert unzoned_times("王芳 已于 12月2日 周三 15:57（北京时间）批准", ZONES) == []
    assert unzoned_times("at 15:57 UTC+08:00", ZONES) == []
    assert unzoned_times("<!date^1796165069^{time}|07:57>", ZONES) == []
    [bad] = unzoned_times("submitted 07:57, approved 15:58 (London time)", ZONES)
    assert "07:57" in bad


def test_words_are_what_a_reader_reads_not_ids_or_types():
    blocks = [
        {"type": "section", "text": {"type": "mrkdwn", "text": "已批准"}},
        {
            "type": "actions",
            "elements": [
                {
                    "action_id": "request_approve",
                    "value": "R-1:0",
                    "text": {"type": "plain_text", "text": "批准"},
                }
            ],
        },
    ]
    assert words(blocks) == ["已批准", "批准"]
    card = {"header": {"title": {"tag": "plain_text", "content": "请假申请"}, "template": "blue"}}
    assert words(card) == ["请假申请"]
