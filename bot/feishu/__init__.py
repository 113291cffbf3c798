"""The Feishu / Lark adapter: events and card callbacks in, open-API messages and cards out.

- `platform.FeishuPlatform`: Feishu as a `bot.platform.Platform`, built from the settings
- `app.FeishuBot`: POST /feishu/events (url_verification, messages, card clicks)
- `delivery.FeishuDelivery`: the notifier's Feishu delivery
- `client.FeishuClient`: the open API over aiohttp (token, send, reply, PATCH a card)
- `cards`: the interactive cards; `crypto`: decryption and the signature check
- Feishu itself, for tests and the sandbox, lives in `bot.sandbox.standins.feishu` and `bot.sandbox.feishu_simulator`
"""

from bot.feishu.app import FeishuBot
from bot.feishu.client import FeishuClient
from bot.feishu.delivery import FeishuDelivery
from bot.feishu.errors import CallbackRejected, FeishuError, FeishuRateLimited, FeishuUnavailable

__all__ = [
    "CallbackRejected",
    "FeishuBot",
    "FeishuClient",
    "FeishuDelivery",
    "FeishuError",
    "FeishuRateLimited",
    "FeishuUnavailable",
]
