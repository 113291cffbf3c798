"""The fuzz suite drives the same end-to-end harnesses as the Slack and Feishu tests."""

from __future__ import annotations

from tests.feishu.conftest import feishu, feishu_plain  # noqa: F401 - fixtures
from tests.slack.conftest import slack  # noqa: F401 - fixture
