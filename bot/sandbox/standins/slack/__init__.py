"""The Slack Web API stand-in: `server.SlackStandIn`, the workspace it keeps in `state`."""

from bot.sandbox.standins.slack.server import SlackStandIn, StandInError

__all__ = ["SlackStandIn", "StandInError"]
