"""The Feishu open-API stand-in: `server.FeishuStandIn`, the tenant it keeps in `state`."""

from bot.sandbox.standins.feishu.server import FeishuStandIn
from bot.sandbox.standins.feishu.state import FeishuFault, StoredMessage

__all__ = ["FeishuFault", "FeishuStandIn", "StoredMessage"]
